//! The ladder behind `arena serve`: uploads -> builds -> schedule -> leases -> verified
//! records -> ratings -> pages, on one database (SQLite or PostgreSQL).
//!
//! It is a crate of its own because it brings an HTTP server and a database driver that
//! the referee and the tournament harness never need; it builds on `arena` (the referee,
//! the sandbox, configs, ratings) and never the other way round. The `arena` binary hands
//! `arena serve` and `arena ladder ...` to the `arena-ladder` binary beside it, the way
//! cargo and git run their external subcommands.
#![warn(missing_docs)]

pub mod api;
pub mod app;
pub mod archive;
pub mod authors;
pub mod builder;
pub mod config;
pub mod db;
pub mod games;
pub mod matchmaking;
pub mod play;
pub mod ratings;
pub mod standing;
pub mod token;
