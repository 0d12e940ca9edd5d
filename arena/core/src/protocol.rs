//! The wire protocol between the referee and a bot, as plain values, in
//! both directions: what the referee sends ([`ToBot`]) and what a bot may
//! say ([`FromBot`]). Each side writes its messages with `Display` and reads
//! the other side's with `FromStr` (the referee reads raw bytes with
//! [`parse_bytes`], which also checks the line's length and encoding). Pure:
//! no I/O, no processes.
//!
//! `protocol.md` at the repository root is the public description of this
//! module; keep the two in step.

use std::borrow::Cow;
use std::fmt::{self, Display, Write as _};
use std::str::FromStr;

use crate::games::Seat;
use crate::record::Reason;

/// The protocol version sent in the greeting (`arena 1`).
pub const VERSION: u32 = 1;

/// The longest line a bot may send, `\n` (and a `\r` before it) excluded.
pub const MAX_LINE: usize = 64 * 1024;

/// The limits of one decision, as sent in `go`; `None` is written `-` (no
/// such limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// The mover's remaining game clock, in ms.
    pub time: Option<u64>,
    /// The opponent's remaining game clock, in ms.
    pub opptime: Option<u64>,
    /// Increment added to the mover's clock after this move, in ms.
    pub inc: u64,
    /// Hard limit for this one decision, in ms.
    pub movetime: Option<u64>,
    /// What to search, for comparisons at equal compute: written only when
    /// set, so bots that know nothing of budgets see the `go` of protocol 1.
    pub budget: Budget,
}

/// A search budget for one decision (`nodes=`, `playouts=`, `depth=` in
/// `go`): what the bot should search, whatever the machine's speed, with
/// the time limits still in force as a safety net. Each is `None` when not
/// set; a bot applies the ones that mean something to its algorithm.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Positions to visit (an alpha-beta search's node count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Playouts or simulations (MCTS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playouts: Option<u64>,
    /// Search depth, in plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
}

impl Budget {
    /// Whether no budget is set.
    pub fn is_empty(&self) -> bool {
        *self == Budget::default()
    }

    /// The fields as `go` writes them, each with a leading space.
    fn fields(&self) -> impl Iterator<Item = (&'static str, u64)> {
        [
            ("nodes", self.nodes),
            ("playouts", self.playouts),
            ("depth", self.depth),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
    }
}

impl Display for Budget {
    /// `nodes=N playouts=N depth=N`, the fields that are set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (k, v) in self.fields() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

impl Go {
    /// Reads the fields after `go` by key, as a bot should: unknown fields
    /// are ignored (a later protocol version may add some) and a malformed
    /// limit counts as no limit.
    pub fn parse_fields(text: &str) -> Go {
        let mut go = Go::default();
        for (key, value) in text.split_whitespace().filter_map(|t| t.split_once('=')) {
            let ms = value.parse::<u64>().ok();
            match key {
                "time" => go.time = ms,
                "opptime" => go.opptime = ms,
                "inc" => go.inc = ms.unwrap_or(0),
                "movetime" => go.movetime = ms,
                "nodes" => go.budget.nodes = ms,
                "playouts" => go.budget.playouts = ms,
                "depth" => go.budget.depth = ms,
                _ => {}
            }
        }
        go
    }
}

/// `time=.. opptime=.. inc=.. movetime=..`, the fields of a `go` line.
impl Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |f: &mut fmt::Formatter<'_>, v: Option<u64>| match v {
            Some(ms) => write!(f, "{ms}"),
            None => f.write_str("-"),
        };
        f.write_str("time=")?;
        ms(f, self.time)?;
        f.write_str(" opptime=")?;
        ms(f, self.opptime)?;
        write!(f, " inc={} movetime=", self.inc)?;
        ms(f, self.movetime)?;
        for (k, v) in self.budget.fields() {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

/// A game's end from the receiving bot's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The bot won.
    Win,
    /// The bot lost.
    Loss,
    /// A draw.
    Draw,
}

impl Verdict {
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Draw => "draw",
        }
    }

    /// The verdict for `seat` of a game that `winner` won (`None`: a draw):
    /// the one place an outcome becomes a `gameover` word.
    pub fn for_seat(winner: Option<Seat>, seat: Seat) -> Verdict {
        match winner {
            None => Verdict::Draw,
            Some(w) if w == seat => Verdict::Win,
            Some(_) => Verdict::Loss,
        }
    }
}

