//! `arena check-bot`: runs one bot through what a tournament will ask of it
//! and says in plain words what is wrong.
//!
//! The bot is driven through the referee's own [`crate::process`] module (spawn,
//! handshake, reads with deadlines, output budgets, kill escalation), so a
//! bot that passes here behaves as the referee expects. The checker plays the
//! other seat itself (seeded random legal moves) and writes the same traffic
//! the referee writes: `newgame`, `played` (the opponent's moves at once, the
//! bot's own echo with its next `go`), `position`/`legal`/`go` in one write,
//! `gameover`, `quit`. Then it sends the game's chosen positions from the
//! registry ([`arena_core::games::GameEntry::check_positions`]; Dakon: right
//! after a bonus move, 3 and 9 holes; Latrunculi: a removal, a long jump
//! chain, the placement phase, a non-square board).
//!
//! Every finding is a line: `PASS`, `WARN` (legal, but risky) or `FAIL` (the
//! bot would forfeit a game). The exit code is 1 when anything FAILs, 2 when
//! the command cannot be run at all or the options are wrong.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::time::Instant;

use crate::process::{Bot, BotFailure, BotSpec, Limits};
use crate::referee::seat::{self, Info, Misstep};
use arena_core::games::{self, AnyGame, AnyState, Seat, Start};
use arena_core::protocol::{self, Go, ToBot, Verdict};
use arena_core::record::Reason;

/// What `arena check-bot` asks of the bot.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Limit per decision.
    pub movetime: Duration,
    /// Overrun tolerated past the limit before a bot loses on time.
    pub margin: Duration,
    /// Full games against the checker's random mover (seats alternate).
    pub games: u64,
    /// Seed of the random mover and of the `newgame` seeds.
    pub seed: u64,
    /// Time the bot has to answer `arena 1` with `ready`.
    pub startup: Duration,
}

/// Why the checks could not run at all (a bot's faults are findings).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The bot's command could not be started at all.
    #[error("cannot start bot command `{command}`: {source}")]
    Start {
        /// The command, as one string.
        command: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// No temporary directory for the bot's stderr.
    #[error("cannot make a temporary directory for the bot's stderr: {0}")]
    TempDir(std::io::Error),
    /// The checker's own scenarios could not be set up: arena's fault, not the
    /// bot's.
    #[error("checker bug: {0}")]
    Bug(String),
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The bot did what the protocol asks.
    Pass,
    /// The bot works, but could lose games this way (a slow start, say).
    Warn,
    /// The bot would forfeit games in a tournament.
    Fail,
    /// A plain measurement.
    Info,
}

impl Level {
    fn tag(self) -> &'static str {
        match self {
            Level::Pass => "PASS",
            Level::Warn => "WARN",
            Level::Fail => "FAIL",
            Level::Info => "INFO",
        }
    }
}

/// What the checker found, line by line.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Every finding, in the order found.
    pub lines: Vec<(Level, String)>,
    /// Every answer time (the `go` write started to `move` read), in ms.
    pub move_ms: Vec<f64>,
}

impl CheckReport {
    /// Prints the finding: the bot's own words in it (its `ready` text,
    /// what it sent) are escaped, so a bot cannot drive the terminal.
    fn push(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        println!("{} {}", level.tag(), crate::display::escape(&text));
        self.lines.push((level, text));
    }

    /// How many findings failed: any one means the bot would forfeit games.
    pub fn failures(&self) -> usize {
        self.lines.iter().filter(|(l, _)| *l == Level::Fail).count()
    }

    /// How many findings warn.
    pub fn warnings(&self) -> usize {
        self.lines.iter().filter(|(l, _)| *l == Level::Warn).count()
    }

    /// After a failure: the last lines the bot wrote to stderr (often the
    /// reason it died, such as an interpreter's `Can't open perl script`),
    /// if it wrote any. The bot must have stopped, so that all of it is in
    /// the log.
    fn stderr_tail(&mut self, bot: &Bot) {
        let Some(tail) = bot.log_path().and_then(|p| last_lines(p, STDERR_LINES)) else {
            return;
        };
        println!("     its stderr ended with:");
        for line in tail {
            println!("     | {line}");
        }
    }
}

