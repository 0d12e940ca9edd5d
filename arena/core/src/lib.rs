//! arena-core: the games of arena behind one trait, the bot protocol in
//! both directions and game records.

pub mod games;
pub mod playout;
pub mod protocol;
pub mod record;
