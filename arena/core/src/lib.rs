#![warn(missing_docs)]
//! arena-core: what a bot, or a program that embeds arena's games, needs,
//! without the referee. Dependencies: serde, serde_json, rand and
//! rand_chacha; no tokio, processes, clap or terminal code.
//!
//! - [`games`]: the [`Game`] trait, the games (Dakon, Ludus latrunculorum)
//!   and the registry of everything arena knows about each ([`GAMES`]);
//! - [`protocol`]: every message between the referee and a bot, both ways
//!   ([`ToBot`], [`FromBot`]: `Display` to write, `FromStr` to read);
//! - [`record`]: the record of a finished game ([`GameRecord`]) and its row
//!   of `games.csv`;
//! - [`playout`]: seeded random playouts over any game.
//!
//! A complete bot that plays the first legal move, in ten lines of
//! protocol (`protocol.md` says what each message means):
//!
//! ```
//! use std::io::{BufRead, Write};
//! use arena_core::{FromBot, ToBot};
//!
//! fn bot(input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
//!     let mut legal = Vec::new();
//!     for line in input.lines() {
//!         match line?.parse::<ToBot>() {
//!             Ok(ToBot::Hello) => writeln!(out, "{}", FromBot::Ready("first-legal".into()))?,
//!             Ok(ToBot::Legal(moves)) => legal = moves.into_owned(),
//!             Ok(ToBot::Go(_)) => writeln!(out, "{}", FromBot::Move(legal[0].clone()))?,
//!             Ok(ToBot::Quit) => break,
//!             _ => {} // newgame, played, position, gameover; unknown lines
//!         }
//!         out.flush()?;
//!     }
//!     Ok(())
//! }
//!
//! // As a program: bot(std::io::stdin().lock(), std::io::stdout().lock()).
//! // Here, a referee's side of a game, scripted:
//! let referee = "arena 1\n\
//!     newgame dakon seat=0 seed=7 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000\n\
//!     position pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0\n\
//!     legal 7 8 9 10 11 12 13\n\
//!     go time=- opptime=- inc=0 movetime=100\n\
//!     quit\n";
//! let mut said = Vec::new();
//! bot(referee.as_bytes(), &mut said)?;
//! assert_eq!(String::from_utf8(said)?, "ready first-legal\nmove 7\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same bot runs as `cargo run -p arena-core --example first_legal`,
//! and plays a match: `arena match --game dakon --bot
//! 'first=target/debug/examples/first_legal' --bot ...`.

pub mod games;
pub mod playout;
pub mod protocol;
pub mod record;
pub mod search;
pub mod text;

pub use games::{
    new_game, AnyGame, AnyState, Game, GameEntry, Outcome, ParamError, ParseError, PlayError, Seat,
    GAMES,
};
pub use protocol::{FromBot, Go, ToBot, Verdict};
pub use record::{CsvRow, GameRecord, GameResult, MoveRecord, Reason, SeatRecord};
