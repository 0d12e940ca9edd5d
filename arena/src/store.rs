//! The run directory (`reports/<name>/`, a shard's directory, `arena match
//! --out`): what is in it, who may write it, and the one reader and writer
//! of its records.
//!
//! Only arena writes a run directory: it is created (or made) mode 0700 and
//! owned by the user running arena, its files are created 0600 without
//! following symbolic links, and its manifest lists every name arena writes
//! there, so that `--overwrite` removes exactly those. Files in it:
//! - `tournament.json`: the [`Manifest`] (config fingerprint, seed, shard,
//!   status, the files, the normalized config) that `--resume` and `arena
//!   merge` check;
//! - `journal.jsonl`: every finished game that is not yet in `games.jsonl`,
//!   one JSON line each, appended and fsynced as soon as the game ends (a
//!   torn last line after a crash is discarded on resume); removed once the
//!   run is complete;
//! - `games.jsonl`, `games.csv`: the finished games in schedule order; they
//!   grow by the completed prefix of the schedule and are fsynced as they grow;
//! - `logs/`: the bots' stderr, one file per game and seat;
//! - the report files (`ratings.csv`, `crosstable.csv`, `los.csv`,
//!   `index.html`, and `replays/`, the replay blocks the page loads);
//! - `.arena.lock`, held (flock) by the process running in the directory.
//!
//! This module is also the one reader of the files people hand to arena
//! (`games.jsonl` and `games.csv` for `show`, `report` and `ratings`, a
//! `ratings.csv` for `report`): every file of a run is read and written
//! here.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::display::escape;
use crate::run::config::Normalized;
use crate::run::schedule::{GameJob, Shard};
use arena_core::games::{ParamError, ParseError, PlayError};
use arena_core::record::{CsvRow, GameRecord, GameResult, CSV_HEADER};

pub const MANIFEST: &str = "tournament.json";
pub const JOURNAL: &str = "journal.jsonl";
pub const GAMES_JSONL: &str = "games.jsonl";
pub const GAMES_CSV: &str = "games.csv";
/// The bots' stderr logs.
pub const LOGS: &str = "logs";
/// The ratings (`arena ratings`, the end of a run).
pub const RATINGS: &str = "ratings.csv";
/// Head-to-head results of every pair.
pub const CROSSTABLE: &str = "crosstable.csv";
/// Likelihood of superiority of every bot over every other.
pub const LOS: &str = "los.csv";
/// A gauntlet's sequential tests, one per challenger (config `sprt`).
pub const SPRT_CSV: &str = "sprt.csv";
/// The HTML report.
pub const INDEX_HTML: &str = "index.html";
/// Held (flock) by the process running in a directory.
pub const LOCK: &str = ".arena.lock";
/// The largest manifest arena reads (it holds a normalized config, itself
/// from a config of at most 1 MiB).
pub const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// Every name arena writes in a run directory (`logs/`: the directory of
/// stderr logs; `replays/`: the report's replay blocks). Recorded in each manifest; `--overwrite` removes these and
/// nothing else.
pub fn run_files() -> Vec<String> {
    [
        MANIFEST,
        JOURNAL,
        GAMES_JSONL,
        GAMES_CSV,
        RATINGS,
        CROSSTABLE,
        LOS,
        SPRT_CSV,
        INDEX_HTML,
        "logs/",
        "replays/",
    ]
    .map(String::from)
    .to_vec()
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// A directory or file that does not fit what was asked (another
    /// user's directory, an existing run, a forged or corrupt record).
    #[error("{0}")]
    Refused(String),
    /// A line of a games file that is not a game record.
    #[error("{}:{line}: not a game record: {message}", path.display())]
    BadRecord {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

pub fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn refused<T>(message: String) -> Result<T, StoreError> {
    Err(StoreError::Refused(message))
}

// ---------------------------------------------------------------------------
// Directories and files only arena writes.

/// Makes `dir` a private directory: created mode 0700 (with its missing
/// parents), or, when it exists, checked to be a directory owned by the
/// user running arena and tightened to 0700. A directory of another user
/// is refused: its owner could write forged results into it.
pub fn private_dir(dir: &Path) -> Result<(), StoreError> {
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(parent).map_err(io_err(parent))?;
            }
            match fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_err(dir)(e)),
            }
            check_private(dir, &fs::metadata(dir).map_err(io_err(dir))?)
        }
        Err(e) => Err(io_err(dir)(e)),
        Ok(meta) => check_private(dir, &meta),
    }
}

/// `name` in `dir` as a private directory; a symbolic link there is refused
/// rather than followed.
pub fn private_subdir(dir: &Path, name: &str) -> Result<PathBuf, StoreError> {
    let path = dir.join(name);
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => refused(format!(
            "{} is a symbolic link; arena writes only into directories it made",
            path.display()
        )),
        Ok(m) => check_private(&path, &m).map(|()| path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => private_dir(&path).map(|()| path),
        Err(e) => Err(io_err(&path)(e)),
    }
}

