//! Running a schedule: concurrency, the journal, resume, shards, merge and
//! progress. No rating maths and no game rules here: games are played by a
//! [`Player`] (the referee in the binary, a fake in tests).
//!
//! Files in a run directory (`reports/<name>/` by default):
//! - `tournament.json`: the manifest (config fingerprint, seed, shard, status, the
//!   normalized config) that `--resume` and `arena merge` check;
//! - `journal.jsonl`: every game finished since the run (or its resume)
//!   started, one JSON line each, appended and fsynced as soon as the game
//!   ends, also once it is in `games.jsonl` (a resume rewrites it to the
//!   games not in `games.jsonl`; a torn last line after a crash is
//!   discarded); removed once the run is complete;
//! - `games.jsonl`, `games.csv`: the finished games in schedule order; they grow
//!   by the completed prefix of the schedule and are fsynced as they grow.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::future::Future;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::Normalized;
use crate::lanes::Lanes;
use crate::record::{CsvRow, GameRecord, GameResult};
use crate::schedule::{self, GameJob, Shard};

pub const MANIFEST: &str = "tournament.json";
pub const JOURNAL: &str = "journal.jsonl";
pub const GAMES_JSONL: &str = "games.jsonl";
pub const GAMES_CSV: &str = "games.csv";
/// Held (flock) by the process running in a directory.
pub const LOCK: &str = ".arena.lock";