impl FromStr for Verdict {
    type Err = MessageError;
    fn from_str(s: &str) -> Result<Self, MessageError> {
        [Verdict::Win, Verdict::Loss, Verdict::Draw]
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| MessageError::BadField(format!("`{s}` is not win, loss or draw")))
    }
}

/// A message from the referee to a bot. `Display` gives the line without
/// its `\n`; `FromStr` reads one (what a bot does). The referee lends its
/// text (`Cow::Borrowed`); a parsed message owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToBot<'a> {
    /// `arena 1`: sent once after start.
    Hello,
    /// `newgame <game> seat=<s> seed=<u64> k=v ...`
    NewGame {
        /// The game's wire name.
        game: Cow<'a, str>,
        /// The receiving bot's seat.
        seat: Seat,
        /// The game's seed, for the bot's own randomness.
        seed: u64,
        /// Every parameter of the game, in its canonical order.
        params: Cow<'a, [(String, String)]>,
    },
    /// `played <seat> <move>`
    Played {
        /// Who moved.
        seat: Seat,
        /// The move, in the game's notation.
        mv: Cow<'a, str>,
    },
    /// `position <state>` (the state notation may contain spaces).
    Position(Cow<'a, str>),
    /// `legal <move> <move> ...`
    Legal(Cow<'a, [String]>),
    /// `go time=.. opptime=.. inc=.. movetime=..`
    Go(Go),
    /// `gameover <win|loss|draw> <reason> [key=value ...]`
    GameOver {
        /// The result from the receiving bot's side.
        verdict: Verdict,
        /// Why the game ended.
        reason: Reason,
        /// Further fields (`scores`, `plies`).
        extra: Cow<'a, [(String, String)]>,
    },
    /// `isready`: after `newgame` (and the opening's `played` lines), to a
    /// bot whose `ready` announced it ([`announces_isready`]): prepare for
    /// this game, off the clock, and answer `readyok`.
    IsReady,
    /// `quit`
    Quit,
}

/// The word a bot's `ready` text holds (a token of its own) to ask for an
/// untimed set-up at each game: `isready` after `newgame`, answered with
/// `readyok` within the start-up limit.
pub const ISREADY: &str = "isready";

/// Whether a `ready` text asks for [`ToBot::IsReady`] at each game.
pub fn announces_isready(ready_text: &str) -> bool {
    ready_text.split_whitespace().any(|t| t == ISREADY)
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
            ToBot::Go(go) => write!(f, "go {go}"),
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
            ToBot::IsReady => f.write_str(ISREADY),
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

/// Why a referee's line could not be read (the bot's side of [`ToBot`]'s
/// `FromStr`). A bot ignores such lines: a later protocol version may add
/// messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// A first word no message has.
    Unknown(String),
    /// A message without a field it needs.
    Missing(&'static str, &'static str),
    /// A field that does not read.
    BadField(String),
}

impl Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Unknown(line) => write!(f, "unknown message: {line}"),
            MessageError::Missing(msg, what) => write!(f, "`{msg}` without {what}"),
            MessageError::BadField(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for MessageError {}

/// `key=value` tokens.
fn key_values(text: &str) -> Vec<(String, String)> {
    text.split_whitespace()
        .filter_map(|t| t.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn number<T: FromStr>(what: &str, text: &str) -> Result<T, MessageError> {
    text.parse()
        .map_err(|_| MessageError::BadField(format!("{what} `{text}` is not a number")))
}

/// Reads one line from the referee (without its `\n`; a `\r` is tolerated).
/// Tokens are separated by runs of spaces or tabs; `key=value` fields are
/// read by key.
impl FromStr for ToBot<'static> {
    type Err = MessageError;

    fn from_str(line: &str) -> Result<Self, MessageError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = line.trim_matches([' ', '\t']);
        let (word, rest) = match line.find([' ', '\t']) {
            Some(i) => (&line[..i], line[i..].trim_start_matches([' ', '\t'])),
            None => (line, ""),
        };
        let mut tokens = rest.split_whitespace();
        match word {
            "arena" => Ok(ToBot::Hello),
            "newgame" => {
                let game = tokens
                    .next()
                    .ok_or(MessageError::Missing("newgame", "a game"))?;
                let (mut seat, mut seed, mut params) = (None, None, Vec::new());
                for (k, v) in key_values(rest) {
                    match k.as_str() {
                        "seat" => seat = Some(number("seat", &v)?),
                        "seed" => seed = Some(number("seed", &v)?),
                        _ => params.push((k, v)),
                    }
                }
                Ok(ToBot::NewGame {
                    game: Cow::Owned(game.to_string()),
                    seat: seat.ok_or(MessageError::Missing("newgame", "seat="))?,
                    seed: seed.ok_or(MessageError::Missing("newgame", "seed="))?,
                    params: Cow::Owned(params),
                })
            }
            "played" => {
                let seat = tokens
                    .next()
                    .ok_or(MessageError::Missing("played", "a seat"))?;
                let mv = tokens
                    .next()
                    .ok_or(MessageError::Missing("played", "a move"))?;
                Ok(ToBot::Played {
                    seat: number("seat", seat)?,
                    mv: Cow::Owned(mv.to_string()),
                })
            }
            "position" => Ok(ToBot::Position(Cow::Owned(rest.to_string()))),
            "legal" => Ok(ToBot::Legal(Cow::Owned(
                tokens.map(str::to_string).collect(),
            ))),
            "go" => Ok(ToBot::Go(Go::parse_fields(rest))),
            "gameover" => {
                let verdict = tokens
                    .next()
                    .ok_or(MessageError::Missing("gameover", "a result"))?;
                let reason = tokens
                    .next()
                    .ok_or(MessageError::Missing("gameover", "a reason"))?;
                Ok(ToBot::GameOver {
                    verdict: verdict.parse()?,
                    reason: reason.parse().map_err(|e: crate::record::WordError| {
                        MessageError::BadField(e.to_string())
                    })?,
                    extra: Cow::Owned(key_values(rest)),
                })
            }
            "quit" => Ok(ToBot::Quit),
            ISREADY => Ok(ToBot::IsReady),
            _ => Err(MessageError::Unknown(truncate(line, SHOW))),
        }
    }
}

/// A line from a bot. `Display` gives the line a bot writes (without its
/// `\n`); `FromStr` is [`parse_line`].
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
    /// `readyok`: the answer to `isready` (set up for the game).
    ReadyOk,
}

impl Display for FromBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (word, text) = match self {
            FromBot::Empty => return Ok(()),
            FromBot::Ready(t) => ("ready", t),
            FromBot::Move(m) => ("move", m),
            FromBot::Info(t) => ("info", t),
            FromBot::ReadyOk => return f.write_str("readyok"),
        };
        f.write_str(word)?;
        if !text.is_empty() {
            write!(f, " {text}")?;
        }
        Ok(())
    }
}

