//! Records: the one reader of games files (`games.jsonl`, a results CSV)
//! and of `ratings.csv`, and the writer of `games.*`.

use std::fs::{self, File};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::files::{check_regular, private_options, sync_dir};
use super::{io_err, StoreError, GAMES_CSV, GAMES_JSONL, RATINGS};
use crate::display::escape;
use arena_core::games::{ParamError, ParseError, PlayError};
use arena_core::record::{CsvRow, GameRecord, GameResult, CSV_HEADER};

/// A record read from a JSON Lines file, with where it was found, so that
/// errors can name the line.
#[derive(Clone, Debug)]
pub struct Line {
    /// Its line number, from 1.
    pub line: usize,
    /// The record.
    pub record: GameRecord,
}

/// What to do with a last line that has no newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Drop it: a crash tore it mid-write (journals, files of a run).
    Torn,
    /// Read it like any other (a file someone handed us).
    Keep,
}

/// The records of a JSON Lines file, one line at a time, with their line
/// numbers: what every command that reads a run goes through, so that
/// memory does not grow with the number of games. Blank lines are skipped;
/// a bad line is an error naming the file and the line (and ends the
/// iteration).
pub struct Records {
    path: PathBuf,
    reader: Option<io::BufReader<File>>,
    tail: Tail,
    buf: Vec<u8>,
    n: usize,
}

impl Records {
    /// Opens `path` (a regular file; a missing one reads as empty when
    /// `missing_ok`).
    pub fn open(path: &Path, tail: Tail, missing_ok: bool) -> Result<Records, StoreError> {
        let reader = match fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && missing_ok => None,
            other => {
                check_regular(&other.map_err(io_err(path))?, None).map_err(|source| {
                    StoreError::Unreadable {
                        path: path.to_path_buf(),
                        source,
                    }
                })?;
                Some(io::BufReader::new(File::open(path).map_err(io_err(path))?))
            }
        };
        Ok(Records {
            path: path.to_path_buf(),
            reader,
            tail,
            buf: Vec::new(),
            n: 0,
        })
    }

    /// The bytes of the line last returned, newline included (`arena merge`
    /// copies records as they were written).
    pub fn raw(&self) -> &[u8] {
        &self.buf
    }

    /// The file being read: what errors name.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Iterator for Records {
    type Item = Result<Line, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.reader.as_mut()?;
        loop {
            self.buf.clear();
            let read = match reader.read_until(b'\n', &mut self.buf) {
                Ok(n) => n,
                Err(e) => {
                    self.reader = None;
                    return Some(Err(io_err(&self.path)(e)));
                }
            };
            if read == 0 || (!self.buf.ends_with(b"\n") && self.tail == Tail::Torn) {
                self.reader = None;
                return None;
            }
            self.n += 1;
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed = serde_json::from_slice::<GameRecord>(&self.buf)
                .map_err(|e| e.to_string())
                .and_then(|mut r| fill_states(&mut r).map(|()| r).map_err(|e| e.to_string()));
            return Some(match parsed {
                Ok(record) => Ok(Line {
                    line: self.n,
                    record,
                }),
                Err(message) => {
                    self.reader = None;
                    Err(StoreError::BadRecord {
                        path: self.path.clone(),
                        line: self.n,
                        message,
                    })
                }
            });
        }
    }
}