/// Why a tournament or a merge stopped.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// A run directory that does not fit what was asked (existing run,
    /// mismatched config, corrupt file).
    #[error("{0}")]
    Refused(String),
    /// The player could not play a game (not a bot's fault: arena's or the machine's).
    #[error("game {index}: {message}")]
    Player { index: u64, message: String },
    #[error("interrupted: {done} of {total} games are saved in {}; run again with --resume to play the rest", dir.display())]
    Interrupted {
        dir: PathBuf,
        done: usize,
        total: usize,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> TournamentError + '_ {
    move |source| TournamentError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Plays one scheduled game to the end and returns its record (with the job's
/// index, round, pair and seed). A bot's misbehaviour is a record (a forfeit),
/// not an error; an error stops the tournament.
///
/// Games run on threads of their own ([`Lanes`]), one game at a time per
/// lane; `lane` says which, so that a player may keep what belongs to a lane
/// (kept bot processes, which live on that lane's runtime) until
/// [`Player::finish_lane`] is called on the same lane after its last game.
pub trait Player: Send + Sync + 'static {
    fn play(
        &self,
        job: GameJob,
        lane: usize,
    ) -> impl Future<Output = Result<GameRecord, String>> + Send;

    /// Called on lane `lane` once no more games will be played there (also
    /// after an error or an interruption).
    fn finish_lane(&self, _lane: usize) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// `tournament.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `running` or `complete`.
    pub status: String,
    pub arena_version: String,
    pub config: Normalized,
}

impl Manifest {
    fn new(config: &Normalized, total: u64, shard: Option<Shard>, run_games: u64) -> Self {
        Manifest {
            name: config.name.clone(),
            fingerprint: config.fingerprint(),
            seed: config.seed,
            total_games: total,
            shard,
            run_games,
            status: "running".into(),
            arena_version: env!("CARGO_PKG_VERSION").into(),
            config: config.clone(),
        }
    }

    pub fn read(dir: &Path) -> Result<Option<Manifest>, TournamentError> {
        let path = dir.join(MANIFEST);
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
                TournamentError::Refused(format!(
                    "{}: not a tournament manifest ({e})",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    fn write(&self, dir: &Path) -> Result<(), TournamentError> {
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

/// The schedule of a normalized config.
pub fn jobs_for(config: &Normalized) -> Vec<GameJob> {
    let champion = config.champion.as_ref().map(|c| {
        config
            .bots
            .iter()
            .position(|b| &b.name == c)
            .expect("champion is a bot")
    });
    schedule::schedule(
        config.format,
        config.bots.len(),
        champion,
        config.games,
        config.seed,
    )
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar on a terminal, plain periodic lines otherwise.
    Auto,
    /// Plain lines every `every`.
    Plain,
    Quiet,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub out: PathBuf,
    pub concurrency: usize,
    pub resume: bool,
    /// Replace a run already in `out` (its manifest, journal, games and logs).
    pub overwrite: bool,
    pub shard: Option<Shard>,
    pub progress: ProgressMode,
}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct Summary {
    pub dir: PathBuf,
    /// Games in this run (its shard).
    pub games: usize,
    /// Of which played by this invocation (the rest came from a resumed journal).
    pub played_now: usize,
    pub standings: Standings,
}

/// Points and W-D-L per bot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standings {
    /// In config order.
    pub rows: Vec<StandingRow>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StandingRow {
    pub name: String,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Of the losses, forfeits (timeout, crash, illegal move, protocol).
    pub forfeits: u64,
}

impl Standings {
    pub fn new(names: impl IntoIterator<Item = String>) -> Self {
        Standings {
            rows: names
                .into_iter()
                .map(|name| StandingRow {
                    name,
                    ..Default::default()
                })
                .collect(),
        }
    }

    pub fn add(&mut self, r: &GameRecord) {
        for seat in 0..2 {
            let name = &r.seats[seat].name;
            let row = match self.rows.iter_mut().position(|x| &x.name == name) {
                Some(i) => &mut self.rows[i],
                None => {
                    self.rows.push(StandingRow {
                        name: name.clone(),
                        ..Default::default()
                    });
                    self.rows.last_mut().expect("just pushed")
                }
            };
            let p = r.result.points(seat);
            row.points += p;
            if r.result == GameResult::Draw {
                row.draws += 1;
            } else if p == 1.0 {
                row.wins += 1;
            } else {
                row.losses += 1;
                if r.reason.is_forfeit() {
                    row.forfeits += 1;
                }
            }
        }
    }

    /// Rows by points, then wins, then name.
    pub fn ranked(&self) -> Vec<&StandingRow> {
        let mut rows: Vec<&StandingRow> = self.rows.iter().collect();
        rows.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(b.wins.cmp(&a.wins))
                .then(a.name.cmp(&b.name))
        });
        rows
    }

    /// One line: `a 3.5, b 2, ...`.
    pub fn one_line(&self) -> String {
        self.ranked()
            .iter()
            .map(|r| format!("{} {}", r.name, fmt_points(r.points)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A table with rank, bot, points, games and W-D-L.
    pub fn table(&self) -> String {
        let rows = self.ranked();
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(3).max(3);
        let mut s = format!(
            "{:>4}  {:<width$}  {:>7}  {:>5}  {:>14}  {:>8}\n",
            "rank", "bot", "points", "games", "W-D-L", "forfeits"
        );
        for (i, r) in rows.iter().enumerate() {
            let games = r.wins + r.draws + r.losses;
            s.push_str(&format!(
                "{:>4}  {:<width$}  {:>7}  {:>5}  {:>14}  {:>8}\n",
                i + 1,
                r.name,
                fmt_points(r.points),
                games,
                format!("{}-{}-{}", r.wins, r.draws, r.losses),
                r.forfeits
            ));
        }
        s
    }
}

fn fmt_points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// Runs (or resumes) the games of `config`'s schedule that belong to
/// `opts.shard`, writing to `opts.out`.
pub async fn run<P: Player>(
    config: &Normalized,
    player: Arc<P>,
    opts: &RunOptions,
) -> Result<Summary, TournamentError> {
    let all = jobs_for(config);
    let total = all.len() as u64;
    let jobs: Vec<GameJob> = all
        .into_iter()
        .filter(|j| match opts.shard {
            Some(s) => s.contains(j),
            None => true,
        })
        .collect();
    let dir = &opts.out;
    let mut manifest = Manifest::new(config, total, opts.shard, jobs.len() as u64);

    let _lock = lock_dir(dir)?;
    if opts.overwrite {
        remove_run(dir)?;
    }
    let done = prepare_dir(dir, &manifest, &jobs, opts.resume)?;
    manifest.write(dir)?;

    let names = config.bots.iter().map(|b| b.name.clone());
    let mut standings = Standings::new(names);
    for r in done.values() {
        standings.add(r);
    }
    let remaining: Vec<GameJob> = jobs
        .iter()
        .filter(|j| !done.contains_key(&j.index))
        .cloned()
        .collect();
    let already = done.len();
    let mut writer = Writer::open(dir, &jobs, done)?;
    let progress = Progress::new(
        opts.progress,
        &config.name,
        jobs.len() as u64,
        already as u64,
    );
    progress.update(already as u64, &standings);

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<GameRecord>();
    let writer_task = tokio::task::spawn_blocking(
        move || -> Result<(Writer, Standings, Progress), TournamentError> {
            // Group commit: whatever finished while the last fsyncs ran is
            // written and synced together, so the disk's sync latency does
            // not cap the games per second.
            while let Some(rec) = rx.blocking_recv() {
                let mut batch = vec![rec];
                while let Ok(rec) = rx.try_recv() {
                    batch.push(rec);
                }
                for rec in &batch {
                    standings.add(rec);
                }
                writer.accept(batch)?;
                progress.update(writer.finished() as u64, &standings);
            }
            Ok((writer, standings, progress))
        },
    );

    let outcome = drive(remaining, player, opts.concurrency.max(1), tx).await;
    let writer_result = writer_task.await.expect("writer thread does not panic");
    let (writer, standings, progress) = match (outcome, writer_result) {
        (_, Err(e)) => return Err(e),
        (Err(e), Ok((w, _, progress))) => {
            progress.finish();
            return Err(match e {
                DriveStop::Error(e) => e,
                DriveStop::Interrupted => TournamentError::Interrupted {
                    dir: dir.clone(),
                    done: w.finished(),
                    total: jobs.len(),
                },
            });
        }
        (Ok(()), Ok(x)) => x,
    };
    progress.finish();
    writer.complete()?;
    manifest.status = "complete".into();
    manifest.write(dir)?;
    Ok(Summary {
        dir: dir.clone(),
        games: jobs.len(),
        played_now: jobs.len() - already,
        standings,
    })
}

enum DriveStop {
    Error(TournamentError),
    Interrupted,
}

/// Plays `jobs` in schedule order, at most `concurrency` at a time, each on
/// a [`Lanes`] thread, sending each finished record to the writer. Stops at
/// the first error or on Ctrl-C (running games are dropped: their bots are
/// killed by the player).
async fn drive<P: Player>(
    jobs: Vec<GameJob>,
    player: Arc<P>,
    concurrency: usize,
    tx: tokio::sync::mpsc::UnboundedSender<GameRecord>,
) -> Result<(), DriveStop> {
    let lanes = Lanes::start(concurrency.min(jobs.len()).max(1)).map_err(|e| {
        DriveStop::Error(TournamentError::Refused(format!(
            "cannot start the game threads: {e}"
        )))
    })?;
    let outcome = drive_lanes(&lanes, jobs, player.clone(), tx).await;
    lanes
        .on_each(|lane| {
            let player = player.clone();
            async move { player.finish_lane(lane).await }
        })
        .await;
    outcome
}

async fn drive_lanes<P: Player>(
    lanes: &Lanes,
    jobs: Vec<GameJob>,
    player: Arc<P>,
    tx: tokio::sync::mpsc::UnboundedSender<GameRecord>,
) -> Result<(), DriveStop> {
    let mut free: Vec<usize> = (0..lanes.count()).rev().collect();
    let mut set = tokio::task::JoinSet::new();
    let mut jobs = jobs.into_iter();
    let stop = stop_signal();
    tokio::pin!(stop);
    type Played = (usize, GameJob, Result<GameRecord, String>);
    let handle = |res: Result<Played, tokio::task::JoinError>| -> Result<(), DriveStop> {
        let (job, rec) = match res {
            Ok((_, job, Ok(rec))) => (job, rec),
            Ok((_, job, Err(message))) => {
                return Err(DriveStop::Error(TournamentError::Player {
                    index: job.index,
                    message,
                }))
            }
            Err(e) => {
                return Err(DriveStop::Error(TournamentError::Refused(format!(
                    "a game task failed: {e}"
                ))))
            }
        };
        if (rec.index, rec.round, rec.pair, rec.seed) != (job.index, job.round, job.pair, job.seed)
        {
            return Err(DriveStop::Error(TournamentError::Player {
                index: job.index,
                message: format!(
                    "the record says index {} round {} pair {} seed {}, the schedule says {} {} {} {}",
                    rec.index, rec.round, rec.pair, rec.seed, job.index, job.round, job.pair, job.seed
                ),
            }));
        }
        tx.send(rec).map_err(|_| {
            DriveStop::Error(TournamentError::Refused(
                "the journal writer stopped".into(),
            ))
        })
    };
    loop {
        // Fill free lanes in schedule order.
        while let Some(&lane) = free.last() {
            let Some(job) = jobs.next() else { break };
            free.pop();
            let player = player.clone();
            let play = async move {
                let rec = player.play(job.clone(), lane).await;
                (lane, job, rec)
            };
            set.spawn_on(play, lanes.handle(lane));
        }
        if set.is_empty() {
            return Ok(());
        }
        tokio::select! {
            res = set.join_next() => {
                let res = res.expect("set is not empty");
                if let Ok((lane, _, _)) = &res {
                    free.push(*lane);
                }
                if let Err(e) = handle(res) {
                    set.abort_all();
                    while set.join_next().await.is_some() {}
                    return Err(e);
                }
            }
            _ = &mut stop => {
                set.abort_all();
                while let Some(res) = set.join_next().await {
                    // Games that finished while stopping are kept.
                    if let Ok((_, _, Ok(_))) = &res {
                        let _ = handle(res);
                    }
                }
                return Err(DriveStop::Interrupted);
            }
        }
    }
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM (a cluster scheduler stopping the job).
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => std::future::pending().await,
    }
}

/// Creates `dir` and takes its lock, so that two processes never run (or
/// resume) into the same directory at once; released when dropped (or when
/// the process dies).
fn lock_dir(dir: &Path) -> Result<nix::fcntl::Flock<File>, TournamentError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_err(&path))?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock).map_err(|(_, errno)| {
        if errno == nix::errno::Errno::EWOULDBLOCK {
            TournamentError::Refused(format!(
                "another arena is running in {} (it holds {}); wait for it to finish or stop it first",
                dir.display(),
                path.display()
            ))
        } else {
            io_err(&path)(errno.into())
        }
    })
}

/// Removes a run's files from `dir` (nothing else in it).
fn remove_run(dir: &Path) -> Result<(), TournamentError> {
    for f in [MANIFEST, JOURNAL, GAMES_JSONL, GAMES_CSV] {
        let p = dir.join(f);
        match fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&p)(e)),
        }
    }
    let logs = dir.join("logs");
    match fs::remove_dir_all(&logs) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(&logs)(e)),
    }
}

