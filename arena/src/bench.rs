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
//! - process start: ms per game with fresh bots against bots kept across games.
//!
//! Figures are shown, never asserted: the machine may be shared.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::lanes::Lanes;
use crate::process::{BotSpec, Limits};
use crate::referee::{run_game, BotSlot, GameSetup, TimeControl};
use crate::run::config::{FormatKind, Normalized, NormalizedBot};
use crate::run::{self, ProgressMode, RefereePlayer, RunOptions};
use arena_core::games::{self, AnyGame, Game, Outcome, ParamError, Params, ParseError, Seat};

/// Targets from the issue: plain C implementations of the same rules on this
/// kind of machine (moves or actions per second, one core), for the games
/// that have one.
pub const PLAYOUT_TARGETS: &[(&str, f64)] = &[("dakon", 8.0e6), ("latrunculi", 0.9e6)];
/// Referee cost per move, at most this many pipe round trips.
pub const TARGET_REFEREE_RATIO: f64 = 2.0;
/// Tournament speed-up from concurrency 1 to 2 cores.
pub const TARGET_SCALING: f64 = 1.8;

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

/// The instantly answering bot the referee, tournament and process-start
/// sections play with. The leanest there is, so that the figures are the
/// referee's and not the bot's: `bots/c/first_legal.c --first`, which starts
/// on about half the CPU of `arena bot-first` (it loads and relocates one
/// shared library instead of three, and maps 17 KB instead of 30 MB).
#[derive(Clone, Debug)]
pub struct InstantBot {
    pub command: Vec<String>,
    /// What it is and where it came from, for the report.
    pub description: String,
    /// The compiled C bot, removed when the last clone goes.
    _built: Option<Arc<CProgram>>,
}

/// A C program compiled with `$CC` (default `cc`) `-O2` into the temporary
/// directory; the executable is removed when this is dropped.
#[derive(Debug)]
pub struct CProgram {
    pub exe: PathBuf,
    /// The compiler that built it.
    pub cc: String,
}

impl CProgram {
    pub fn build(source: &Path, name: &str) -> Result<CProgram, String> {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let exe = temp_path(name);
        let out = Command::new(&cc)
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(source)
            .output()
            .map_err(|e| format!("cannot run {cc}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{cc} failed on {}: {}",
                source.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(CProgram { exe, cc })
    }
}

/// A path in the temporary directory that no other call returns, so that
/// removing one file never removes another's.
fn temp_path(name: &str) -> PathBuf {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("arena-bench-{}-{n}-{name}", std::process::id()))
}

impl Drop for CProgram {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.exe);
    }
}

/// The C reference bot, built into the bench so that it needs no checkout.
const FIRST_LEGAL_C: &str = include_str!("../../bots/c/first_legal.c");

impl InstantBot {
    /// `arena bot-first`: answers every `go` with the first legal move.
    pub fn rust(arena: &Path) -> InstantBot {
        InstantBot {
            command: vec![arena.display().to_string(), "bot-first".into()],
            description: "arena bot-first (Rust)".into(),
            _built: None,
        }
    }

    /// `bots/c/first_legal.c --first`, compiled with [`CProgram`].
    pub fn c() -> Result<InstantBot, String> {
        let source = temp_path("first_legal.c");
        std::fs::write(&source, FIRST_LEGAL_C)
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        let built = CProgram::build(&source, "first_legal");
        let _ = std::fs::remove_file(&source);
        let built = built?;
        Ok(InstantBot {
            command: vec![built.exe.display().to_string(), "--first".into()],
            description: format!(
                "bots/c/first_legal.c --first (C, built with {} -O2)",
                built.cc
            ),
            _built: Some(Arc::new(built)),
        })
    }

    /// The C bot, else `arena bot-first` with the reason in its description.
    pub fn lightest(arena: &Path) -> InstantBot {
        InstantBot::c().unwrap_or_else(|e| {
            let mut bot = InstantBot::rust(arena);
            bot.description = format!("{} (no C bot: {e})", bot.description);
            bot
        })
    }

    /// The bot unsandboxed: these figures are the referee's own cost.
    fn spec(&self, name: &str) -> Arc<BotSpec> {
        let mut spec = BotSpec::new(name, self.command.clone());
        spec.sandbox = crate::process::Sandbox::None;
        Arc::new(spec)
    }
}