fn check_private(dir: &Path, meta: &fs::Metadata) -> Result<(), StoreError> {
    if !meta.is_dir() {
        return refused(format!("{} is not a directory", dir.display()));
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return refused(format!(
            "{} belongs to uid {}, not to uid {me} running arena: whoever owns it could change the results; choose another --out (or chown it)",
            dir.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o7777 != 0o700 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_err(dir))?;
    }
    Ok(())
}

/// Options that create a file 0600 and never follow a symbolic link.
fn private_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    o
}

/// Opens `path` for writing, private and never through a link: created or
/// emptied, or with `append` appended to (files made again from the
/// records, such as the report's replay blocks).
pub fn create_or_append(path: &Path, append: bool) -> Result<File, StoreError> {
    let mut o = private_options();
    if append {
        o.append(true).create(true);
    } else {
        o.write(true).create(true).truncate(true);
    }
    let f = o.open(path).map_err(io_err(path))?;
    restrict(&f, path)?;
    Ok(f)
}

/// Opens an existing file of the run for appending (never through a link),
/// made 0600 if an older arena left it wider.
pub fn open_append(path: &Path) -> Result<File, StoreError> {
    let f = private_options()
        .append(true)
        .open(path)
        .map_err(io_err(path))?;
    restrict(&f, path)?;
    Ok(f)
}

fn restrict(f: &File, path: &Path) -> Result<(), StoreError> {
    let mode = f.metadata().map_err(io_err(path))?.mode();
    if mode & 0o077 != 0 {
        f.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(io_err(path))?;
    }
    Ok(())
}

/// Makes each of `names` in `dir` that exists 0600 (for files written by
/// code that does not create them private itself).
pub fn restrict_files(dir: &Path, names: &[&str]) -> Result<(), StoreError> {
    for name in names {
        let path = dir.join(name);
        match private_options().read(true).open(&path) {
            Ok(f) => restrict(&f, &path)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&path)(e)),
        }
    }
    Ok(())
}

/// Writes `name` in `dir` through a fresh 0600 temporary file, fsync and
/// rename: readers see the old file or the new one, never half of one.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&tmp)(e)),
    }
    let mut f = private_options()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, &path).map_err(io_err(&path))?;
    sync_dir(dir)
}

pub fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

// ---------------------------------------------------------------------------
// Reading what users and other machines hand us.

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("not a regular file (it is a {0}); arena reads only regular files")]
    NotRegular(&'static str),
    #[error("{size} bytes is too big (at most {max} bytes)")]
    TooBig { size: u64, max: u64 },
}

