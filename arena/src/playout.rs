//! Random playouts over any [`Game`]: the engines' throughput benchmark and a
//! driver for property tests. Pure apart from the caller's clock.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::games::{Game, Outcome};

/// Plays one game from `state` with uniformly random legal moves, reusing
/// `buf` for move lists. Returns the number of moves made and the outcome.
pub fn random_playout<G: Game>(
    game: &G,
    state: &mut G::State,
    rng: &mut impl Rng,
    buf: &mut Vec<G::Move>,
) -> (u64, Outcome) {
    let mut moves = 0;
    loop {
        game.legal_moves(state, buf);
        if buf.is_empty() {
            let outcome = game
                .outcome(state)
                .expect("a state with no legal move is terminal");
            return (moves, outcome);
        }
        let mv = &buf[rng.random_range(0..buf.len())];
        game.apply(state, mv);
        moves += 1;
    }
}

/// Totals from [`playouts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutTotals {
    pub games: u64,
    pub moves: u64,
    pub wins: [u64; 2],
    pub draws: u64,
}

/// Plays `games` random games from the initial state, seeded.
pub fn playouts<G: Game>(game: &G, games: u64, seed: u64) -> PlayoutTotals {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut buf = Vec::new();
    let mut totals = PlayoutTotals::default();
    for _ in 0..games {
        let mut state = game.initial_state();
        let (moves, outcome) = random_playout(game, &mut state, &mut rng, &mut buf);
        totals.games += 1;
        totals.moves += moves;
        match outcome.winner {
            Some(seat) => totals.wins[seat] += 1,
            None => totals.draws += 1,
        }
    }
    totals
}
