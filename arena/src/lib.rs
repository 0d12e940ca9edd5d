#![warn(missing_docs)]
//! arena: a referee and tournament harness for bot-versus-bot Dakon and
//! Ludus latrunculorum.
//!
//! Data flows one way: config -> schedule -> matches (referee + bots) ->
//! game records -> ratings -> reports.

pub mod display;
pub mod lanes;
// The bot-process machinery is its own crate (arena/process): it stands
// alone, on the protocol and records of arena-core.
pub use arena_process as process;
pub use arena_rating as rating;
pub mod referee;
pub mod report;
pub mod run;
pub mod settings;
pub mod standings;
pub mod store;
pub mod tools;