/// The contents of `path`, which must be a regular file (a FIFO or device
/// is refused without being read) of at most `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    check_regular(&fs::metadata(path)?, Some(max))?;
    // O_NONBLOCK: were the file swapped for a FIFO since, opening it must
    // not wait for a writer; the check below then refuses it.
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    check_regular(&f.metadata()?, Some(max))?;
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooBig {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

fn check_regular(meta: &fs::Metadata, max: Option<u64>) -> Result<(), ReadError> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if !t.is_file() {
        return Err(ReadError::NotRegular(if t.is_dir() {
            "directory"
        } else if t.is_fifo() {
            "FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "device"
        } else if t.is_socket() {
            "socket"
        } else {
            "special file"
        }));
    }
    match max {
        Some(max) if meta.len() > max => Err(ReadError::TooBig {
            size: meta.len(),
            max,
        }),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Records.

/// A record and the line of its file it came from (from 1).
#[derive(Clone, Debug)]
pub struct Line {
    pub line: usize,
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
                check_regular(&other.map_err(io_err(path))?, None)
                    .map_err(|e| StoreError::Refused(format!("{}: {e}", path.display())))?;
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
    #[error("cannot rebuild the states left out: {0}")]
    Game(#[from] ParamError),
    /// The initial state, or a state the record kept.
    #[error("cannot rebuild the states left out: {0}")]
    State(#[from] ParseError),
    /// The move of ply `ply` (from 1), as the record holds it.
    #[error("cannot rebuild the states left out: ply {ply}: move `{}`: {source}", escape(.mv))]
    Move {
        ply: usize,
        mv: String,
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
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: directory has neither games.csv nor games.jsonl")]
    NoGamesFile { path: PathBuf },
    #[error("{path}: line {line}: {message}")]
    Malformed {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{0}")]
    Refused(String),
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
            StoreError::Refused(m) => LoadError::Refused(m),
        }
    }
}

/// One game of a games file: a record (`games.jsonl`), a row
/// (`games.csv`) or a row of a results file from elsewhere
/// ([`ResultColumns`]).
pub enum GameLine<'a> {
    Record(&'a GameRecord),
    Row(&'a CsvRow),
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
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_elo: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_lo: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub bt_hi: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub elo: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko2: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko2_rd: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko: Option<f64>,
    #[serde(default, deserialize_with = "csv_number")]
    pub glicko_rd: Option<f64>,
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
        .map_err(|e| StoreError::Refused(format!("{}: {e}", path.display())))
}

/// Writes `name` in `dir` (made if missing, with its parents) as
/// [`write_atomic`] does: the report files, which `arena ratings --out`
/// and `arena report` may also write outside a run directory.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, StoreError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    write_atomic(dir, name, bytes)?;
    Ok(dir.join(name))
}

/// Appends `bytes` to `file` and syncs it; if that fails (a full disk), the
/// file is cut back to where it was, so that it never ends in half a
/// record (the journal has the games; a resume writes them again).
fn append_whole(file: &mut File, bytes: &[u8], path: &Path) -> Result<(), StoreError> {
    let before = file.metadata().map_err(io_err(path))?.len();
    let written = file.write_all(bytes).and_then(|()| file.sync_data());
    if let Err(e) = written {
        let _ = file.set_len(before);
        let _ = file.sync_data();
        return Err(io_err(path)(e));
    }
    Ok(())
}

pub fn jsonl_line(r: &GameRecord) -> Vec<u8> {
    let mut line = serde_json::to_vec(r).expect("records serialize");
    line.push(b'\n');
    line
}

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

/// Checks `rec` (read at `at`) against the game the schedule has at its
/// index: index, round, pair, seed, game, parameters, both seats' bots and
/// the opening moves.
/// The error names the place and the first field that does not match.
pub fn check_record(
    at: &str,
    rec: &GameRecord,
    job: Option<&GameJob>,
    config: &Normalized,
) -> Result<(), StoreError> {
    let Some(job) = job else {
        return refused(format!(
            "{at}: index {} is not a game of this run; the record was not written by it",
            rec.index
        ));
    };
    let name = |b: usize| config.bots[b].name.as_str();
    let params: BTreeMap<String, String> = config.params.iter().cloned().collect();
    let checks: [(&str, String, String); 8] = [
        ("round", rec.round.to_string(), job.round.to_string()),
        ("pair", rec.pair.to_string(), job.pair.to_string()),
        ("seed", rec.seed.to_string(), job.seed.to_string()),
        ("game", rec.game.clone(), config.game.clone()),
        (
            "params",
            format!("{:?}", rec.params),
            format!("{:?}", params),
        ),
        (
            "seats[0].name",
            rec.seats[0].name.clone(),
            name(job.seats[0]).to_string(),
        ),
        (
            "seats[1].name",
            rec.seats[1].name.clone(),
            name(job.seats[1]).to_string(),
        ),
        ("index", rec.index.to_string(), job.index.to_string()),
    ];
    for (field, got, want) in checks {
        if got != want {
            return refused(format!(
                "{at}: game {}: {field} is `{}`, but the schedule of this config and seed says `{}`; the record was not written by this run",
                job.index,
                escape(&got),
                escape(&want)
            ));
        }
    }
    if let Some(why) = crate::run::openings::check_opening(rec, job, config) {
        return refused(format!(
            "{at}: game {}: {why}; the record was not written by this run",
            job.index
        ));
    }
    Ok(())
}

/// What a run directory holds for `--resume`, checked ([`check_resume`]).
#[derive(Debug, Default)]
pub struct Resumed {
    /// How many games of the run's schedule `games.jsonl` holds, in order
    /// (the records stay on disk: [`Writer::open`] reads them again).
    pub prefix: usize,
    /// The journal's games that are not in `games.jsonl`, by index.
    pub journal: BTreeMap<u64, GameRecord>,
}

impl Resumed {
    /// Whether game `index` of the run (`jobs`, in index order) is finished.
    pub fn finished(&self, jobs: &[GameJob], index: u64) -> bool {
        self.journal.contains_key(&index)
            || jobs
                .binary_search_by_key(&index, |j| j.index)
                .is_ok_and(|pos| pos < self.prefix)
    }
}

/// A digest of a whole record, to tell whether two records of one game
/// agree without keeping either.
fn digest(r: &GameRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_vec(r)
        .expect("records serialize")
        .hash(&mut h);
    h.finish()
}

/// Checks the records of `dir` (`games.jsonl`, then the journal) against
/// the schedule (`jobs`: this run's games, in index order) and the config,
/// reading one record at a time. `games.jsonl` must be the first games of
/// the schedule, in order (as arena writes it). A game found twice must be
/// the same record both times (the journal and `games.jsonl` overlap while
/// a run goes); two that disagree are an error naming both places. Kept in
/// memory: a digest and a line number per game of `games.jsonl`, and the
/// journal's other games.
pub fn check_resume(
    dir: &Path,
    jobs: &[GameJob],
    config: &Normalized,
) -> Result<Resumed, StoreError> {
    let pos_of = |index: u64| jobs.binary_search_by_key(&index, |j| j.index).ok();
    let games = dir.join(GAMES_JSONL);
    let mut prefix: Vec<(u64, u32)> = Vec::new();
    for line in Records::open(&games, Tail::Torn, true)? {
        let Line { line, record } = line?;
        let at = place(&games, line);
        let pos = pos_of(record.index);
        check_record(&at, &record, pos.map(|p| &jobs[p]), config)?;
        if pos != Some(prefix.len()) {
            return refused(format!(
                "{at}: game {} where the schedule has game {}: arena writes {GAMES_JSONL} in schedule order, so it did not write this file",
                record.index,
                jobs.get(prefix.len()).map_or_else(|| "none".to_string(), |j| j.index.to_string())
            ));
        }
        prefix.push((digest(&record), line as u32));
    }
    let path = dir.join(JOURNAL);
    let mut journal: BTreeMap<u64, (GameRecord, String)> = BTreeMap::new();
    for line in Records::open(&path, Tail::Torn, true)? {
        let Line { line, record } = line?;
        let at = place(&path, line);
        let pos = pos_of(record.index);
        check_record(&at, &record, pos.map(|p| &jobs[p]), config)?;
        let disagree = |other: &GameRecord, other_at: &str| {
            refused(format!(
                "game {}: {other_at} and {at} disagree ({} differs): two different records of one game",
                record.index,
                first_difference(other, &record)
            ))
        };
        match pos {
            Some(p) if p < prefix.len() => {
                let (d, gline) = prefix[p];
                if d != digest(&record) {
                    let other = Records::open(&games, Tail::Torn, true)?
                        .find_map(|l| l.ok().filter(|l| l.line == gline as usize))
                        .map(|l| l.record)
                        .ok_or_else(|| {
                            StoreError::Refused(format!("{}: changed while read", games.display()))
                        })?;
                    return disagree(&other, &place(&games, gline as usize));
                }
            }
            _ => match journal.get(&record.index) {
                Some((other, other_at)) if *other != record => return disagree(other, other_at),
                Some(_) => {}
                None => {
                    journal.insert(record.index, (record, at));
                }
            },
        }
    }
    Ok(Resumed {
        prefix: prefix.len(),
        journal: journal.into_iter().map(|(i, (r, _))| (i, r)).collect(),
    })
}

// ---------------------------------------------------------------------------
// The manifest.

/// How a run's games are rated (config `anchor` and `confidence`), kept in
/// its manifest so that `arena merge` rates shards as their config asks. Not
/// part of the fingerprint: the same games may be rated again another way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingSettings {
    /// Where the scale sits: the rating of `anchor_bot`, or of the pool's mean.
    pub anchor: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_bot: Option<String>,
    /// The level of every interval.
    pub confidence: f64,
}

/// `tournament.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    /// Hash of the normalized config (seed included).
    pub fingerprint: String,
    pub seed: u64,
    /// Games in the whole schedule.
    pub total_games: u64,
    /// `None` for an unsharded run or a merge.
    pub shard: Option<Shard>,
    /// Games this run plays (its shard's share).
    pub run_games: u64,
    /// `running`, `merging` or `complete`.
    pub status: String,
    pub arena_version: String,
    /// What ends the run before its last game (`arena match --sprt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_rule: Option<String>,
    /// Why the run ended before its last game, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The names arena writes in the directory (`logs/` for the logs).
    #[serde(default = "run_files")]
    pub files: Vec<String>,
    pub config: Normalized,
    /// What the run warned about at its start (bots without a sandbox, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Distinct openings, games and pairs of the finished run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<crate::run::distinct::Distinct>,
    /// Each sitting's conditions (the first run, then each `--resume`):
    /// times, host, CPU, OS, arena's commit, the bots' program files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sittings: Vec<crate::run::conditions::Sitting>,
    /// How the games are rated, when the config says ([`RatingSettings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingSettings>,
}

impl Manifest {
    pub fn new(config: &Normalized, total: u64, shard: Option<Shard>, run_games: u64) -> Self {
        Manifest {
            name: config.name.clone(),
            fingerprint: config.fingerprint(),
            seed: config.seed,
            total_games: total,
            shard,
            run_games,
            status: "running".into(),
            arena_version: env!("CARGO_PKG_VERSION").into(),
            stop_rule: None,
            stopped: None,
            files: run_files(),
            config: config.clone(),
            warnings: Vec::new(),
            distinct: None,
            sittings: Vec::new(),
            ratings: None,
        }
    }

    /// The manifest in `dir`, if there is one. A manifest that is not one
    /// (too big, not JSON, a schedule beyond [`crate::run::schedule::MAX_GAMES`],
    /// a file list naming paths outside the directory) is refused.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, StoreError> {
        let path = dir.join(MANIFEST);
        let bad = |why: String| {
            StoreError::Refused(format!("{}: not a run manifest ({why})", path.display()))
        };
        let bytes = match read_bounded(&path, MAX_MANIFEST_BYTES) {
            Ok(b) => b,
            Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(ReadError::Io(e)) => return Err(io_err(&path)(e)),
            Err(e) => return Err(bad(e.to_string())),
        };
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let c = &m.config;
        let len = crate::run::schedule::schedule_len(c.format, c.bots.len(), u64::from(c.games));
        if len > u128::from(crate::run::schedule::MAX_GAMES) || len != u128::from(m.total_games) {
            return Err(bad(format!(
                "its config has {len} games, it says {}",
                m.total_games
            )));
        }
        let champion_ok = match c.format {
            crate::run::config::FormatKind::Gauntlet => c
                .champion
                .as_ref()
                .is_some_and(|ch| c.bots.iter().any(|b| &b.name == ch)),
            crate::run::config::FormatKind::Match => c.bots.len() == 2,
            crate::run::config::FormatKind::RoundRobin => true,
        };
        if !champion_ok || c.bots.len() < 2 {
            return Err(bad("its config is not one arena writes".into()));
        }
        if let Some(f) = m.files.iter().find(|f| !plain_name(f)) {
            return Err(bad(format!(
                "file `{}` is not a name in the directory",
                escape(f)
            )));
        }
        Ok(Some(m))
    }

    pub fn write(&self, dir: &Path) -> Result<(), StoreError> {
        let mut text = serde_json::to_string_pretty(self).expect("manifest serializes");
        text.push('\n');
        write_atomic(dir, MANIFEST, text.as_bytes())
    }

    /// `` `name` seed S [shard K/N] ``, for messages.
    pub fn describe(&self) -> String {
        match self.shard {
            Some(s) => format!("`{}` seed {} shard {s}", self.name, self.seed),
            None => format!("`{}` seed {}", self.name, self.seed),
        }
    }
}

/// A name directly in the directory (`logs/` for a directory): no path.
fn plain_name(f: &str) -> bool {
    let name = f.strip_suffix('/').unwrap_or(f);
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// Whether `dir` holds any name a run writes (other than the lock): a
/// directory with such files but no manifest is not arena's to write into.
pub fn holds_run_files(dir: &Path) -> Option<String> {
    run_files()
        .into_iter()
        .map(|f| f.trim_end_matches('/').to_string())
        .find(|f| fs::symlink_metadata(dir.join(f)).is_ok())
}

/// Removes what the run whose manifest is `m` wrote in `dir`: the files it
/// lists (the manifest last, so that an interrupted removal can be redone),
/// their temporary files, and in `logs/` the files named as arena names
/// logs (the directory too once empty). Nothing else is touched.
pub fn remove_run(dir: &Path, m: &Manifest) -> Result<(), StoreError> {
    let remove = |p: &Path| match fs::remove_file(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(p)(e)),
    };
    let mut files: Vec<&String> = m.files.iter().filter(|f| *f != MANIFEST).collect();
    if m.files.iter().any(|f| f == MANIFEST) {
        files.push(&m.files[m.files.iter().position(|f| f == MANIFEST).expect("found")]);
    }
    for f in files {
        if !plain_name(f) {
            continue;
        }
        if let Some(sub) = f.strip_suffix('/') {
            let logs = dir.join(sub);
            let entries = match fs::read_dir(&logs) {
                Ok(e) => e,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(&logs)(e)),
            };
            for entry in entries {
                let entry = entry.map_err(io_err(&logs))?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let ours = if sub == "replays" {
                    crate::report::html::is_block_name(&name)
                } else {
                    is_log_name(&name)
                };
                if ours {
                    remove(&entry.path())?;
                }
            }
            // Left in place if anything else is in it.
            let _ = fs::remove_dir(&logs);
        } else {
            remove(&dir.join(format!(".{f}.tmp")))?;
            remove(&dir.join(f))?;
        }
    }
    sync_dir(dir)
}

