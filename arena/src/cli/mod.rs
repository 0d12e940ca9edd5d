//! The `arena` binary's commands, one module per group, so that each can be
//! added to `main.rs` with one enum variant and one match arm.

pub mod bot_seat;
pub mod pipe;
pub mod report;