/// Every figure of one run (`arena bench --json` prints this).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub machine: Machine,
    /// The instant bot of the referee, tournament and process-start sections.
    pub instant_bot: String,
    pub engines: Vec<EngineFigures>,
    pub pipe: PipeFloor,
    pub referee: RefereeFigures,
    pub tournament: TournamentFigures,
    pub process_start: StartFigures,
    /// Load average (1 min) when the run ended.
    pub load_average_end: f64,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cores: usize,
    /// 1, 5 and 15 minutes, from /proc/loadavg, when the run started.
    pub load_average: [f64; 3],
    /// UTC, ISO 8601.
    pub date: String,
    pub arena_version: String,
    pub quick: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineFigures {
    pub game: String,
    pub moves_per_sec: f64,
    pub games_per_sec: f64,
    pub moves_per_game: f64,
    pub games: u64,
    pub seconds: f64,
    /// CPU seconds the measuring thread got (less than `seconds` on a
    /// loaded machine) and the moves per CPU second.
    pub cpu_seconds: f64,
    pub moves_per_cpu_sec: f64,
    /// The plain C figure ([`PLAYOUT_TARGETS`]); absent for a game without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_moves_per_sec: Option<f64>,
    /// `moves_per_cpu_sec / target_moves_per_sec` (1 or more: met). Per CPU
    /// second, so that other processes on a shared machine do not count
    /// against the engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_to_target: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PipeFloor {
    /// Round trips measured.
    pub round_trips: u64,
    /// Mean µs per round trip ("go\n" -> "move 3\n") with `arena bench-echo`.
    pub rt_us: f64,
    pub rt_p50_us: f64,
    pub rt_p99_us: f64,
    /// The same from `pingpong.c rt` when asked for.
    pub c_rt_us: Option<f64>,
    /// ms to start the echo child, one round trip, `quit`, wait.
    pub session_ms: f64,
    /// The same from `pingpong.c session`.
    pub c_session_ms: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RefereeFigures {
    /// Plies per game of the toy game (7 legal moves, a Dakon-sized state).
    pub plies_per_game: u32,
    /// µs per move, one game at a time, current-thread runtime (`arena match`,
    /// and each game of `arena tournament`).
    pub us_per_move_c1: f64,
    /// µs per move seen by each game, two games at once, each on a thread of
    /// its own ([`Lanes`], as `arena tournament --concurrency 2`).
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

#[derive(Clone, Debug, Serialize)]
pub struct TournamentFigures {
    pub games: u32,
    pub bots: usize,
    pub game: String,
    /// Concurrency of the second run: the number of cores.
    pub concurrency: usize,
    pub games_per_sec_c1: f64,
    pub games_per_sec_cn: f64,
    /// Rounds: each runs the round robin at concurrency 1 and at the number
    /// of cores, back to back (the order alternates from round to round).
    pub rounds: u32,
    /// Median over the rounds of each round's `games/s at N / games/s at 1`
    /// (target on 2 cores: 1.8): each ratio is taken over two runs a second
    /// apart, so a load that drifts over the minute weighs on it little.
    pub scaling: f64,
    /// The smallest and largest of the rounds' ratios.
    pub scaling_min: f64,
    pub scaling_max: f64,
    /// CPU time (referee and bots, user + system) per game: the same at
    /// both concurrencies when nothing is serialised.
    pub cpu_ms_per_game_c1: f64,
    pub cpu_ms_per_game_cn: f64,
    /// CPU seconds per wall second: how many cores the run got. Scaling can
    /// only reach `cores_busy_cn / cores_busy_c1` on a shared machine.
    pub cores_busy_c1: f64,
    pub cores_busy_cn: f64,
    /// Rise of the referee's peak resident memory (VmHWM after the run, its
    /// VmRSS before, the peak reset in between) divided by the concurrency.
    pub peak_kib_per_game_c1: f64,
    pub peak_kib_per_game_cn: f64,
    /// The referee's resident memory before the runs.
    pub base_rss_kib: f64,
    /// Mean plies of a game.
    pub plies_per_game: f64,
    /// The same round robin with `keep_bots = true` (each game thread keeps
    /// its bot processes from game to game), in the same rounds.
    pub kept_games_per_sec_c1: f64,
    pub kept_games_per_sec_cn: f64,
    /// What kept bots save per game at concurrency 1: wall-clock ms
    /// (`1000 / games_per_sec_c1 - 1000 / kept_games_per_sec_c1`) and CPU ms
    /// of referee and bots.
    pub kept_saves_ms_per_game_c1: f64,
    pub kept_saves_cpu_ms_per_game_c1: f64,
    /// The same at the number of cores, in wall-clock ms per game of the
    /// whole run (games overlap).
    pub kept_saves_ms_per_game_cn: f64,
    /// The same round robin (fresh bots) with `ponder = true`: the bot not
    /// on move is not frozen. The figures above freeze it, as tournaments
    /// do by default.
    pub ponder_games_per_sec_c1: f64,
    pub ponder_games_per_sec_cn: f64,
    /// What freezing costs: `1 - games_per_sec / ponder_games_per_sec`, at
    /// concurrency 1 and at the number of cores (target: at most 0.10).
    pub freeze_cost_c1: f64,
    pub freeze_cost_cn: f64,
    /// The round robin with every bot under bubblewrap (fresh bots,
    /// concurrency 1), where it works here, and what the sandbox adds to a
    /// game (wall-clock ms).
    pub sandboxed_games_per_sec_c1: Option<f64>,
    pub sandbox_ms_per_game_c1: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StartFigures {
    pub games: u64,
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
pub fn run(opts: &BenchOptions, mut progress: impl FnMut(&str)) -> Result<BenchReport, String> {
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
    let target = PLAYOUT_TARGETS
        .iter()
        .find(|(name, _)| *name == entry.name)
        .map(|&(_, t)| t);
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

/// User plus system CPU time of the calling thread, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_THREAD).map_or(0.0, |u| {
        let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 * 1e-6;
        t(u.user_time()) + t(u.system_time())
    })
}

// ---------------------------------------------------------------------------
// Pipe floor.

/// The child of the pipe floor (`arena bench-echo`), as `pingpong.c child`:
/// answers `go` with `move 3`, exits on `quit` or end of input.
pub fn echo_child() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        // `go` answers in the guard; only a failed write leaves the loop.
        match line.trim_end_matches('\n') {
            "go" if out
                .write_all(b"move 3\n")
                .and_then(|_| out.flush())
                .is_err() =>
            {
                return
            }
            "quit" => return,
            _ => {}
        }
    }
}