/// `gameNNNNN-seatS-NAME.log`, as [`crate::referee::GameSetup::log_path`] names logs.
fn is_log_name(name: &str) -> bool {
    log_game(name).is_some()
}

/// The game index in a log's name, if `name` is one arena gives logs.
fn log_game(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("game")?;
    // A stderr log, or a transcript (`transcript = true`).
    let rest = rest
        .strip_suffix(".log")
        .or_else(|| rest.strip_suffix(".transcript"))?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let seat = rest[digits..].strip_prefix("-seat")?;
    let ok = digits >= 5
        && (seat.starts_with("0-") || seat.starts_with("1-"))
        && seat[2..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| rest[..digits].parse().ok()).flatten()
}

/// Removes from `dir/logs` the logs of games not `finished`: what games cut
/// short by a crash left, before `--resume` plays them again.
pub fn remove_unfinished_logs(
    dir: &Path,
    finished: impl Fn(u64) -> bool,
) -> Result<(), StoreError> {
    let logs = dir.join(LOGS);
    let entries = match fs::read_dir(&logs) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(&logs)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io_err(&logs))?;
        let game = log_game(&entry.file_name().to_string_lossy());
        if game.is_some_and(|g| !finished(g)) {
            let p = entry.path();
            fs::remove_file(&p).map_err(io_err(&p))?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The lock.

/// The lock of a run directory: held while a process runs (or merges) in
/// it, so that two never write the same directory at once; released when
/// dropped (or when the process dies).
pub struct RunLock {
    _lock: nix::fcntl::Flock<File>,
    path: PathBuf,
    created: bool,
}

impl RunLock {
    /// Makes `dir` private ([`private_dir`]) and takes its lock.
    pub fn acquire(dir: &Path) -> Result<RunLock, StoreError> {
        private_dir(dir)?;
        let path = dir.join(LOCK);
        let (file, created) = match private_options().write(true).create_new(true).open(&path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => (
                private_options()
                    .write(true)
                    .open(&path)
                    .map_err(io_err(&path))?,
                false,
            ),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let lock = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
            .map_err(|(_, errno)| {
                if errno == nix::errno::Errno::EWOULDBLOCK {
                    StoreError::Refused(format!(
                        "another arena is running in {} (it holds {}); wait for it to finish or stop it first",
                        dir.display(),
                        path.display()
                    ))
                } else {
                    io_err(&path)(errno.into())
                }
            });
        let lock = match lock {
            Ok(l) => l,
            Err(e) => {
                if created {
                    let _ = fs::remove_file(&path);
                }
                return Err(e);
            }
        };
        Ok(RunLock {
            _lock: lock,
            path,
            created,
        })
    }

    /// Gives the lock up for a directory that was refused: a lock file this
    /// process created goes too, so a refusal leaves the directory as it was.
    pub fn refused(self) {
        if self.created {
            let _ = fs::remove_file(&self.path);
        }
    }
}

// ---------------------------------------------------------------------------
// Logs of merged runs.

/// Brings the stderr logs of `from` into `to` (hard links where possible,
/// else copies), each made 0600. Only regular files are taken: a symbolic
/// link in `from` is never followed.
pub fn copy_logs(from: &Path, to_dir: &Path) -> Result<(), StoreError> {
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(from)(e)),
    };
    let to = private_subdir(to_dir, LOGS)?;
    for entry in entries {
        let entry = entry.map_err(io_err(from))?;
        if !entry.file_type().map_err(io_err(from))?.is_file() {
            continue;
        }
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if fs::hard_link(&src, &dst).is_err() {
            let mut input = private_options()
                .read(true)
                .open(&src)
                .map_err(io_err(&src))?;
            let mut out = private_options()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&dst)
                .map_err(io_err(&dst))?;
            io::copy(&mut input, &mut out).map_err(io_err(&dst))?;
        }
        restrict_files(&to, &[&entry.file_name().to_string_lossy()])?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The writer of a run's records.

/// Decides, game by game in schedule order, whether a run, or the pairing
/// of the game, is over before its last game (`arena match --sprt`, a
/// gauntlet's `sprt`): `None` plays on.
pub type StopRule = Box<dyn FnMut(&GameRecord) -> Option<Stop> + Send>;

/// What a [`StopRule`] ended, and why (the text goes to the manifest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run ends after this game.
    Run(String),
    /// The pairing of this game (its two bots) ends after it: its games
    /// later in the schedule are skipped, the others play on.
    Pairing(String),
}

