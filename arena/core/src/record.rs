//! Game records: what the referee produces, the tournament journals, and the
//! ratings and reports read. One JSON object per game in `games.jsonl`, one
//! row per game in `games.csv` (a stable schema other tools read).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::games::Seat;

/// The result from seat 0's point of view, written as in PGN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// `1-0`
    #[serde(rename = "1-0")]
    Seat0Wins,
    /// `0-1`
    #[serde(rename = "0-1")]
    Seat1Wins,
    /// `1/2-1/2`
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// The result in which `seat` won.
    pub fn win_for(seat: Seat) -> Self {
        if seat == 0 {
            GameResult::Seat0Wins
        } else {
            GameResult::Seat1Wins
        }
    }

    /// The result of a game `winner` won (`None`: a draw).
    pub fn from_winner(winner: Option<Seat>) -> Self {
        winner.map_or(GameResult::Draw, Self::win_for)
    }

    /// The seat that won, `None` for a draw.
    pub fn winner(self) -> Option<Seat> {
        match self {
            GameResult::Seat0Wins => Some(0),
            GameResult::Seat1Wins => Some(1),
            GameResult::Draw => None,
        }
    }

    /// Points scored by `seat`: 1, 0.5 or 0.
    pub fn points(self, seat: Seat) -> f64 {
        match (self, seat) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::Seat0Wins, 0) | (GameResult::Seat1Wins, 1) => 1.0,
            _ => 0.0,
        }
    }

    /// The result as written (`1-0`, `0-1`, `1/2-1/2`).
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::Seat0Wins => "1-0",
            GameResult::Seat1Wins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameResult {
    type Err = WordError;
    fn from_str(s: &str) -> Result<Self, WordError> {
        match s {
            "1-0" => Ok(GameResult::Seat0Wins),
            "0-1" => Ok(GameResult::Seat1Wins),
            "1/2-1/2" => Ok(GameResult::Draw),
            _ => Err(WordError::Result(s.to_string())),
        }
    }
}

/// A result or a reason that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WordError {
    /// Not `1-0`, `0-1` or `1/2-1/2`.
    Result(String),
    /// Not one of [`Reason`]'s words.
    Reason(String),
}

impl fmt::Display for WordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordError::Result(s) => write!(f, "result `{s}` is not 1-0, 0-1 or 1/2-1/2"),
            WordError::Reason(s) => write!(f, "unknown reason `{s}`"),
        }
    }
}

impl std::error::Error for WordError {}

/// Why a game ended. The same words appear in `gameover` lines, records and CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// The rules ended the game.
    Normal,
    /// A referee safeguard ended it (move limit, quiet plies, repetition).
    Adjudicated,
    /// A bot ran out of time (or did not answer `arena 1` in time).
    Timeout,
    /// A bot sent a well-formed move that is not legal.
    Illegal,
    /// A bot's process died or closed its output.
    Crash,
    /// A bot broke the protocol (garbage, overlong or non-UTF-8 line, unasked move).
    Protocol,
}

impl Reason {
    /// The word in records, CSV and `gameover` lines.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Normal => "normal",
            Reason::Adjudicated => "adjudicated",
            Reason::Timeout => "timeout",
            Reason::Illegal => "illegal",
            Reason::Crash => "crash",
            Reason::Protocol => "protocol",
        }
    }

    /// True when a bot lost by misbehaving rather than by play.
    pub fn is_forfeit(self) -> bool {
        !matches!(self, Reason::Normal | Reason::Adjudicated)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Reason {
    type Err = WordError;
    fn from_str(s: &str) -> Result<Self, WordError> {
        [
            Reason::Normal,
            Reason::Adjudicated,
            Reason::Timeout,
            Reason::Illegal,
            Reason::Crash,
            Reason::Protocol,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or_else(|| WordError::Reason(s.to_string()))
    }
}

/// Which time a decision is charged: wall time from the start of the `go`
/// write to the `move` read (the default, cutechess's meaning), or the CPU
/// time all the bot's processes used meanwhile (a clock a busy machine
/// does not turn into losses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// Wall time.
    #[default]
    Wall,
    /// CPU time of all the bot's processes, within a wall-clock ceiling.
    Cpu,
}

impl Clock {
    /// Whether this is the default, wall time.
    pub fn is_wall(&self) -> bool {
        *self == Clock::Wall
    }
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        })
    }
}

/// A clock name that is neither `wall` nor `cpu`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownClock(pub String);

