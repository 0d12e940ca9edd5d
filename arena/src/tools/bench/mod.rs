//! `arena bench`: measured speed of the engines, the referee and tournaments
//! on the current machine, each figure beside the floor or target it should
//! be compared with. `cargo bench` runs thin wrappers over the same code.
//!
//! Sections:
//! - engines: random playouts on one thread ([`arena_core::playout::throughput`]);
//! - pipe floor: a line each way to a child that echoes (the same exchange as
//!   `shared/bench/pingpong.c rt`, blocking std pipes, no runtime), and the C
//!   program itself when asked to;
//! - referee: µs per move with instantly answering bots over real pipes, as
//!   a ratio to the floor measured in the same run;
//! - tournament: games per second of a round robin of instant bots at
//!   concurrency 1 and at the number of cores, and the referee's peak memory
//!   per concurrent game;
//! - process start: ms per game with fresh bots against bots kept across games;
//! - scale (`arena bench --scale`, on its own): play, merge, report and rate
//!   runs of 10^3, 10^4 (and more) games, with each step's peak memory and
//!   the sizes of the files ([`scale_bench`]).
//!
//! Figures are shown, never asserted: the machine may be shared.

mod instant;
mod machine;
mod pipe;
mod referee;
mod report;
mod scale;
mod tournament;
mod toy;

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::run::TournamentError;
use crate::store::StoreError;
use arena_core::games;
use arena_core::record::Reason;

pub use instant::{CProgram, InstantBot};
pub use machine::{cores, load_average, process_cpu_seconds, thread_cpu_seconds, utc_now};
pub use pipe::{echo_child, pipe_floor, round_trips, sessions};
pub use referee::{per_move, referee, runtime};
pub use scale::{scale_bench, sizes as scale_sizes, ScaleReport};
pub use tournament::{process_start, tournament_bench};
pub use toy::{Toy, TOY_PLIES};

/// Referee cost per move, at most this many pipe round trips.
pub const TARGET_REFEREE_RATIO: f64 = 2.0;
/// Tournament speed-up from concurrency 1 to 2 cores.
pub const TARGET_SCALING: f64 = 1.8;