/// The two bots of a game, whichever seat: what [`Stop::Pairing`] ends.
pub fn pairing_of(job: &GameJob) -> [usize; 2] {
    let [a, b] = job.seats;
    [a.min(b), a.max(b)]
}

/// Appends finished games: to the journal at once, to `games.*` as the
/// completed prefix of the schedule grows.
pub struct Writer {
    dir: PathBuf,
    journal: File,
    jsonl: File,
    csv: File,
    plan: Plan,
    finished: usize,
    /// Records keep the state of every this-many plies (1: every ply).
    every: usize,
}

/// What of the schedule is in `games.*`, what is still to come, and the
/// stop rule that may shorten it.
struct Plan {
    /// This run's game indices in schedule order (less what a stop ended).
    order: Vec<u64>,
    /// Each game's pairing ([`pairing_of`]), by index.
    pairings: std::collections::HashMap<u64, [usize; 2]>,
    /// How many of `order` are in `games.*`.
    next: usize,
    /// Finished games not yet in `games.*`.
    pending: BTreeMap<u64, GameRecord>,
    stop: Option<StopRule>,
    /// Why the run ended early, once the stop rule said so.
    stopped: Option<String>,
    /// The pairings a [`Stop::Pairing`] ended, and why, in the order they
    /// ended.
    closed: Vec<([usize; 2], String)>,
}