/// How many of the bot's last stderr lines a failure shows.
const STDERR_LINES: usize = 10;

/// The last `n` lines of a log file, each made safe for a terminal (control
/// characters shown escaped) and cut to [`protocol::SHOW`] characters; `None`
/// for a missing or empty file.
fn last_lines(path: &std::path::Path, n: usize) -> Option<Vec<String>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    // The end is enough: n lines of at most SHOW characters, and some.
    let from = len.saturating_sub((n * protocol::SHOW * 4) as u64);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if from > 0 && !lines.is_empty() {
        lines.remove(0); // cut mid-line
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return None;
    }
    let start = lines.len().saturating_sub(n);
    Some(
        lines[start..]
            .iter()
            .map(|l| {
                let safe: String = l
                    .chars()
                    .flat_map(|c| {
                        let keep = !c.is_control() || c == '\t';
                        let shown: Vec<char> = if keep {
                            vec![c]
                        } else {
                            c.escape_default().collect()
                        };
                        shown
                    })
                    .collect();
                protocol::truncate(&safe, protocol::SHOW)
            })
            .collect(),
    )
}

/// Slower than this to `ready` is worth a warning.
const SLOW_START: Duration = Duration::from_secs(1);
/// How long past the deadline the checker still waits for a late answer (to
/// say how late it was) before calling it a hang.
const LATE_WAIT: Duration = Duration::from_secs(1);
/// Most bot decisions in one check game; then the checker ends it.
const MAX_GAME_DECISIONS: usize = 150;
/// The protocol's time for a bot to exit after `quit`.
const QUIT_GRACE: Duration = Duration::from_millis(200);

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The settings of one check run.
struct Ctx {
    spec: Arc<BotSpec>,
    limits: Limits,
    movetime: Duration,
    margin: Duration,
    rng: ChaCha8Rng,
    /// Each start of the bot writes its stderr to a file of its own here,
    /// so that a failure can show how the bot's stderr ended.
    logs: tempfile::TempDir,
    starts: std::cell::Cell<usize>,
}

/// One game (or game fragment) the bot plays against the random mover.
struct Scenario {
    label: String,
    game: Arc<dyn AnyGame>,
    start: Start,
    seat: Seat,
    max_decisions: usize,
}

/// Runs every check. `Err` only for a command that cannot be run at all.
pub async fn check(
    opts: &CheckOptions,
    game: Arc<dyn AnyGame>,
    spec: Arc<BotSpec>,
) -> Result<CheckReport, CheckError> {
    let mut ctx = Ctx {
        spec,
        limits: Limits {
            startup: opts.startup,
            ..Limits::default()
        },
        movetime: opts.movetime,
        margin: opts.margin,
        rng: ChaCha8Rng::seed_from_u64(opts.seed),
        logs: tempfile::Builder::new()
            .prefix("arena-check-bot-")
            .tempdir()
            .map_err(CheckError::TempDir)?,
        starts: std::cell::Cell::new(0),
    };
    let mut report = CheckReport::default();

    let mut bot = start(&ctx, &mut report, true).await?;
    if bot.is_none() {
        return Ok(report);
    }

    let mut scenarios = Vec::new();
    for i in 0..opts.games {
        scenarios.push(Scenario {
            label: format!("game {} of {}", i + 1, opts.games),
            game: game.clone(),
            start: Start::Moves(Vec::new()),
            seat: (i % 2) as Seat,
            max_decisions: MAX_GAME_DECISIONS,
        });
    }
    let entry = games::entry(game.name()).map_err(|e| CheckError::Bug(e.to_string()))?;
    for p in (entry.check_positions)(opts.seed) {
        scenarios.push(Scenario {
            game: Arc::from(
                (entry.new)(&p.params).map_err(|e| CheckError::Bug(format!("{}: {e}", p.label)))?,
            ),
            label: p.label,
            start: p.start,
            seat: p.seat,
            max_decisions: p.max_decisions,
        });
    }

    let mut bonus_seen = 0usize;
    for sc in &scenarios {
        if bot.is_none() {
            // The referee restarts a bot that misbehaved; so do we.
            match start(&ctx, &mut report, false).await? {
                Some(b) => bot = Some(b),
                None => break,
            }
        }
        let b = bot.as_mut().expect("a running bot");
        match play(&mut ctx, b, sc, &mut report).await {
            Ok(summary) => {
                bonus_seen += summary.bonus;
                report.push(Level::Pass, format!("{}: {}", sc.label, summary.text));
            }
            Err(text) => {
                report.push(Level::Fail, format!("{}: {text}", sc.label));
                if let Some(mut b) = bot.take() {
                    b.kill().await;
                    report.stderr_tail(&b);
                }
            }
        }
    }
    if bonus_seen > 0 {
        report.push(
            Level::Pass,
            format!("bonus moves: moved again after its own bonus move {bonus_seen} times"),
        );
    }

    time_summary(&ctx, &mut report);

    if let Some(mut b) = bot.take() {
        quit(&mut b, &mut report).await;
    }
    Ok(report)
}

