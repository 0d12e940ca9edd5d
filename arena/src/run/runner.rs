//! Running a schedule (a tournament's, a shard of it, a match's): games on
//! concurrent lanes in schedule order, resume, stop rules, the live
//! standings. No rating maths and no game rules here: games are played by
//! a [`Player`] (the referee, a fake in tests); the run directory and its
//! records are [`crate::store`]'s.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::progress::{Progress, ProgressMode};
use super::schedule::{self, GameJob};
use super::stop::{pairing_of, RunPlan, Stop, StopRule};
use crate::lanes::Lanes;
use crate::rating::{Sprt, SprtParams, SprtStatus};
use crate::settings::Normalized;
use crate::settings::Shard;
use crate::standings::Standings;
use crate::store::{self, Manifest, RunLock, Status, StoreError, Writer, GAMES_JSONL, MANIFEST};
use arena_core::record::{GameRecord, Reason};

/// Why a tournament or a merge stopped.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// A file or directory of the run could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// What the store refused: a directory not arena's, locked, a manifest
    /// or file that is not one arena writes.
    #[error(transparent)]
    Store(StoreError),
    /// Records the run does not trust (`--resume`).
    #[error(transparent)]
    Records(Box<super::resume::ResumeError>),
    /// Shards that do not make one run (`arena merge`).
    #[error(transparent)]
    Merge(Box<super::merge::MergeError>),
    /// A directory with a run's files but no manifest.
    #[error("{} holds {file} but no {MANIFEST}: not a run arena wrote, so it neither resumes nor overwrites it; choose another --out", dir.display())]
    NotARun {
        /// The directory.
        dir: PathBuf,
        /// A file of a run found in it.
        file: String,
    },
    /// A directory holding a complete run, without `--overwrite`.
    #[error("{} already holds a run ({run}), and it is complete: nothing is left to resume; use --overwrite to replace it, or --out for another directory", dir.display())]
    Complete {
        /// The directory.
        dir: PathBuf,
        /// The run it holds.
        run: String,
    },
    /// A directory holding an unfinished run, without `--resume` or `--overwrite`.
    #[error("{} already holds a run ({run}, {status}); use --resume to finish it, --overwrite to replace it, or --out for another directory", dir.display())]
    Occupied {
        /// The run directory.
        dir: PathBuf,
        /// The run it holds (its name and seed).
        run: String,
        /// How far that run got.
        status: Status,
    },
    /// `--resume` of a run of another config, seed or shard.
    #[error("cannot resume {}: it holds {old} (config fingerprint {old_fingerprint}), but this is {new} (config fingerprint {new_fingerprint}); the config, seed or shard differ", dir.display())]
    OtherRun {
        /// The run directory.
        dir: PathBuf,
        /// The run it holds.
        old: String,
        /// Its config fingerprint.
        old_fingerprint: String,
        /// The run asked for now.
        new: String,
        /// Its config fingerprint.
        new_fingerprint: String,
    },
    /// `--resume` of a run with another stop rule.
    #[error("cannot resume {}: its run stops on {old}, this one on {new}", dir.display())]
    OtherStopRule {
        /// The run directory.
        dir: PathBuf,
        /// The stop rule the run in it was started with.
        old: String,
        /// The stop rule asked for now.
        new: String,
    },
    /// A gauntlet `sprt` in a run's config that does not parse.
    #[error("sprt `{text}` in the run's config: {source}")]
    BadSprt {
        /// The `sprt` text as written.
        text: String,
        /// What is wrong with it.
        source: crate::rating::sprt::SprtParamError,
    },
    /// The threads games run on could not be started.
    #[error("cannot start the game threads: {0}")]
    Threads(io::Error),
    /// A game's task ended without a record (a panic in arena).
    #[error("a game task failed: {0}")]
    GameTask(String),
    /// The journal writer's thread ended before the games did.
    #[error("the journal writer stopped")]
    WriterGone,
    /// The player could not play a game (not a bot's fault: arena's or the machine's).
    #[error("game {index}: {source}")]
    Player {
        /// The game's index in the schedule.
        index: u64,
        /// What went wrong.
        source: PlayerError,
    },
    /// Stopped by Ctrl-C or a signal; what was played is saved and resumable.
    #[error("interrupted: {done} of {total} games are saved in {}; run again with --resume to play the rest", dir.display())]
    Interrupted {
        /// The run directory, which `--resume` finishes.
        dir: PathBuf,
        /// Games saved so far.
        done: usize,
        /// Games in the run.
        total: usize,
    },
    /// A bot died before its first move in too many of its games in a row
    /// ([`RunOptions::dead_bot_stop`]): the rest would be forfeits too.
    #[error("bot `{}` died before its first move in {} games in a row (the last, game {}: {}{}); the run stopped: {done} of {total} games are saved in {}; fix the bot and run again with --resume to play the rest, or set on_bot_failure = \"forfeit\" to let it lose its games", dead.bot, dead.games, dead.index, dead.detail, dead.log.as_ref().map(|l| format!("; its stderr: {}", dir.join(l).display())).unwrap_or_default(), dir.display())]
    DeadBot {
        /// The bot, its streak and its last such game.
        dead: Box<DeadBot>,
        /// The run directory, which `--resume` finishes.
        dir: PathBuf,
        /// Games saved so far.
        done: usize,
        /// Games in the run.
        total: usize,
    },
}

/// A bot that died before its first move in several of its games in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadBot {
    /// The bot's name in the config.
    pub bot: String,
    /// How many games in a row.
    pub games: u32,
    /// The index of the last of them.
    pub index: u64,
    /// The referee's words about its last such game.
    pub detail: String,
    /// Its stderr log in the last such game, relative to the run directory, if
    /// it wrote any.
    pub log: Option<String>,
}

/// Counts, per bot, its games in a row (in schedule order) in which its
/// process died (a `crash`: it could not be started, or exited) or never
/// answered `arena 1` with `ready` (a `timeout` without a `ready` text)
/// before it made a move of its own.
#[derive(Debug)]
struct DeadStreaks {
    limit: u32,
    streak: BTreeMap<String, u32>,
}

impl DeadStreaks {
    /// Adds a game; the bot whose streak reaches the limit, if any.
    fn add(&mut self, r: &GameRecord) -> Option<DeadBot> {
        let mut reached = None;
        for (seat, s) in r.seats.iter().enumerate() {
            let moved = r.moves[r.opening_plies.min(r.moves.len())..]
                .iter()
                .any(|m| m.seat == seat);
            // Both bots failing to start is a draw with no offender.
            let offender = r.offender.is_none_or(|o| o == seat);
            // A bot that never said `ready` is as dead as one that exited.
            let silent = r.reason == Reason::Timeout && s.ready.is_none();
            let dead = (r.reason == Reason::Crash || silent) && offender && !moved;
            let streak = self.streak.entry(s.name.clone()).or_default();
            *streak = if dead { *streak + 1 } else { 0 };
            if dead && *streak >= self.limit && reached.is_none() {
                reached = Some(DeadBot {
                    bot: s.name.clone(),
                    games: *streak,
                    index: r.index,
                    detail: r.detail.clone().unwrap_or_default(),
                    log: s.log.clone(),
                });
            }
        }
        reached
    }
}