/// Why the states a compact record left out could not be rebuilt: the
/// record names a game or parameters, or holds a state or a move, that the
/// engine refuses.
#[derive(Debug, thiserror::Error)]
pub enum StateRebuildError {
    /// The record's game or parameters are not ones the engine knows.
    #[error("cannot rebuild the states left out: {0}")]
    Game(#[from] ParamError),
    /// The initial state, or a state the record kept.
    #[error("cannot rebuild the states left out: {0}")]
    State(#[from] ParseError),
    /// The move of ply `ply` (from 1), as the record holds it.
    #[error("cannot rebuild the states left out: ply {ply}: move `{}`: {source}", escape(.mv))]
    Move {
        /// The ply, from 1.
        ply: usize,
        /// The move as the record holds it.
        mv: String,
        /// Why the engine refused it.
        source: PlayError,
    },
}

/// Rebuilds the states a compact record left out (see
/// [`compact_record`]): from the last state written (or the initial one),
/// the engine replays the moves; the effects left out with them come back
/// from the same replay. A full record is left as it is.
pub fn fill_states(r: &mut GameRecord) -> Result<(), StateRebuildError> {
    if r.moves.iter().all(|m| !m.state.is_empty()) {
        return Ok(());
    }
    let params: Vec<(String, String)> = r
        .params
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let game = arena_core::games::new_game(&r.game, &params)?;
    let mut state = game.parse_state(&r.initial_state)?;
    for (i, m) in r.moves.iter_mut().enumerate() {
        if m.state.is_empty() {
            let effects = state
                .play(&m.mv)
                .map_err(|source| StateRebuildError::Move {
                    ply: i + 1,
                    mv: m.mv.clone(),
                    source,
                })?;
            m.state = state.to_string();
            if m.effects.is_null() {
                m.effects = effects;
            }
        } else {
            state = game.parse_state(&m.state)?;
        }
    }
    Ok(())
}

/// A record as `record_states = N` writes it: the state (and the effects)
/// after every move left out but every N-th ply's and the last one's, which
/// [`fill_states`] rebuilds. `N = 1` keeps the record whole.
pub fn compact_record(r: &GameRecord, every: usize) -> GameRecord {
    let mut c = r.clone();
    let last = c.moves.len();
    for (i, m) in c.moves.iter_mut().enumerate() {
        let ply = i + 1;
        if every > 1 && ply % every != 0 && ply != last {
            m.state.clear();
            m.effects = serde_json::Value::Null;
        }
    }
    c
}

/// Reads a JSON Lines file of records, with their line numbers, into
/// memory ([`Records`] reads them one at a time).
pub fn read_lines(path: &Path, tail: Tail, missing_ok: bool) -> Result<Vec<Line>, StoreError> {
    Records::open(path, tail, missing_ok)?.collect()
}

/// The records of a run's file (missing: none; a torn last line dropped).
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>, StoreError> {
    Ok(read_lines(path, Tail::Torn, true)?
        .into_iter()
        .map(|l| l.record)
        .collect())
}

/// The records of a `games.jsonl` someone hands us (`arena show`, `arena
/// report`), one at a time: every line, blank lines skipped; the file must
/// exist and be a regular file (a FIFO or device is refused without being
/// read).
pub fn games_in(path: &Path) -> Result<Records, StoreError> {
    Records::open(path, Tail::Keep, false)
}

/// [`games_in`], all in memory (for tests and small files).
pub fn read_games_file(path: &Path) -> Result<Vec<GameRecord>, StoreError> {
    games_in(path)?.map(|l| l.map(|l| l.record)).collect()
}

/// Why a games file could not be read for ratings.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// A directory that holds neither games file.
    #[error("{path}: directory has neither games.csv nor games.jsonl")]
    NoGamesFile {
        /// The directory.
        path: PathBuf,
    },
    /// A line the parser refused.
    #[error("{path}: line {line}: {message}")]
    Malformed {
        /// The games file.
        path: PathBuf,
        /// The line, from 1 (0 when the CSV reader could not say).
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A file or directory the store refused (not arena's, not readable).
    #[error(transparent)]
    Refused(StoreError),
}

impl From<StoreError> for LoadError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Io { path, source } => LoadError::Io { path, source },
            StoreError::BadRecord {
                path,
                line,
                message,
            } => LoadError::Malformed {
                path,
                line: line as u64,
                message,
            },
            e => LoadError::Refused(e),
        }
    }
}