/// Starts the bot and checks the handshake. `Ok(None)`: it failed (reported).
async fn start(
    ctx: &Ctx,
    report: &mut CheckReport,
    first: bool,
) -> Result<Option<Bot>, CheckError> {
    let n = ctx.starts.get() + 1;
    ctx.starts.set(n);
    let log = ctx.logs.path().join(format!("start-{n}.log"));
    let mut bot = Bot::spawn(ctx.spec.clone(), &ctx.limits, Some(&log))
        .await
        .map_err(|source| CheckError::Start {
            command: ctx.spec.command_line(),
            source,
        })?;
    let t0 = Instant::now();
    match bot.handshake().await {
        Ok(()) => {
            let took = t0.elapsed();
            if first {
                let text = format!(
                    "start: `ready {}` after {}",
                    bot.ready_text,
                    show_duration(took)
                );
                if took > SLOW_START {
                    report.push(
                        Level::Warn,
                        format!(
                            "slow start: ready after {} (the limit is {} ms; answer `ready` first, load later)",
                            show_duration(took),
                            ctx.limits.startup.as_millis()
                        ),
                    );
                } else {
                    report.push(Level::Pass, text);
                }
            }
            Ok(Some(bot))
        }
        Err(f) => {
            let text = match f.reason {
                Reason::Timeout => format!(
                    "no `ready` within {} ms of `arena 1` (does the bot answer `arena 1`, and flush stdout after `ready`?)",
                    ctx.limits.startup.as_millis()
                ),
                Reason::Crash => format!("crashed before `ready`: {}", f.detail),
                Reason::Protocol => format!(
                    "stdout noise before `ready`: {} (only `ready`, `move` and `info` may go to stdout; log to stderr)",
                    f.detail
                ),
                _ => format!("start failed: {f}"),
            };
            report.push(Level::Fail, text);
            bot.shutdown().await;
            report.stderr_tail(&bot);
            Ok(None)
        }
    }
}