/// Checks the run directory and returns the games already finished there.
fn prepare_dir(
    dir: &Path,
    manifest: &Manifest,
    jobs: &[GameJob],
    resume: bool,
) -> Result<BTreeMap<u64, GameRecord>, TournamentError> {
    let existing = Manifest::read(dir)?;
    let has_data = [JOURNAL, GAMES_JSONL, GAMES_CSV]
        .iter()
        .any(|f| dir.join(f).exists());
    match (existing, resume) {
        (None, _) if has_data => Err(TournamentError::Refused(format!(
            "{} holds game files but no {MANIFEST}; not a run arena can resume or overwrite: choose another --out",
            dir.display()
        ))),
        (None, _) => {
            fs::create_dir_all(dir).map_err(io_err(dir))?;
            Ok(BTreeMap::new())
        }
        (Some(old), false) => Err(TournamentError::Refused(format!(
            "{} already holds a run ({}, {}); use --resume to finish it, --overwrite to replace it, or --out for another directory",
            dir.display(),
            old.describe(),
            old.status
        ))),
        (Some(old), true) => {
            if old.fingerprint != manifest.fingerprint || old.shard != manifest.shard {
                return Err(TournamentError::Refused(format!(
                    "cannot resume {}: it holds {} (config fingerprint {}), but this is {} (config fingerprint {}); the config, seed or shard differ",
                    dir.display(),
                    old.describe(),
                    old.fingerprint,
                    manifest.describe(),
                    manifest.fingerprint
                )));
            }
            let by_index: BTreeMap<u64, &GameJob> = jobs.iter().map(|j| (j.index, j)).collect();
            let mut done = BTreeMap::new();
            for file in [GAMES_JSONL, JOURNAL] {
                for rec in read_records(&dir.join(file))? {
                    let ok = by_index.get(&rec.index).is_some_and(|j| {
                        (j.round, j.pair, j.seed) == (rec.round, rec.pair, rec.seed)
                    });
                    if !ok {
                        return Err(TournamentError::Refused(format!(
                            "{}: game {} does not belong to this schedule",
                            dir.join(file).display(),
                            rec.index
                        )));
                    }
                    done.entry(rec.index).or_insert(rec);
                }
            }
            Ok(done)
        }
    }
}