/// Why a [`Player`] could not play a game: arena's or the machine's fault,
/// never a bot's (a bot's misbehaviour is a forfeit in the record).
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// An I/O failure of the player itself (not of a bot: a bot's failure
    /// is a forfeit in its record).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The record returned is not the scheduled game's: (index, round, pair,
    /// seed) of the record and of the job.
    #[error("the record says index {} round {} pair {} seed {}, the schedule says {} {} {} {}",
        record[0], record[1], record[2], record[3], job[0], job[1], job[2], job[3])]
    WrongGame {
        /// Index, round, pair and seed of the record returned.
        record: [u64; 4],
        /// The same of the scheduled job.
        job: [u64; 4],
    },
}

impl From<StoreError> for TournamentError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Io { path, source } => TournamentError::Io { path, source },
            e => TournamentError::Store(e),
        }
    }
}

impl From<super::resume::ResumeError> for TournamentError {
    fn from(e: super::resume::ResumeError) -> Self {
        match e {
            super::resume::ResumeError::Store(e) => e.into(),
            e => TournamentError::Records(Box::new(e)),
        }
    }
}

impl From<super::merge::MergeError> for TournamentError {
    fn from(e: super::merge::MergeError) -> Self {
        TournamentError::Merge(Box::new(e))
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
    /// Plays `job` on lane `lane`; an error stops the run.
    fn play(
        &self,
        job: GameJob,
        lane: usize,
    ) -> impl Future<Output = Result<GameRecord, PlayerError>> + Send;

    /// Called on lane `lane` once no more games will be played there (also
    /// after an error or an interruption).
    fn finish_lane(&self, _lane: usize) -> impl Future<Output = ()> + Send {
        async {}
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
    let mut jobs = schedule::schedule(
        config.format,
        config.bots.len(),
        champion,
        config.games,
        config.seed,
    );
    super::openings::assign(&mut jobs, config.openings.as_ref(), config.seed);
    jobs
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The run directory, with its manifest, journal, records and logs.
    pub out: PathBuf,
    /// Games played at once, each on a lane of its own.
    pub concurrency: usize,
    /// Finish the run already in `out` (`--resume`) instead of refusing it.
    pub resume: bool,
    /// Replace a run already in `out` (its manifest, journal, games and logs).
    pub overwrite: bool,
    /// Play only this shard of the schedule (`--shard k/n`), for `arena merge`
    /// to join.
    pub shard: Option<Shard>,
    /// How progress is shown on stderr.
    pub progress: ProgressMode,
    /// Pin each concurrent game (its lane and bots) to a CPU of its own.
    pub affinity: bool,
    /// Said at the start of the run and kept in its manifest (a bot that
    /// runs without the sandbox it would have had elsewhere, say).
    pub warnings: Vec<String>,
    /// Records keep the state after every this-many plies and the last
    /// (`record_states`; 1, the default: every ply).
    pub record_states: usize,
    /// Stops the run (resumable) when a bot's process dies before its first
    /// move in this many of its games in a row, counted over the games this
    /// invocation plays ([`DEAD_BOT_GAMES`] with `on_bot_failure = "stop"`);
    /// `None`: it loses them all.
    pub dead_bot_stop: Option<u32>,
    /// The bots' program files, hashed, for the manifest's conditions
    /// ([`super::conditions::bot_files`]).
    pub programs: Vec<crate::store::BotFiles>,
    /// How the games are to be rated (config `anchor`, `confidence`), kept
    /// in the manifest for `arena merge`.
    pub ratings: Option<crate::store::RatingSettings>,
}

/// Games in a row a bot may die before its first move, with
/// `on_bot_failure = "stop"`, before the run stops: one is bad luck, three
/// are a broken bot (a model file gone, a crash on `newgame`).
pub const DEAD_BOT_GAMES: u32 = 3;

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The run directory.
    pub dir: PathBuf,
    /// Games in this run (its shard).
    pub games: usize,
    /// Of which played by this invocation (the rest came from a resumed journal).
    pub played_now: usize,
    /// Points, games and results per bot over the run's games.
    pub standings: Standings,
    /// Distinct openings, games and pairs of the run's games.
    pub distinct: crate::store::Distinct,
    /// A gauntlet's `sprt`: each challenger's test, in bot order.
    pub sprt: Vec<PairingTest>,
}

/// One challenger's sequential test against a gauntlet's champion (the
/// config's `sprt`): H1 "the challenger is elo1 stronger" against H0
/// "elo0", on the pentanomial counts of the pairing's seat-swapped pairs,
/// fed in schedule order; a pair repeating an earlier one move for move is
/// no new evidence (as in `arena match --sprt`). Once it decides, its
/// pairing's remaining games are skipped ([`Stop::Pairing`]).
#[derive(Clone, Debug)]
pub struct PairingTest {
    /// The gauntlet's champion.
    pub champion: String,
    /// The challenger it is tested against.
    pub challenger: String,
    /// The test so far.
    pub sprt: Sprt,
    /// Games of the pairing in the run (those of a pair still open
    /// included).
    pub games: u64,
    /// The first game of each pair still open: the challenger's points and
    /// the game's key.
    open: BTreeMap<u64, (f64, u64)>,
    seen: BTreeSet<[u64; 2]>,
}

impl PairingTest {
    fn new(champion: &str, challenger: &str, params: SprtParams) -> PairingTest {
        PairingTest {
            champion: champion.to_string(),
            challenger: challenger.to_string(),
            sprt: Sprt::new(params),
            games: 0,
            open: BTreeMap::new(),
            seen: BTreeSet::new(),
        }
    }

    /// Adds a game of the pairing; after the second game of a pair, the
    /// test's status.
    fn add(&mut self, r: &GameRecord) -> Option<SprtStatus> {
        self.games += 1;
        let seat = usize::from(r.seats[1].name == self.challenger);
        let points = r.result.points(seat);
        let key = super::distinct::game_key(r);
        let Some((first, first_key)) = self.open.remove(&r.pair) else {
            self.open.insert(r.pair, (points, key));
            return None;
        };
        Some(if self.seen.insert([first_key, key]) {
            self.sprt.record_pair(first, points)
        } else {
            self.sprt.record_repeat()
        })
    }