/// One game of a games file: a record (`games.jsonl`), a row
/// (`games.csv`) or a row of a results file from elsewhere
/// ([`ResultColumns`]).
pub enum GameLine<'a> {
    /// A full record of `games.jsonl`.
    Record(&'a GameRecord),
    /// A row of arena's `games.csv`.
    Row(&'a CsvRow),
    /// A row of a results file written elsewhere.
    Result(&'a ResultRow),
}

/// Resolves a games file: a directory means its `games.jsonl` (the full
/// records: the ratings can tell a repeated pair by its moves), else its
/// `games.csv`; a file ending in `.jsonl` is JSON Lines, anything else CSV.
pub fn games_file(path: &Path) -> Result<PathBuf, LoadError> {
    if path.is_dir() {
        [GAMES_JSONL, GAMES_CSV]
            .iter()
            .map(|f| path.join(f))
            .find(|p| p.is_file())
            .ok_or_else(|| LoadError::NoGamesFile {
                path: path.to_path_buf(),
            })
    } else {
        Ok(path.to_path_buf())
    }
}

/// Reads the games of `path` (see [`games_file`]) one at a time, in file
/// order, handing each to `each`.
pub fn scan_games(path: &Path, mut each: impl FnMut(GameLine<'_>)) -> Result<(), LoadError> {
    let file = games_file(path)?;
    if file.extension().is_some_and(|e| e == "jsonl") {
        for line in games_in(&file)? {
            each(GameLine::Record(&line?.record));
        }
        return Ok(());
    }
    let (mut reader, headers) = open_csv(&file)?;
    if let Some(columns) = ResultColumns::of(&headers).map_err(|message| LoadError::Malformed {
        path: file.clone(),
        line: 1,
        message,
    })? {
        return scan_results(&file, reader, &columns, each);
    }
    for row in reader.deserialize::<CsvRow>() {
        each(GameLine::Row(
            &row.map_err(|e| csv_error(&file, e, &headers))?,
        ));
    }
    Ok(())
}

/// A CSV games file and its header.
fn open_csv(file: &Path) -> Result<(csv::Reader<io::BufReader<File>>, Vec<String>), LoadError> {
    let f = File::open(file).map_err(|source| LoadError::Io {
        path: file.to_path_buf(),
        source,
    })?;
    let mut reader = csv::Reader::from_reader(io::BufReader::new(f));
    let headers = reader
        .headers()
        .map_err(|e| csv_error(file, e, &[]))?
        .iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
    Ok((reader, headers))
}

/// A game of a results file from elsewhere (see [`ResultColumns`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// Its place among the file's games, from 0: Elo is updated in file
    /// order.
    pub index: u64,
    /// The `round` column; 0 without one (all games one Glicko period).
    pub round: u64,
    /// Its seat-swapped pair, numbered by first appearance: from the `pair`
    /// column, else from the `opening` column, else a pair of its own.
    pub pair: u64,
    /// The bots in seat 0 and seat 1.
    pub seats: [String; 2],
    /// From seat 0's point of view.
    pub result: GameResult,
}

/// The columns of a minimal results file, one written by something other
/// than arena: any CSV whose header has no `index` column (arena's
/// `games.csv` starts with one). It needs `seat0`, `seat1` and `result`
/// (`1-0`, `0-1`, `1/2-1/2`); it may have
/// - `round`: a number, the Glicko rating period (without it every game is
///   in one period);
/// - `pair`: any text; games with the same text and the same two bots are
///   one seat-swapped pair (one cluster of the intervals, one pentanomial
///   outcome);
/// - `opening`: any text; without a `pair` column, consecutive games of the
///   same two bots on the same opening are paired two by two (how
///   cutechess plays an opening with seats swapped).
///
/// Header names are matched without case or surrounding spaces; other
/// columns are ignored (and named by [`ResultColumns::ignored`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ResultColumns {
    seat0: usize,
    seat1: usize,
    result: usize,
    round: Option<usize>,
    pair: Option<usize>,
    opening: Option<usize>,
    names: Vec<String>,
    /// The header's columns that none of the above reads.
    pub ignored: Vec<String>,
}

/// The optional columns of a results file, in the order they are listed.
pub const RESULT_OPTIONAL_COLUMNS: [&str; 3] = ["round", "pair", "opening"];

impl ResultColumns {
    /// The columns of a header; `None` for arena's own `games.csv` (it has
    /// an `index` column).
    pub fn of(headers: &[String]) -> Result<Option<ResultColumns>, String> {
        let names: Vec<String> = headers.iter().map(|h| h.trim().to_lowercase()).collect();
        if names.iter().any(|n| n == "index") {
            return Ok(None);
        }
        let find = |want: &str| -> Result<Option<usize>, String> {
            let mut at = names.iter().enumerate().filter(|(_, n)| *n == want);
            let first = at.next().map(|(i, _)| i);
            if let Some((i, _)) = at.next() {
                return Err(format!(
                    "columns {} and {} are both `{want}`",
                    first.unwrap_or(0) + 1,
                    i + 1
                ));
            }
            Ok(first)
        };
        let need = |want: &str| -> Result<usize, String> {
            find(want)?.ok_or_else(|| {
                format!(
                    "no column `{want}`: a results file needs the columns seat0, seat1 \
                     and result (optional: round, pair, opening); the header has {}",
                    if headers.is_empty() {
                        "none".to_string()
                    } else {
                        headers
                            .iter()
                            .map(|h| format!("`{}`", escape(h)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                )
            })
        };
        let (seat0, seat1, result) = (need("seat0")?, need("seat1")?, need("result")?);
        let (round, pair, opening) = (find("round")?, find("pair")?, find("opening")?);
        // With a pair column, an opening column pairs nothing: ignored.
        let read = [
            Some(seat0),
            Some(seat1),
            Some(result),
            round,
            pair,
            opening.filter(|_| pair.is_none()),
        ];
        let ignored = headers
            .iter()
            .enumerate()
            .filter(|(i, _)| !read.contains(&Some(*i)))
            .map(|(_, h)| h.clone())
            .collect();
        Ok(Some(ResultColumns {
            seat0,
            seat1,
            result,
            round,
            pair,
            opening,
            names,
            ignored,
        }))
    }

    /// The optional columns read, of [`RESULT_OPTIONAL_COLUMNS`] (`opening`
    /// only without a `pair` column: the pair column pairs the games).
    pub fn used(&self) -> Vec<&'static str> {
        let present = [
            self.round,
            self.pair,
            self.opening.filter(|_| self.pair.is_none()),
        ];
        RESULT_OPTIONAL_COLUMNS
            .into_iter()
            .zip(present)
            .filter_map(|(name, at)| at.map(|_| name))
            .collect()
    }

    /// Whether the file's games are paired (a `pair` or `opening` column).
    pub fn paired(&self) -> bool {
        self.pair.is_some() || self.opening.is_some()
    }
}

/// The columns of `path` if it is a minimal results file (see
/// [`ResultColumns`]); `None` for a `games.jsonl` or arena's `games.csv`.
pub fn results_columns(path: &Path) -> Result<Option<ResultColumns>, LoadError> {
    let file = games_file(path)?;
    if file.extension().is_some_and(|e| e == "jsonl") {
        return Ok(None);
    }
    let (_, headers) = open_csv(&file)?;
    ResultColumns::of(&headers).map_err(|message| LoadError::Malformed {
        path: file,
        line: 1,
        message,
    })
}

/// The games of a results file, in file order.
fn scan_results(
    file: &Path,
    mut reader: csv::Reader<io::BufReader<File>>,
    c: &ResultColumns,
    mut each: impl FnMut(GameLine<'_>),
) -> Result<(), LoadError> {
    // Pair ids by first appearance: of a `pair` cell, or of the k-th pair
    // of games of two bots on one opening.
    let mut pair_ids: std::collections::HashMap<(String, String, String, u64), u64> =
        Default::default();
    let mut on_opening: std::collections::HashMap<(String, String, String), u64> =
        Default::default();
    let mut index = 0u64;
    for row in reader.records() {
        let row = row.map_err(|e| csv_error(file, e, &c.names))?;
        let line = row.position().map_or(0, |p| p.line());
        let bad = |col: usize, what: String| LoadError::Malformed {
            path: file.to_path_buf(),
            line,
            message: format!("column {} (`{}`): {what}", col + 1, c.names[col]),
        };
        let cell = |col: usize| row.get(col).unwrap_or("").trim();
        if row.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let mut seats = [String::new(), String::new()];
        for (seat, col) in [c.seat0, c.seat1].into_iter().enumerate() {
            let name = arena_core::record::csv_text(cell(col));
            if name.is_empty() {
                return Err(bad(col, "no bot name".to_string()));
            }
            seats[seat] = name.to_string();
        }
        let result: GameResult = cell(c.result)
            .parse()
            .map_err(|e: arena_core::record::WordError| bad(c.result, e.to_string()))?;
        let round = match c.round {
            Some(col) => cell(col).parse::<u64>().map_err(|_| {
                bad(
                    col,
                    format!(
                        "`{}` is not a round number (0, 1, 2, ...)",
                        escape(cell(col))
                    ),
                )
            })?,
            None => 0,
        };
        let (lo, hi) = if seats[0] <= seats[1] {
            (&seats[0], &seats[1])
        } else {
            (&seats[1], &seats[0])
        };
        let key = match (c.pair, c.opening) {
            (Some(col), _) if !cell(col).is_empty() => {
                Some((cell(col).to_string(), lo.clone(), hi.clone(), 0))
            }
            (None, Some(col)) if !cell(col).is_empty() => {
                let k = (cell(col).to_string(), lo.clone(), hi.clone());
                let n = on_opening.entry(k.clone()).or_default();
                *n += 1;
                Some((k.0, k.1, k.2, (*n - 1) / 2))
            }
            _ => None,
        };
        let pair = match key {
            // An unpaired game gets an id no pair has: a pair of its own.
            None => u64::MAX - index,
            Some(k) => {
                let fresh = pair_ids.len() as u64;
                *pair_ids.entry(k).or_insert(fresh)
            }
        };
        each(GameLine::Result(&ResultRow {
            index,
            round,
            pair,
            seats,
            result,
        }));
        index += 1;
    }
    Ok(())
}

fn csv_error(path: &Path, e: csv::Error, headers: &[String]) -> LoadError {
    let malformed = |line: Option<u64>, message: String| LoadError::Malformed {
        path: path.to_path_buf(),
        line: line.unwrap_or(0),
        message,
    };
    match e.into_kind() {
        csv::ErrorKind::Io(source) => LoadError::Io {
            path: path.to_path_buf(),
            source,
        },
        csv::ErrorKind::Deserialize { pos, err } => {
            let what = match err.field().and_then(|f| headers.get(f as usize)) {
                Some(col) => format!("column `{col}`: {}", err.kind()),
                None => err.kind().to_string(),
            };
            malformed(pos.map(|p| p.line()), what)
        }
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => malformed(
            pos.map(|p| p.line()),
            format!("{len} fields where the header has {expected_len}"),
        ),
        csv::ErrorKind::Utf8 { pos, err } => {
            malformed(pos.map(|p| p.line()), format!("not UTF-8: {err}"))
        }
        other => malformed(None, format!("{other:?}")),
    }
}

/// One bot's line of a `ratings.csv`, as far as the report draws it; read
/// by column name, so that added or reordered columns do no harm, and a
/// missing column or empty cell is `None`. Interval ends may be `inf`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct RatingsRow {
    /// The bot, as named (the CSV's guard against formulas undone).
    #[serde(deserialize_with = "csv_name")]
    pub bot: String,
    /// Bradley-Terry rating.
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_elo: Option<f64>,
    /// Low end of `bt_elo`'s interval (at the run's confidence level).
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_lo: Option<f64>,
    /// High end of `bt_elo`'s interval.
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_hi: Option<f64>,
    /// Elo, updated game by game in schedule order.
    #[serde(default, deserialize_with = "csv_number")]
    pub elo: Option<f64>,
    /// Glicko-2 rating.
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko2: Option<f64>,
    /// Glicko-2 rating deviation.
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko2_rd: Option<f64>,
    /// Glicko rating.
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko: Option<f64>,
    /// Glicko rating deviation.
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko_rd: Option<f64>,
    /// Likelihood of superiority over the next bot down.
    #[serde(default, deserialize_with = "csv_number")]
    pub los_next: Option<f64>,
    /// What the interval can say, in words, when it is open or missing.
    #[serde(default)]
    pub bt_note: String,
}

fn csv_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let cell = String::deserialize(d)?;
    Ok(arena_core::record::csv_text(cell.trim()).to_string())
}

fn csv_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let cell = String::deserialize(d)?;
    Ok(cell.trim().parse::<f64>().ok().filter(|x| !x.is_nan()))
}

/// Reads the rows of a `ratings.csv` text (rows without a bot are skipped).
pub fn parse_ratings(text: &str) -> Result<Vec<RatingsRow>, csv::Error> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::Headers)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for row in reader.deserialize::<RatingsRow>() {
        let row = row?;
        if !row.bot.is_empty() {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// `dir/ratings.csv`'s rows; `Ok(None)` when there is none (ratings not
/// computed yet) or it has no `bot` column.
pub fn read_ratings(dir: &Path) -> Result<Option<Vec<RatingsRow>>, StoreError> {
    let path = dir.join(RATINGS);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path)(e)),
    };
    let has_bot = text
        .lines()
        .next()
        .is_some_and(|h| h.split(',').any(|c| c.trim() == "bot"));
    if !has_bot {
        return Ok(None);
    }
    parse_ratings(&text)
        .map(Some)
        .map_err(|e| StoreError::BadRatings {
            path: path.clone(),
            message: e.to_string(),
        })
}

