//! One-ply lookahead: play the move whose resulting position evaluates best
//! for the mover (a win beats everything, a loss is avoided), ties broken at
//! random.

use rand::RngExt;

use crate::algo::{Algorithm, Ctx};
use crate::alphabeta::WIN;
use crate::eval::Evaluate;

/// Plays the move whose resulting position evaluates best for the mover
/// (`arena-greedy`).
#[derive(Clone, Debug, Default)]
pub struct Greedy;

impl Algorithm for Greedy {
    fn describe(&self) -> String {
        "arena-greedy one-ply".into()
    }

    fn choose<G: Evaluate>(
        &mut self,
        game: &G,
        state: &G::State,
        legal: &[G::Move],
        ctx: &mut Ctx,
    ) -> G::Move {
        let me = game.to_move(state);
        let mut best = i32::MIN;
        let mut ties: Vec<usize> = Vec::new();
        for (i, mv) in legal.iter().enumerate() {
            let mut child = state.clone();
            game.apply(&mut child, mv);
            let v = match game.outcome(&child) {
                Some(o) => match o.winner {
                    Some(w) if w == me => WIN,
                    Some(_) => -WIN,
                    None => 0,
                },
                None => game.evaluate(&child, me),
            };
            if v > best {
                best = v;
                ties.clear();
            }
            if v == best {
                ties.push(i);
            }
        }
        let pick = ties[ctx.rng.random_range(0..ties.len())];
        ctx.info
            .push(format!("depth 1 score {best} nodes {}", legal.len()));
        legal[pick].clone()
    }
}