/// Reads a JSON Lines file of records. A last line without its newline (torn
/// by a crash mid-write) is ignored; any other bad line is an error.
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>, TournamentError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &bytes[..0],
    };
    let mut out = Vec::new();
    for (n, line) in complete.lines().enumerate() {
        let line = line.map_err(io_err(path))?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: GameRecord = serde_json::from_str(&line).map_err(|e| {
            TournamentError::Refused(format!(
                "{}:{}: not a game record: {e}",
                path.display(),
                n + 1
            ))
        })?;
        out.push(rec);
    }
    Ok(out)
}

fn jsonl_line(r: &GameRecord) -> Vec<u8> {
    let mut line = serde_json::to_vec(r).expect("records serialize");
    line.push(b'\n');
    line
}

fn csv_bytes(rows: &[&GameRecord], header: bool) -> Vec<u8> {
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
];

/// Writes `name` in `dir` through a temporary file, fsync and rename.
fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), TournamentError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, &path).map_err(io_err(&path))?;
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), TournamentError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// Writes `games.jsonl` and `games.csv` holding exactly `records`, in order.
pub fn write_games(dir: &Path, records: &[&GameRecord]) -> Result<(), TournamentError> {
    let jsonl: Vec<u8> = records.iter().flat_map(|r| jsonl_line(r)).collect();
    write_atomic(dir, GAMES_JSONL, &jsonl)?;
    write_atomic(dir, GAMES_CSV, &csv_bytes(records, true))
}

/// Appends finished games: to the journal at once, to `games.*` as the
/// completed prefix of the schedule grows.
struct Writer {
    dir: PathBuf,
    journal: File,
    jsonl: File,
    csv: File,
    /// This run's game indices in schedule order.
    order: Vec<u64>,
    /// How many of `order` are in `games.*`.
    next: usize,
    /// Finished games not yet in `games.*`.
    pending: BTreeMap<u64, GameRecord>,
    finished: usize,
}

impl Writer {
    /// Rewrites the files from `done` (dropping any torn line) and opens them for appending.
    fn open(
        dir: &Path,
        jobs: &[GameJob],
        mut done: BTreeMap<u64, GameRecord>,
    ) -> Result<Writer, TournamentError> {
        let order: Vec<u64> = jobs.iter().map(|j| j.index).collect();
        let finished = done.len();
        let mut prefix = Vec::new();
        for &i in &order {
            match done.remove(&i) {
                Some(r) => prefix.push(r),
                None => break,
            }
        }
        write_games(dir, &prefix.iter().collect::<Vec<_>>())?;
        let journal: Vec<u8> = done.values().flat_map(jsonl_line).collect();
        write_atomic(dir, JOURNAL, &journal)?;
        let append = |name: &str| {
            let p = dir.join(name);
            OpenOptions::new().append(true).open(&p).map_err(io_err(&p))
        };
        Ok(Writer {
            dir: dir.to_path_buf(),
            journal: append(JOURNAL)?,
            jsonl: append(GAMES_JSONL)?,
            csv: append(GAMES_CSV)?,
            next: prefix.len(),
            order,
            pending: done,
            finished,
        })
    }

    fn finished(&self) -> usize {
        self.finished
    }

    /// Journals `batch` (one fsync), then appends the grown prefix to `games.*`.
    fn accept(&mut self, batch: Vec<GameRecord>) -> Result<(), TournamentError> {
        let jp = self.dir.join(JOURNAL);
        let lines: Vec<u8> = batch.iter().flat_map(jsonl_line).collect();
        self.journal.write_all(&lines).map_err(io_err(&jp))?;
        self.journal.sync_data().map_err(io_err(&jp))?;
        self.finished += batch.len();
        for rec in batch {
            self.pending.insert(rec.index, rec);
        }
        let mut lines = Vec::new();
        let mut ready = Vec::new();
        while let Some(r) = self
            .order
            .get(self.next)
            .and_then(|i| self.pending.remove(i))
        {
            lines.extend(jsonl_line(&r));
            ready.push(r);
            self.next += 1;
        }
        if !ready.is_empty() {
            let p = self.dir.join(GAMES_JSONL);
            self.jsonl.write_all(&lines).map_err(io_err(&p))?;
            self.jsonl.sync_data().map_err(io_err(&p))?;
            let p = self.dir.join(GAMES_CSV);
            self.csv
                .write_all(&csv_bytes(&ready.iter().collect::<Vec<_>>(), false))
                .map_err(io_err(&p))?;
            self.csv.sync_data().map_err(io_err(&p))?;
        }
        Ok(())
    }

    /// Every game is in `games.*`: the journal has served its purpose.
    fn complete(self) -> Result<(), TournamentError> {
        assert!(
            self.next == self.order.len() && self.pending.is_empty(),
            "complete() with {} of {} games written",
            self.next,
            self.order.len()
        );
        let p = self.dir.join(JOURNAL);
        fs::remove_file(&p).map_err(io_err(&p))?;
        sync_dir(&self.dir)
    }
}