    /// `H1 accepted`, `H0 accepted` or `continue`.
    pub fn status(&self) -> SprtStatus {
        self.sprt.status()
    }
}

/// A gauntlet's tests, shared by the stop rule (which feeds them) and the
/// run (which reports them).
type Tests = Arc<Mutex<Vec<PairingTest>>>;

/// The stop rule of a gauntlet with `sprt`: its description (kept in the
/// manifest) and the rule, one test per challenger.
fn gauntlet_sprt(
    config: &Normalized,
) -> Result<Option<(String, StopRule, Tests)>, TournamentError> {
    let (Some(text), Some(champion)) = (&config.sprt, &config.champion) else {
        return Ok(None);
    };
    let params: SprtParams = text.parse().map_err(|source| TournamentError::BadSprt {
        text: text.clone(),
        source,
    })?;
    let tests: Vec<PairingTest> = config
        .bots
        .iter()
        .filter(|b| &b.name != champion)
        .map(|b| PairingTest::new(champion, &b.name, params))
        .collect();
    let tests: Tests = Arc::new(Mutex::new(tests));
    let shared = tests.clone();
    let text = format!("sprt {params} per challenger against {champion}");
    let champion = champion.clone();
    let rule: StopRule = Box::new(move |r: &GameRecord| {
        let challenger = r.seats.iter().find(|s| s.name != champion)?;
        let mut tests = shared.lock().expect("no panic holding the tests");
        let t = tests.iter_mut().find(|t| t.challenger == challenger.name)?;
        match t.add(r)? {
            SprtStatus::Continue => None,
            status => Some(Stop::Pairing(format!(
                "sprt {params}: {} vs {}: {status} after {} games",
                t.challenger, t.champion, t.games
            ))),
        }
    });
    Ok(Some((text, rule, tests)))
}

/// How a schedule is split into shards: by seat-swapped pair
/// ([`Shard::contains`]: every n-th pair), or, in a gauntlet with `sprt`,
/// by pairing: every n-th challenger in bot order plays all its games in
/// one shard, so that its test reads the games the whole run's would, in
/// the same order, and stops on the same one.
pub struct Sharding {
    /// Per pairing ([`pairing_of`]), its number from 0 in bot
    /// order; `None`: by pair.
    pairings: Option<BTreeMap<[usize; 2], u64>>,
}

impl Sharding {
    /// How `config`'s schedule `jobs` is split: by pairing for a gauntlet with
    /// `sprt`, by pair otherwise.
    pub fn of(config: &Normalized, jobs: &[GameJob]) -> Sharding {
        if config.sprt.is_none() || config.champion.is_none() {
            return Sharding { pairings: None };
        }
        // Numbered in bot order: a gauntlet's pairings all hold the
        // champion, so the sorted pairs order them by challenger.
        let set: BTreeSet<[usize; 2]> = jobs.iter().map(pairing_of).collect();
        Sharding {
            pairings: Some(set.into_iter().zip(0..).collect()),
        }
    }

    /// Which shard (1-based) of `n` plays `job`.
    pub fn shard_of(&self, n: u64, job: &GameJob) -> u64 {
        match &self.pairings {
            None => Shard { k: 1, n }.of_pair(job.pair),
            Some(p) => p.get(&pairing_of(job)).copied().unwrap_or(0) % n + 1,
        }
    }

    /// Whether shard `s` plays `job`.
    pub fn holds(&self, s: Shard, job: &GameJob) -> bool {
        self.shard_of(s.n, job) == s.k
    }
}

/// A gauntlet's `sprt` replayed over games already played (`arena
/// merge`): the games each test skipped, and the tests.
pub struct SprtReplay {
    rule: StopRule,
    tests: Tests,
    /// Per pairing whose test decided, the index of the deciding game.
    decided: BTreeMap<[usize; 2], u64>,
    /// The rule's description, as in the manifest.
    pub text: String,
}

impl SprtReplay {
    /// `None` without a gauntlet `sprt`.
    pub fn of(config: &Normalized) -> Result<Option<SprtReplay>, TournamentError> {
        Ok(
            gauntlet_sprt(config)?.map(|(text, rule, tests)| SprtReplay {
                rule,
                tests,
                decided: BTreeMap::new(),
                text,
            }),
        )
    }

    /// Feeds game `r` of pairing `pairing`; the games of each pairing in
    /// schedule order.
    pub fn add(&mut self, r: &GameRecord, pairing: [usize; 2]) {
        if let Some(Stop::Pairing(_)) = (self.rule)(r) {
            self.decided.insert(pairing, r.index);
        }
    }

    /// Whether the test of `job`'s pairing decided before it.
    pub fn skipped(&self, job: &GameJob) -> bool {
        self.decided
            .get(&pairing_of(job))
            .is_some_and(|&at| job.index > at)
    }

    /// Writes `sprt.csv` in `dir` and returns the tests.
    pub fn finish(self, dir: &Path) -> Result<Vec<PairingTest>, TournamentError> {
        let tests = self
            .tests
            .lock()
            .expect("no panic holding the tests")
            .clone();
        write_sprt_csv(dir, &tests)?;
        Ok(tests)
    }
}

/// `sprt.csv`: each test's verdict, LLR, bounds, games and estimate.
fn write_sprt_csv(dir: &Path, tests: &[PairingTest]) -> Result<(), TournamentError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| TournamentError::Io {
        path: dir.join(store::SPRT_CSV),
        source: e.into(),
    };
    w.write_record([
        "challenger",
        "champion",
        "status",
        "llr",
        "lower",
        "upper",
        "games",
        "pairs",
        "ptnml",
        "elo",
        "elo_lo",
        "elo_hi",
        "params",
    ])
    .map_err(io)?;
    for t in tests {
        let (lower, upper) = t.sprt.bounds();
        let elo = t.sprt.elo();
        let opt = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v:.1}"));
        let status = match t.status() {
            SprtStatus::AcceptH1 => "H1",
            SprtStatus::AcceptH0 => "H0",
            SprtStatus::Continue => "continue",
        };
        w.write_record([
            arena_core::record::csv_cell(&t.challenger).as_ref(),
            arena_core::record::csv_cell(&t.champion).as_ref(),
            status,
            &format!("{:.4}", t.sprt.llr()),
            &format!("{lower:.4}"),
            &format!("{upper:.4}"),
            &t.games.to_string(),
            &t.sprt.pentanomial().pairs().to_string(),
            &t.sprt.pentanomial().to_string(),
            &opt(elo.map(|e| e.elo)),
            &opt(elo.map(|e| e.lo)),
            &opt(elo.map(|e| e.hi)),
            &t.sprt.params().to_string(),
        ])
        .map_err(io)?;
    }
    let bytes = w.into_inner().map_err(|e| io(e.into_error().into()))?;
    store::write_atomic(dir, store::SPRT_CSV, &bytes)?;
    Ok(())
}

/// What a caller of [`run_with`] sees of a run besides its files.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Ends the run before its last game (`arena match --sprt`): a
    /// description (kept in the manifest: `--resume` needs the same rule)
    /// and the rule, which sees the games in schedule order.
    pub stop: Option<(String, StopRule)>,
    /// Sees every game of the run once, in schedule order, as it joins
    /// `games.jsonl`; `true` for a game an earlier invocation played.
    #[allow(clippy::type_complexity)]
    pub each: Option<&'a mut (dyn FnMut(&GameRecord, bool) + Send)>,
}

/// Runs (or resumes) the games of `config`'s schedule that belong to
/// `opts.shard`, writing to `opts.out`.
pub async fn run<P: Player>(
    config: &Normalized,
    player: Arc<P>,
    opts: &RunOptions,
) -> Result<Summary, TournamentError> {
    run_with(config, player, opts, Hooks::default()).await
}