impl Plan {
    /// Game `r`, the next of the schedule, joins `games.*`: the stop rule
    /// sees it, and what it ends is taken out of what is still to come.
    fn decide(&mut self, r: &GameRecord) {
        self.next += 1;
        match self.stop.as_mut().and_then(|s| s(r)) {
            None => {}
            Some(Stop::Run(why)) => {
                self.order.truncate(self.next);
                self.pending.clear();
                self.stopped = Some(why);
            }
            Some(Stop::Pairing(why)) => {
                let Some(&pairing) = self.pairings.get(&r.index) else {
                    return;
                };
                let pairings = &self.pairings;
                let later = self.order.split_off(self.next);
                self.order.extend(
                    later
                        .into_iter()
                        .filter(|i| pairings.get(i) != Some(&pairing)),
                );
                self.pending
                    .retain(|i, _| pairings.get(i) != Some(&pairing));
                self.closed.push((pairing, why));
            }
        }
    }

    /// Whether game `index` belongs to a pairing the stop rule ended.
    fn skipped(&self, index: u64) -> bool {
        let pairing = self.pairings.get(&index);
        self.closed.iter().any(|(p, _)| Some(p) == pairing)
    }
}

impl Writer {
    /// Rewrites the files from what `resumed` found (dropping any torn
    /// line; `games.jsonl`'s records are read again, one at a time) and
    /// opens them for appending. The games of the prefix, and the journal's
    /// that extend it, go through `stop` and are shown to `seen`, in order:
    /// they end what they ended when they were played.
    /// Records are written with the state of every `record_states`-th ply
    /// ([`record_line`]; 1: every ply); those already in `games.jsonl` are
    /// copied as they are.
    pub fn open(
        dir: &Path,
        jobs: &[GameJob],
        resumed: Resumed,
        stop: Option<StopRule>,
        record_states: usize,
        seen: &mut dyn FnMut(&GameRecord),
    ) -> Result<Writer, StoreError> {
        let every = record_states.max(1);
        let mut plan = Plan {
            order: jobs.iter().map(|j| j.index).collect(),
            pairings: jobs.iter().map(|j| (j.index, pairing_of(j))).collect(),
            next: 0,
            pending: resumed.journal,
            stop,
            stopped: None,
            closed: Vec::new(),
        };
        let mut out = GamesWriter::create(dir)?;
        let mut old = Records::open(&dir.join(GAMES_JSONL), Tail::Torn, true)?;
        while plan.next < resumed.prefix && plan.stopped.is_none() {
            let Some(line) = old.next() else { break };
            let r = line?.record;
            plan.decide(&r);
            out.push(&r, old.raw())?;
            seen(&r);
        }
        drop(old);
        while plan.stopped.is_none() {
            let Some(r) = plan
                .order
                .get(plan.next)
                .and_then(|i| plan.pending.remove(i))
            else {
                break;
            };
            plan.decide(&r);
            out.push(&r, &record_line(&r, every))?;
            seen(&r);
        }
        out.finish()?;
        let journal: Vec<u8> = plan
            .pending
            .values()
            .flat_map(|r| record_line(r, every))
            .collect();
        write_atomic(dir, JOURNAL, &journal)?;
        Ok(Writer {
            dir: dir.to_path_buf(),
            journal: open_append(&dir.join(JOURNAL))?,
            jsonl: open_append(&dir.join(GAMES_JSONL))?,
            csv: open_append(&dir.join(GAMES_CSV))?,
            finished: plan.next + plan.pending.len(),
            plan,
            every,
        })
    }