struct Echo {
    child: std::process::Child,
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
    line: String,
}

impl Echo {
    fn start(arena: &Path) -> Result<Echo, String> {
        let mut child = Command::new(arena)
            .arg("bench-echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} bench-echo: {e}", arena.display()))?;
        let to = child.stdin.take().expect("piped");
        let from = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Echo {
            child,
            to,
            from,
            line: String::new(),
        })
    }

    /// One `go` -> `move 3` exchange: a write of 3 bytes, reads until the line.
    fn round_trip(&mut self) -> Result<(), String> {
        self.to
            .write_all(b"go\n")
            .map_err(|e| format!("echo child: {e}"))?;
        self.line.clear();
        self.from
            .read_line(&mut self.line)
            .map_err(|e| format!("echo child: {e}"))?;
        if self.line != "move 3\n" {
            return Err(format!("echo child answered {:?}", self.line));
        }
        Ok(())
    }

    fn quit(mut self) {
        let _ = self.to.write_all(b"quit\n");
        drop(self.to);
        let _ = self.child.wait();
    }
}

/// Mean, p50 and p99 µs of `n` round trips after a warm-up (as `pingpong rt`).
pub fn round_trips(arena: &Path, n: u64) -> Result<(f64, f64, f64), String> {
    let mut echo = Echo::start(arena)?;
    for _ in 0..(n / 10).min(1000) {
        echo.round_trip()?;
    }
    let mut lat = Vec::with_capacity(n as usize);
    let t0 = Instant::now();
    for _ in 0..n {
        let a = Instant::now();
        echo.round_trip()?;
        lat.push(a.elapsed().as_secs_f64() * 1e6);
    }
    let mean = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    echo.quit();
    lat.sort_by(f64::total_cmp);
    let at = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];
    Ok((mean, at(0.5), at(0.99)))
}

/// ms per session: start the echo child, one round trip, `quit`, wait (as
/// `pingpong session`).
pub fn sessions(arena: &Path, n: u64) -> Result<f64, String> {
    let t0 = Instant::now();
    for _ in 0..n {
        let mut echo = Echo::start(arena)?;
        echo.round_trip()?;
        echo.quit();
    }
    Ok(t0.elapsed().as_secs_f64() * 1e3 / n as f64)
}

/// The number after `mean=` in the output of `pingpong MODE N`.
fn pingpong_mean(bin: &Path, mode: &str, n: u64, unit: &str) -> Option<f64> {
    let out = Command::new(bin)
        .args([mode, &n.to_string()])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mean = text.split("mean=").nth(1)?;
    mean.split(unit).next()?.trim().parse().ok()
}

/// The pipe floor: the Rust measurement, and the C one when asked for.
pub fn pipe_floor(opts: &BenchOptions) -> Result<PipeFloor, String> {
    let n = opts.rt_count();
    let sessions_n = if opts.quick { 20 } else { 500 };
    let c = opts
        .pingpong
        .as_deref()
        .map(|src| CProgram::build(src, "pingpong"))
        .transpose()
        .map_err(|e| format!("--pingpong: {e}"))?;
    let c = c.as_ref().map(|p| p.exe.as_path());
    // The C figure first and last around the Rust one would be fairer on a
    // drifting load; once each, interleaved, keeps the run short.
    let c_rt_us = c.and_then(|b| pingpong_mean(b, "rt", n, "us"));
    let (rt_us, rt_p50_us, rt_p99_us) = round_trips(&opts.arena, n)?;
    let session_ms = sessions(&opts.arena, sessions_n)?;
    let c_session_ms = c.and_then(|b| pingpong_mean(b, "session", sessions_n, "ms"));
    Ok(PipeFloor {
        round_trips: n,
        rt_us,
        rt_p50_us,
        rt_p99_us,
        c_rt_us,
        session_ms,
        c_session_ms,
    })
}

// ---------------------------------------------------------------------------
// Referee.

/// Plies of a [`Toy`] game.
pub const TOY_PLIES: u32 = 400;

/// A bench-only game: 7 legal moves per position and a state line of
/// Dakon's size, so that the figure is the referee's cost, not an engine's.
#[derive(Clone, Debug)]
pub struct Toy;

#[derive(Clone, Debug, PartialEq)]
pub struct ToyState {
    ply: u32,
    pits: [u8; 14],
}

impl fmt::Display for ToyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pits=")?;
        for (i, p) in self.pits.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, " stores=0,0 turn={} ply={}", self.ply % 2, self.ply)
    }
}

