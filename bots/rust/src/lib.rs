#![warn(missing_docs)]
//! Reference bots for arena, generic over [`arena_core::games::Game`].
//!
//! The search code never knows which game it plays: it sees positions only
//! through the `Game` trait (legal moves, apply, outcome, `to_move`) plus a
//! per-game heuristic ([`eval::Evaluate`]). The protocol loop
//! ([`protocol`]) picks the game from the referee's `newgame` line and hands
//! each decision to an [`algo::Algorithm`]: [`random::RandomBot`],
//! [`greedy::Greedy`], [`alphabeta::AlphaBeta`] or [`mcts::Mcts`].
//!
//! Every bot is deterministic given its seed (combined with the game's seed
//! and seat) and a fixed search limit; without one it manages its clock.

pub mod algo;
pub mod alphabeta;
pub mod cli;
pub mod dakon;
pub mod duel;
pub mod eval;
pub mod greedy;
pub mod latrunculi;
pub mod limits;
pub mod mcts;
pub mod protocol;
pub mod random;