impl FromStr for FromBot {
    type Err = LineError;
    fn from_str(line: &str) -> Result<Self, LineError> {
        parse_line(line)
    }
}

/// Why a bot's line is not a valid message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Over [`MAX_LINE`] bytes.
    TooLong,
    /// Not UTF-8 (the text shown lossily).
    NotUtf8(String),
    /// `move` without exactly one token.
    BadMove(String),
    /// A first word no message has.
    Unknown(String),
}

impl Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            LineError::NotUtf8(text) => write!(f, "line is not valid UTF-8: {text}"),
            LineError::BadMove(line) => write!(f, "`move` needs exactly one move token: {line}"),
            LineError::Unknown(line) => write!(f, "unknown message: {line}"),
        }
    }
}

impl std::error::Error for LineError {}

/// How much of a bot's offending text goes into records and error messages.
pub const SHOW: usize = 200;

/// `text`, cut to at most `max` characters with `...` appended when cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// `text` with every control character (C0, DEL, C1) replaced by U+FFFD:
/// they mean nothing in a line of text, and JSON escapes each in six bytes.
pub fn plain_text(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Most fields [`search_fields`] keeps per decision.
pub const MAX_SEARCH_FIELDS: usize = 16;

/// UCI's `info` words that take one value (`score` and `pv` are read apart).
const UCI_WORDS: [&str; 10] = [
    "depth",
    "seldepth",
    "multipv",
    "nodes",
    "nps",
    "time",
    "hashfull",
    "tbhits",
    "currmove",
    "currmovenumber",
];

/// A decision's search report, read from its `info` lines as fields:
/// `key=value` tokens (`info depth=6 score=120 nodes=4000`) and UCI's words
/// (`info depth 6 score cp 120 nodes 4000 pv 3 5`: `score cp N` is
/// `score=N`, `score mate N` is `mate=N`, `pv` takes the rest of the line).
/// A later line's field replaces an earlier one's: the fields are the bot's
/// last word. Keys are letters, digits, `_` and `-` (at most 32), values at
/// most 64 characters (a `pv`: what the line holds), at most
/// [`MAX_SEARCH_FIELDS`] fields; anything else in a line is ignored.
pub fn search_fields(lines: &[String]) -> std::collections::BTreeMap<String, String> {
    let mut fields = std::collections::BTreeMap::new();
    let key_ok = |k: &str| {
        !k.is_empty()
            && k.len() <= 32
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    for line in lines {
        let mut put = |k: &str, v: &str| {
            if key_ok(k)
                && !v.is_empty()
                && (fields.len() < MAX_SEARCH_FIELDS || fields.contains_key(k))
            {
                fields.insert(k.to_string(), v.to_string());
            }
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            if let Some((k, v)) = t.split_once('=') {
                put(k, &truncate(v, 64));
            } else if t == "pv" {
                put("pv", &tokens[i + 1..].join(" "));
                break;
            } else if t == "score" {
                let (key, value, used) = match tokens.get(i + 1..i + 3) {
                    Some(["cp", v]) => ("score", Some(*v), 2),
                    Some(["mate", v]) => ("mate", Some(*v), 2),
                    _ => {
                        let v = tokens.get(i + 1).filter(|v| v.parse::<f64>().is_ok());
                        ("score", v.copied(), 1)
                    }
                };
                if let Some(v) = value {
                    put(key, v);
                    i += used;
                }
            } else if UCI_WORDS.contains(&t) {
                if let Some(v) = tokens.get(i + 1) {
                    put(t, &truncate(v, 64));
                    i += 1;
                }
            }
            i += 1;
        }
    }
    fields
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
        "readyok" => Ok(FromBot::ReadyOk),
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
                    game: "dakon".into(),
                    seat: 1,
                    seed: 42,
                    params: params.as_slice().into(),
                },
                "newgame dakon seat=1 seed=42 holes=7 seeds=7",
            ),
            (
                ToBot::Played {
                    seat: 0,
                    mv: "a1-a3".into(),
                },
                "played 0 a1-a3",
            ),
            (
                ToBot::Position("pits=1,2 stores=0,0 turn=0 ply=0".into()),
                "position pits=1,2 stores=0,0 turn=0 ply=0",
            ),
            (ToBot::Legal(moves.as_slice().into()), "legal 7 8 13"),
            (ToBot::Legal(Vec::new().into()), "legal"),
            (
                ToBot::Go(Go {
                    time: Some(1500),
                    opptime: Some(20),
                    inc: 10,
                    movetime: None,
                    budget: Budget::default(),
                }),
                "go time=1500 opptime=20 inc=10 movetime=-",
            ),
            (
                ToBot::Go(Go {
                    time: None,
                    opptime: None,
                    inc: 0,
                    movetime: Some(100),
                    budget: Budget {
                        nodes: Some(5000),
                        playouts: None,
                        depth: Some(4),
                    },
                }),
                "go time=- opptime=- inc=0 movetime=100 nodes=5000 depth=4",
            ),
            (
                ToBot::GameOver {
                    verdict: Verdict::Loss,
                    reason: Reason::Timeout,
                    extra: extra.as_slice().into(),
                },
                "gameover loss timeout plies=3",
            ),
            (ToBot::IsReady, "isready"),
            (ToBot::Quit, "quit"),
        ];
        for (msg, text) in cases {
            assert_eq!(msg.to_string(), text);
            let mut buf = Vec::new();
            msg.write_to(&mut buf);
            assert_eq!(buf, format!("{text}\n").as_bytes());
            // What the referee writes, a bot reads back as the same message.
            assert_eq!(text.parse::<ToBot>(), Ok(msg), "{text}");
        }
    }

    #[test]
    fn bots_read_referee_lines_by_key_and_tolerate_spacing() {
        let msg: ToBot = "newgame  dakon seed=9 holes=5 seat=1 future\r"
            .parse()
            .unwrap();
        assert_eq!(
            msg,
            ToBot::NewGame {
                game: "dakon".into(),
                seat: 1,
                seed: 9,
                params: vec![("holes".to_string(), "5".to_string())].into(),
            }
        );
        let go: ToBot = "go movetime=100 time=- extra=1 inc=x".parse().unwrap();
        assert_eq!(
            go,
            ToBot::Go(Go {
                time: None,
                opptime: None,
                inc: 0,
                movetime: Some(100),
                budget: Budget::default(),
            })
        );
        let pos: ToBot = "position board=8/8 turn=0 phase=move".parse().unwrap();
        assert_eq!(pos, ToBot::Position("board=8/8 turn=0 phase=move".into()));
        assert!(matches!(
            "hello there".parse::<ToBot>(),
            Err(MessageError::Unknown(_))
        ));
        assert!(matches!(
            "newgame dakon seed=1".parse::<ToBot>(),
            Err(MessageError::Missing("newgame", "seat="))
        ));
        assert!("played x 7".parse::<ToBot>().is_err());
        assert!("gameover won normal".parse::<ToBot>().is_err());
    }

    #[test]
    fn bot_messages_print_as_they_parse() {
        for msg in [
            FromBot::Ready(String::new()),
            FromBot::Ready("mybot 0.1".into()),
            FromBot::Move("a1-a3".into()),
            FromBot::Info("depth 3".into()),
            FromBot::Info(String::new()),
            FromBot::ReadyOk,
            FromBot::Empty,
        ] {
            assert_eq!(msg.to_string().parse::<FromBot>(), Ok(msg));
        }
    }

    #[test]
    fn verdicts_follow_the_winner() {
        assert_eq!(Verdict::for_seat(Some(1), 1), Verdict::Win);
        assert_eq!(Verdict::for_seat(Some(0), 1), Verdict::Loss);
        assert_eq!(Verdict::for_seat(None, 0), Verdict::Draw);
        assert_eq!("loss".parse::<Verdict>(), Ok(Verdict::Loss));
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
    fn search_fields_read_key_value_and_uci_style_info() {
        let lines = |ls: &[&str]| ls.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let f = search_fields(&lines(&["depth=6 score=-35 nodes=4000 hello"]));
        let want: Vec<(&str, &str)> = vec![("depth", "6"), ("nodes", "4000"), ("score", "-35")];
        assert_eq!(
            f.iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
            want
        );
        let f = search_fields(&lines(&[
            "depth 5 score cp 10 nodes 900",
            "thinking hard",
            "depth 6 seldepth 9 score cp 120 nodes 4000 nps 2000 pv 3 5 12",
        ]));
        assert_eq!(f["depth"], "6");
        assert_eq!(f["score"], "120");
        assert_eq!(f["seldepth"], "9");
        assert_eq!(f["pv"], "3 5 12");
        assert!(!f.contains_key("thinking"));
        let f = search_fields(&lines(&["score mate 3 depth 2", "score 0.5"]));
        assert_eq!((f["mate"].as_str(), f["score"].as_str()), ("3", "0.5"));
        // Bounded: keys, values and their number.
        let many: String = (0..40).map(|i| format!("k{i}=1 ")).collect();
        let f = search_fields(&lines(&[
            &many,
            &format!("{}=1 x={}", "k".repeat(40), "v".repeat(100)),
        ]));
        assert_eq!(f.len(), MAX_SEARCH_FIELDS);
        assert!(search_fields(&lines(&["x=1"])).len() == 1);
        assert!(search_fields(&lines(&["[arena: 3 more info lines dropped]"])).is_empty());
    }

    #[test]
    fn isready_is_asked_for_by_a_word_of_its_own() {
        assert!(announces_isready("mybot 1.0 isready"));
        assert!(announces_isready("isready"));
        assert!(!announces_isready("mybot 1.0"));
        assert!(!announces_isready("isready=no-such-thing notisready"));
        assert_eq!(parse_line("readyok"), Ok(FromBot::ReadyOk));
        assert_eq!(parse_line("readyok \r"), Ok(FromBot::ReadyOk));
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
