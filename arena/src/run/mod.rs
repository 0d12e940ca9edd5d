//! Runs: from a config (or `arena match`'s options) to the records of every
//! game of its schedule.
//!
//! - [`settings`]: the checks every way in (config, `arena match`'s flags,
//!   the ladder) makes, written once;
//! - [`config`]: tournament configs, read into those checks and normalized;
//! - [`schedule`]: the seeded schedule, shards, random openings;
//! - [`runner`]: plays a schedule on concurrent lanes into a run directory
//!   (resume, stop rules, live standings), through a [`runner::Player`];
//! - [`referee_player`]: the referee as that player;
//! - [`matchplay`]: `arena match`, a small schedule on the same machinery;
//! - [`resume`]: a run directory's records checked before `--resume` and
//!   `arena merge` trust them;
//! - [`stop`]: stop rules, and the plan the journal writer asks;
//! - [`merge`]: shards' runs made into one;
//! - `progress`: what a run shows on stderr while it plays.

pub mod conditions;
pub mod config;
pub mod distinct;
pub mod matchplay;
pub mod merge;
pub mod openings;
mod progress;
pub mod referee_player;
pub mod resume;
pub mod runner;
pub mod schedule;
pub mod settings;
pub mod stop;

pub use progress::ProgressMode;
pub use referee_player::RefereePlayer;
pub use runner::{
    run, run_with, Hooks, Player, PlayerError, RunOptions, Summary, TournamentError, DEAD_BOT_GAMES,
};