impl Game for Toy {
    const NAME: &'static str = "toy";
    type State = ToyState;
    type Move = u8;
    type Effects = ();
    fn from_params(_: &[(String, String)]) -> Result<Self, ParamError> {
        Ok(Toy)
    }
    fn params(&self) -> Params {
        vec![("plies".into(), TOY_PLIES.to_string())]
    }
    fn initial_state(&self) -> ToyState {
        ToyState {
            ply: 0,
            pits: [7; 14],
        }
    }
    fn parse_state(&self, text: &str) -> Result<ToyState, ParseError> {
        Err(ParseError::new("toy state", "not needed", text))
    }
    fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
        text.parse()
            .map_err(|_| ParseError::new("toy move", "a number", text))
    }
    fn to_move(&self, s: &ToyState) -> Seat {
        (s.ply % 2) as Seat
    }
    fn legal_moves(&self, s: &ToyState, out: &mut Vec<u8>) {
        out.clear();
        if s.ply < TOY_PLIES {
            let base = if s.ply.is_multiple_of(2) { 7 } else { 0 };
            out.extend(base..base + 7);
        }
    }
    fn apply(&self, s: &mut ToyState, mv: &u8) {
        s.pits[*mv as usize] = s.pits[*mv as usize].wrapping_add(1) % 10;
        s.ply += 1;
    }
    fn outcome(&self, s: &ToyState) -> Option<Outcome> {
        (s.ply >= TOY_PLIES).then_some(Outcome {
            scores: [0, 0],
            winner: None,
            adjudicated: None,
        })
    }
}

fn setup(game: Arc<dyn AnyGame>, index: u64) -> GameSetup {
    GameSetup {
        game,
        index,
        round: 0,
        pair: 0,
        seed: index,
        opening: Vec::new(),
        time: TimeControl {
            movetime_ms: Some(5000),
            ..TimeControl::default()
        },
        ponder: false,
        log_dir: None,
    }
}

/// A tokio runtime: current-thread, or multi-thread with `workers` threads.
pub fn runtime(workers: Option<usize>) -> tokio::runtime::Runtime {
    match workers {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    }
    .enable_all()
    .build()
    .expect("the tokio runtime starts")
}