fn show_duration(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

struct Summary {
    text: String,
    /// Decisions that came right after the bot's own bonus move.
    bonus: usize,
}

/// Why a scenario failed (its FAIL line): what the bot did that would
/// forfeit a game, or a mistake of the checker's own.
#[derive(Debug, thiserror::Error)]
enum Fault {
    /// The checker's own position or move was refused.
    #[error("checker bug: {0}")]
    Checker(String),
    /// `what` says why the move is not legal; `legal` is the legal list as shown.
    #[error("illegal move `{}` ({what}) in position `{state}` (legal: {legal})", protocol::truncate(.mv, 60))]
    Illegal {
        mv: String,
        what: String,
        state: String,
        legal: String,
    },
    #[error("unasked `move {}`: a `move` when no `go` was waiting (two moves for one `go`, or a move before `go`)", protocol::truncate(.0, 60))]
    MoveBeforeGo(String),
    /// A second `move` while the answer to `go` was awaited.
    #[error("unasked `move {0}`")]
    UnaskedMove(String),
    #[error("`ready` a second time")]
    ReadyTwice,
    /// No answer within `wait` (shown) of `go`.
    #[error("no `move` within {wait} of `go` (limit {limit_ms} ms + {margin_ms} ms margin): the bot hangs, or does not flush stdout after `move`; in position `{state}`")]
    NoMove {
        wait: String,
        limit_ms: u128,
        margin_ms: u128,
        state: String,
    },
    /// `note` is [`load_note`]'s.
    #[error("lost on time: `move {}` came {used_ms:.0} ms after `go` (limit {limit_ms} ms + {margin_ms} ms margin) in position `{state}`{note}", protocol::truncate(.mv, 60))]
    LostOnTime {
        mv: String,
        used_ms: f64,
        limit_ms: u128,
        margin_ms: u128,
        state: String,
        note: String,
    },
    /// The bot crashed, broke the protocol or timed out, in `state` if known.
    #[error("{}", failure_text(.failure, .state.as_deref()))]
    Failed {
        failure: BotFailure,
        state: Option<String>,
    },
}

impl Fault {
    fn failed(failure: BotFailure) -> Fault {
        Fault::Failed {
            failure,
            state: None,
        }
    }
}

/// Plays one scenario. `Err`: what the bot did wrong (it would forfeit).
async fn play(
    ctx: &mut Ctx,
    bot: &mut Bot,
    sc: &Scenario,
    report: &mut CheckReport,
) -> Result<Summary, Fault> {
    let mut state: Box<dyn AnyState> = match &sc.start {
        Start::Moves(_) => sc.game.initial_state(),
        Start::State(text) => sc
            .game
            .parse_state(text)
            .map_err(|e| Fault::Checker(format!("bad position: {e}")))?,
    };
    let seed: u64 = ctx.rng.random();
    seat::new_game(bot, &*sc.game, sc.seat, seed);
    if let Start::Moves(moves) = &sc.start {
        for mv in moves {
            let seat = state.to_move();
            state
                .play(mv)
                .map_err(|e| Fault::Checker(format!("opening `{mv}`: {e}")))?;
            seat::played(bot, seat, mv);
        }
    }
    bot.flush().await.map_err(Fault::failed)?;
    // The untimed set-up, as the referee gives it to a bot that asks.
    seat::set_up(bot, &mut Info::default())
        .await
        .map_err(|m| Fault::failed(m.failure()))?;

    let mut decisions = 0usize;
    let mut plies = 0usize;
    let mut bonus = 0usize;
    let mut last_mover: Option<Seat> = None;
    let mut infos = 0usize;
    let end = loop {
        if let Some(outcome) = state.outcome() {
            break Some(outcome);
        }
        if decisions >= sc.max_decisions {
            break None;
        }
        let seat = state.to_move();
        let legal = state.legal_moves();
        if seat == sc.seat {
            if last_mover == Some(seat) && plies > 0 {
                bonus += 1;
            }
            let state_text = state.to_string();
            let (mv, n_info) = decide(ctx, bot, &state_text, &legal, report).await?;
            infos += n_info;
            decisions += 1;
            if let Err(e) = state.play(&mv) {
                let what = match e {
                    games::PlayError::Malformed(_) => "not a move at all".to_string(),
                    games::PlayError::Illegal(_, why) => {
                        why.unwrap_or_else(|| "not in the legal list".into())
                    }
                };
                return Err(Fault::Illegal {
                    mv,
                    what,
                    state: state_text,
                    legal: show_legal(&legal),
                });
            }
            seat::played(bot, seat, &mv);
        } else {
            let mv = legal[ctx.rng.random_range(0..legal.len())].clone();
            state
                .play(&mv)
                .map_err(|e| Fault::Checker(format!("own move `{mv}`: {e}")))?;
            seat::played(bot, seat, &mv);
            let next = state.outcome().is_none().then(|| state.to_move());
            if next.is_some() && next != Some(sc.seat) {
                bot.flush().await.map_err(Fault::failed)?;
            }
        }
        last_mover = Some(seat);
        plies += 1;
    };

    // The end: `gameover`, as the referee sends it (a cut game is
    // adjudicated as a draw).
    let (winner, reason, scores) = match &end {
        Some(o) => (o.winner, o.reason(), o.scores),
        None => (None, Reason::Adjudicated, [0, 0]),
    };
    seat::game_over(bot, sc.seat, winner, reason, scores, plies);
    bot.flush().await.map_err(Fault::failed)?;
    // A moment for anything the bot says after `gameover` (it should say
    // nothing), then look at it as the referee would at the next decision.
    tokio::time::sleep(Duration::from_millis(20)).await;
    drain_between(bot, &mut Info::default()).await?;

    let ending = match &end {
        Some(o) => format!(
            "game over ({}{}, scores {}-{})",
            Verdict::for_seat(winner, sc.seat).as_str(),
            o.adjudicated
                .map(|a| format!(", adjudicated: {a}"))
                .unwrap_or_default(),
            o.scores[0],
            o.scores[1]
        ),
        None => "stopped there".to_string(),
    };
    let mut text = format!(
        "seat {}, {} decision{} in {} plies, all legal; {ending}",
        sc.seat,
        decisions,
        plural(decisions),
        plies
    );
    if infos > 0 {
        let _ = write!(text, "; {infos} info lines");
    }
    Ok(Summary { text, bonus })
}

/// Reads what the bot said since its last decision, as the referee does
/// before each `go`: `info` is fine, anything else forfeits.
async fn drain_between(bot: &mut Bot, info: &mut Info) -> Result<(), Fault> {
    seat::between_decisions(bot, info)
        .await
        .map_err(|m| match m {
            Misstep::UnaskedMove(mv) => Fault::MoveBeforeGo(mv),
            Misstep::Ready => Fault::ReadyTwice,
            m @ Misstep::ReadyOk => Fault::failed(m.failure()),
            Misstep::NoAnswer(f) | Misstep::Failed(f) => Fault::failed(f),
        })
}

/// One decision: `position`, `legal`, `go`; reads up to the `move`. Returns
/// the move and the number of `info` lines.
async fn decide(
    ctx: &Ctx,
    bot: &mut Bot,
    state_text: &str,
    legal: &[String],
    report: &mut CheckReport,
) -> Result<(String, usize), Fault> {
    let mut info = Info::default();
    drain_between(bot, &mut info).await?;
    let go = Go {
        time: None,
        opptime: None,
        inc: 0,
        movetime: Some(ctx.movetime.as_millis() as u64),
        budget: Default::default(),
    };
    let limit = ctx.movetime + ctx.margin;
    // Wait past the deadline to tell a slow answer from no answer; the bot
    // is never frozen here.
    let wait = limit + LATE_WAIT;
    let decision = seat::decide(bot, None, state_text, legal, go, Some(wait), &mut info)
        .await
        .map_err(|m| match m {
            Misstep::NoAnswer(_) => Fault::NoMove {
                wait: show_duration(wait),
                limit_ms: ctx.movetime.as_millis(),
                margin_ms: ctx.margin.as_millis(),
                state: state_text.to_string(),
            },
            Misstep::Ready => Fault::ReadyTwice,
            m @ Misstep::ReadyOk => Fault::failed(m.failure()),
            Misstep::UnaskedMove(mv) => Fault::UnaskedMove(mv),
            Misstep::Failed(failure) => Fault::Failed {
                failure,
                state: Some(state_text.to_string()),
            },
        })?;
    let mv = decision.mv;
    let used_ms = decision.used.as_secs_f64() * 1e3;
    if decision.used > limit {
        return Err(Fault::LostOnTime {
            mv,
            used_ms,
            limit_ms: ctx.movetime.as_millis(),
            margin_ms: ctx.margin.as_millis(),
            state: state_text.to_string(),
            note: load_note(),
        });
    }
    report.move_ms.push(used_ms);
    Ok((mv, info.count))
}

/// A hint when the machine is busier than its cores: then a late answer
/// may be the scheduler's doing as much as the bot's.
fn load_note() -> String {
    let [l, _, _] = crate::tools::bench::load_average();
    let cores = crate::tools::bench::cores();
    match l {
        l if l > cores as f64 => format!(
            " (note: load average {l:.1} on {cores} cores: other work delays the bot too; a tournament machine should not be this busy)"
        ),
        _ => String::new(),
    }
}

fn failure_text(f: &BotFailure, state: Option<&str>) -> String {
    let what = match f.reason {
        Reason::Crash => format!("crashed: {}", f.detail),
        Reason::Protocol => format!(
            "stdout noise / protocol violation: {} (only `ready`, `move` and `info` may go to stdout; log to stderr)",
            f.detail
        ),
        Reason::Timeout => format!("timeout: {}", f.detail),
        _ => f.to_string(),
    };
    match state {
        Some(s) => format!("{what}; in position `{s}`"),
        None => what,
    }
}

fn show_legal(legal: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut text = legal
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    if legal.len() > SHOWN {
        let _ = write!(text, " ... {} in all", legal.len());
    }
    text
}

fn time_summary(ctx: &Ctx, report: &mut CheckReport) {
    let mut ms = report.move_ms.clone();
    if ms.is_empty() {
        return;
    }
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    let max = *ms.last().unwrap();
    let limit = ctx.movetime.as_secs_f64() * 1e3;
    report.push(
        Level::Info,
        format!(
            "time per move: median {median:.0} ms, max {max:.0} ms at movetime {} ({} moves; forfeit past {} ms)",
            ctx.movetime.as_millis(),
            ms.len(),
            (ctx.movetime + ctx.margin).as_millis()
        ),
    );
    let over = ms.iter().filter(|&&m| m > limit).count();
    if over > 0 {
        report.push(
            Level::Warn,
            format!(
                "{over} move{} took longer than movetime {} ms (inside the {} ms margin, which is for pipes and the scheduler: do not plan to use it)",
                plural(over),
                ctx.movetime.as_millis(),
                ctx.margin.as_millis()
            ),
        );
    }
}

/// Sends `quit` and checks the bot exits within the protocol's 200 ms; then
/// stops it the referee's way.
async fn quit(bot: &mut Bot, report: &mut CheckReport) {
    let pid = bot.pid();
    // A bot waits frozen after `ready` until its first `go`: thawed, it can
    // read `quit`, as the referee's shutdown lets it.
    bot.set_frozen(false);
    if bot.send(&[ToBot::Quit]).await.is_err() {
        report.push(Level::Warn, "quit: the bot had closed its input already");
        bot.shutdown().await;
        return;
    }
    let t0 = Instant::now();
    let mut exited = false;
    while t0.elapsed() < QUIT_GRACE {
        if !process_running(pid) {
            exited = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let took = t0.elapsed();
    bot.shutdown().await;
    if exited {
        report.push(
            Level::Pass,
            format!("quit: exited {} ms after `quit`", took.as_millis()),
        );
    } else {
        report.push(
            Level::Warn,
            format!(
                "quit: still running {} ms after `quit` (the referee then kills it; exit on `quit` and on end of input)",
                QUIT_GRACE.as_millis()
            ),
        );
    }
}

/// Whether process `pid` is alive and not a zombie (Linux `/proc`).
fn process_running(pid: i32) -> bool {
    use procfs::process::{ProcState, Process};
    let stat = Process::new(pid).and_then(|p| p.stat());
    stat.is_ok_and(|s| !matches!(s.state(), Ok(ProcState::Zombie | ProcState::Dead)))
}
