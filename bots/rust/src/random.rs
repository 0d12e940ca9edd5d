//! Uniformly random legal moves: the baseline every other bot must beat.

use rand::RngExt;

use crate::algo::{Algorithm, Ctx};
use crate::eval::Evaluate;

/// Plays a uniformly random legal move (`arena-random`): the baseline.
#[derive(Clone, Debug, Default)]
pub struct RandomBot;

impl Algorithm for RandomBot {
    fn describe(&self) -> String {
        "arena-random".into()
    }

    fn choose<G: Evaluate>(
        &mut self,
        _game: &G,
        _state: &G::State,
        legal: &[G::Move],
        ctx: &mut Ctx,
    ) -> G::Move {
        let i = ctx.rng.random_range(0..legal.len());
        ctx.info
            .push(format!("random choice {} of {}", i + 1, legal.len()));
        legal[i].clone()
    }
}