/// Progress on stderr: a bar with ETA and live standings on a terminal, a
/// plain line every few seconds otherwise, nothing with `--quiet`.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: Option<std::sync::Mutex<(Instant, Instant)>>,
    name: String,
    total: u64,
    already: u64,
}

const PLAIN_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    fn new(mode: ProgressMode, name: &str, total: u64, already: u64) -> Self {
        let tty = std::io::stderr().is_terminal();
        let (bar, plain) = match mode {
            ProgressMode::Quiet => (None, None),
            ProgressMode::Auto if tty => {
                let bar = indicatif::ProgressBar::new(total);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{prefix} [{bar:30}] {pos}/{len} games, {elapsed} elapsed, ETA {eta}\n  {wide_msg}",
                    )
                    .expect("valid template")
                    .progress_chars("=> "),
                );
                bar.set_prefix(name.to_string());
                bar.set_position(already);
                bar.reset_eta();
                (Some(bar), None)
            }
            _ => {
                let now = Instant::now();
                (None, Some(std::sync::Mutex::new((now, now))))
            }
        };
        Progress {
            bar,
            plain,
            name: name.to_string(),
            total,
            already,
        }
    }

    fn update(&self, done: u64, standings: &Standings) {
        if let Some(bar) = &self.bar {
            bar.set_message(standings.one_line());
            bar.set_position(done);
        }
        if let Some(plain) = &self.plain {
            let mut times = plain.lock().expect("progress lock");
            let now = Instant::now();
            if done == self.already
                || (now.duration_since(times.1) < PLAIN_EVERY && done < self.total)
            {
                return;
            }
            times.1 = now;
            let played = done - self.already;
            let eta = if played > 0 {
                let per = now.duration_since(times.0).as_secs_f64() / played as f64;
                format!(", ETA {:.0}s", per * (self.total - done) as f64)
            } else {
                String::new()
            };
            eprintln!(
                "[{}] {done}/{} games{eta}; {}",
                self.name,
                self.total,
                standings.one_line()
            );
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// Plays scheduled games with the referee, the random opening drawn from the
/// game seed. A bot gets a fresh process for every game, unless it is kept
/// (`keep_bots`): then each lane keeps its process from one game to its next
/// game on that lane (`newgame` again), and starts a new one only after the
/// bot failed or lost by misbehaving.
pub struct RefereePlayer {
    pub game: Arc<dyn crate::games::AnyGame>,
    /// In config order (a job's `seats` index this).
    pub bots: Vec<Arc<crate::bot::BotSpec>>,
    /// The bots' commands as written in the config, for the records (the
    /// specs may hold resolved paths).
    pub commands: Vec<Vec<String>>,
    /// Per bot, in config order: whether its process is kept across games.
    pub keep: Vec<bool>,
    pub time: crate::referee::TimeControl,
    pub limits: crate::bot::Limits,
    pub opening_plies: u32,
    /// The run directory: bots' stderr logs go to `logs/` in it, and records
    /// name them relative to it.
    pub run_dir: PathBuf,
    /// The kept bots between their games: `KeptBots::default()`.
    pub kept: KeptBots,
}

/// The running processes of kept bots, by lane and bot (config order). A lane
/// plays one game at a time, so a (lane, bot) entry is never wanted twice at
/// once; its process lives on that lane's runtime.
#[derive(Debug, Default)]
pub struct KeptBots(std::sync::Mutex<BTreeMap<(usize, usize), crate::referee::Player>>);

impl KeptBots {
    fn take(&self, lane: usize, bot: usize) -> Option<crate::referee::Player> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(lane, bot))
    }

    fn put(&self, lane: usize, bot: usize, player: crate::referee::Player) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((lane, bot), player);
    }

    fn take_lane(&self, lane: usize) -> Vec<crate::referee::Player> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<(usize, usize)> = map.keys().filter(|k| k.0 == lane).copied().collect();
        keys.into_iter().filter_map(|k| map.remove(&k)).collect()
    }
}

impl Player for RefereePlayer {
    async fn play(&self, job: GameJob, lane: usize) -> Result<GameRecord, String> {
        use crate::referee::{self, GameSetup};
        let setup = GameSetup {
            game: self.game.clone(),
            index: job.index,
            round: job.round,
            pair: job.pair,
            seed: job.seed,
            opening: schedule::random_opening(&*self.game, job.seed, self.opening_plies),
            time: self.time,
            log_dir: Some(self.run_dir.join("logs")),
        };
        let keep = job.seats.map(|b| self.keep[b]);
        let [mut p0, mut p1] = job.seats.map(|b| {
            self.kept
                .take(lane, b)
                .unwrap_or_else(|| referee::Player::new(self.bots[b].clone()))
        });
        let mut rec =
            referee::run_game(&setup, [&mut p0, &mut p1], keep[0] || keep[1], &self.limits).await;
        // run_game keeps both bots or neither: stop the one that is not kept.
        if keep[0] != keep[1] {
            let fresh = if keep[0] { &mut p1 } else { &mut p0 };
            fresh.release().await;
        }
        for (seat, (&bot, player)) in job.seats.iter().zip([p0, p1]).enumerate() {
            if keep[seat] && player.bot().is_some() {
                self.kept.put(lane, bot, player);
            }
            let s = &mut rec.seats[seat];
            s.command = self.commands[bot].clone();
            if s.log.is_none() && keep[seat] != keep[1 - seat] {
                // Stopped after run_game looked for its log: it may have
                // written its first stderr bytes while stopping.
                s.log = setup
                    .log_path(seat, &self.bots[bot].name)
                    .filter(|p| p.exists())
                    .map(|p| p.display().to_string());
            }
            if let Some(log) = &s.log {
                if let Ok(rel) = Path::new(log).strip_prefix(&self.run_dir) {
                    s.log = Some(rel.display().to_string());
                }
            }
        }
        Ok(rec)
    }

