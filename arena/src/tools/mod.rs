//! Tools around the referee: `arena check-bot` ([`check_bot`]), `arena
//! bench` ([`mod@bench`]), `arena slurm` ([`slurm`]) and terminal play
//! ([`play`], with a bot through [`bot_seat`]).

pub mod bench;
pub mod bot_seat;
pub mod check_bot;
pub mod play;
pub mod slurm;