/// Plays `games` games of `game` on each of `concurrency` tables at once
/// (bots kept across games, started before the clock runs), table `t` on
/// lane `t` when `lanes` are given (as `arena tournament` does), else on the
/// calling runtime. Returns (µs per move as seen by each table, moves in all).
pub async fn per_move(
    bot: &InstantBot,
    game: Arc<dyn AnyGame>,
    concurrency: usize,
    games: u64,
    lanes: Option<&Lanes>,
) -> Result<(f64, u64), String> {
    let limits = Limits::default();
    let mut tables: Vec<[BotSlot; 2]> = (0..concurrency)
        .map(|t| {
            [
                BotSlot::new(bot.spec(&format!("a{t}"))),
                BotSlot::new(bot.spec(&format!("b{t}"))),
            ]
        })
        .collect();
    // Warm up: start the bots and play one game on each table.
    for [a, b] in tables.iter_mut() {
        let r = run_game(&setup(game.clone(), 0), [a, b], true, &limits).await;
        if r.reason.is_forfeit() {
            return Err(format!("warm-up game: {} {:?}", r.reason, r.detail));
        }
    }
    let start = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (t, mut table) in tables.drain(..).enumerate() {
        let limits = limits.clone();
        let game = game.clone();
        let table = async move {
            let mut n = 0;
            let mut err = None;
            for g in 0..games {
                let [a, b] = &mut table;
                let s = setup(game.clone(), g + 1 + t as u64 * 1000);
                let r = run_game(&s, [a, b], true, &limits).await;
                if r.reason.is_forfeit() {
                    err = Some(format!("{} {:?}", r.reason, r.detail));
                    break;
                }
                n += r.moves.len() as u64;
            }
            for p in &mut table {
                p.release().await;
            }
            (n, err)
        };
        match lanes {
            Some(lanes) => set.spawn_on(table, lanes.handle(t)),
            None => set.spawn(table),
        };
    }
    let mut moves = 0;
    while let Some(res) = set.join_next().await {
        let (n, err) = res.map_err(|e| format!("a bench table failed: {e}"))?;
        if let Some(e) = err {
            return Err(format!("a bench game was forfeited: {e}"));
        }
        moves += n;
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok((elapsed * 1e6 * concurrency as f64 / moves as f64, moves))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The referee's cost per move at concurrency 1 and 2 (median of 3
/// interleaved rounds, 1 in quick mode), and with the real engines.
pub fn referee(opts: &BenchOptions, pipe: &PipeFloor) -> Result<RefereeFigures, String> {
    let toy: Arc<dyn AnyGame> = Arc::new(Toy);
    let games = opts.referee_games();
    let rounds = if opts.quick { 1 } else { 5 };
    let single = runtime(None);
    let multi = runtime(Some(2));
    let lanes = Lanes::start(2, false).map_err(|e| format!("bench: cannot start threads: {e}"))?;
    let (mut c1, mut c2, mut c2m, mut c2s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let toy_run = |rt: &tokio::runtime::Runtime, concurrency, lanes| {
        rt.block_on(per_move(&opts.bot, toy.clone(), concurrency, games, lanes))
            .map(|r| r.0)
    };
    // The floor again just before each round: the ratio of each round to
    // its own floor, median over rounds, weathers a load that drifts.
    let mut ratios = Vec::new();
    for _ in 0..rounds {
        let floor = round_trips(&opts.arena, opts.rt_count() / 10)?.0;
        let us = toy_run(&single, 1, None)?;
        ratios.push(us / floor);
        c1.push(us);
        c2.push(toy_run(&single, 2, Some(&lanes))?);
        c2m.push(toy_run(&multi, 2, None)?);
        c2s.push(toy_run(&single, 2, None)?);
    }
    let (c1, c2, c2m, c2s) = (median(c1), median(c2), median(c2m), median(c2s));
    let mut with_engines = Vec::new();
    for entry in games::GAMES {
        let game: Arc<dyn AnyGame> = Arc::from((entry.new)(&[]).expect("default parameters"));
        let us = single
            .block_on(per_move(&opts.bot, game, 1, games * 4, None))?
            .0;
        with_engines.push((entry.name.to_string(), us));
    }
    Ok(RefereeFigures {
        plies_per_game: TOY_PLIES,
        us_per_move_c1: c1,
        us_per_move_c2: c2,
        us_per_move_c2_work_stealing: c2m,
        us_per_move_c2_single: c2s,
        moves_per_sec_c2: 2.0 * 1e6 / c2,
        ratio_c1: median(ratios),
        ratio_c2: c2 / pipe.rt_us,
        with_engines,
    })
}

// ---------------------------------------------------------------------------
// Tournament.

/// Kibibytes from a `/proc/self/status` line such as `VmHWM:  1234 kB`.
fn status_kib(key: &str) -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Resets the peak resident set size (VmHWM) to the current one (Linux 4.0+).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU seconds (user + system) of this process and of its reaped children.
pub fn process_cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN]
        .into_iter()
        .map(|who| {
            getrusage(who).map_or(0.0, |u| {
                let t =
                    |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 * 1e-6;
                t(u.user_time()) + t(u.system_time())
            })
        })
        .sum()
}

/// One tournament run: (seconds, peak memory rise in KiB, plies in all, CPU
/// seconds of referee and bots).
fn tournament_once(
    config: &Normalized,
    player: RefereePlayer,
    out: &Path,
    concurrency: usize,
) -> Result<(f64, f64, u64, f64), String> {
    let rt = runtime(None);
    let player = Arc::new(player);
    let opts = RunOptions {
        out: out.to_path_buf(),
        concurrency,
        resume: false,
        overwrite: true,
        shard: None,
        progress: ProgressMode::Quiet,
        affinity: false,
        warnings: Vec::new(),
    };
    reset_peak();
    let before = status_kib("VmRSS:").unwrap_or(0.0);
    let cpu0 = process_cpu_seconds();
    let start = Instant::now();
    let summary = rt
        .block_on(run::run(config, player, &opts))
        .map_err(|e| format!("bench tournament: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    let peak = status_kib("VmHWM:").unwrap_or(0.0);
    drop(rt);
    let cpu = process_cpu_seconds() - cpu0;
    let records = crate::store::read_records(&out.join(crate::store::GAMES_JSONL))
        .map_err(|e| format!("bench tournament: {e}"))?;
    if records.len() != summary.games {
        return Err(format!(
            "bench tournament: {} records for {} games",
            records.len(),
            summary.games
        ));
    }
    if let Some(r) = records.iter().find(|r| r.reason.is_forfeit()) {
        return Err(format!(
            "bench tournament: game {} was forfeited: {} {:?}",
            r.index, r.reason, r.detail
        ));
    }
    let plies = records.iter().map(|r| r.moves.len() as u64).sum();
    Ok((secs, (peak - before).max(0.0), plies, cpu))
}

/// A round robin of 5 instant bots (`opts.bot`, fresh processes for
/// every game, full journaling with fsync) on Dakon, at concurrency 1 and at
/// the number of cores, then the same with kept bots, in rounds of one run
/// each, the order reversed from round to round, so that a drifting load
/// weighs on all alike.
/// One way of playing the benchmark round robin.
#[derive(Clone, Copy, Debug)]
struct Variant {
    concurrency: usize,
    keep: bool,
    ponder: bool,
    sandboxed: bool,
}

impl Variant {
    /// Where its figures go: fresh, kept, pondering (at 1 and N), sandboxed.
    fn slot(self) -> usize {
        let c = usize::from(self.concurrency != 1);
        match (self.keep, self.ponder, self.sandboxed) {
            (_, _, true) => 6,
            (true, _, _) => 2 + c,
            (_, true, _) => 4 + c,
            _ => c,
        }
    }
}

pub fn tournament_bench(opts: &BenchOptions) -> Result<TournamentFigures, String> {
    let bots = 5;
    let rounds: u32 = if opts.quick { 1 } else { 5 };
    let per_pairing = (opts.tournament_games / rounds / 10).max(2) & !1;
    let per_run = per_pairing * 10;
    let names: Vec<String> = (0..bots).map(|i| format!("first{i}")).collect();
    let command = opts.bot.command.clone();
    let config = |keep: bool, ponder: bool| Normalized {
        name: "bench".into(),
        game: "dakon".into(),
        params: Vec::new(),
        format: FormatKind::RoundRobin,
        champion: None,
        games: per_pairing,
        seed: 1,
        random_opening_plies: 0,
        ponder,
        time_control: TimeControl::default(),
        bots: names
            .iter()
            .map(|n| NormalizedBot {
                name: n.clone(),
                command: command.clone(),
                cwd: ".".into(),
                env: Default::default(),
                limits: Default::default(),
                sandbox: Default::default(),
                keep,
            })
            .collect(),
    };
    let game: Arc<dyn AnyGame> = Arc::from(games::new_game("dakon", &[]).expect("dakon"));
    let dir = std::env::temp_dir().join(format!("arena-bench-{}", std::process::id()));
    let player = |run_dir: PathBuf, v: Variant| RefereePlayer {
        game: game.clone(),
        bots: names
            .iter()
            .map(|n| {
                let mut spec = (*opts.bot.spec(n)).clone();
                if v.sandboxed {
                    spec.sandbox = crate::process::Sandbox::Bwrap;
                }
                Arc::new(spec)
            })
            .collect(),
        commands: vec![command.clone(); bots],
        keep: vec![v.keep; bots],
        time: TimeControl::default(),
        ponder: v.ponder,
        limits: Limits::default(),
        opening_plies: 0,
        run_dir,
        kept: Default::default(),
    };
    let n = cores().max(2);
    let base_rss_kib = status_kib("VmRSS:").unwrap_or(0.0);
    let sandbox = crate::process::sandbox::usable().is_ok();
    // Indexed [fresh c1, fresh cN, kept c1, kept cN, ponder c1, ponder cN,
    // sandboxed c1] (see `Variant::slot`).
    let mut secs = [0.0f64; 7];
    let mut cpu = [0.0f64; 7];
    let mut peak = [0.0f64; 2];
    let mut ratios = Vec::new();
    let mut plies = 0;
    let result = (|| {
        for round in 0..rounds {
            let v = |concurrency, keep, ponder, sandboxed| Variant {
                concurrency,
                keep,
                ponder,
                sandboxed,
            };
            let mut order = vec![
                v(1, false, false, false),
                v(n, false, false, false),
                v(1, true, false, false),
                v(n, true, false, false),
                v(1, false, true, false),
                v(n, false, true, false),
            ];
            if sandbox {
                order.push(v(1, false, false, true));
            }
            if round % 2 == 1 {
                order.reverse();
            }
            let mut rate = [0.0f64; 2];
            for v in order {
                let out = dir.join(format!("run{round}-{}", v.slot()));
                let (s, kib, p, c) = tournament_once(
                    &config(v.keep, v.ponder),
                    player(out.clone(), v),
                    &out,
                    v.concurrency,
                )?;
                let _ = std::fs::remove_dir_all(&out);
                let k = v.slot();
                secs[k] += s;
                cpu[k] += c;
                if k < 2 {
                    peak[k] = peak[k].max(kib / v.concurrency as f64);
                    rate[k] = f64::from(per_run) / s;
                    plies += p;
                }
            }
            ratios.push(rate[1] / rate[0]);
        }
        Ok::<(), String>(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result?;
    let games = f64::from(per_run * rounds);
    let rate = secs.map(|s| games / s);
    let ms_per_game = secs.map(|s| s * 1e3 / games);
    Ok(TournamentFigures {
        games: per_run * rounds,
        bots,
        game: "dakon".into(),
        concurrency: n,
        games_per_sec_c1: rate[0],
        games_per_sec_cn: rate[1],
        rounds,
        scaling: median(ratios.clone()),
        scaling_min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        scaling_max: ratios.iter().copied().fold(0.0, f64::max),
        cpu_ms_per_game_c1: cpu[0] * 1e3 / games,
        cpu_ms_per_game_cn: cpu[1] * 1e3 / games,
        kept_games_per_sec_c1: rate[2],
        kept_games_per_sec_cn: rate[3],
        kept_saves_ms_per_game_c1: ms_per_game[0] - ms_per_game[2],
        kept_saves_cpu_ms_per_game_c1: (cpu[0] - cpu[2]) * 1e3 / games,
        kept_saves_ms_per_game_cn: ms_per_game[1] - ms_per_game[3],
        ponder_games_per_sec_c1: rate[4],
        ponder_games_per_sec_cn: rate[5],
        freeze_cost_c1: 1.0 - rate[0] / rate[4],
        freeze_cost_cn: 1.0 - rate[1] / rate[5],
        sandboxed_games_per_sec_c1: sandbox.then_some(rate[6]),
        sandbox_ms_per_game_c1: sandbox.then_some(ms_per_game[6] - ms_per_game[0]),
        cores_busy_c1: cpu[0] / secs[0],
        cores_busy_cn: cpu[1] / secs[1],
        peak_kib_per_game_c1: peak[0],
        peak_kib_per_game_cn: peak[1],
        base_rss_kib,
        plies_per_game: plies as f64 / (2.0 * games),
    })
}

// ---------------------------------------------------------------------------
// Process start.

async fn per_game(
    bot: &InstantBot,
    game: Arc<dyn AnyGame>,
    games: u64,
    keep: bool,
) -> Result<f64, String> {
    let limits = Limits::default();
    let mut a = BotSlot::new(bot.spec("a"));
    let mut b = BotSlot::new(bot.spec("b"));
    // Kept bots are started (by a first game) before the clock runs and
    // stopped after it: the difference to fresh bots is the start and stop.
    if keep {
        run_game(&setup(game.clone(), 0), [&mut a, &mut b], keep, &limits).await;
    }
    let start = Instant::now();
    for g in 0..games {
        let r = run_game(&setup(game.clone(), g + 1), [&mut a, &mut b], keep, &limits).await;
        if r.reason.is_forfeit() {
            return Err(format!("process start bench: {} {:?}", r.reason, r.detail));
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / games as f64;
    a.release().await;
    b.release().await;
    Ok(ms)
}

/// ms per Dakon game with fresh bots, with kept bots, and with fresh
/// `arena bot-first` bots (current-thread runtime, one game at a time), each
/// in two halves ordered kept, fresh, Rust, Rust, fresh, kept.
pub fn process_start(opts: &BenchOptions) -> Result<StartFigures, String> {
    let game: Arc<dyn AnyGame> = Arc::from(games::new_game("dakon", &[]).expect("dakon"));
    let games = opts.start_games();
    let rt = runtime(None);
    let rust = InstantBot::rust(&opts.arena);
    // [fresh, kept, fresh Rust]
    let mut ms = [0.0f64; 3];
    for k in [1, 0, 2, 2, 0, 1] {
        let bot = if k == 2 { &rust } else { &opts.bot };
        ms[k] += rt.block_on(per_game(bot, game.clone(), games / 2, k == 1))? / 2.0;
    }
    Ok(StartFigures {
        games,
        game: "dakon".into(),
        fresh_ms_per_game: ms[0],
        kept_ms_per_game: ms[1],
        rust_fresh_ms_per_game: ms[2],
        start_ms_per_game: ms[0] - ms[1],
    })
}

// ---------------------------------------------------------------------------
// Machine and output.

pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// 1, 5 and 15 minute load averages (zeros where /proc/loadavg is missing).
pub fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut it = text.split_whitespace().map(|w| w.parse().unwrap_or(0.0));
    [0; 3].map(|_| it.next().unwrap_or(0.0))
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil from days (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.machine;
        let [l1, l5, l15] = m.load_average;
        writeln!(
            f,
            "arena {} bench{}, {}, {} cores, load average {l1:.2} {l5:.2} {l15:.2} at the start, {:.2} at the end ({:.0} s)",
            m.arena_version,
            if m.quick { " --quick" } else { "" },
            m.date,
            m.cores,
            self.load_average_end,
            self.seconds
        )?;
        writeln!(
            f,
            "The machine may be shared: compare ratios, not absolute figures."
        )?;
        writeln!(f, "Instant bot: {}", self.instant_bot)?;
        writeln!(f)?;
        writeln!(f, "Engines: random playouts, one thread")?;
        for e in &self.engines {
            write!(
                f,
                "  {:<11} {:>7.2} M moves/s {:>9.0} games/s ({:.1} moves/game; {:.2} M per CPU second)",
                e.game,
                e.moves_per_sec / 1e6,
                e.games_per_sec,
                e.moves_per_game,
                e.moves_per_cpu_sec / 1e6,
            )?;
            if let (Some(target), Some(ratio)) = (e.target_moves_per_sec, e.ratio_to_target) {
                write!(
                    f,
                    "   target {:.2} M (plain C): {ratio:.2}x per CPU second, {}",
                    target / 1e6,
                    met(ratio >= 1.0)
                )?;
            }
            writeln!(f)?;
        }
        let p = &self.pipe;
        writeln!(f)?;
        writeln!(
            f,
            "Pipe floor: `go` -> `move 3` round trip to a child process"
        )?;
        writeln!(
            f,
            "  arena bench-echo   {:>8.2} us mean (p50 {:.2}, p99 {:.2}; {} round trips)",
            p.rt_us, p.rt_p50_us, p.rt_p99_us, p.round_trips
        )?;
        match p.c_rt_us {
            Some(c) => writeln!(
                f,
                "  pingpong.c rt      {c:>8.2} us mean (Rust/C {:.2})",
                p.rt_us / c
            )?,
            None => writeln!(
                f,
                "  pingpong.c rt      (not run: give --pingpong PATH/pingpong.c)"
            )?,
        }
        let r = &self.referee;
        writeln!(f)?;
        writeln!(
            f,
            "Referee: instant bots over pipes, {}-ply toy game, bots kept",
            r.plies_per_game
        )?;
        writeln!(
            f,
            "  1 game at a time   {:>8.2} us/move = {:.2}x the pipe floor (median of rounds, each over a floor measured just before)   target <= {TARGET_REFEREE_RATIO}x: {}",
            r.us_per_move_c1,
            r.ratio_c1,
            met(r.ratio_c1 <= TARGET_REFEREE_RATIO)
        )?;
        writeln!(
            f,
            "  2 games at once    {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; a thread per game, as arena tournament)",
            r.us_per_move_c2, r.ratio_c2, r.moves_per_sec_c2
        )?;
        writeln!(
            f,
            "  2 games, 2 workers {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; one work-stealing runtime)",
            r.us_per_move_c2_work_stealing,
            r.us_per_move_c2_work_stealing / self.pipe.rt_us,
            2e6 / r.us_per_move_c2_work_stealing
        )?;
        writeln!(
            f,
            "  2 games, 1 thread  {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; current-thread runtime)",
            r.us_per_move_c2_single,
            r.us_per_move_c2_single / self.pipe.rt_us,
            2e6 / r.us_per_move_c2_single
        )?;
        let engines: Vec<String> = r
            .with_engines
            .iter()
            .map(|(game, us)| format!("{game} {us:.2} us/move"))
            .collect();
        writeln!(
            f,
            "  with engines       {} (1 game at a time)",
            engines.join(", ")
        )?;
        let t = &self.tournament;
        writeln!(f)?;
        writeln!(
            f,
            "Tournament: round robin, {} instant bots, {} games of {} ({:.1} plies/game) at each concurrency in {} rounds, fresh bots per game, journal fsynced",
            t.bots, t.games, t.game, t.plies_per_game, t.rounds
        )?;
        writeln!(
            f,
            "  concurrency 1      {:>8.1} games/s",
            t.games_per_sec_c1
        )?;
        writeln!(
            f,
            "  concurrency {:<6} {:>8.1} games/s; speed-up {:.2}x (median of the rounds' ratios; {:.2}x to {:.2}x)   target >= {TARGET_SCALING}x on 2 cores: {}",
            t.concurrency,
            t.games_per_sec_cn,
            t.scaling,
            t.scaling_min,
            t.scaling_max,
            met(t.scaling >= TARGET_SCALING)
        )?;
        writeln!(
            f,
            "  CPU (referee + bots) per game: {:.2} ms at concurrency 1, {:.2} ms at {}; cores busy: {:.2} and {:.2}",
            t.cpu_ms_per_game_c1,
            t.cpu_ms_per_game_cn,
            t.concurrency,
            t.cores_busy_c1,
            t.cores_busy_cn
        )?;
        writeln!(
            f,
            "  referee peak memory per concurrent game: {:.0} KiB at concurrency 1, {:.0} KiB at {} (resident before: {:.0} KiB)",
            t.peak_kib_per_game_c1, t.peak_kib_per_game_cn, t.concurrency, t.base_rss_kib
        )?;
        writeln!(
            f,
            "  keep_bots = true   {:>8.1} games/s at concurrency 1, {:.1} at {}: saves {:.2} ms/game ({:.2} ms CPU) at 1, {:.2} ms/game at {}",
            t.kept_games_per_sec_c1,
            t.kept_games_per_sec_cn,
            t.concurrency,
            t.kept_saves_ms_per_game_c1,
            t.kept_saves_cpu_ms_per_game_c1,
            t.kept_saves_ms_per_game_cn,
            t.concurrency
        )?;
        writeln!(
            f,
            "  ponder = true      {:>8.1} games/s at concurrency 1, {:.1} at {}: freezing the waiting bot costs {:.1}% and {:.1}% (target <= 10%: {})",
            t.ponder_games_per_sec_c1,
            t.ponder_games_per_sec_cn,
            t.concurrency,
            100.0 * t.freeze_cost_c1,
            100.0 * t.freeze_cost_cn,
            met(t.freeze_cost_c1.max(t.freeze_cost_cn) <= 0.10)
        )?;
        match (t.sandboxed_games_per_sec_c1, t.sandbox_ms_per_game_c1) {
            (Some(rate), Some(ms)) => writeln!(
                f,
                "  sandbox = bwrap    {rate:>8.1} games/s at concurrency 1: the sandbox adds {ms:.2} ms/game (two bot starts)"
            )?,
            _ => writeln!(f, "  sandbox = bwrap    not measured: bubblewrap does not work here")?,
        }
        let s = &self.process_start;
        writeln!(f)?;
        writeln!(
            f,
            "Process start: {} games of {}, one at a time",
            s.games, s.game
        )?;
        writeln!(
            f,
            "  fresh bots {:.2} ms/game, kept bots {:.2} ms/game: starting two bots costs {:.2} ms/game",
            s.fresh_ms_per_game, s.kept_ms_per_game, s.start_ms_per_game
        )?;
        writeln!(
            f,
            "  fresh arena bot-first (Rust) bots {:.2} ms/game",
            s.rust_fresh_ms_per_game
        )?;
        write!(
            f,
            "  one echo child: start + round trip + quit {:.3} ms",
            p.session_ms
        )?;
        if let Some(c) = p.c_session_ms {
            write!(f, " (pingpong.c session {c:.3} ms)")?;
        }
        writeln!(f)
    }
}