impl std::fmt::Display for UnknownClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown clock `{}` (wall or cpu)", self.0)
    }
}

impl std::error::Error for UnknownClock {}

impl std::str::FromStr for Clock {
    type Err = UnknownClock;
    fn from_str(s: &str) -> Result<Clock, UnknownClock> {
        match s {
            "wall" => Ok(Clock::Wall),
            "cpu" => Ok(Clock::Cpu),
            _ => Err(UnknownClock(s.to_string())),
        }
    }
}

/// One seat's bot, as it was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatRecord {
    /// The bot's name.
    pub name: String,
    /// Its command as given.
    pub command: Vec<String>,
    /// The bot's stderr log for this game, if one was kept.
    pub log: Option<String>,
    /// What it was asked to search in each `go` (equal-compute runs);
    /// absent when no budget was set.
    #[serde(default, skip_serializing_if = "crate::protocol::Budget::is_empty")]
    pub budget: crate::protocol::Budget,
    /// The text of its `ready` line (control characters replaced, cut to
    /// 200 characters); absent when it never got that far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<String>,
    /// Its conversation with the referee in this game, both ways, if one
    /// was kept (`transcript = true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
}

/// One move as played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Who moved.
    pub seat: Seat,
    /// Move notation of the game.
    #[serde(rename = "move")]
    pub mv: String,
    /// Time the bot used for this decision, in milliseconds (0 for opening
    /// moves chosen by the referee).
    pub ms: f64,
    /// CPU time all the bot's processes used from `go` to its move, in
    /// milliseconds, where it can be measured (see protocol.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// The bot's `info` lines sent during this decision (capped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info: Vec<String>,
    /// The search report of its `info` lines as fields (`depth`, `score`,
    /// `nodes`, `pv`...: [`crate::protocol::search_fields`]); absent when
    /// they held none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub search: BTreeMap<String, String>,
    /// State notation after the move. Empty (left out of the JSON) in a
    /// compact record (`record_states = N`) but every N-th ply's and the
    /// last; readers rebuild it by replaying the moves.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub state: String,
    /// What the move did, as the engine reported it (left out with the
    /// state, and when null).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub effects: serde_json::Value,
}

/// Everything about one finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Position in the schedule, from 0.
    pub index: u64,
    /// Schedule round (a rating period for Glicko).
    pub round: u64,
    /// Games sharing a `pair` were played on the same seed and opening with
    /// seats swapped (used by pentanomial statistics).
    pub pair: u64,
    /// The game's wire name.
    pub game: String,
    /// Every parameter of the game.
    pub params: BTreeMap<String, String>,
    /// The game's seed (told to both bots).
    pub seed: u64,
    /// The bots in seat 0 and seat 1.
    pub seats: [SeatRecord; 2],
    /// How many of the first moves the referee chose at random (an opening).
    #[serde(default)]
    pub opening_plies: usize,
    /// The state the game started from.
    pub initial_state: String,
    /// Every move, the opening's included.
    pub moves: Vec<MoveRecord>,
    /// The state it ended in.
    pub final_state: String,
    /// The game's scores (0, 0 after a forfeit).
    pub scores: [i32; 2],
    /// Who won.
    pub result: GameResult,
    /// Why it ended.
    pub reason: Reason,
    /// Free text: the adjudication cause, or what the offending bot did (truncated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The seat that forfeited, for forfeit reasons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offender: Option<Seat>,
    /// Which time its decisions were charged (absent: wall time).
    #[serde(default, skip_serializing_if = "Clock::is_wall")]
    pub clock: Clock,
    /// Wall time of the game, bot starts included.
    pub duration_ms: u64,
}

impl GameRecord {
    /// The game as runs tell games apart: its seats' bots, its opening, its
    /// moves and its result (a game lost on time may have the moves of one
    /// that was not). The distinct-games count, the ratings and the SPRT use
    /// it to count a pair that repeats an earlier one once. Deterministic:
    /// `DefaultHasher::new()` has fixed keys.
    pub fn play_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let moves: Vec<&str> = self.moves.iter().map(|m| m.mv.as_str()).collect();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            &self.seats[0].name,
            &self.seats[1].name,
            self.opening_plies,
            moves,
            self.result.points(0).to_bits(),
        )
            .hash(&mut h);
        h.finish()
    }

    /// Whether `seat` lost this game by misbehaving (timeout, illegal move,
    /// crash, protocol): the one rule every tally counts forfeits by.
    pub fn forfeited_by(&self, seat: Seat) -> bool {
        self.reason.is_forfeit()
            && self.result == GameResult::win_for(1 - seat)
            && self.offender.is_none_or(|o| o == seat)
    }
}