/// [`run`], with a stop rule and an observer of the games in order.
pub async fn run_with<P: Player>(
    config: &Normalized,
    player: Arc<P>,
    opts: &RunOptions,
    hooks: Hooks<'_>,
) -> Result<Summary, TournamentError> {
    let all = jobs_for(config);
    let total = all.len() as u64;
    let pairs = all.last().map_or(0, |j| j.pair + 1);
    let reuse = super::openings::reuse_warning(config.openings.as_ref(), pairs);
    let sharding = Sharding::of(config, &all);
    let jobs: Vec<GameJob> = all
        .into_iter()
        .filter(|j| match opts.shard {
            Some(s) => sharding.holds(s, j),
            None => true,
        })
        .collect();
    let dir = &opts.out;
    let mut manifest = Manifest::new(config, total, opts.shard, jobs.len() as u64);
    manifest.warnings = opts.warnings.clone();
    manifest.ratings = opts.ratings.clone();
    if let Some(w) = reuse {
        // Said before the first game, and kept with the run.
        eprintln!("arena: warning: {w}");
        manifest.warnings.push(w);
    }
    let mut tests = None;
    let (stop_rule, stop) = match hooks.stop {
        Some((text, rule)) => (Some(text), Some(rule)),
        None => match gauntlet_sprt(config)? {
            Some((text, rule, t)) => {
                tests = Some(t);
                (Some(text), Some(rule))
            }
            None => (None, None),
        },
    };
    manifest.stop_rule = stop_rule;
    let mut each = hooks.each;

    let lock = RunLock::acquire(dir)?;
    let done = match prepare_dir(dir, &manifest, config, &jobs, opts) {
        Ok(done) => done,
        Err(e) => {
            lock.refused();
            return Err(e);
        }
    };
    // This sitting's conditions, after those of the sittings before it.
    if let Some(old) = Manifest::read(dir)?.filter(|_| opts.resume) {
        manifest.sittings = old.sittings;
    }
    manifest
        .sittings
        .push(crate::store::Sitting::begin(&opts.programs));
    manifest.write(dir)?;
    store::private_subdir(dir, store::LOGS)?;

    let names = config.bots.iter().map(|b| b.name.clone());
    let mut standings = Standings::new(names);
    // Games the journal holds: those given to the writer again count as
    // played by an earlier invocation.
    let resumed: BTreeSet<u64> = done.journal.keys().copied().collect();
    let order = jobs.iter().map(|j| j.index).collect();
    let plan = RunPlan::new(&jobs, stop);
    let mut writer = Writer::open(dir, order, done, plan, opts.record_states, &mut |r| {
        standings.add(r);
        if let Some(each) = each.as_mut() {
            each(r, true);
        }
    })?;
    for r in writer.pending() {
        standings.add(r);
    }
    let by_index: BTreeMap<u64, &GameJob> = jobs.iter().map(|j| (j.index, j)).collect();
    let remaining: Vec<GameJob> = writer
        .missing()
        .into_iter()
        .map(|i| by_index[&i].clone())
        .collect();
    let already = writer.finished();
    let progress = Progress::new(
        opts.progress,
        &config.name,
        jobs.len() as u64,
        already as u64,
    );
    progress.update(already as u64, &standings);

    // The stop rule ends the run from the writer thread: `ended` tells the
    // driver to start no more games, `closed` which pairings to skip.
    let ends = Ends::default();
    let ended = ends.run.clone();
    if writer.plan().stopped().is_some() {
        ended.notify_one();
    }
    let closed = ends.pairings.clone();
    let close = move |w: &Writer<RunPlan>| {
        let mut c = closed.lock().expect("no panic holding the set");
        c.extend(w.plan().closed().iter().map(|(p, _)| *p));
    };
    close(&writer);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<GameRecord>();
    let (otx, mut orx) = tokio::sync::mpsc::unbounded_channel::<(GameRecord, bool)>();
    let observed = each.is_some();
    let writer_ended = ended.clone();
    let writer_task = tokio::task::spawn_blocking(
        move || -> Result<(Writer<RunPlan>, Standings, Progress, usize), TournamentError> {
            let mut played_now = 0;
            // Group commit: whatever finished while the last fsyncs ran is
            // written and synced together, so the disk's sync latency does
            // not cap the games per second.
            while let Some(rec) = rx.blocking_recv() {
                let mut batch = vec![rec];
                while let Ok(rec) = rx.try_recv() {
                    batch.push(rec);
                }
                if writer.plan().stopped().is_some() {
                    continue;
                }
                for rec in &batch {
                    standings.add(rec);
                }
                let ordered = writer.accept(batch)?;
                close(&writer);
                progress.update(writer.finished() as u64, &standings);
                for r in ordered {
                    let old = resumed.contains(&r.index);
                    played_now += usize::from(!old);
                    if observed {
                        let _ = otx.send((r, old));
                    }
                }
                if writer.plan().stopped().is_some() {
                    writer_ended.notify_one();
                }
            }
            Ok((writer, standings, progress, played_now))
        },
    );

    let observe = async {
        while let Some((r, old)) = orx.recv().await {
            if let Some(each) = each.as_mut() {
                each(&r, old);
            }
        }
    };
    // Games played now, in the order they finish, for the dead-bot stop.
    let streaks = opts.dead_bot_stop.map(|limit| DeadStreaks {
        limit,
        streak: BTreeMap::new(),
    });
    let (outcome, ()) = tokio::join!(
        drive(
            remaining,
            player,
            opts.concurrency.max(1),
            opts.affinity,
            tx,
            ends,
            streaks
        ),
        observe
    );
    let writer_result = writer_task.await.expect("writer thread does not panic");
    let (writer, mut standings, progress, played_now) = match (outcome, writer_result) {
        (_, Err(e)) => return Err(e),
        (Err(e), Ok((w, _, progress, _))) => {
            progress.finish();
            let (dir, done, total) = (dir.clone(), w.finished(), jobs.len());
            let (why, e) = match e {
                DriveStop::Error(e) => (e.to_string(), e),
                DriveStop::Interrupted => (
                    "interrupted".to_string(),
                    TournamentError::Interrupted { dir, done, total },
                ),
                DriveStop::DeadBot(dead) => (
                    format!(
                        "bot `{}` died before its first move in {} games in a row",
                        dead.bot, dead.games
                    ),
                    TournamentError::DeadBot {
                        dead,
                        dir,
                        done,
                        total,
                    },
                ),
            };
            end_sitting(&mut manifest, &opts.out, &why);
            return Err(e);
        }
        (Ok(()), Ok(x)) => x,
    };
    progress.finish();
    let games = writer.written();
    if let Some(why) = writer.plan().stopped() {
        manifest.stopped = Some(why.to_string());
    }
    for (_, why) in writer.plan().closed() {
        eprintln!("arena: {why}: the pairing's other games are skipped");
    }
    if writer.plan().stopped().is_some() || !writer.plan().closed().is_empty() {
        // Games that finished after a deciding one are not part of the run.
        standings = Standings::new(config.bots.iter().map(|b| b.name.clone()));
        for line in store::Records::open(&dir.join(GAMES_JSONL), store::Tail::Torn, true)? {
            standings.add(&line?.record);
        }
    }
    writer.complete()?;
    let sprt = match tests {
        Some(t) => t.lock().expect("no panic holding the tests").clone(),
        None => Vec::new(),
    };
    if !sprt.is_empty() {
        write_sprt_csv(dir, &sprt)?;
    }
    let distinct = crate::store::Distinct::of_dir(dir)?;
    if let Some(w) = distinct.warning() {
        eprintln!("arena: warning: {w}");
        manifest.warnings.push(w);
    }
    manifest.distinct = Some(distinct.clone());
    manifest.status = Status::Complete;
    if let Some(s) = manifest.sittings.last_mut() {
        s.end(None);
    }
    manifest.write(dir)?;
    Ok(Summary {
        dir: dir.clone(),
        games,
        played_now,
        standings,
        distinct,
        sprt,
    })
}

