//! `arena check-bot`: runs one bot through what a tournament will ask of it
//! and says in plain words what is wrong.
//!
//! The bot is driven through the referee's own [`crate::bot`] module (spawn,
//! handshake, reads with deadlines, output budgets, kill escalation), so a
//! bot that passes here behaves as the referee expects. The checker plays the
//! other seat itself (seeded random legal moves) and writes the same traffic
//! the referee writes: `newgame`, `played` (the opponent's moves at once, the
//! bot's own echo with its next `go`), `position`/`legal`/`go` in one write,
//! `gameover`, `quit`. Then it sends chosen positions (Dakon: right after a
//! bonus move, 3 and 9 holes; Latrunculi: a removal, a long jump chain, the
//! placement phase, a non-square board).
//!
//! Every finding is a line: `PASS`, `WARN` (legal, but risky) or `FAIL` (the
//! bot would forfeit a game). The exit code is 1 when anything FAILs, 2 when
//! the command cannot be run at all or the options are wrong.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::time::Instant;

use crate::bot::{Bot, BotFailure, BotSpec, Limits};
use crate::games::{self, AnyGame, AnyState, Seat};
use crate::protocol::{self, FromBot, Go, Ms, ToBot, Verdict};
use crate::record::Reason;

/// Options of `arena check-bot`.
#[derive(Args, Clone, Debug)]
pub struct CheckBotArgs {
    /// The game: dakon or latrunculi.
    #[arg(long)]
    pub game: String,
    /// A game parameter for the full games, as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = games::parse_param)]
    pub params: Vec<(String, String)>,
    /// Limit per decision, in ms (as in `arena match --movetime`).
    #[arg(long, value_name = "MS", default_value_t = 100)]
    pub movetime: u64,
    /// Overrun tolerated past the limit before a bot loses on time, in ms.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    pub margin: u64,
    /// Full games to play against the checker's random mover (seats alternate).
    #[arg(long, default_value_t = 2)]
    pub games: u64,
    /// Seed of the checker's random mover and of the `newgame` seeds.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time the bot has to answer `arena 1` with `ready`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub startup_ms: u64,
    /// How the bot is confined, as in a tournament: auto (bubblewrap where
    /// it works), bwrap or none.
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub sandbox: crate::bot::Sandbox,
    /// The bot's command and arguments (after `--`; run as an argv list, no shell).
    #[arg(required = true, trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Pass,
    Warn,
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
pub struct Report {
    pub lines: Vec<(Level, String)>,
    /// Every answer time (`go` flushed to `move` read), in ms.
    pub move_ms: Vec<f64>,
}

impl Report {
    /// Prints the finding: the bot's own words in it (its `ready` text,
    /// what it sent) are escaped, so a bot cannot drive the terminal.
    fn push(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        println!("{} {}", level.tag(), crate::display::escape(&text));
        self.lines.push((level, text));
    }

