//! The wire protocol between the referee and a bot, as plain values: what the
//! referee sends ([`ToBot`], formatted with `Display`) and what a bot may say
//! ([`FromBot`], parsed by [`parse_line`]). Pure: no I/O, no processes.
//!
//! `protocol.md` at the repository root is the public description of this
//! module; keep the two in step.

use std::fmt::{self, Display, Write as _};

use crate::record::Reason;

/// The protocol version sent in the greeting (`arena 1`).
pub const VERSION: u32 = 1;

/// The longest line a bot may send, `\n` (and a `\r` before it) excluded.
pub const MAX_LINE: usize = 64 * 1024;

/// A time limit on the wire: milliseconds, or `-` when there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ms(pub Option<u64>);

impl Display for Ms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(ms) => write!(f, "{ms}"),
            None => f.write_str("-"),
        }
    }
}

/// The limits of one decision, as sent in `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Go {
    /// The mover's remaining game clock.
    pub time: Ms,
    /// The opponent's remaining game clock.
    pub opptime: Ms,
    /// Increment added to the mover's clock after this move.
    pub inc: u64,
    /// Hard limit for this one decision.
    pub movetime: Ms,
}

/// A game's end from the receiving bot's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Win,
    Loss,
    Draw,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Draw => "draw",
        }
    }
}

/// A message from the referee to a bot. `Display` gives the line without its
/// `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToBot<'a> {
    /// `arena 1`: sent once after start.
    Hello,
    /// `newgame <game> seat=<s> seed=<u64> k=v ...`
    NewGame {
        game: &'a str,
        seat: usize,
        seed: u64,
        params: &'a [(String, String)],
    },
    /// `played <seat> <move>`
    Played { seat: usize, mv: &'a str },
    /// `position <state>` (the state notation may contain spaces).
    Position(&'a str),
    /// `legal <move> <move> ...`
    Legal(&'a [String]),
    /// `go time=.. opptime=.. inc=.. movetime=..`
    Go(Go),
    /// `gameover <win|loss|draw> <reason> [key=value ...]`
    GameOver {
        verdict: Verdict,
        reason: Reason,
        extra: &'a [(String, String)],
    },
    /// `quit`
    Quit,
}

impl Display for ToBot<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToBot::Hello => write!(f, "arena {VERSION}"),
            ToBot::NewGame {
                game,
                seat,
                seed,
                params,
            } => {
                write!(f, "newgame {game} seat={seat} seed={seed}")?;
                for (k, v) in params.iter() {
                    write!(f, " {k}={v}")?;
                }
                Ok(())
            }
            ToBot::Played { seat, mv } => write!(f, "played {seat} {mv}"),
            ToBot::Position(state) => write!(f, "position {state}"),
            ToBot::Legal(moves) => {
                f.write_str("legal")?;
                for m in moves.iter() {
                    f.write_char(' ')?;
                    f.write_str(m)?;
                }
                Ok(())
            }
            ToBot::Go(go) => write!(
                f,
                "go time={} opptime={} inc={} movetime={}",
                go.time, go.opptime, go.inc, go.movetime
            ),
            ToBot::GameOver {
                verdict,
                reason,
                extra,
            } => {
                write!(f, "gameover {} {}", verdict.as_str(), reason.as_str())?;
                for (k, v) in extra.iter() {
                    write!(f, " {k}={v}")?;
                }
                Ok(())
            }
            ToBot::Quit => f.write_str("quit"),
        }
    }
}

impl ToBot<'_> {
    /// Appends the message and its `\n` to `out` (the referee batches several
    /// messages into one write).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        // Writing into a Vec cannot fail.
        let _ = writeln!(out, "{self}");
    }
}

/// A line from a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromBot {
    /// An empty (or all-blank) line: ignored.
    Empty,
    /// `ready [free text]`
    Ready(String),
    /// `move <move>`
    Move(String),
    /// `info <free text>`
    Info(String),
}

/// Why a bot's line is not a valid message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("line longer than {MAX_LINE} bytes")]
    TooLong,
    #[error("line is not valid UTF-8: {0}")]
    NotUtf8(String),
    #[error("`move` needs exactly one move token: {0}")]
    BadMove(String),
    #[error("unknown message: {0}")]
    Unknown(String),
}

/// How much of a bot's offending text goes into records and error messages.
pub const SHOW: usize = 200;

/// `text`, cut to at most `max` characters with `...` appended when cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// Lossy, truncated rendering of raw bytes, for error messages.
pub fn show_bytes(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(SHOW * 4)];
    truncate(&String::from_utf8_lossy(cut), SHOW)
}

/// Parses one raw line from a bot, without its `\n`. A trailing `\r` is
/// tolerated; the line must be UTF-8 and at most [`MAX_LINE`] bytes.
pub fn parse_bytes(raw: &[u8]) -> Result<FromBot, LineError> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if raw.len() > MAX_LINE {
        return Err(LineError::TooLong);
    }
    match std::str::from_utf8(raw) {
        Ok(text) => parse_line(text),
        Err(_) => Err(LineError::NotUtf8(show_bytes(raw))),
    }
}