/// A record as one line of `games.jsonl`, newline included.
pub fn jsonl_line(r: &GameRecord) -> Vec<u8> {
    let mut line = serde_json::to_vec(r).expect("records serialize");
    line.push(b'\n');
    line
}

/// Records as `games.csv` rows, with the header first when `header` (alone when
/// there are no rows).
pub fn csv_bytes(rows: &[&GameRecord], header: bool) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    for r in rows {
        w.serialize(CsvRow::from(*r)).expect("csv rows serialize");
    }
    if header && rows.is_empty() {
        w.write_record(CSV_HEADER).expect("csv header");
    }
    w.into_inner().expect("in-memory csv")
}

/// A record's line as a run writes it: whole, or compact with the states
/// of every `every`-th ply only ([`compact_record`]).
pub fn record_line(r: &GameRecord, every: usize) -> Vec<u8> {
    if every > 1 {
        jsonl_line(&compact_record(r, every))
    } else {
        jsonl_line(r)
    }
}

/// Writes `games.jsonl` and `games.csv` one record at a time (`arena
/// merge`): into temporary files, renamed over the old ones by
/// [`GamesWriter::finish`] once both are whole and synced.
pub struct GamesWriter {
    dir: PathBuf,
    jsonl: io::BufWriter<File>,
    csv: csv::Writer<io::BufWriter<File>>,
    /// How many records were written.
    pub count: u64,
}