/// What ends games before the schedule does: the run (`run`, notified
/// once) or a pairing's remaining games (`pairings`, the two bots of
/// each; a game of one is not started).
#[derive(Clone, Default)]
struct Ends {
    run: Arc<tokio::sync::Notify>,
    pairings: Arc<Mutex<BTreeSet<[usize; 2]>>>,
}

/// Ends the manifest's last sitting, stopped for `why`, and writes it (best
/// effort: the run is stopping for another reason already).
fn end_sitting(manifest: &mut Manifest, dir: &Path, why: &str) {
    if let Some(s) = manifest.sittings.last_mut() {
        s.end(Some(why.to_string()));
    }
    let _ = manifest.write(dir);
}

/// Checks the run directory (a run of another config, a directory arena did
/// not write, records that are not this run's) and returns the games
/// already finished there; with `--overwrite`, first removes the run there.
fn prepare_dir(
    dir: &Path,
    manifest: &Manifest,
    config: &Normalized,
    jobs: &[GameJob],
    opts: &RunOptions,
) -> Result<store::Resumed, TournamentError> {
    let old = match Manifest::read(dir)? {
        None => {
            if let Some(file) = store::holds_run_files(dir) {
                return Err(TournamentError::NotARun {
                    dir: dir.to_path_buf(),
                    file,
                });
            }
            return Ok(store::Resumed::default());
        }
        Some(old) => old,
    };
    if opts.overwrite {
        store::remove_run(dir, &old)?;
        return Ok(store::Resumed::default());
    }
    if !opts.resume && old.status == Status::Complete {
        // A finished run has nothing left to resume: do not suggest it.
        return Err(TournamentError::Complete {
            dir: dir.to_path_buf(),
            run: old.describe(),
        });
    }
    if !opts.resume {
        return Err(TournamentError::Occupied {
            dir: dir.to_path_buf(),
            run: old.describe(),
            status: old.status,
        });
    }
    if old.fingerprint != manifest.fingerprint || old.shard != manifest.shard {
        return Err(TournamentError::OtherRun {
            dir: dir.to_path_buf(),
            old: old.describe(),
            old_fingerprint: old.fingerprint,
            new: manifest.describe(),
            new_fingerprint: manifest.fingerprint.clone(),
        });
    }
    if old.stop_rule != manifest.stop_rule {
        let rule = |r: &Option<String>| r.as_deref().unwrap_or("its last game").to_string();
        return Err(TournamentError::OtherStopRule {
            dir: dir.to_path_buf(),
            old: rule(&old.stop_rule),
            new: rule(&manifest.stop_rule),
        });
    }
    let done = super::resume::check_resume(dir, jobs, config)?;
    // The games to play again start with no log of their own.
    store::remove_unfinished_logs(dir, |g| super::resume::finished(&done, jobs, g))?;
    Ok(done)
}

enum DriveStop {
    Error(TournamentError),
    Interrupted,
    /// A bot died before its first move in too many games in a row.
    DeadBot(Box<DeadBot>),
}