    async fn finish_lane(&self, lane: usize) {
        let mut stopping = tokio::task::JoinSet::new();
        for mut player in self.kept.take_lane(lane) {
            stopping.spawn(async move { player.release().await });
        }
        while stopping.join_next().await.is_some() {}
    }
}

/// Copies (hard-links where possible) every file of `from` into `to`.
fn copy_logs(from: &Path, to: &Path) -> Result<(), TournamentError> {
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(from)(e)),
    };
    fs::create_dir_all(to).map_err(io_err(to))?;
    for entry in entries {
        let entry = entry.map_err(io_err(from))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if src.is_file() && fs::hard_link(&src, &dst).is_err() {
            fs::copy(&src, &dst).map_err(io_err(&dst))?;
        }
    }
    Ok(())
}

/// What `arena merge` reports.
#[derive(Clone, Debug)]
pub struct MergeSummary {
    pub dir: PathBuf,
    pub games: usize,
    pub standings: Standings,
}

/// Combines the outputs of shard runs (or any runs of the same config and
/// seed that together hold every game once) into one report in `out`.
pub fn merge(dirs: &[PathBuf], out: Option<&Path>) -> Result<MergeSummary, TournamentError> {
    let refuse = |m: String| Err(TournamentError::Refused(m));
    if dirs.is_empty() {
        return refuse("merge needs at least one run directory".into());
    }
    let mut manifests = Vec::new();
    for d in dirs {
        match Manifest::read(d)? {
            Some(m) => manifests.push(m),
            None if !d.exists() => {
                return refuse(format!(
                    "{} does not exist: its run (shard) never started",
                    d.display()
                ))
            }
            None => {
                return refuse(format!(
                    "{} holds no {MANIFEST}: not a tournament run",
                    d.display()
                ))
            }
        }
    }
    let first = &manifests[0];
    for (d, m) in dirs.iter().zip(&manifests).skip(1) {
        if m.fingerprint != first.fingerprint {
            return refuse(format!(
                "{} is {} (config fingerprint {}) but {} is {} (config fingerprint {}): not the same config and seed",
                d.display(),
                m.describe(),
                m.fingerprint,
                dirs[0].display(),
                first.describe(),
                first.fingerprint
            ));
        }
    }
    for (d, m) in dirs.iter().zip(&manifests) {
        if m.status != "complete" {
            let mut n = BTreeSet::new();
            for f in [GAMES_JSONL, JOURNAL] {
                n.extend(read_records(&d.join(f))?.into_iter().map(|r| r.index));
            }
            let n = n.len();
            return refuse(format!(
                "{} ({}) is not finished: {n} of {} games; finish it with `arena tournament ... --resume{}`",
                d.display(),
                m.describe(),
                m.run_games,
                m.shard.map(|s| format!(" --shard {s}")).unwrap_or_default()
            ));
        }
    }
    let jobs = jobs_for(&first.config);
    let mut found: BTreeMap<u64, (GameRecord, &Path)> = BTreeMap::new();
    for d in dirs {
        for rec in read_records(&d.join(GAMES_JSONL))? {
            let ok = jobs
                .get(rec.index as usize)
                .is_some_and(|j| (j.round, j.pair, j.seed) == (rec.round, rec.pair, rec.seed));
            if !ok {
                return refuse(format!(
                    "{}: game {} does not belong to this schedule",
                    d.display(),
                    rec.index
                ));
            }
            if let Some((_, other)) = found.get(&rec.index) {
                return refuse(format!(
                    "game {} is in both {} and {}",
                    rec.index,
                    other.display(),
                    d.display()
                ));
            }
            found.insert(rec.index, (rec, d.as_path()));
        }
    }
    let missing: Vec<&GameJob> = jobs
        .iter()
        .filter(|j| !found.contains_key(&j.index))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing
            .iter()
            .take(20)
            .map(|j| j.index.to_string())
            .collect();
        let more = if missing.len() > 20 {
            format!(" and {} more", missing.len() - 20)
        } else {
            String::new()
        };
        let n = manifests.iter().find_map(|m| m.shard.map(|s| s.n));
        let hint = match n {
            Some(n) => {
                let shards: BTreeSet<String> = missing
                    .iter()
                    .map(|j| Shard { k: 1, n }.of_pair(j.pair))
                    .map(|k| format!("{k}/{n}"))
                    .collect();
                format!(
                    " (shard {}?)",
                    shards.into_iter().collect::<Vec<_>>().join(", ")
                )
            }
            None => String::new(),
        };
        return refuse(format!(
            "game{} {}{more} missing{hint}: {} of {} games found",
            if missing.len() == 1 { "" } else { "s" },
            shown.join(", "),
            found.len(),
            jobs.len()
        ));
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new("reports").join(&first.name));
    if let Some(m) = Manifest::read(&out)? {
        return refuse(format!(
            "{} already holds a run ({}); merge into another --out",
            out.display(),
            m.describe()
        ));
    }
    fs::create_dir_all(&out).map_err(io_err(&out))?;
    let records: Vec<&GameRecord> = found.values().map(|(r, _)| r).collect();
    // Records name their bots' logs relative to their run directory: bring
    // the logs along (file names hold the game index, so they never clash).
    for d in dirs {
        copy_logs(&d.join("logs"), &out.join("logs"))?;
    }
    write_games(&out, &records)?;
    let mut standings = Standings::new(first.config.bots.iter().map(|b| b.name.clone()));
    for r in &records {
        standings.add(r);
    }
    let mut manifest = Manifest::new(&first.config, jobs.len() as u64, None, jobs.len() as u64);
    manifest.status = "complete".into();
    manifest.write(&out)?;
    Ok(MergeSummary {
        dir: out,
        games: records.len(),
        standings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{FormatKind, NormalizedBot, TimeControl};
    use crate::record::{Reason, SeatRecord};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn config(bots: usize, games: u32, seed: u64) -> Normalized {
        Normalized {
            name: "t".into(),
            game: "nim".into(),
            params: vec![],
            format: FormatKind::RoundRobin,
            champion: None,
            games,
            seed,
            random_opening_plies: 0,
            time_control: TimeControl {
                movetime_ms: Some(10),
                time_ms: None,
                inc_ms: 0,
                margin_ms: 5,
            },
            bots: (0..bots)
                .map(|i| NormalizedBot {
                    name: format!("bot{i}"),
                    command: vec!["true".into()],
                    cwd: ".".into(),
                    env: Default::default(),
                    limits: Default::default(),
                    sandbox: Default::default(),
                    keep: false,
                })
                .collect(),
        }
    }

    /// A deterministic fake: the result follows the seed; games take a
    /// seed-dependent few milliseconds so they finish out of order. Fails
    /// (like a crash of arena) at game `fail_at` if set.
    struct Fake {
        bots: Vec<String>,
        fail_at: Option<u64>,
        played: AtomicUsize,
    }

    fn fake(c: &Normalized, fail_at: Option<u64>) -> Arc<Fake> {
        Arc::new(Fake {
            bots: c.bots.iter().map(|b| b.name.clone()).collect(),
            fail_at,
            played: AtomicUsize::new(0),
        })
    }

    impl Player for Fake {
        async fn play(&self, job: GameJob, _lane: usize) -> Result<GameRecord, String> {
            tokio::time::sleep(Duration::from_millis(job.seed % 7)).await;
            if self.fail_at == Some(job.index) {
                return Err("simulated failure".into());
            }
            self.played.fetch_add(1, Ordering::SeqCst);
            let seat = |s: usize| SeatRecord {
                name: self.bots[job.seats[s]].clone(),
                command: vec!["true".into()],
                log: None,
            };
            let result = match (job.seed ^ job.index) % 3 {
                0 => GameResult::Seat0Wins,
                1 => GameResult::Seat1Wins,
                _ => GameResult::Draw,
            };
            Ok(GameRecord {
                index: job.index,
                round: job.round,
                pair: job.pair,
                game: "nim".into(),
                params: Default::default(),
                seed: job.seed,
                seats: [seat(0), seat(1)],
                opening_plies: 0,
                initial_state: "5 0".into(),
                moves: vec![],
                final_state: "0 1".into(),
                scores: [0, 0],
                result,
                reason: Reason::Normal,
                detail: None,
                offender: None,
                duration_ms: 0,
            })
        }
    }

    fn opts(out: &Path, concurrency: usize) -> RunOptions {
        RunOptions {
            out: out.to_path_buf(),
            concurrency,
            resume: false,
            overwrite: false,
            shard: None,
            progress: ProgressMode::Quiet,
        }
    }

    fn files(dir: &Path) -> (String, String) {
        (
            fs::read_to_string(dir.join(GAMES_JSONL)).unwrap(),
            fs::read_to_string(dir.join(GAMES_CSV)).unwrap(),
        )
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn outputs_are_in_schedule_order_and_equal_at_any_concurrency() {
        let tmp = tempfile::tempdir().unwrap();
        let c = config(4, 4, 11);
        let rt = rt();
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        let s1 = rt.block_on(run(&c, fake(&c, None), &opts(&a, 1))).unwrap();
        let s4 = rt.block_on(run(&c, fake(&c, None), &opts(&b, 4))).unwrap();
        assert_eq!(files(&a), files(&b));
        assert_eq!(s1.standings, s4.standings);
        assert_eq!(s1.games, 24);
        let recs = read_records(&a.join(GAMES_JSONL)).unwrap();
        assert_eq!(
            recs.iter().map(|r| r.index).collect::<Vec<_>>(),
            (0..24).collect::<Vec<_>>()
        );
        let csv = files(&a).1;
        assert_eq!(csv.lines().count(), 25);
        assert_eq!(csv.lines().next().unwrap(), CSV_HEADER.join(","));
        assert!(
            !a.join(JOURNAL).exists(),
            "the journal goes once the run is complete"
        );
        let m = Manifest::read(&a).unwrap().unwrap();
        assert_eq!(
            (m.status.as_str(), m.total_games, m.seed),
            ("complete", 24, 11)
        );
        let points: f64 = s1.standings.rows.iter().map(|r| r.points).sum();
        assert_eq!(points, 24.0);
    }

    #[test]
    fn resume_plays_only_what_is_missing_and_ends_identical() {
        let tmp = tempfile::tempdir().unwrap();
        let c = config(3, 6, 5);
        let rt = rt();
        let whole = tmp.path().join("whole");
        rt.block_on(run(&c, fake(&c, None), &opts(&whole, 2)))
            .unwrap();

        let part = tmp.path().join("part");
        let err = rt
            .block_on(run(&c, fake(&c, Some(9)), &opts(&part, 2)))
            .unwrap_err();
        assert!(
            matches!(err, TournamentError::Player { index: 9, .. }),
            "{err}"
        );
        let saved: BTreeSet<u64> = read_records(&part.join(GAMES_JSONL))
            .unwrap()
            .into_iter()
            .chain(read_records(&part.join(JOURNAL)).unwrap())
            .map(|r| r.index)
            .collect();
        let saved = saved.len();
        assert!(
            saved >= 8,
            "games finished before the failure are kept ({saved})"
        );
        // A crash mid-append leaves a torn last line: it is discarded.
        let mut j = OpenOptions::new()
            .append(true)
            .open(part.join(JOURNAL))
            .unwrap();
        j.write_all(b"{\"index\": 17, \"rou").unwrap();

        let again = rt.block_on(run(&c, fake(&c, None), &opts(&part, 2)));
        assert!(matches!(again, Err(TournamentError::Refused(ref m)) if m.contains("--resume")));

        let player = fake(&c, None);
        let mut o = opts(&part, 2);
        o.resume = true;
        let s = rt.block_on(run(&c, player.clone(), &o)).unwrap();
        assert_eq!(s.played_now, 18 - saved);
        assert_eq!(player.played.load(Ordering::SeqCst), 18 - saved);
        assert_eq!(files(&whole), files(&part));

        // Resuming a finished run plays nothing.
        let player = fake(&c, None);
        rt.block_on(run(&c, player.clone(), &o)).unwrap();
        assert_eq!(player.played.load(Ordering::SeqCst), 0);
        assert_eq!(files(&whole), files(&part));
    }

    #[test]
    fn a_directory_in_use_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 5);
        let held = lock_dir(tmp.path()).unwrap();
        let err = rt
            .block_on(run(&c, fake(&c, None), &opts(tmp.path(), 1)))
            .unwrap_err();
        assert!(
            err.to_string().contains("another arena is running"),
            "{err}"
        );
        drop(held);
        rt.block_on(run(&c, fake(&c, None), &opts(tmp.path(), 1)))
            .unwrap();
    }

    #[test]
    fn resume_refuses_another_config() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 5);
        rt.block_on(run(&c, fake(&c, None), &opts(tmp.path(), 1)))
            .unwrap();
        let other = config(3, 2, 6);
        let mut o = opts(tmp.path(), 1);
        o.resume = true;
        let err = rt
            .block_on(run(&other, fake(&other, None), &o))
            .unwrap_err();
        assert!(err.to_string().contains("seed 5"), "{err}");
        assert!(err.to_string().contains("seed 6"), "{err}");
        o.shard = Some(Shard { k: 1, n: 2 });
        let err = rt.block_on(run(&c, fake(&c, None), &o)).unwrap_err();
        assert!(err.to_string().contains("shard"), "{err}");
    }

    #[test]
    fn shards_merge_into_the_unsharded_run() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(4, 4, 3);
        let whole = tmp.path().join("whole");
        rt.block_on(run(&c, fake(&c, None), &opts(&whole, 2)))
            .unwrap();
        let mut dirs = Vec::new();
        for k in 1..=3 {
            let d = tmp.path().join(format!("shard{k}"));
            let mut o = opts(&d, 2);
            o.shard = Some(Shard { k, n: 3 });
            rt.block_on(run(&c, fake(&c, None), &o)).unwrap();
            dirs.push(d);
        }

        let err = merge(&dirs[..2], Some(&tmp.path().join("m0")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing (shard 3/3?)"), "{err}");
        let mut absent = dirs[..2].to_vec();
        absent.push(tmp.path().join("shard-never-ran"));
        let err = merge(&absent, Some(&tmp.path().join("m0")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("shard-never-ran does not exist"), "{err}");

        let err = merge(
            &[dirs[0].clone(), dirs[0].clone()],
            Some(&tmp.path().join("m0")),
        )
        .unwrap_err();
        assert!(err.to_string().contains("is in both"), "{err}");

        let other = config(4, 4, 4);
        let od = tmp.path().join("other");
        rt.block_on(run(&other, fake(&other, None), &opts(&od, 2)))
            .unwrap();
        let err = merge(&[dirs[0].clone(), od], Some(&tmp.path().join("m0"))).unwrap_err();
        assert!(
            err.to_string().contains("not the same config and seed"),
            "{err}"
        );

        let merged = tmp.path().join("merged");
        let s = merge(&dirs, Some(&merged)).unwrap();
        assert_eq!(s.games, 24);
        assert_eq!(files(&whole), files(&merged));
        let m = Manifest::read(&merged).unwrap().unwrap();
        assert_eq!(m, Manifest::read(&whole).unwrap().unwrap());
    }

    #[test]
    fn standings_count_points_and_wdl() {
        let mut s = Standings::new(["a".to_string(), "b".to_string()]);
        let c = config(2, 2, 1);
        let player = fake(&c, None);
        let rt = rt();
        let mut r = rt
            .block_on(player.play(jobs_for(&c)[0].clone(), 0))
            .unwrap();
        r.seats[0].name = "a".into();
        r.seats[1].name = "b".into();
        r.result = GameResult::Seat0Wins;
        s.add(&r);
        r.result = GameResult::Draw;
        s.add(&r);
        r.result = GameResult::Seat0Wins;
        r.reason = Reason::Timeout;
        s.add(&r);
        assert_eq!(s.one_line(), "a 2.5, b 0.5");
        let t = s.table();
        assert!(t.contains("2-1-0"), "{t}");
        assert!(t.contains("0-1-2"), "{t}");
        assert_eq!(s.rows[1].forfeits, 1);
    }
}