    pub fn failures(&self) -> usize {
        self.lines.iter().filter(|(l, _)| *l == Level::Fail).count()
    }

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

/// `arena check-bot`: parses nothing itself (clap did), prints the report,
/// returns the exit code.
pub fn main(args: CheckBotArgs) -> ExitCode {
    let game = match games::new_game(&args.game, &args.params) {
        Ok(g) => Arc::<dyn AnyGame>::from(g),
        Err(e) => {
            eprintln!("arena check-bot: {e}");
            return ExitCode::from(2);
        }
    };
    if args.movetime == 0 {
        eprintln!("arena check-bot: --movetime must be positive");
        return ExitCode::from(2);
    }
    let here = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let problem = crate::config::executable_problem(&args.command[0], &here, &Default::default());
    if let Some(problem) = problem {
        eprintln!("arena check-bot: cannot start bot command: {problem}");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("arena check-bot: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let mut spec = BotSpec::new("bot", args.command.clone());
    spec.sandbox = match crate::process::sandbox::resolve(args.sandbox) {
        Ok((s, warning)) => {
            if let Some(w) = warning {
                eprintln!("arena check-bot: warning: {w}");
            }
            s
        }
        Err(e) => {
            eprintln!("arena check-bot: {e}");
            return ExitCode::from(2);
        }
    };
    let spec = Arc::new(spec);
    println!(
        "arena check-bot: `{}` on {} ({}), movetime {} ms, {} games, seed {}",
        spec.command_line(),
        game.name(),
        param_text(&game.params()),
        args.movetime,
        args.games,
        args.seed
    );
    match spec.sandbox {
        crate::bot::Sandbox::Bwrap => {
            let dir = std::env::current_dir().unwrap_or_default();
            println!(
                "INFO sandbox: bwrap, as in a tournament: {}",
                crate::process::sandbox::view(&spec.command, &dir)
            );
        }
        _ => println!("INFO sandbox: none (the bot runs as you, with your files)"),
    }
    let result = runtime.block_on(async {
        tokio::spawn(async {
            crate::process::stop_signal().await;
            crate::process::keeper::finish();
            std::process::exit(130);
        });
        check(&args, game, spec).await
    });
    match result {
        Err(e) => {
            eprintln!(
                "arena check-bot: {}",
                crate::display::escape(&e.to_string())
            );
            ExitCode::from(2)
        }
        Ok(report) => {
            let (f, w) = (report.failures(), report.warnings());
            if f > 0 {
                println!(
                    "result: FAIL ({f} failure{}, {w} warning{}): this bot would forfeit games in a tournament",
                    plural(f),
                    plural(w)
                );
                ExitCode::from(1)
            } else {
                println!(
                    "result: PASS ({w} warning{}): this bot would not forfeit",
                    plural(w)
                );
                ExitCode::SUCCESS
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn param_text(params: &[(String, String)]) -> String {
    params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
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

/// How a game for the bot starts.
enum Start {
    /// From the initial position after these moves (sent as `played`).
    Moves(Vec<String>),
    /// From a state sent as `position` (no `played` lines before it).
    State(String),
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
    args: &CheckBotArgs,
    game: Arc<dyn AnyGame>,
    spec: Arc<BotSpec>,
) -> Result<Report, String> {
    let mut ctx = Ctx {
        spec,
        limits: Limits {
            startup: Duration::from_millis(args.startup_ms),
            ..Limits::default()
        },
        movetime: Duration::from_millis(args.movetime),
        margin: Duration::from_millis(args.margin),
        rng: ChaCha8Rng::seed_from_u64(args.seed),
        logs: tempfile::Builder::new()
            .prefix("arena-check-bot-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary directory for the bot's stderr: {e}"))?,
        starts: std::cell::Cell::new(0),
    };
    let mut report = Report::default();

    let mut bot = start(&ctx, &mut report, true).await?;
    if bot.is_none() {
        return Ok(report);
    }

    let mut scenarios = Vec::new();
    for i in 0..args.games {
        scenarios.push(Scenario {
            label: format!("game {} of {}", i + 1, args.games),
            game: game.clone(),
            start: Start::Moves(Vec::new()),
            seat: (i % 2) as Seat,
            max_decisions: MAX_GAME_DECISIONS,
        });
    }
    scenarios.extend(special_positions(game.name(), args.seed)?);

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
    if game.name() == "dakon" && bonus_seen > 0 {
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
async fn start(ctx: &Ctx, report: &mut Report, first: bool) -> Result<Option<Bot>, String> {
    let n = ctx.starts.get() + 1;
    ctx.starts.set(n);
    let log = ctx.logs.path().join(format!("start-{n}.log"));
    let mut bot = Bot::spawn(ctx.spec.clone(), &ctx.limits, Some(&log))
        .await
        .map_err(|e| {
            format!(
                "cannot start bot command `{}`: {e}",
                ctx.spec.command_line()
            )
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

/// Plays one scenario. `Err`: what the bot did wrong (it would forfeit).
async fn play(
    ctx: &mut Ctx,
    bot: &mut Bot,
    sc: &Scenario,
    report: &mut Report,
) -> Result<Summary, String> {
    let params = sc.game.params();
    let mut state: Box<dyn AnyState> = match &sc.start {
        Start::Moves(_) => sc.game.initial_state(),
        Start::State(text) => sc
            .game
            .parse_state(text)
            .map_err(|e| format!("checker bug: bad position: {e}"))?,
    };
    let seed: u64 = ctx.rng.random();
    bot.queue(&ToBot::NewGame {
        game: sc.game.name(),
        seat: sc.seat,
        seed,
        params: &params,
    });
    if let Start::Moves(moves) = &sc.start {
        for mv in moves {
            let seat = state.to_move();
            state
                .play(mv)
                .map_err(|e| format!("checker bug: opening `{mv}`: {e}"))?;
            bot.queue(&ToBot::Played { seat, mv });
        }
    }
    bot.flush().await.map_err(|f| failure_text(&f, None))?;

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
                return Err(format!(
                    "illegal move `{}` ({what}) in position `{state_text}` (legal: {})",
                    protocol::truncate(&mv, 60),
                    show_legal(&legal)
                ));
            }
            bot.queue(&ToBot::Played { seat, mv: &mv });
        } else {
            let mv = legal[ctx.rng.random_range(0..legal.len())].clone();
            state
                .play(&mv)
                .map_err(|e| format!("checker bug: own move `{mv}`: {e}"))?;
            bot.queue(&ToBot::Played { seat, mv: &mv });
            let next = state.outcome().is_none().then(|| state.to_move());
            if next.is_some() && next != Some(sc.seat) {
                bot.flush().await.map_err(|f| failure_text(&f, None))?;
            }
        }
        last_mover = Some(seat);
        plies += 1;
    };

    // The end: `gameover`, as the referee sends it (a cut game is
    // adjudicated as a draw).
    let (verdict, reason, scores) = match &end {
        Some(o) => (
            match o.winner {
                None => Verdict::Draw,
                Some(w) if w == sc.seat => Verdict::Win,
                Some(_) => Verdict::Loss,
            },
            if o.adjudicated.is_some() {
                Reason::Adjudicated
            } else {
                Reason::Normal
            },
            o.scores,
        ),
        None => (Verdict::Draw, Reason::Adjudicated, [0, 0]),
    };
    let extra = [
        ("scores".to_string(), format!("{},{}", scores[0], scores[1])),
        ("plies".to_string(), plies.to_string()),
    ];
    bot.queue(&ToBot::GameOver {
        verdict,
        reason,
        extra: &extra,
    });
    bot.flush().await.map_err(|f| failure_text(&f, None))?;
    // A moment for anything the bot says after `gameover` (it should say
    // nothing), then look at it as the referee would at the next decision.
    tokio::time::sleep(Duration::from_millis(20)).await;
    drain_between(bot).await?;

    let ending = match &end {
        Some(o) => format!(
            "game over ({}{}, scores {}-{})",
            verdict.as_str(),
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
async fn drain_between(bot: &mut Bot) -> Result<usize, String> {
    bot.set_output_budget(crate::referee::MAX_DECISION_BYTES);
    let mut infos = 0;
    while let Some(msg) = bot.poll_message().await {
        match msg {
            Ok(FromBot::Info(_)) => infos += 1,
            Ok(FromBot::Empty) => {}
            Ok(FromBot::Move(mv)) => {
                return Err(format!(
                    "unasked `move {}`: a `move` when no `go` was waiting (two moves for one `go`, or a move before `go`)",
                    protocol::truncate(&mv, 60)
                ))
            }
            Ok(FromBot::Ready(_)) => return Err("`ready` a second time".to_string()),
            Err(f) => return Err(failure_text(&f, None)),
        }
    }
    Ok(infos)
}

/// One decision: `position`, `legal`, `go`; reads up to the `move`. Returns
/// the move and the number of `info` lines.
async fn decide(
    ctx: &Ctx,
    bot: &mut Bot,
    state_text: &str,
    legal: &[String],
    report: &mut Report,
) -> Result<(String, usize), String> {
    let mut infos = drain_between(bot).await?;
    bot.queue(&ToBot::Position(state_text));
    bot.queue(&ToBot::Legal(legal));
    bot.queue(&ToBot::Go(Go {
        time: Ms(None),
        opptime: Ms(None),
        inc: 0,
        movetime: Ms(Some(ctx.movetime.as_millis() as u64)),
    }));
    bot.flush()
        .await
        .map_err(|f| failure_text(&f, Some(state_text)))?;
    let go_at = Instant::now();
    let limit = ctx.movetime + ctx.margin;
    // Wait past the deadline to tell a slow answer from no answer.
    let wait_until = go_at + limit + LATE_WAIT;
    let mv = loop {
        match bot.read_message(Some(wait_until)).await {
            Ok(FromBot::Move(mv)) => break mv,
            Ok(FromBot::Info(_)) => infos += 1,
            Ok(FromBot::Empty) => {}
            Ok(FromBot::Ready(_)) => return Err("`ready` a second time".to_string()),
            Err(f) if f.reason == Reason::Timeout => {
                return Err(format!(
                    "no `move` within {} of `go` (limit {} ms + {} ms margin): the bot hangs, or does not flush stdout after `move`; in position `{state_text}`",
                    show_duration(limit + LATE_WAIT),
                    ctx.movetime.as_millis(),
                    ctx.margin.as_millis()
                ))
            }
            Err(f) => return Err(failure_text(&f, Some(state_text))),
        }
    };
    let used = go_at.elapsed();
    bot.set_output_budget(u64::MAX);
    let used_ms = used.as_secs_f64() * 1e3;
    if used > limit {
        return Err(format!(
            "lost on time: `move {}` came {used_ms:.0} ms after `go` (limit {} ms + {} ms margin) in position `{state_text}`{}",
            protocol::truncate(&mv, 60),
            ctx.movetime.as_millis(),
            ctx.margin.as_millis(),
            load_note()
        ));
    }
    report.move_ms.push(used_ms);
    Ok((mv, infos))
}

/// A hint when the machine is busier than its cores: then a late answer
/// may be the scheduler's doing as much as the bot's.
fn load_note() -> String {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match load {
        Some(l) if l > cores as f64 => format!(
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

fn time_summary(ctx: &Ctx, report: &mut Report) {
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
async fn quit(bot: &mut Bot, report: &mut Report) {
    let pid = bot.pid();
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
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => match stat.rfind(')') {
            Some(i) => !matches!(stat[i + 1..].trim_start().chars().next(), Some('Z' | 'X')),
            None => true,
        },
        Err(_) => false,
    }
}

// ---------------------------------------------------------------------------
// The chosen positions.

fn named(name: &str, params: &[(&str, &str)]) -> Result<Arc<dyn AnyGame>, String> {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    games::new_game(name, &params)
        .map(Arc::from)
        .map_err(|e| format!("checker bug: {e}"))
}

/// The odd positions for `game`: each a short game from a chosen start.
fn special_positions(game: &str, seed: u64) -> Result<Vec<Scenario>, String> {
    let mut out = Vec::new();
    match game {
        "dakon" => {
            let g = named("dakon", &[])?;
            let (moves, seat, ply) = dakon_bonus_opening(&*g, seed);
            out.push(Scenario {
                label: format!(
                    "position right after a bonus move (seat {seat} moves again at ply {ply})"
                ),
                game: g,
                start: Start::Moves(moves),
                seat,
                max_decisions: 3,
            });
            for holes in ["3", "9"] {
                out.push(Scenario {
                    label: format!("{holes}-hole board"),
                    game: named("dakon", &[("holes", holes)])?,
                    start: Start::Moves(Vec::new()),
                    seat: 0,
                    max_decisions: if holes == "3" { 50 } else { 6 },
                });
            }
        }
        "latrunculi" => {
            let g = named("latrunculi", &[])?;
            out.push(Scenario {
                label: "position where a removal (`xd6`) is legal".into(),
                game: g.clone(),
                start: Start::State(REMOVAL.into()),
                seat: 0,
                max_decisions: 3,
            });
            out.push(Scenario {
                label: "position with a long jump chain (`a1-a3-c3-c5-e5-e7`)".into(),
                game: g.clone(),
                start: Start::State(JUMP_CHAIN.into()),
                seat: 0,
                max_decisions: 3,
            });
            out.push(Scenario {
                label: "placement-phase position (seat 1 to place)".into(),
                game: g,
                start: Start::State(PLACEMENT.into()),
                seat: 1,
                max_decisions: 3,
            });
            out.push(Scenario {
                label: "non-square board (9 x 5, 6 pieces each)".into(),
                game: named(
                    "latrunculi",
                    &[("width", "9"), ("height", "5"), ("pieces", "6")],
                )?,
                start: Start::Moves(Vec::new()),
                seat: 1,
                max_decisions: 12,
            });
        }
        _ => {}
    }
    Ok(out)
}

/// Example 3 of the Latrunculi rules: `xd6` is legal.
pub const REMOVAL: &str =
    "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42";
/// The X on a1 can jump a2, b3, c4, d5, e6 in turn: five chains, one per
/// square it can end on (`a1-a3` ... `a1-a3-c3-c5-e5-e7`), are legal moves.
pub const JUMP_CHAIN: &str =
    "board=7O/8/4O3/3O4/2O5/1O6/O7/X6X turn=0 phase=move hand=0,0 quiet=3 ply=40";
/// Example 1 of the Latrunculi rules: seat 1 places.
pub const PLACEMENT: &str =
    "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3";

/// Random moves from the start until a bonus move (the mover moves again)
/// past ply 6; returns the moves, the seat to move again and the ply.
fn dakon_bonus_opening(game: &dyn AnyGame, seed: u64) -> (Vec<String>, Seat, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xb0b0);
    for _ in 0..1000 {
        let mut state = game.initial_state();
        let mut moves = Vec::new();
        while state.outcome().is_none() && moves.len() < 40 {
            let legal = state.legal_moves();
            let mover = state.to_move();
            let mv = legal[rng.random_range(0..legal.len())].clone();
            state.play(&mv).expect("a legal move");
            moves.push(mv);
            if moves.len() > 6 && state.outcome().is_none() && state.to_move() == mover {
                let ply = moves.len();
                return (moves, mover, ply);
            }
        }
    }
    // Never reached in practice; the initial position is still a fair check.
    (Vec::new(), 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_positions_are_what_their_labels_say() {
        let g = named("latrunculi", &[]).unwrap();
        let s = g.parse_state(REMOVAL).unwrap();
        assert!(s.legal_moves().contains(&"xd6".to_string()));
        let s = g.parse_state(JUMP_CHAIN).unwrap();
        let legal = s.legal_moves();
        for chain in [
            "a1-a3",
            "a1-a3-c3",
            "a1-a3-c3-c5",
            "a1-a3-c3-c5-e5",
            "a1-a3-c3-c5-e5-e7",
        ] {
            assert!(legal.contains(&chain.to_string()), "{chain} in {legal:?}");
        }
        let s = g.parse_state(PLACEMENT).unwrap();
        assert_eq!(s.to_move(), 1);
        assert!(s.legal_moves().contains(&"d4".to_string()));
    }

    #[test]
    fn the_dakon_opening_ends_in_a_bonus_move() {
        let g = named("dakon", &[]).unwrap();
        let (moves, seat, ply) = dakon_bonus_opening(&*g, 1);
        assert!(ply > 6);
        let mut s = g.initial_state();
        let mut last = 0;
        for m in &moves {
            last = s.to_move();
            s.play(m).unwrap();
        }
        assert_eq!(s.to_move(), seat);
        assert_eq!(last, seat, "the last move was the same seat's");
        assert!(s.outcome().is_none());
    }
}