/// Plays `jobs` in schedule order, at most `concurrency` at a time, each on
/// a [`Lanes`] thread, sending each finished record to the writer. Stops at
/// the first error, on Ctrl-C, or when `streaks` finds a dead bot (running
/// games are dropped: their bots are killed by the player).
async fn drive<P: Player>(
    jobs: Vec<GameJob>,
    player: Arc<P>,
    concurrency: usize,
    affinity: bool,
    tx: tokio::sync::mpsc::UnboundedSender<GameRecord>,
    ended: Ends,
    streaks: Option<DeadStreaks>,
) -> Result<(), DriveStop> {
    let lanes = Lanes::start(concurrency.min(jobs.len()).max(1), affinity)
        .map_err(|e| DriveStop::Error(TournamentError::Threads(e)))?;
    let outcome = drive_lanes(&lanes, jobs, player.clone(), tx, ended, streaks).await;
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
    ends: Ends,
    mut streaks: Option<DeadStreaks>,
) -> Result<(), DriveStop> {
    let ended = ends.run;
    let mut free: Vec<usize> = (0..lanes.count()).rev().collect();
    let mut set = tokio::task::JoinSet::new();
    let mut jobs = jobs.into_iter();
    let stop = crate::process::stop_signal();
    tokio::pin!(stop);
    type Played = (usize, GameJob, Result<GameRecord, PlayerError>);
    let mut handle = |res: Result<Played, tokio::task::JoinError>| -> Result<(), DriveStop> {
        let (job, rec) = match res {
            Ok((_, job, Ok(rec))) => (job, rec),
            Ok((_, job, Err(source))) => {
                return Err(DriveStop::Error(TournamentError::Player {
                    index: job.index,
                    source,
                }))
            }
            Err(e) => return Err(DriveStop::Error(TournamentError::GameTask(e.to_string()))),
        };
        if (rec.index, rec.round, rec.pair, rec.seed) != (job.index, job.round, job.pair, job.seed)
        {
            return Err(DriveStop::Error(TournamentError::Player {
                index: job.index,
                source: PlayerError::WrongGame {
                    record: [rec.index, rec.round, rec.pair, rec.seed],
                    job: [job.index, job.round, job.pair, job.seed],
                },
            }));
        }
        // Seen before any further game starts: a broken bot's streak
        // stops the run at once (the record itself is kept).
        let dead = streaks.as_mut().and_then(|s| s.add(&rec));
        tx.send(rec)
            .map_err(|_| DriveStop::Error(TournamentError::WriterGone))?;
        match dead {
            Some(d) => Err(DriveStop::DeadBot(Box::new(d))),
            None => Ok(()),
        }
    };
    loop {
        // Fill free lanes in schedule order.
        while let Some(&lane) = free.last() {
            let Some(job) = jobs.by_ref().find(|j| {
                let closed = ends.pairings.lock().expect("no panic holding the set");
                !closed.contains(&pairing_of(j))
            }) else {
                break;
            };
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
            _ = ended.notified() => {
                // The stop rule decided: what still runs is not needed.
                set.abort_all();
                while set.join_next().await.is_some() {}
                return Ok(());
            }
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

#[cfg(test)]
mod tests {
    use super::super::merge::merge;
    use super::*;
    use crate::referee::TimeControl;
    use crate::settings::{FormatKind, NormalizedBot};
    use crate::store::{read_records, JOURNAL};
    use crate::store::{GAMES_CSV, LOCK};
    use arena_core::record::{GameResult, Reason, SeatRecord};
    use std::fs::{self, OpenOptions};
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn config(bots: usize, games: u32, seed: u64) -> Normalized {
        Normalized {
            name: "t".into(),
            game: "nim".into(),
            params: vec![],
            format: FormatKind::RoundRobin,
            champion: None,
            sprt: None,
            games,
            seed,
            random_opening_plies: 0,
            openings: None,
            ponder: false,
            adjudication: Default::default(),
            time_control: TimeControl {
                movetime_ms: Some(10),
                time_ms: None,
                inc_ms: 0,
                margin_ms: 5,
                clock: Default::default(),
                ceiling_ms: None,
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
                    budget: Default::default(),
                    time_control: None,
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
        /// This bot's process dies before its first move in every game.
        dead: Option<String>,
    }

    fn fake(c: &Normalized, fail_at: Option<u64>) -> Arc<Fake> {
        Arc::new(Fake {
            bots: c.bots.iter().map(|b| b.name.clone()).collect(),
            fail_at,
            played: AtomicUsize::new(0),
            dead: None,
        })
    }

    impl Player for Fake {
        async fn play(&self, job: GameJob, _lane: usize) -> Result<GameRecord, PlayerError> {
            tokio::time::sleep(Duration::from_millis(job.seed % 7)).await;
            if self.fail_at == Some(job.index) {
                return Err(io::Error::other("simulated failure").into());
            }
            self.played.fetch_add(1, Ordering::SeqCst);
            let result = match (job.seed ^ job.index) % 3 {
                0 => GameResult::Seat0Wins,
                1 => GameResult::Seat1Wins,
                _ => GameResult::Draw,
            };
            let dead = (0..2).find(|&s| self.dead.as_ref() == Some(&self.bots[job.seats[s]]));
            if let Some(d) = dead {
                return Ok(GameRecord {
                    result: GameResult::win_for(1 - d),
                    reason: Reason::Crash,
                    offender: Some(d),
                    detail: Some("exited with code 1".into()),
                    // A move of the opponent's, before the dead bot's first.
                    moves: vec![arena_core::record::MoveRecord {
                        seat: 1 - d,
                        mv: "a1".into(),
                        ms: 1.0,
                        cpu_ms: None,
                        info: vec![],
                        search: Default::default(),
                        state: "4 1".into(),
                        effects: Default::default(),
                    }],
                    ..self.record(&job, result)
                });
            }
            Ok(self.record(&job, result))
        }
    }

    impl Fake {
        fn record(&self, job: &GameJob, result: GameResult) -> GameRecord {
            let seat = |s: usize| SeatRecord {
                name: self.bots[job.seats[s]].clone(),
                command: vec!["true".into()],
                log: None,
                budget: Default::default(),
                ready: None,
                transcript: None,
            };
            GameRecord {
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
                clock: Default::default(),
                duration_ms: 0,
            }
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
            affinity: false,
            warnings: Vec::new(),
            record_states: 1,
            dead_bot_stop: None,
            programs: Vec::new(),
            ratings: None,
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
        assert_eq!(
            csv.lines().next().unwrap(),
            arena_core::record::CSV_HEADER.join(",")
        );
        assert!(
            !a.join(JOURNAL).exists(),
            "the journal goes once the run is complete"
        );
        let m = Manifest::read(&a).unwrap().unwrap();
        assert_eq!(
            (m.status.as_str(), m.total_games, m.seed),
            ("complete", 24, 11)
        );
        let points: f64 = s1.standings.rows.iter().map(|r| r.tally.points()).sum();
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
        assert!(
            matches!(again, Err(ref e @ TournamentError::Occupied { .. }) if e.to_string().contains("--resume"))
        );
        // The log of the game that failed is stale: resume removes it, and
        // only it.
        fs::write(part.join("logs/game00009-seat0-bot1.log"), "half").unwrap();
        fs::write(part.join("logs/notes.txt"), "mine").unwrap();

        let player = fake(&c, None);
        let mut o = opts(&part, 2);
        o.resume = true;
        let s = rt.block_on(run(&c, player.clone(), &o)).unwrap();
        // Two sittings: the one that failed, and this one, complete.
        let m = Manifest::read(&part).unwrap().unwrap();
        assert_eq!(m.sittings.len(), 2, "{:?}", m.sittings);
        assert_eq!(
            m.sittings[0].stopped.as_deref(),
            Some("game 9: simulated failure")
        );
        assert!(m.sittings[1].ended.is_some() && m.sittings[1].stopped.is_none());
        assert!(m.sittings[1].started >= m.sittings[0].started);
        assert!(!m.sittings[1].arena_commit.is_empty() && !m.sittings[1].host.is_empty());
        assert!(!part.join("logs/game00009-seat0-bot1.log").exists());
        assert!(part.join("logs/notes.txt").exists());
        assert_eq!(s.played_now, 18 - saved);
        assert_eq!(player.played.load(Ordering::SeqCst), 18 - saved);
        assert_eq!(files(&whole), files(&part));

        // Resuming a finished run plays nothing.
        let player = fake(&c, None);
        rt.block_on(run(&c, player.clone(), &o)).unwrap();
        assert_eq!(player.played.load(Ordering::SeqCst), 0);
        assert_eq!(files(&whole), files(&part));
    }

    /// What counts as dead before its first move: a `crash`, and a
    /// `timeout` of a bot that never said `ready`; not a bot that said
    /// `ready` and then lost on time at its first move, nor the opponent.
    #[test]
    fn a_bot_that_never_says_ready_counts_as_dead() {
        let c = config(2, 2, 1);
        let f = fake(&c, None);
        let job = |index: u64| GameJob {
            index,
            round: 0,
            pair: 0,
            seed: index,
            seats: [0, 1],
            opening: None,
        };
        let game = |index: u64, reason: Reason, ready: Option<&str>| {
            let mut r = f.record(&job(index), GameResult::Seat0Wins);
            r.reason = reason;
            r.offender = Some(1);
            r.seats[0].ready = Some("bot0".into());
            r.seats[1].ready = ready.map(str::to_string);
            r
        };
        let mut streaks = DeadStreaks {
            limit: 3,
            streak: BTreeMap::new(),
        };
        assert_eq!(streaks.add(&game(0, Reason::Timeout, None)), None);
        assert_eq!(streaks.add(&game(1, Reason::Crash, Some("bot1"))), None);
        let dead = streaks.add(&game(2, Reason::Timeout, None)).expect("dead");
        assert_eq!((dead.bot.as_str(), dead.games), ("bot1", 3));
        assert_eq!(streaks.add(&game(3, Reason::Timeout, Some("bot1"))), None);
        assert_eq!(streaks.streak["bot1"], 0, "it said ready: alive");
        assert_eq!(streaks.streak["bot0"], 0);
    }

    /// A bot whose process dies before its first move in 3 of its games in
    /// a row stops the run, resumable, naming it; once it plays, `--resume`
    /// finishes the run as if nothing had happened. The control: with
    /// `dead_bot_stop` off the run plays all its games as forfeits.
    #[test]
    fn a_bot_dead_in_three_games_in_a_row_stops_the_run_and_resume_finishes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let c = config(3, 4, 5);
        let rt = rt();
        let broken = || {
            let mut f = fake(&c, None);
            Arc::get_mut(&mut f).unwrap().dead = Some("bot2".into());
            f
        };
        let forfeits = tmp.path().join("forfeits");
        let s = rt.block_on(run(&c, broken(), &opts(&forfeits, 1))).unwrap();
        assert_eq!(s.games, 12);
        let whole = tmp.path().join("whole");
        rt.block_on(run(&c, fake(&c, None), &opts(&whole, 1)))
            .unwrap();

        let dir = tmp.path().join("stopped");
        let mut o = opts(&dir, 1);
        o.dead_bot_stop = Some(DEAD_BOT_GAMES);
        let err = rt.block_on(run(&c, broken(), &o)).unwrap_err();
        let TournamentError::DeadBot {
            dead, done, total, ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!((dead.bot.as_str(), dead.games, *total), ("bot2", 3, 12));
        // With one lane, no game starts after the third death.
        assert_eq!(dead.index, 2, "bot2 plays the first three games");
        assert_eq!(*done, 3, "{err}");
        let text = err.to_string();
        for words in [
            "bot `bot2` died before its first move in 3 games in a row (the last, game 2: exited with code 1)",
            "of 12 games are saved",
            "fix the bot and run again with --resume",
            "on_bot_failure = \"forfeit\"",
        ] {
            assert!(text.contains(words), "{text}");
        }
        assert_eq!(
            Manifest::read(&dir).unwrap().unwrap().status,
            Status::Running
        );
        let saved = || -> usize {
            let files =
                [GAMES_JSONL, JOURNAL].map(|f| read_records(&dir.join(f)).unwrap_or_default());
            files
                .iter()
                .flatten()
                .map(|r| r.index)
                .collect::<BTreeSet<u64>>()
                .len()
        };
        // Resumed with the bot still broken: it stops again after 3 more of
        // its games (those of the earlier run do not count).
        o.resume = true;
        let again = rt.block_on(run(&c, broken(), &o)).unwrap_err();
        let TournamentError::DeadBot { dead: again, .. } = &again else {
            panic!("{again}");
        };
        assert!(again.index > dead.index + 2, "{again:?}");
        let before = saved();
        assert!(before < 12);
        let s = rt.block_on(run(&c, fake(&c, None), &o)).unwrap();
        assert_eq!((s.games, s.played_now), (12, 12 - before));
        // Its dead games stay forfeits; the rest are what the whole run played.
        let (stopped, whole) = (
            read_records(&dir.join(GAMES_JSONL)).unwrap(),
            read_records(&whole.join(GAMES_JSONL)).unwrap(),
        );
        assert_eq!(stopped.len(), 12);
        for (a, b) in stopped.iter().zip(&whole) {
            if a.reason == Reason::Normal {
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn a_directory_in_use_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 5);
        let held = RunLock::acquire(tmp.path()).unwrap();
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
        let mut m = Manifest::read(&merged).unwrap().unwrap();
        // The same manifest but for the conditions: the shards' sittings.
        assert_eq!(m.sittings.len(), dirs.len());
        let mut w = Manifest::read(&whole).unwrap().unwrap();
        (m.sittings, w.sittings) = (Vec::new(), Vec::new());
        assert_eq!(m, w);
    }

    /// A finished run of `c` in `dir` whose last games are still only in
    /// the journal (as after a crash): returns the journal's path.
    fn interrupted_run(rt: &tokio::runtime::Runtime, c: &Normalized, dir: &Path) -> PathBuf {
        let err = rt
            .block_on(run(c, fake(c, Some(7)), &opts(dir, 1)))
            .unwrap_err();
        assert!(
            matches!(err, TournamentError::Player { index: 7, .. }),
            "{err}"
        );
        dir.join(JOURNAL)
    }

    fn resume(
        rt: &tokio::runtime::Runtime,
        c: &Normalized,
        dir: &Path,
    ) -> Result<Summary, TournamentError> {
        let mut o = opts(dir, 2);
        o.resume = true;
        rt.block_on(run(c, fake(c, None), &o))
    }

    /// Appends `rec` to `path` as one more line; returns its line number.
    fn append(path: &Path, rec: &GameRecord) -> usize {
        let lines = fs::read_to_string(path).unwrap_or_default().lines().count();
        let mut f = OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(&store::jsonl_line(rec)).unwrap();
        lines + 1
    }

    #[test]
    fn resume_refuses_a_forged_record_naming_file_line_and_field() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 6, 5);
        let jobs = jobs_for(&c);
        let good = rt
            .block_on(fake(&c, None).play(jobs[12].clone(), 0))
            .unwrap();
        type Forge = fn(&mut GameRecord);
        let forgeries: [(&str, Forge); 6] = [
            ("seed", |r| r.seed ^= 1),
            ("seats[0].name", |r| r.seats[0].name = "mallory".into()),
            ("seats[1].name", |r| {
                r.seats[1].name = r.seats[0].name.clone()
            }),
            ("pair", |r| r.pair += 1),
            ("round", |r| r.round += 1),
            ("params", |r| {
                r.params.insert("stones".into(), "99".into());
            }),
        ];
        for (field, forge) in forgeries {
            let dir = tmp.path().join(field);
            let journal = interrupted_run(&rt, &c, &dir);
            let mut forged = good.clone();
            forge(&mut forged);
            let line = append(&journal, &forged);
            let err = resume(&rt, &c, &dir).unwrap_err().to_string();
            let at = format!("{}:{line}: game 12: {field} is ", journal.display());
            assert!(err.contains(&at), "{field}: {err}");
        }
        // A game the schedule does not have.
        let dir = tmp.path().join("index");
        let journal = interrupted_run(&rt, &c, &dir);
        let mut forged = good.clone();
        forged.index = 99;
        let line = append(&journal, &forged);
        let err = resume(&rt, &c, &dir).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "{}:{line}: index 99 is not a game of this run",
                journal.display()
            )),
            "{err}"
        );
    }

    #[test]
    fn two_records_of_one_game_that_disagree_are_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 6, 5);
        let journal = interrupted_run(&rt, &c, tmp.path());
        let games = tmp.path().join(GAMES_JSONL);
        let first = store::read_lines(&games, store::Tail::Torn, false).unwrap()[0].clone();
        // The same record twice is what a crash between the journal and
        // games.jsonl leaves: accepted.
        append(&journal, &first.record);
        resume(&rt, &c, tmp.path()).unwrap();

        let dir = tmp.path().join("b");
        let journal = interrupted_run(&rt, &c, &dir);
        let mut other = first.record.clone();
        other.result = match other.result {
            GameResult::Draw => GameResult::Seat0Wins,
            _ => GameResult::Draw,
        };
        let line = append(&journal, &other);
        let err = resume(&rt, &c, &dir).unwrap_err().to_string();
        let want = format!(
            "game 0: {}:1 and {}:{line} disagree (result differs)",
            dir.join(GAMES_JSONL).display(),
            journal.display()
        );
        assert!(err.contains(&want), "{err}");
    }

    #[test]
    fn resume_refuses_games_jsonl_out_of_schedule_order() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 6, 5);
        interrupted_run(&rt, &c, tmp.path());
        let games = tmp.path().join(GAMES_JSONL);
        let text = fs::read_to_string(&games).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 2, "{} games written", lines.len());
        lines.swap(0, 1);
        fs::write(&games, lines.join("\n") + "\n").unwrap();
        let err = resume(&rt, &c, tmp.path()).unwrap_err().to_string();
        let want = format!(
            "{}:1: game 1 where the schedule has game 0",
            games.display()
        );
        assert!(err.contains(&want), "{err}");
    }

    #[test]
    fn merge_refuses_a_shard_whose_games_name_a_bot_that_never_played() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 3);
        let mut dirs = Vec::new();
        for k in 1..=2 {
            let d = tmp.path().join(format!("shard{k}"));
            let mut o = opts(&d, 1);
            o.shard = Some(Shard { k, n: 2 });
            rt.block_on(run(&c, fake(&c, None), &o)).unwrap();
            dirs.push(d);
        }
        let games = dirs[1].join(GAMES_JSONL);
        let mut lines: Vec<String> = fs::read_to_string(&games)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        let mut r: GameRecord = serde_json::from_str(&lines[1]).unwrap();
        r.seats[1].name = "ghost\u{1b}[2J".into();
        lines[1] = serde_json::to_string(&r).unwrap();
        fs::write(&games, lines.join("\n") + "\n").unwrap();
        let out = tmp.path().join("merged");
        let err = merge(&dirs, Some(&out)).unwrap_err().to_string();
        let want = format!(
            "{}:2: game {}: seats[1].name is `ghost\\x1b[2J`",
            games.display(),
            r.index
        );
        assert!(err.contains(&want), "{err}");
        assert!(!out.exists(), "a refused merge writes nothing");

        // A game of shard 2 in shard 1's directory is not shard 1's.
        let moved = lines.remove(0);
        fs::write(&games, lines.join("\n") + "\n").unwrap();
        let g1 = dirs[0].join(GAMES_JSONL);
        let n = fs::read_to_string(&g1).unwrap().lines().count();
        fs::write(&g1, fs::read_to_string(&g1).unwrap() + &moved + "\n").unwrap();
        let err = merge(&dirs, Some(&out)).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{}:{}: index", g1.display(), n + 1)),
            "{err}"
        );
    }

    #[test]
    fn run_files_are_private_and_overwrite_removes_only_what_arena_wrote() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 5);
        let dir = tmp.path().join("run");
        rt.block_on(run(&c, fake(&c, None), &opts(&dir, 2)))
            .unwrap();
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("logs")), 0o700);
        for f in [MANIFEST, GAMES_JSONL, GAMES_CSV, LOCK] {
            assert_eq!(mode(&dir.join(f)), 0o600, "{f}");
        }
        let m = Manifest::read(&dir).unwrap().unwrap();
        assert!(m.files.contains(&GAMES_CSV.to_string()) && m.files.contains(&"logs/".into()));

        // What arena did not write stays: a note, a file in logs/ that is not a log.
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        fs::write(dir.join("logs/game00001-seat0-bot1.log"), "log").unwrap();
        fs::write(dir.join("logs/keep.txt"), "mine").unwrap();
        fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let mut o = opts(&dir, 2);
        o.overwrite = true;
        rt.block_on(run(&c, fake(&c, None), &o)).unwrap();
        assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
        assert_eq!(
            fs::read_to_string(dir.join("logs/keep.txt")).unwrap(),
            "mine"
        );
        assert!(!dir.join("logs/game00001-seat0-bot1.log").exists());
        assert_eq!(mode(&dir), 0o700, "an existing directory is tightened");
    }

    #[test]
    fn overwrite_refuses_a_directory_without_a_manifest_and_deletes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 2, 5);
        let dir = tmp.path();
        fs::create_dir(dir.join("logs")).unwrap();
        fs::write(dir.join("logs/precious.log"), "x").unwrap();
        fs::write(dir.join(GAMES_CSV), "mine").unwrap();
        for overwrite in [true, false] {
            let mut o = opts(dir, 1);
            o.overwrite = overwrite;
            let err = rt
                .block_on(run(&c, fake(&c, None), &o))
                .unwrap_err()
                .to_string();
            assert!(err.contains("no tournament.json"), "{err}");
        }
        assert_eq!(fs::read_to_string(dir.join(GAMES_CSV)).unwrap(), "mine");
        assert!(dir.join("logs/precious.log").exists());
        assert!(
            !dir.join(LOCK).exists(),
            "a refused directory keeps no lock file"
        );
        assert!(!dir.join(MANIFEST).exists());
    }

    #[test]
    fn a_stop_rule_ends_the_run_on_the_same_game_at_any_concurrency() {
        let tmp = tempfile::tempdir().unwrap();
        let rt = rt();
        let c = config(3, 8, 4);
        // Stops after the third draw, in schedule order.
        let rule = || -> (String, StopRule) {
            let mut draws = 0;
            let rule: StopRule = Box::new(move |r: &GameRecord| {
                draws += usize::from(r.result == GameResult::Draw);
                (draws == 3).then(|| Stop::Run(format!("third draw at game {}", r.index)))
            });
            ("three draws".into(), rule)
        };
        let mut outs = Vec::new();
        for conc in [1, 4] {
            let dir = tmp.path().join(format!("c{conc}"));
            let mut seen = Vec::new();
            let mut each = |r: &GameRecord, resumed: bool| seen.push((r.index, resumed));
            let hooks = Hooks {
                stop: Some(rule()),
                each: Some(&mut each),
            };
            let s = rt
                .block_on(run_with(&c, fake(&c, None), &opts(&dir, conc), hooks))
                .unwrap();
            assert!(s.games < 24, "stopped early: {}", s.games);
            assert_eq!(
                seen,
                (0..s.games as u64).map(|i| (i, false)).collect::<Vec<_>>()
            );
            let m = Manifest::read(&dir).unwrap().unwrap();
            assert_eq!(m.status, Status::Complete);
            assert!(m.stopped.as_deref().unwrap().starts_with("third draw"));
            outs.push(files(&dir));

            // Resuming a stopped run plays nothing more.
            let player = fake(&c, None);
            let mut o = opts(&dir, conc);
            o.resume = true;
            let hooks = Hooks {
                stop: Some(rule()),
                each: None,
            };
            let again = rt
                .block_on(run_with(&c, player.clone(), &o, hooks))
                .unwrap();
            assert_eq!((again.games, again.played_now), (s.games, 0));
            assert_eq!(player.played.load(Ordering::SeqCst), 0);
            // ...and needs the same rule.
            let err = rt
                .block_on(run(&c, fake(&c, None), &o))
                .unwrap_err()
                .to_string();
            assert!(err.contains("stops on three draws"), "{err}");
        }
        assert_eq!(outs[0], outs[1]);
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
        assert_eq!(s.rows[1].tally.forfeits, 1);
    }
}