/// A row of `games.csv`: a [`GameRecord`] without its moves. Column order
/// ([`CSV_HEADER`]) is part of the public schema. Text cells are written
/// with [`csv_cell`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // the record's fields of the same names
pub struct CsvRow {
    pub index: u64,
    pub game: String,
    pub seed: u64,
    pub seat0: String,
    pub seat1: String,
    pub result: GameResult,
    pub reason: Reason,
    /// Moves played.
    pub plies: usize,
    pub score0: i32,
    pub score1: i32,
    pub duration_ms: u64,
    pub round: u64,
    pub pair: u64,
    pub detail: String,
    /// The seat that forfeited (empty: none). The last three columns came
    /// later: files without them still read (as no offender, no points).
    #[serde(default)]
    pub offender: Option<Seat>,
    /// Points of seat 0 and seat 1: 1, 0.5 or 0 (`score0`/`score1` are
    /// the game's own scores: seeds, pieces).
    #[serde(default)]
    pub points0: f64,
    #[serde(default)]
    pub points1: f64,
}

/// `games.csv`'s header: the fields of [`CsvRow`], in order.
pub const CSV_HEADER: &[&str] = &[
    "index",
    "game",
    "seed",
    "seat0",
    "seat1",
    "result",
    "reason",
    "plies",
    "score0",
    "score1",
    "duration_ms",
    "round",
    "pair",
    "detail",
    "offender",
    "points0",
    "points1",
];

/// A cell that no spreadsheet takes for a formula: text starting with `=`,
/// `+`, `-`, `@`, a tab or a carriage return (OWASP's CSV injection list)
/// gets a leading `'`. Text already starting with `'` gets one too, so that
/// [`csv_text`] undoes it exactly (bot names read back from `games.csv`).
pub fn csv_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r' | '\'') => format!("'{text}").into(),
        _ => text.into(),
    }
}

/// The text of a [`csv_cell`].
pub fn csv_text(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

impl From<&GameRecord> for CsvRow {
    fn from(r: &GameRecord) -> Self {
        CsvRow {
            index: r.index,
            game: r.game.clone(),
            seed: r.seed,
            seat0: csv_cell(&r.seats[0].name).into_owned(),
            seat1: csv_cell(&r.seats[1].name).into_owned(),
            result: r.result,
            reason: r.reason,
            plies: r.moves.len(),
            score0: r.scores[0],
            score1: r.scores[1],
            duration_ms: r.duration_ms,
            round: r.round,
            pair: r.pair,
            detail: csv_cell(r.detail.as_deref().unwrap_or("")).into_owned(),
            offender: r.offender,
            points0: r.result.points(0),
            points1: r.result.points(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_defuse_formulas_and_round_trip() {
        for (text, cell) in [
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+1", "'+1"),
            ("-x", "'-x"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("'quoted", "''quoted"),
            ("alpha-beta", "alpha-beta"),
            ("<script>", "<script>"),
            ("", ""),
        ] {
            assert_eq!(csv_cell(text), cell);
            assert_eq!(csv_text(&csv_cell(text)), text);
        }
    }

    #[test]
    fn results_and_reasons_round_trip_through_their_text() {
        for r in [
            GameResult::Seat0Wins,
            GameResult::Seat1Wins,
            GameResult::Draw,
        ] {
            assert_eq!(r.as_str().parse::<GameResult>(), Ok(r));
        }
        for r in [
            Reason::Normal,
            Reason::Adjudicated,
            Reason::Timeout,
            Reason::Illegal,
            Reason::Crash,
            Reason::Protocol,
        ] {
            assert_eq!(r.as_str().parse::<Reason>(), Ok(r));
            assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{r}\""));
        }
        assert!("2-0".parse::<GameResult>().is_err());
    }

    #[test]
    fn points_follow_the_result_for_each_seat() {
        assert_eq!(GameResult::Seat0Wins.points(0), 1.0);
        assert_eq!(GameResult::Seat0Wins.points(1), 0.0);
        assert_eq!(GameResult::Seat1Wins.points(1), 1.0);
        assert_eq!(GameResult::Draw.points(0), 0.5);
        assert_eq!(GameResult::from_winner(None), GameResult::Draw);
        assert_eq!(GameResult::from_winner(Some(1)), GameResult::Seat1Wins);
    }
}