impl GamesWriter {
    /// Opens the temporary files in `dir`, replacing any a crashed merge left
    /// behind; the CSV header is written.
    pub fn create(dir: &Path) -> Result<GamesWriter, StoreError> {
        let open = |name: &str| -> Result<File, StoreError> {
            let tmp = dir.join(format!(".{name}.tmp"));
            match fs::remove_file(&tmp) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err(&tmp)(e)),
            }
            private_options()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .map_err(io_err(&tmp))
        };
        let jsonl = io::BufWriter::new(open(GAMES_JSONL)?);
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(io::BufWriter::new(open(GAMES_CSV)?));
        csv.write_record(CSV_HEADER)
            .map_err(|e| io_err(&dir.join(GAMES_CSV))(e.into()))?;
        Ok(GamesWriter {
            dir: dir.to_path_buf(),
            jsonl,
            csv,
            count: 0,
        })
    }

    /// Appends `record`, whose JSON line is `line` (newline included).
    pub fn push(&mut self, record: &GameRecord, line: &[u8]) -> Result<(), StoreError> {
        self.jsonl
            .write_all(line)
            .map_err(io_err(&self.dir.join(GAMES_JSONL)))?;
        self.csv
            .serialize(CsvRow::from(record))
            .map_err(|e| io_err(&self.dir.join(GAMES_CSV))(e.into()))?;
        self.count += 1;
        Ok(())
    }

    /// Syncs both files and renames them over `games.jsonl` and `games.csv`, so
    /// that a crash leaves the old pair or the new, never half of one.
    pub fn finish(self) -> Result<(), StoreError> {
        let sync = |f: File, name: &str| -> Result<(), StoreError> {
            let tmp = self.dir.join(format!(".{name}.tmp"));
            f.sync_all().map_err(io_err(&tmp))?;
            fs::rename(&tmp, self.dir.join(name)).map_err(io_err(&tmp))
        };
        let jp = self.dir.join(GAMES_JSONL);
        let cp = self.dir.join(GAMES_CSV);
        let jsonl = self
            .jsonl
            .into_inner()
            .map_err(|e| io_err(&jp)(e.into_error()))?;
        let csv = self
            .csv
            .into_inner()
            .map_err(|e| io_err(&cp)(io::Error::other(e.to_string())))?
            .into_inner()
            .map_err(|e| io_err(&cp)(e.into_error()))?;
        sync(jsonl, GAMES_JSONL)?;
        sync(csv, GAMES_CSV)?;
        sync_dir(&self.dir)
    }
}

