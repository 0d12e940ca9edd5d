//! Per-game heuristics: the only game-specific knowledge the bots have.

use arena_core::games::{Game, Outcome, Seat};

/// A static evaluation of non-terminal positions, on top of the rules.
///
/// Implementations must be zero-sum: `evaluate(s, 0) == -evaluate(s, 1)`.
/// The searches rely on it to score a position for either side with one call.
/// Units are free, but keep them well inside `±alphabeta::WIN / 10`.
pub trait Evaluate: Game {
    /// How good `state` (not over) looks for `seat`; positive is good.
    fn evaluate(&self, state: &Self::State, seat: Seat) -> i32;

    /// MCTS turns an evaluation `v` into a win chance `1 / (1 + e^(-v/scale))`
    /// when it cuts a playout short.
    fn eval_scale(&self) -> f64 {
        400.0
    }

    /// The default length cap of an MCTS random playout (`None`: play on to
    /// the end of the game). Long games use a cap plus [`Evaluate::evaluate`].
    fn playout_cap(&self) -> Option<u32> {
        None
    }
}

/// A finished game's result for `seat`: 1 win, 0.5 draw, 0 loss.
pub fn result_for(outcome: &Outcome, seat: Seat) -> f64 {
    match outcome.winner {
        Some(w) if w == seat => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}