    /// Finished games not yet in `games.*` (from the journal, on resume).
    pub fn pending(&self) -> impl Iterator<Item = &GameRecord> {
        self.plan.pending.values()
    }

    /// Games finished (in the journal or in `games.*`).
    pub fn finished(&self) -> usize {
        self.finished
    }

    /// Games in `games.*`.
    pub fn written(&self) -> usize {
        self.plan.next
    }

    /// Why the run ended early, if the stop rule ended it.
    pub fn stopped(&self) -> Option<&str> {
        self.plan.stopped.as_deref()
    }

    /// The pairings the stop rule ended (their later games skipped), with
    /// why, in the order they ended.
    pub fn closed(&self) -> &[([usize; 2], String)] {
        &self.plan.closed
    }

    /// The indices still to play (none once stopped; none of an ended
    /// pairing).
    pub fn missing(&self) -> Vec<u64> {
        self.plan.order[self.plan.next..]
            .iter()
            .filter(|i| !self.plan.pending.contains_key(i))
            .copied()
            .collect()
    }

    /// Journals `batch` (one fsync), then appends the grown prefix to
    /// `games.*` and returns it. After the stop rule ended the run, games
    /// are ignored; a game of a pairing it ended (one that was playing when
    /// its pairing ended) stays in the journal only.
    pub fn accept(&mut self, batch: Vec<GameRecord>) -> Result<Vec<GameRecord>, StoreError> {
        if self.plan.stopped.is_some() {
            return Ok(Vec::new());
        }
        let jp = self.dir.join(JOURNAL);
        let lines: Vec<u8> = batch
            .iter()
            .flat_map(|r| record_line(r, self.every))
            .collect();
        self.journal.write_all(&lines).map_err(io_err(&jp))?;
        self.journal.sync_data().map_err(io_err(&jp))?;
        for rec in batch {
            if !self.plan.skipped(rec.index) {
                self.finished += 1;
                self.plan.pending.insert(rec.index, rec);
            }
        }
        let mut lines = Vec::new();
        let mut ready = Vec::new();
        while let Some(r) = self
            .plan
            .order
            .get(self.plan.next)
            .and_then(|i| self.plan.pending.remove(i))
        {
            lines.extend(record_line(&r, self.every));
            self.plan.decide(&r);
            ready.push(r);
            if self.plan.stopped.is_some() {
                break;
            }
        }
        if !ready.is_empty() {
            let csv = csv_bytes(&ready.iter().collect::<Vec<_>>(), false);
            append_whole(&mut self.jsonl, &lines, &self.dir.join(GAMES_JSONL))?;
            append_whole(&mut self.csv, &csv, &self.dir.join(GAMES_CSV))?;
        }
        Ok(ready)
    }