/// Where a record was read: `file:line`.
pub fn place(path: &Path, line: usize) -> String {
    format!("{}:{line}", path.display())
}

/// The first top-level field in which two records differ, for messages.
pub fn first_difference(a: &GameRecord, b: &GameRecord) -> String {
    let (a, b) = (
        serde_json::to_value(a).expect("records serialize"),
        serde_json::to_value(b).expect("records serialize"),
    );
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return "record".into();
    };
    a.keys()
        .chain(b.keys())
        .find(|k| a.get(*k) != b.get(*k))
        .cloned()
        .unwrap_or_else(|| "record".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real Dakon game, first legal move each ply, as the referee records it.
    fn played_game() -> GameRecord {
        let game = arena_core::games::new_game("dakon", &[]).unwrap();
        let mut state = game.initial_state();
        let initial_state = state.to_string();
        let mut moves = Vec::new();
        while state.outcome().is_none() {
            let mv = state.legal_moves()[0].clone();
            let seat = state.to_move();
            let effects = state.play(&mv).unwrap();
            moves.push(arena_core::record::MoveRecord {
                seat,
                mv,
                ms: 1.0,
                cpu_ms: None,
                info: Vec::new(),
                search: Default::default(),
                state: state.to_string(),
                effects,
            });
        }
        let line = r#"{"index":0,"round":0,"pair":0,"game":"dakon","params":{},"seed":0,"seats":[{"name":"a","command":[],"log":null},{"name":"b","command":[],"log":null}],"initial_state":"","moves":[],"final_state":"","scores":[0,0],"result":"1-0","reason":"normal","duration_ms":1}"#;
        let mut r: GameRecord = serde_json::from_str(line).unwrap();
        r.params = game.params().into_iter().collect();
        r.initial_state = initial_state;
        r.final_state = state.to_string();
        r.moves = moves;
        r
    }

    #[test]
    fn compact_records_read_back_whole() {
        let full = played_game();
        assert!(full.moves.len() > 20, "{} plies", full.moves.len());
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(GAMES_JSONL);
        let compact = record_line(&full, 10);
        assert!(
            compact.len() * 3 < jsonl_line(&full).len(),
            "{} bytes",
            compact.len()
        );
        let kept = compact_record(&full, 10)
            .moves
            .iter()
            .filter(|m| !m.state.is_empty())
            .count();
        assert_eq!(kept, full.moves.len().div_ceil(10));
        let mut text = record_line(&full, 1);
        text.extend(&compact);
        fs::write(&path, &text).unwrap();
        let read = read_games_file(&path).unwrap();
        assert_eq!(read, [full.clone(), full.clone()]);
        // A move the engine refuses is a bad record, named by file and line.
        let mut broken = compact_record(&full, 10);
        broken.moves[3].mv = "99".into();
        fs::write(&path, jsonl_line(&broken)).unwrap();
        let e = read_games_file(&path).unwrap_err().to_string();
        assert!(
            e.contains(":1: not a game record: cannot rebuild the states left out: ply 4"),
            "{e}"
        );
    }
}