/// Why a bench section could not give its figures: arena's or the
/// machine's fault (a bot that forfeits an instant game is one too).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The compiler (`$CC`, default `cc`) or a child `arena` could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The command that failed to start.
        program: String,
        /// Why it did not start.
        source: io::Error,
    },
    /// The compiler refused a C program: what it wrote on stderr.
    #[error("{cc} failed on {}: {stderr}", file.display())]
    Compile {
        /// The compiler command.
        cc: String,
        /// The C source it was given.
        file: PathBuf,
        /// How the compiler exited.
        status: std::process::ExitStatus,
        /// What the compiler wrote on stderr.
        stderr: String,
    },
    /// `--pingpong`: the C program could not be built.
    #[error("--pingpong: {0}")]
    Pingpong(#[source] Box<BenchError>),
    /// A C program or the instant bot's C source could not be written out to
    /// build it.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file or directory of the scale runs.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong with it.
        source: io::Error,
    },
    /// The scale runs could not make the temporary directory they play in.
    #[error("bench scale: temporary directory: {0}")]
    TempDir(#[source] io::Error),
    /// `arena bench-echo`, the pipe floor's child, could not be started.
    #[error("cannot start {} bench-echo: {source}", arena.display())]
    EchoStart {
        /// The `arena` executable that should have run `bench-echo`.
        arena: PathBuf,
        /// Why it did not start.
        source: io::Error,
    },
    /// A write to, or a read from, the echo child failed.
    #[error("echo child: {0}")]
    Echo(#[source] io::Error),
    /// The echo child answered something other than `move 3`.
    #[error("echo child answered {0:?}")]
    EchoAnswer(String),
    /// The stderr of a child `arena` could not be read.
    #[error("{0}")]
    ChildStderr(#[source] io::Error),
    /// Waiting for a child `arena` of the scale runs (and its peak memory)
    /// failed.
    #[error("wait4: {0}")]
    Wait(#[source] io::Error),
    /// A child `arena` of the scale runs exited badly: its arguments, exit
    /// status (128 + signal when killed) and stderr.
    #[error("bench scale: arena {args} failed (status {status}): {stderr}")]
    ChildFailed {
        /// The child's arguments, space-separated.
        args: String,
        /// Its exit status, or 128 + the signal that killed it.
        status: i32,
        /// What it wrote on stderr.
        stderr: String,
    },
    /// The referee's game threads ([`crate::lanes::Lanes`]) could not start.
    #[error("bench: cannot start threads: {0}")]
    Threads(#[source] io::Error),
    /// A table of the referee section panicked or was cancelled.
    #[error("a bench table failed: {0}")]
    Table(#[from] tokio::task::JoinError),
    /// The game each table of the referee section plays first forfeited.
    #[error("warm-up game: {0}")]
    WarmUpForfeit(Forfeit),
    /// A timed game of the referee section forfeited.
    #[error("a bench game was forfeited: {0}")]
    Forfeit(Forfeit),
    /// A game of the process-start section forfeited.
    #[error("process start bench: {0}")]
    StartForfeit(Forfeit),
    /// A game of the tournament section forfeited.
    #[error("bench tournament: game {index} was forfeited: {forfeit}")]
    TournamentForfeit {
        /// The game's index in the run.
        index: u64,
        /// How it was forfeited.
        forfeit: Forfeit,
    },
    /// The tournament section's run stopped (interrupted, refused, a disk error).
    #[error("bench tournament: {0}")]
    Tournament(#[from] TournamentError),
    /// The tournament section's games file could not be read back.
    #[error("bench tournament: {0}")]
    Records(#[from] StoreError),
    /// The tournament section's games file holds fewer or more records
    /// than the run says it played.
    #[error("bench tournament: {records} records for {games} games")]
    RecordCount {
        /// Records read back from the games file.
        records: usize,
        /// Games the run says it played.
        games: usize,
    },
}

/// Why an instant game ended in a forfeit: the reason and the record's
/// detail.
#[derive(Clone, Debug)]
pub struct Forfeit {
    /// Why the game ended (a forfeit reason).
    pub reason: Reason,
    /// The record's detail: what the bot did wrong, in the referee's words.
    pub detail: Option<String>,
}

impl fmt::Display for Forfeit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.reason, self.detail)
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The `arena` executable: the echo child (`arena bench-echo`) and the
    /// Rust instant bot (`arena bot-first`).
    pub arena: PathBuf,
    /// The instant bot of the referee, tournament and process-start sections.
    pub bot: InstantBot,
    /// Smaller samples (for tests and a first look).
    pub quick: bool,
    /// Games of the tournament round robin at each concurrency, split over
    /// the rounds (rounded to whole pairs over the 10 pairings of 5 bots).
    pub tournament_games: u32,
    /// `shared/bench/pingpong.c`: compiled ([`CProgram`]) and run beside the Rust floor.
    pub pingpong: Option<PathBuf>,
    /// Seconds of random playouts per engine.
    pub engine_seconds: f64,
}

impl BenchOptions {
    /// Builds the C instant bot when a C compiler is there (see
    /// [`InstantBot::lightest`]).
    pub fn new(arena: PathBuf, quick: bool) -> Self {
        BenchOptions {
            bot: InstantBot::lightest(&arena),
            arena,
            quick,
            tournament_games: if quick { 40 } else { 1000 },
            pingpong: None,
            engine_seconds: if quick { 0.3 } else { 3.0 },
        }
    }
    fn rt_count(&self) -> u64 {
        if self.quick {
            5_000
        } else {
            100_000
        }
    }
    fn referee_games(&self) -> u64 {
        if self.quick {
            2
        } else {
            20
        }
    }
    fn start_games(&self) -> u64 {
        if self.quick {
            10
        } else {
            200
        }
    }
}

/// Every figure of one run (`arena bench --json` prints this).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The machine the figures were taken on, and its load when the run
    /// started.
    pub machine: Machine,
    /// The instant bot of the referee, tournament and process-start sections.
    pub instant_bot: String,
    /// Random-playout speed of each registered engine.
    pub engines: Vec<EngineFigures>,
    /// The pipe floor: what a line each way costs, the referee's lower bound.
    pub pipe: PipeFloor,
    /// The referee's cost per move, beside the pipe floor.
    pub referee: RefereeFigures,
    /// Games per second of a round robin, and how it scales with cores.
    pub tournament: TournamentFigures,
    /// What starting bots costs a game, against keeping them.
    pub process_start: StartFigures,
    /// Load average (1 min) when the run ended.
    pub load_average_end: f64,
    /// Wall-clock seconds the whole run took.
    pub seconds: f64,
}

/// The machine a run measured, so that figures from two machines are not
/// compared blindly.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// Cores available to arena (`available_parallelism`).
    pub cores: usize,
    /// 1, 5 and 15 minutes, from /proc/loadavg, when the run started.
    pub load_average: [f64; 3],
    /// UTC, ISO 8601.
    pub date: String,
    /// The `arena` version that measured (`CARGO_PKG_VERSION`).
    pub arena_version: String,
    /// Whether the samples were the small ones of `--quick`.
    pub quick: bool,
}

/// Random-playout speed of one engine on one thread.
#[derive(Clone, Debug, Serialize)]
pub struct EngineFigures {
    /// The game's registry name.
    pub game: String,
    /// Moves per wall-clock second.
    pub moves_per_sec: f64,
    /// Finished playouts per wall-clock second.
    pub games_per_sec: f64,
    /// Mean plies of a playout.
    pub moves_per_game: f64,
    /// Playouts finished in the measured time.
    pub games: u64,
    /// Wall-clock seconds measured.
    pub seconds: f64,
    /// CPU seconds the measuring thread got (less than `seconds` on a
    /// loaded machine).
    pub cpu_seconds: f64,
    /// Moves per CPU second of the measuring thread: the figure compared with
    /// the target.
    pub moves_per_cpu_sec: f64,
    /// The plain C figure ([`games::GameEntry::playout_target`]); absent for a
    /// game without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_moves_per_sec: Option<f64>,
    /// `moves_per_cpu_sec / target_moves_per_sec` (1 or more: met). Per CPU
    /// second, so that other processes on a shared machine do not count
    /// against the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_to_target: Option<f64>,
}

/// What a line each way to a child costs: the floor under the referee's cost
/// per move.
#[derive(Clone, Debug, Serialize)]
pub struct PipeFloor {
    /// Round trips measured.
    pub round_trips: u64,
    /// Mean µs per round trip ("go\n" -> "move 3\n") with `arena bench-echo`.
    pub rt_us: f64,
    /// Median µs per round trip.
    pub rt_p50_us: f64,
    /// 99th percentile µs per round trip: the slow tail a shared machine adds.
    pub rt_p99_us: f64,
    /// The same from `pingpong.c rt` when asked for.
    pub c_rt_us: Option<f64>,
    /// ms to start the echo child, one round trip, `quit`, wait.
    pub session_ms: f64,
    /// The same from `pingpong.c session`.
    pub c_session_ms: Option<f64>,
}

/// What the referee adds per move, with bots that answer instantly.
#[derive(Clone, Debug, Serialize)]
pub struct RefereeFigures {
    /// Plies per game of the toy game (7 legal moves, a Dakon-sized state).
    pub plies_per_game: u32,
    /// µs per move, one game at a time, current-thread runtime (`arena match`,
    /// and each game of `arena tournament`).
    pub us_per_move_c1: f64,
    /// The same with `clock = "cpu"` (each decision charged the CPU time of
    /// the bot's processes), in the same rounds.
    pub us_per_move_c1_cpu_clock: f64,
    /// Median over rounds of `us_per_move_c1_cpu_clock` over the pipe floor
    /// measured before each round (target: at most 2 too).
    pub ratio_c1_cpu_clock: f64,
    /// µs per move seen by each game, two games at once, each on a thread of
    /// its own ([`Lanes`](crate::lanes::Lanes), as `arena tournament --concurrency 2`).
    pub us_per_move_c2: f64,
    /// The same on one work-stealing runtime with 2 workers (what `arena
    /// tournament` did before lanes), for comparison.
    pub us_per_move_c2_work_stealing: f64,
    /// µs per move seen by each game, two games at once on the current-thread
    /// runtime (one referee thread for both).
    pub us_per_move_c2_single: f64,
    /// Moves per second over both games at once.
    pub moves_per_sec_c2: f64,
    /// Median over rounds of `us_per_move_c1` over a pipe floor measured
    /// just before it (10% of `pipe.round_trips`) (target: at most 2).
    pub ratio_c1: f64,
    /// The same as `ratio_c1` for `us_per_move_c2` (each game on its own
    /// thread).
    pub ratio_c2: f64,
    /// µs per move with each registered game's engine (its cost included),
    /// concurrency 1: `<game>_us_per_move` in the JSON.
    #[serde(flatten, serialize_with = "per_game_us")]
    pub with_engines: Vec<(String, f64)>,
}

fn per_game_us<S: serde::Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(v.len()))?;
    for (game, us) in v {
        map.serialize_entry(&format!("{game}_us_per_move"), us)?;
    }
    map.end()
}

/// Round-robin tournament speed at concurrency 1 and at the number of cores.
#[derive(Clone, Debug, Serialize)]
pub struct TournamentFigures {
    /// Games of the round robin at each concurrency.
    pub games: u32,
    /// Bots in the round robin.
    pub bots: usize,
    /// The game played (its registry name).
    pub game: String,
    /// Concurrency of the second run: the number of cores.
    pub concurrency: usize,
    /// Games per second at concurrency 1, fresh bots.
    pub games_per_sec_c1: f64,
    /// Games per second at the number of cores, fresh bots.
    pub games_per_sec_cn: f64,
    /// Rounds: each runs the round robin at concurrency 1 and at the number
    /// of cores, back to back (the order alternates from round to round).
    pub rounds: u32,
    /// Median over the rounds of each round's `games/s at N / games/s at 1`
    /// (target on 2 cores: 1.8): each ratio is taken over two runs a second
    /// apart, so a load that drifts over the minute weighs on it little.
    pub scaling: f64,
    /// The smallest of the rounds' ratios.
    pub scaling_min: f64,
    /// The largest of the rounds' ratios.
    pub scaling_max: f64,
    /// CPU time (referee and bots, user + system) per game: the same at
    /// both concurrencies when nothing is serialised.
    pub cpu_ms_per_game_c1: f64,
    /// The same at the number of cores.
    pub cpu_ms_per_game_cn: f64,
    /// CPU seconds per wall second: how many cores the run got. Scaling can
    /// only reach `cores_busy_cn / cores_busy_c1` on a shared machine.
    pub cores_busy_c1: f64,
    /// The same at the number of cores.
    pub cores_busy_cn: f64,
    /// Rise of the referee's peak resident memory (VmHWM after the run, its
    /// VmRSS before, the peak reset in between) divided by the concurrency.
    pub peak_kib_per_game_c1: f64,
    /// The same at the number of cores.
    pub peak_kib_per_game_cn: f64,
    /// The referee's resident memory before the runs.
    pub base_rss_kib: f64,
    /// Mean plies of a game.
    pub plies_per_game: f64,
    /// The same round robin with `keep_bots = true` (each game thread keeps
    /// its bot processes from game to game), in the same rounds.
    pub kept_games_per_sec_c1: f64,
    /// Games per second with kept bots at the number of cores.
    pub kept_games_per_sec_cn: f64,
    /// What kept bots save per game at concurrency 1, in wall-clock ms
    /// (`1000 / games_per_sec_c1 - 1000 / kept_games_per_sec_c1`).
    pub kept_saves_ms_per_game_c1: f64,
    /// CPU ms per game that kept bots save at concurrency 1 (referee and bots).
    pub kept_saves_cpu_ms_per_game_c1: f64,
    /// The same at the number of cores, in wall-clock ms per game of the
    /// whole run (games overlap).
    pub kept_saves_ms_per_game_cn: f64,
    /// The same round robin (fresh bots) with `ponder = true`: the bot not
    /// on move is not frozen. The figures above freeze it, as tournaments
    /// do by default.
    pub ponder_games_per_sec_c1: f64,
    /// Games per second with pondering at the number of cores.
    pub ponder_games_per_sec_cn: f64,
    /// What freezing costs: `1 - games_per_sec / ponder_games_per_sec`, at
    /// concurrency 1 and at the number of cores (target: at most 0.10).
    pub freeze_cost_c1: f64,
    /// What freezing costs at the number of cores.
    pub freeze_cost_cn: f64,
    /// The round robin with every bot under bubblewrap (fresh bots,
    /// concurrency 1), where it works here.
    pub sandboxed_games_per_sec_c1: Option<f64>,
    /// ms per game that the sandbox adds (sandboxed against fresh bots,
    /// concurrency 1).
    pub sandbox_ms_per_game_c1: Option<f64>,
}

/// What starting bot processes costs a game: fresh bots against bots kept
/// across games.
#[derive(Clone, Debug, Serialize)]
pub struct StartFigures {
    /// Games played for each figure.
    pub games: u64,
    /// The game played (its registry name).
    pub game: String,
    /// ms per game, both bots started for the game and stopped after it.
    pub fresh_ms_per_game: f64,
    /// ms per game, the same two bots for every game (`newgame` again).
    pub kept_ms_per_game: f64,
    /// ms per game, fresh bots, with `arena bot-first` (Rust) as both bots:
    /// what a heavier start costs beside the instant bot's.
    pub rust_fresh_ms_per_game: f64,
    /// `fresh - kept`: what starting and stopping two bots costs a game.
    pub start_ms_per_game: f64,
}

/// Runs every section; `progress` hears a line as each one starts.
pub fn run(opts: &BenchOptions, mut progress: impl FnMut(&str)) -> Result<BenchReport, BenchError> {
    let started = Instant::now();
    let machine = Machine {
        cores: cores(),
        load_average: load_average(),
        date: utc_now(),
        arena_version: env!("CARGO_PKG_VERSION").into(),
        quick: opts.quick,
    };
    progress("engines: random playouts");
    let engines = engines(opts.engine_seconds);
    progress("pipe floor: round trips to an echo child");
    let pipe = pipe_floor(opts)?;
    progress("referee: instant bots over pipes");
    let referee = referee(opts, &pipe)?;
    progress("tournament: round robin of instant bots");
    let tournament = tournament_bench(opts)?;
    progress("process start: fresh bots against kept bots");
    let process_start = process_start(opts)?;
    Ok(BenchReport {
        machine,
        instant_bot: opts.bot.description.clone(),
        engines,
        pipe,
        referee,
        tournament,
        process_start,
        load_average_end: load_average()[0],
        seconds: started.elapsed().as_secs_f64(),
    })
}

// ---------------------------------------------------------------------------
// Engines.

/// Random-playout throughput of every registered engine with default
/// parameters.
pub fn engines(seconds: f64) -> Vec<EngineFigures> {
    games::GAMES.iter().map(|g| engine(g, seconds)).collect()
}

fn engine(entry: &games::GameEntry, seconds: f64) -> EngineFigures {
    let target = entry.playout_target;
    let cpu0 = thread_cpu_seconds();
    let t = (entry.throughput)(seconds, 1);
    let cpu = (thread_cpu_seconds() - cpu0).max(1e-9);
    EngineFigures {
        cpu_seconds: cpu,
        moves_per_cpu_sec: t.totals.moves as f64 / cpu,
        game: entry.name.into(),
        moves_per_sec: t.moves_per_sec(),
        games_per_sec: t.games_per_sec(),
        moves_per_game: t.totals.moves as f64 / t.totals.games.max(1) as f64,
        games: t.totals.games,
        seconds: t.seconds,
        target_moves_per_sec: target,
        ratio_to_target: target.map(|target| t.totals.moves as f64 / cpu / target),
    }
}