    /// Every game is in `games.*`: the journal has served its purpose.
    pub fn complete(self) -> Result<(), StoreError> {
        assert!(
            self.plan.next == self.plan.order.len() && self.plan.pending.is_empty(),
            "complete() with {} of {} games written",
            self.plan.next,
            self.plan.order.len()
        );
        let p = self.dir.join(JOURNAL);
        fs::remove_file(&p).map_err(io_err(&p))?;
        sync_dir(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_names_are_recognised() {
        assert_eq!(log_game("game00012-seat1-alpha_beta-2.log"), Some(12));
        assert!(is_log_name("game00012-seat1-alpha_beta-2.log"));
        assert!(is_log_name("game1234567-seat0-x.log"));
        for other in [
            "notes.txt",
            "game12-seat0-a.log",
            "game00012-seat2-a.log",
            "game00012-seat0-a b.log",
            "game00012-seat0-a.log.bak",
        ] {
            assert!(!is_log_name(other), "{other}");
        }
    }

    #[test]
    fn a_new_run_directory_is_private_and_an_existing_one_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("a/b/run");
        private_dir(&fresh).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(mode(&fresh), 0o700);
        let open = tmp.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
        private_dir(&open).unwrap();
        assert_eq!(mode(&open), 0o700);
        write_atomic(&open, "x.json", b"{}").unwrap();
        assert_eq!(mode(&open.join("x.json")), 0o600);

        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(private_dir(&file)
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
        std::os::unix::fs::symlink(&file, open.join("logs")).unwrap();
        let e = private_subdir(&open, "logs").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("not root: cannot make a directory of another user");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let theirs = tmp.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(4242), Some(4242)).unwrap();
        let e = private_dir(&theirs).unwrap_err().to_string();
        assert!(e.contains("belongs to uid 4242"), "{e}");
    }

    #[test]
    fn read_bounded_refuses_fifos_devices_and_big_files_without_reading() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Opening a FIFO for reading would wait for a writer: this returns.
        let e = read_bounded(&fifo, 100).unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
        let e = read_bounded(Path::new("/dev/zero"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("device"), "{e}");
        let big = tmp.path().join("big");
        fs::write(&big, vec![b'#'; 101]).unwrap();
        let e = read_bounded(&big, 100).unwrap_err().to_string();
        assert!(e.contains("101 bytes is too big"), "{e}");
        assert_eq!(read_bounded(&big, 101).unwrap().len(), 101);
    }

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

    #[test]
    fn the_lock_file_of_a_refused_directory_goes() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = RunLock::acquire(tmp.path()).unwrap();
        assert!(tmp.path().join(LOCK).exists());
        let e = RunLock::acquire(tmp.path()).err().unwrap().to_string();
        assert!(e.contains("another arena is running"), "{e}");
        lock.refused();
        assert!(!tmp.path().join(LOCK).exists());
        // A lock file that was there before stays.
        fs::write(tmp.path().join(LOCK), "").unwrap();
        RunLock::acquire(tmp.path()).unwrap().refused();
        assert!(tmp.path().join(LOCK).exists());
    }
}
