//! The reference search of `arena openings --balanced`: plain fixed-depth
//! minimax with alpha-beta pruning over any [`Game`], evaluated by
//! [`Game::material`]. Deliberately simple and fully deterministic (no move
//! ordering heuristics, no time limit), so that the same position always
//! gets the same value and the criterion a suite was made with can be
//! stated in one sentence.

use crate::games::{Game, Outcome};

/// The value of a won game (before the plies it took are subtracted).
pub const WIN: i32 = 1_000_000;

/// The value of `state` for seat 0 after a full-width search of `depth`
/// plies (every move counts one ply, Dakon's bonus moves included; the seat
/// to move comes from [`Game::to_move`] at every node): a finished game is
/// `WIN - ply` for a win of seat 0, its negation for a loss, 0 for a draw;
/// a position at the depth limit is seat 0's material less seat 1's.
pub fn reference_value<G: Game>(game: &G, state: &G::State, depth: u32) -> i32 {
    let mut moves = Vec::with_capacity(depth as usize + 1);
    minimax(game, state, depth, 0, -WIN - 1, WIN + 1, &mut moves)
}

fn terminal(outcome: &Outcome, ply: u32) -> i32 {
    match outcome.winner {
        Some(0) => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
        None => 0,
    }
}

/// Alpha-beta from seat 0's view: seat 0 maximises, seat 1 minimises.
/// `buffers[ply]` holds the move list of that ply (reused between siblings).
fn minimax<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    ply: u32,
    mut alpha: i32,
    mut beta: i32,
    buffers: &mut Vec<Vec<G::Move>>,
) -> i32 {
    if let Some(outcome) = game.outcome(state) {
        return terminal(&outcome, ply);
    }
    if depth == 0 {
        let m = game.material(state);
        return m[0] - m[1];
    }
    let p = ply as usize;
    if buffers.len() <= p {
        buffers.resize_with(p + 1, Vec::new);
    }
    let mut moves = std::mem::take(&mut buffers[p]);
    game.legal_moves(state, &mut moves);
    let maximise = game.to_move(state) == 0;
    let mut best = if maximise { -WIN - 1 } else { WIN + 1 };
    for mv in &moves {
        let mut next = state.clone();
        game.apply(&mut next, mv);
        let v = minimax(game, &next, depth - 1, ply + 1, alpha, beta, buffers);
        if maximise {
            best = best.max(v);
            alpha = alpha.max(v);
        } else {
            best = best.min(v);
            beta = beta.min(v);
        }
        if alpha >= beta {
            break;
        }
    }
    buffers[p] = moves;
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dakon::Dakon;
    use crate::games::Game;

    /// Plain minimax without pruning: alpha-beta must give the same value.
    fn full<G: Game>(game: &G, state: &G::State, depth: u32, ply: u32) -> i32 {
        if let Some(o) = game.outcome(state) {
            return terminal(&o, ply);
        }
        if depth == 0 {
            let m = game.material(state);
            return m[0] - m[1];
        }
        let mut moves = Vec::new();
        game.legal_moves(state, &mut moves);
        let values = moves.iter().map(|mv| {
            let mut next = state.clone();
            game.apply(&mut next, mv);
            full(game, &next, depth - 1, ply + 1)
        });
        if game.to_move(state) == 0 {
            values.max().unwrap()
        } else {
            values.min().unwrap()
        }
    }

    #[test]
    fn pruning_does_not_change_the_value() {
        let game = Dakon::from_params(&[("holes".into(), "4".into())]).unwrap();
        let mut state = game.initial_state();
        let mut moves = Vec::new();
        for step in 0..6 {
            for depth in 0..5 {
                assert_eq!(
                    reference_value(&game, &state, depth),
                    full(&game, &state, depth, 0),
                    "step {step} depth {depth}"
                );
            }
            game.legal_moves(&state, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[step % moves.len()];
            game.apply(&mut state, &mv);
        }
        // Depth 0 is the material: the stores after those moves.
        let m = game.material(&state);
        assert_eq!(reference_value(&game, &state, 0), m[0] - m[1]);
    }
}