/// Parses one line of text from a bot (without `\n`; a trailing `\r` is
/// tolerated). Tokens are separated by spaces (or tabs); the first token names
/// the message.
pub fn parse_line(line: &str) -> Result<FromBot, LineError> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let trimmed = line.trim_start_matches([' ', '\t']);
    let (word, rest) = match trimmed.find([' ', '\t']) {
        Some(i) => (&trimmed[..i], trimmed[i..].trim_matches([' ', '\t'])),
        None => (trimmed.trim_end_matches([' ', '\t']), ""),
    };
    match word {
        "" => Ok(FromBot::Empty),
        "move" => {
            let mut tokens = rest.split([' ', '\t']).filter(|t| !t.is_empty());
            match (tokens.next(), tokens.next()) {
                (Some(mv), None) => Ok(FromBot::Move(mv.to_string())),
                _ => Err(LineError::BadMove(truncate(line, SHOW))),
            }
        }
        "info" => Ok(FromBot::Info(rest.to_string())),
        "ready" => Ok(FromBot::Ready(rest.to_string())),
        _ => Err(LineError::Unknown(truncate(line, SHOW))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referee_messages_format_as_documented() {
        let params = vec![
            ("holes".to_string(), "7".to_string()),
            ("seeds".to_string(), "7".to_string()),
        ];
        let moves = vec!["7".to_string(), "8".to_string(), "13".to_string()];
        let extra = [("plies".to_string(), "3".to_string())];
        let cases: Vec<(ToBot, &str)> = vec![
            (ToBot::Hello, "arena 1"),
            (
                ToBot::NewGame {
                    game: "dakon",
                    seat: 1,
                    seed: 42,
                    params: &params,
                },
                "newgame dakon seat=1 seed=42 holes=7 seeds=7",
            ),
            (
                ToBot::Played {
                    seat: 0,
                    mv: "a1-a3",
                },
                "played 0 a1-a3",
            ),
            (
                ToBot::Position("pits=1,2 stores=0,0 turn=0 ply=0"),
                "position pits=1,2 stores=0,0 turn=0 ply=0",
            ),
            (ToBot::Legal(&moves), "legal 7 8 13"),
            (ToBot::Legal(&[]), "legal"),
            (
                ToBot::Go(Go {
                    time: Ms(Some(1500)),
                    opptime: Ms(Some(20)),
                    inc: 10,
                    movetime: Ms(None),
                }),
                "go time=1500 opptime=20 inc=10 movetime=-",
            ),
            (
                ToBot::GameOver {
                    verdict: Verdict::Loss,
                    reason: Reason::Timeout,
                    extra: &extra,
                },
                "gameover loss timeout plies=3",
            ),
            (ToBot::Quit, "quit"),
        ];
        for (msg, text) in cases {
            assert_eq!(msg.to_string(), text);
            let mut buf = Vec::new();
            msg.write_to(&mut buf);
            assert_eq!(buf, format!("{text}\n").as_bytes());
        }
    }

    #[test]
    fn bot_lines_parse_with_crlf_and_extra_spaces() {
        assert_eq!(parse_line("move 7"), Ok(FromBot::Move("7".into())));
        assert_eq!(parse_line("move 7\r"), Ok(FromBot::Move("7".into())));
        assert_eq!(
            parse_line("  move   a1-a3-c3  "),
            Ok(FromBot::Move("a1-a3-c3".into()))
        );
        assert_eq!(parse_line("ready"), Ok(FromBot::Ready(String::new())));
        assert_eq!(
            parse_line("ready mybot 0.1 by me\r"),
            Ok(FromBot::Ready("mybot 0.1 by me".into()))
        );
        assert_eq!(
            parse_line("info depth 3 score +2"),
            Ok(FromBot::Info("depth 3 score +2".into()))
        );
        assert_eq!(parse_line("info"), Ok(FromBot::Info(String::new())));
        assert_eq!(parse_bytes(b"move xd6\r"), Ok(FromBot::Move("xd6".into())));
    }

    #[test]
    fn empty_lines_are_ignored() {
        for line in ["", "\r", "   ", " \t \r"] {
            assert_eq!(parse_line(line), Ok(FromBot::Empty), "{line:?}");
        }
    }

    #[test]
    fn garbage_is_refused_with_the_text() {
        assert!(matches!(parse_line("hello"), Err(LineError::Unknown(t)) if t == "hello"));
        assert!(matches!(parse_line("MOVE 7"), Err(LineError::Unknown(_))));
        assert!(matches!(parse_line("moves 7"), Err(LineError::Unknown(_))));
        assert!(matches!(parse_line("move"), Err(LineError::BadMove(_))));
        assert!(matches!(parse_line("move 7 8"), Err(LineError::BadMove(_))));
        let long = "x".repeat(1000);
        match parse_line(&long) {
            Err(LineError::Unknown(t)) => assert_eq!(t.chars().count(), SHOW + 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bytes_must_be_utf8_and_short() {
        assert!(matches!(
            parse_bytes(b"move \xff\xfe"),
            Err(LineError::NotUtf8(_))
        ));
        let mut long = b"info ".to_vec();
        long.resize(MAX_LINE + 1, b'a');
        assert_eq!(parse_bytes(&long), Err(LineError::TooLong));
        long.truncate(MAX_LINE);
        assert!(matches!(parse_bytes(&long), Ok(FromBot::Info(_))));
        long.push(b'\r');
        assert!(matches!(parse_bytes(&long), Ok(FromBot::Info(_))));
    }
}
