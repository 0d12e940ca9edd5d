//! `arena match`: two bots, N games with seats alternating.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::Error;
use arena::display::escape;
use arena::process::{BotSpec, LimitSettings, Limits, Sandbox};
use arena::rating::Tally;
use arena::rating::{self, RatingOptions};
use arena::referee::Adjudication;
use arena::run::config::{parse_st, parse_tc};
use arena::run::matchplay::{self, MatchConfig, MatchError, MatchRun};
use arena::run::openings::{self, OpeningChoice};
use arena::run::settings as funnel;
use arena::settings::FormatKind;
use arena_core::record::GameRecord;

#[derive(Args)]
pub struct MatchArgs {
    #[arg(long, help = super::game_help())]
    game: String,
    /// A bot as NAME=COMMAND ARGS... (argv split on spaces, quotes group;
    /// no shell). Give exactly two.
    #[arg(long = "bot", value_name = "NAME=COMMAND")]
    bots: Vec<String>,
    /// A game parameter as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = arena::run::config::parse_param)]
    params: Vec<(String, String)>,
    /// Number of games (seats alternate; games 2k and 2k+1 share a seed).
    /// With --sprt, the most games to play [default: 2, or 20000 with --sprt].
    // A negative count is read as a value (not as an unknown option `-4`), so
    // that parse_games can say what is wrong with it.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_games)]
    games: Option<u64>,
    /// Sequential probability ratio test of the first bot against the second
    /// on game pairs (pentanomial model), e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05:
    /// the match stops when it accepts H0 or H1.
    #[arg(long, value_name = "elo0=..,elo1=..[,alpha=..,beta=..]")]
    sprt: Option<rating::SprtParams>,
    /// What each pair of games opens with: an opening suite file (see
    /// `arena openings`; dealt in random order from the match seed, each
    /// opening played twice, seats swapped), or `none` (the initial
    /// position). Default: the shipped suite of a standard variant (Dakon
    /// with 7 or 5 holes, Ludus latrunculorum 8x8 with 16 pieces), else
    /// 4 random plies.
    #[arg(long, value_name = "FILE|none", conflicts_with = "opening_plies")]
    openings: Option<String>,
    /// Open each pair with K random plies drawn from its seed (0: none)
    /// instead of a suite.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=200))]
    opening_plies: Option<u32>,
    /// Match seed: the games' seeds are drawn from it (ChaCha8).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Limit per decision, in ms (default 1000 when no --time is given).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Game clock per side, in ms.
    #[arg(long, value_name = "MS")]
    time: Option<u64>,
    /// Increment per move, in ms (with --time).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    inc: u64,
    /// Game clock and increment in seconds, as in cutechess-cli and
    /// fastchess: 60+0.6 (60 s, 0.6 s more per move), 1:30+1, 10 (no
    /// increment). Instead of --time and --inc.
    #[arg(long, value_name = "SECS+INC", conflicts_with_all = ["time", "inc"],
          value_parser = parse_tc)]
    tc: Option<(u64, u64)>,
    /// Limit per decision in seconds, e.g. 0.2. Instead of --movetime.
    #[arg(long, value_name = "SECS", conflicts_with = "movetime",
          value_parser = parse_st)]
    st: Option<u64>,
    /// Which time a decision is charged: wall (default, as cutechess) or
    /// cpu (the CPU time of all the bot's processes, within a wall-clock
    /// ceiling: a busy machine does not turn it into losses).
    #[arg(long, value_name = "wall|cpu", default_value = "wall")]
    clock: arena_core::record::Clock,
    /// The cpu clock's wall-time ceiling per decision, in ms [default: 5
    /// times the limit plus 1 s].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    ceiling_ms: Option<u64>,
    /// What a bot that cannot start (or does not answer `ready`) costs:
    /// stop (the match stops before its first game, exit 2) or forfeit (it
    /// loses its games).
    #[arg(long, value_name = "stop|forfeit", default_value = "stop")]
    on_bot_failure: arena::run::config::OnBotFailure,
    /// Overrun tolerated before a bot loses on time, in ms.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    margin: u64,
    /// Time a bot has to answer `arena 1` with `ready`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    startup_ms: u64,
    /// Operating-system limits applied to both bots (none by default).
    #[command(flatten)]
    bot_limits: LimitArgs,
    /// How both bots are confined: auto (bubblewrap where it works, else
    /// none with a warning), bwrap (an error if it cannot be set up), or
    /// none (for bots you trust).
    #[arg(long, value_name = "KIND", default_value_t = Sandbox::default())]
    sandbox: Sandbox,
    /// Let the bot not on move keep running (think on its opponent's time);
    /// by default it is frozen from 1 ms into its opponent's turn until its
    /// next `go`.
    #[arg(long)]
    ponder: bool,
    /// Pin each concurrent game (its bots and its referee thread) to a CPU
    /// of its own (round robin over the CPUs arena may use).
    #[arg(long)]
    affinity: bool,
    /// Keep bots running across games (they get `newgame` again) instead
    /// of restarting them for every game.
    #[arg(long)]
    keep_bots: bool,
    /// Equal compute: ask both bots to visit N positions per decision
    /// (`nodes=N` in `go`; the time control stays in force).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Equal compute: ask both bots for N playouts (simulations) per
    /// decision (`playouts=N` in `go`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    playouts: Option<u64>,
    /// Equal compute: ask both bots to search N plies deep (`depth=N` in
    /// `go`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    depth: Option<u64>,
    /// A directory where a `#!` line of the bots' own files may name an
    /// interpreter when sandboxed, besides the system directories
    /// (repeatable; config key `interpreters`).
    #[arg(long = "interpreter", value_name = "DIR")]
    interpreters: Vec<PathBuf>,
    /// Resign adjudication, as cutechess-cli's -resign (both bots must
    /// agree): a game is lost for a side when its bot's score has been at
    /// most -SCORE and its opponent's at least +SCORE for COUNT consecutive
    /// moves of each (`score` in `info`, centi-units from the mover's point
    /// of view). E.g. --resign movecount=3 score=600.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..=2)]
    resign: Vec<String>,
    /// Draw adjudication, as cutechess-cli's -draw: a game is a draw when
    /// both bots' scores have been within SCORE of 0 for COUNT consecutive
    /// moves of each, from full move NUMBER on (two plies, the opening's
    /// included). E.g. --draw movenumber=30 movecount=8 score=10.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..=3)]
    draw: Vec<String>,
    /// Compact records: keep the state after every N-th ply (and the last)
    /// in games.jsonl; every reader rebuilds the others from the moves
    /// [default: 1, every ply].
    // The doc line above says the default and what it means; clap's own
    // `[default: 1]` would repeat it.
    #[arg(long, value_name = "N", default_value_t = 1, hide_default_value = true, value_parser = clap::value_parser!(u32).range(1..))]
    record_states: u32,
    /// Keep each game's conversation with each bot, both ways and timed, in
    /// logs/ (gameNNNNN-seatS-NAME.transcript, named in the records).
    #[arg(long)]
    transcript: bool,
    /// The level of every interval: the running score line's Elo
    /// difference and the ratings at the end.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_CONFIDENCE)]
    confidence: f64,
    /// Without a terminal, print the running score lines (`Score of A vs
    /// B: ...`, `Elo difference: ...`) every N games and after the last
    /// (0: only after the last); on a terminal they stay in place under the
    /// game lines, updated after every game.
    #[arg(long, value_name = "N", default_value_t = SCORE_EVERY)]
    score_every: u64,
    /// Output directory for games.jsonl, games.csv and logs/ (a run
    /// directory, as a tournament's: refused if it holds a run).
    #[arg(long, default_value_os_t = arena::store::default_run_dir("match"))]
    out: PathBuf,
    /// Games played at once [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    concurrency: Option<u64>,
    /// Finish an interrupted match in --out: play only the missing games.
    #[arg(long, conflicts_with = "overwrite")]
    resume: bool,
    /// Replace the match (or tournament) already in --out.
    #[arg(long)]
    overwrite: bool,
    /// Print only the summary.
    #[arg(long)]
    quiet: bool,
}

/// The limits of `[bots.limits]` as options of the same names, for both bots.
#[derive(Args)]
struct LimitArgs {
    /// Resident memory of all the bot's processes together, in MB: over it
    /// the bot is killed and loses (`crash`, `memory limit`).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    memory_mb: Option<u64>,
    /// Address space of each bot process, in MB (RLIMIT_AS; a JVM needs
    /// gigabytes of it, prefer --memory-mb).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    address_space_mb: Option<u64>,
    /// CPU time of each bot process, in seconds (RLIMIT_CPU).
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    cpu_seconds: Option<u64>,
    /// Processes (and threads) a bot may have at once (RLIMIT_NPROC; as
    /// root, bots then run under a uid of their own).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    processes: Option<u64>,
    /// Open files per bot process (RLIMIT_NOFILE).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    open_files: Option<u64>,
    /// Largest file a bot may write, in MB (RLIMIT_FSIZE).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    file_size_mb: Option<u64>,
    /// Stderr kept per bot per game, in kB (the rest is discarded).
    #[arg(long, value_name = "KB", value_parser = clap::value_parser!(u64).range(1..))]
    stderr_kb: Option<u64>,
    /// What a sandboxed bot may write, in MB: its /tmp and its /dev/shm
    /// hold this much each (default 64).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    disk_mb: Option<u64>,
}

impl From<&LimitArgs> for LimitSettings {
    fn from(a: &LimitArgs) -> LimitSettings {
        LimitSettings {
            memory_mb: a.memory_mb,
            address_space_mb: a.address_space_mb,
            cpu_seconds: a.cpu_seconds,
            processes: a.processes,
            open_files: a.open_files,
            file_size_mb: a.file_size_mb,
            stderr_kb: a.stderr_kb,
            disk_mb: a.disk_mb,
        }
    }
}

impl From<MatchError> for Error {
    fn from(e: MatchError) -> Error {
        match e {
            e @ (MatchError::Games { .. } | MatchError::Command(_)) => Error::usage(e),
            MatchError::Run(e) => e.into(),
        }
    }
}

/// `--games`: a count of games. Zero and counts over the schedule's limit
/// reach match_config, which names the range; what is not a count at all
/// (`-4`, `two`) is refused here, by clap, with exit code 2.
fn parse_games(text: &str) -> Result<u64, String> {
    match text.trim().parse::<i128>() {
        Ok(n) if n < 0 => Err(format!(
            "the number of games must be a positive number (from 1 to {}), not {n}",
            arena::settings::MAX_GAMES
        )),
        Ok(n) => u64::try_from(n).map_err(|_| {
            format!(
                "the number of games must be from 1 to {}",
                arena::settings::MAX_GAMES
            )
        }),
        Err(_) => Err(format!(
            "the number of games must be a positive number (from 1 to {}), not `{text}`",
            arena::settings::MAX_GAMES
        )),
    }
}

/// `--resign movecount=3 score=600`: the words of a flag read as one list
/// of its rule's keys (commas work too); `None` when it is not given.
fn rule<R: std::str::FromStr<Err = String>>(
    flag: &str,
    words: &[String],
) -> Result<Option<R>, String> {
    if words.is_empty() {
        return Ok(None);
    }
    words
        .join(" ")
        .parse()
        .map(Some)
        .map_err(|why| format!("--{flag}: {why}"))
}

/// `arena match`'s flags read into the settings funnel's checks
/// ([`arena::run::settings`], as a config's keys are): the match, and the
/// warnings its sandbox gives (said once, kept in the manifest).
fn match_config(args: &MatchArgs) -> Result<(MatchConfig, Vec<String>), String> {
    let game = funnel::game(&args.game, &args.params, "--game", |_| "--param".into())
        .map_err(|r| r.reason)?;
    if args.bots.len() != 2 {
        return Err(format!(
            "give exactly two --bot NAME=COMMAND options (got {})",
            args.bots.len()
        ));
    }
    let mut a = BotSpec::parse(&args.bots[0]).map_err(|e| e.to_string())?;
    let mut b = BotSpec::parse(&args.bots[1]).map_err(|e| e.to_string())?;
    let mut names = funnel::BotNames::default();
    for spec in [&a, &b] {
        names.add(&spec.name, "--bot").map_err(|r| {
            if names.names().contains(&spec.name) {
                format!(
                    "both bots are named `{}`: give them different names",
                    spec.name
                )
            } else {
                format!("--bot: bot name {}", r.reason)
            }
        })?;
    }
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let resources = funnel::resources(
        &LimitSettings::from(&args.bot_limits),
        "--memory-mb and the other limits",
    )
    .map_err(|r| r.reason)?;
    let interpreters: Vec<PathBuf> = args.interpreters.iter().map(|d| here.join(d)).collect();
    // Both bots under the one --sandbox, decided once.
    let (sandboxes, warnings) =
        funnel::sandboxes([("--sandbox".to_string(), args.sandbox)]).map_err(|r| r.reason)?;
    for spec in [&mut a, &mut b] {
        funnel::command(
            &spec.command,
            &here,
            &Default::default(),
            &format!("bot `{}`", spec.name),
        )
        .map_err(|r| r.to_string())?;
        spec.resources = resources.clone();
        spec.sandbox = sandboxes[0];
        spec.interpreters = interpreters.clone();
    }
    let (time, inc) = match args.tc {
        Some((time, inc)) => (Some(time), inc),
        None => (args.time, args.inc),
    };
    let movetime = match (args.movetime.or(args.st), time) {
        (None, None) => Some(1000),
        (m, _) => m,
    };
    let time = funnel::time_control(
        &funnel::TimeInput {
            movetime_ms: movetime,
            time_ms: time,
            // --inc defaults to 0, which needs no clock.
            inc_ms: (inc != 0).then_some(inc),
            margin_ms: args.margin,
            clock: Some(args.clock),
            ceiling_ms: args.ceiling_ms,
        },
        None,
        &funnel::TimeKeys {
            whole: "--movetime".into(),
            movetime: if args.st.is_some() {
                "--st"
            } else {
                "--movetime"
            }
            .into(),
            time: if args.tc.is_some() { "--tc" } else { "--time" }.into(),
            inc: "--inc".into(),
            clock: "--clock".into(),
            ceiling: "--ceiling-ms".into(),
            cpu: "--clock cpu".into(),
            missing: "give --movetime, --time or both".into(),
        },
    )
    .map_err(|r| r.to_string())?;
    let games = args
        .games
        .unwrap_or(if args.sprt.is_some() { 20_000 } else { 2 });
    // `--games must be ...`, as clap words its own refusals of a count.
    funnel::games(FormatKind::Match, 2, games, "--games")
        .map_err(|r| format!("{} {}", r.key, r.reason))?;
    if args.sprt.is_some() && games % 2 == 1 {
        return Err("with --sprt, --games must be even: the test counts seat-swapped pairs".into());
    }
    let choice = match (&args.openings, args.opening_plies) {
        (_, Some(0)) => OpeningChoice::None,
        (_, Some(k)) => OpeningChoice::Plies(k),
        (Some(none), None) if none == "none" => OpeningChoice::None,
        (Some(file), None) => OpeningChoice::File {
            path: PathBuf::from(file),
            written: file.clone(),
            order: arena::settings::Order::Random,
            start: 1,
        },
        (None, None) => OpeningChoice::Default,
    };
    let openings = openings::resolve(&choice, &*game).map_err(|e| format!("--openings: {e}"))?;
    let adjudication = Adjudication {
        resign: rule("resign", &args.resign)?,
        draw: rule("draw", &args.draw)?,
    };
    let config = MatchConfig {
        openings,
        game: Arc::from(game),
        bots: [Arc::new(a), Arc::new(b)],
        games,
        seed: args.seed,
        time,
        ponder: args.ponder,
        limits: Limits {
            startup: Duration::from_millis(args.startup_ms),
            hide: vec![std::path::absolute(&args.out).unwrap_or_else(|_| args.out.clone())],
            transcript: args.transcript,
            ..Limits::default()
        },
        keep_bots: args.keep_bots,
        out: args.out.clone(),
        sprt: args.sprt,
        budget: arena_core::protocol::Budget {
            nodes: args.nodes,
            playouts: args.playouts,
            depth: args.depth,
        },
        adjudication,
    };
    Ok((config, warnings))
}

/// How often, in games, the running score lines are printed without a
/// terminal (`--score-every`).
pub const SCORE_EVERY: u64 = 10;

/// The running score of the first bot against the second as cutechess
/// prints it, over the games finished in this sitting: `Score of A vs B:
/// W - L - D  [score] N` and `Elo difference: x +/- y, LOS: z %,
/// DrawRatio: d %`, the Elo from the pentanomial counts of the complete
/// seat-swapped pairs (from the games' W-D-L until a pair is complete),
/// `+/-` half its interval at `z`.
fn score_lines(names: &[String; 2], games: &[rating::pairing::PairGame], z: f64) -> [String; 2] {
    let count = |p: f64| games.iter().filter(|g| g.points == p).count() as u64;
    let (w, d, l) = (count(1.0), count(0.5), count(0.0));
    let n = games.len() as u64;
    let points = w as f64 + 0.5 * d as f64;
    let stats = rating::pairing::PairingStats::of(games, z);
    let elo = if stats.pentanomial.pairs() > 0 {
        stats.elo
    } else {
        rating::sprt::elo_estimate_at(&[l, d, w], z)
    };
    let score = format!(
        "Score of {} vs {}: {w} - {l} - {d}  [{:.3}] {n}",
        escape(&names[0]),
        escape(&names[1]),
        if n > 0 { points / n as f64 } else { 0.5 }
    );
    let elo = match elo {
        Some(e) => format!(
            "Elo difference: {:.1} +/- {:.1}, LOS: {:.1} %, DrawRatio: {:.1} %",
            // + 0.0: no `-0.0`.
            e.elo + 0.0,
            (e.hi - e.lo) / 2.0,
            100.0 * e.los,
            100.0 * stats.draw_ratio.unwrap_or(0.0)
        ),
        None => "Elo difference: -".to_string(),
    };
    [score, elo]
}

/// `arena match`.
pub fn run(args: MatchArgs) -> Result<(), Error> {
    let (config, warnings) = match_config(&args).map_err(Error::Usage)?;
    let confidence = RatingOptions::check_confidence(args.confidence)
        .map_err(|e| Error::Usage(format!("--confidence {e}")))?;
    let z = rating::z_of(confidence);
    for w in &warnings {
        eprintln!("arena match: warning: {w}");
    }
    let run = MatchRun {
        concurrency: args.concurrency.map_or_else(super::cores, |n| n as usize),
        resume: args.resume,
        overwrite: args.overwrite,
        affinity: args.affinity,
        warnings,
        record_states: args.record_states as usize,
        dead_bot_stop: (args.on_bot_failure == arena::run::config::OnBotFailure::Stop)
            .then_some(arena::run::runner::DEAD_BOT_GAMES),
    };
    super::runtime()?.block_on(async {
        // Fail fast: both bots must start and answer `ready` before the
        // first game, or every game would be a forfeit.
        let check = args.on_bot_failure == arena::run::config::OnBotFailure::Stop;
        super::interruptible(async {
            for spec in config.bots.iter().filter(|_| check) {
                arena::referee::check_command(spec, &config.limits)
                    .await
                    .map_err(Error::usage)?;
            }
            Ok(())
        })
        .await?;
        let names = [config.bots[0].name.clone(), config.bots[1].name.clone()];
        let total = config.games;
        let quiet = args.quiet;
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let mut finished: Vec<rating::pairing::PairGame> = Vec::new();
        // Lines of the running score on the terminal, to be replaced.
        let mut shown = 0;
        let summary = matchplay::run_match_with(&config, &run, |record, _, sprt| {
            if shown > 0 {
                // Up over the score lines, and clear to the end.
                print!("\x1b[{shown}A\x1b[J");
                shown = 0;
            }
            if !quiet {
                print_game(record, total);
            }
            if let Some(test) = sprt {
                println!("sprt: {}", test.progress_line());
            }
            let seat = usize::from(record.seats[0].name != names[0]);
            finished.push(rating::pairing::PairGame {
                pair: record.pair,
                seat,
                points: record.result.points(seat),
            });
            let every = args.score_every;
            if terminal || (every > 0 && (finished.len() as u64).is_multiple_of(every)) {
                for line in score_lines(&names, &finished, z) {
                    println!("{line}");
                }
                shown = if terminal { 2 } else { 0 };
            }
        })
        .await?;
        let every = args.score_every;
        if !finished.is_empty()
            && !terminal
            && (every == 0 || !(finished.len() as u64).is_multiple_of(every))
        {
            for line in score_lines(&names, &finished, z) {
                println!("{line}");
            }
        }
        if summary.played_now < summary.games {
            println!(
                "{} games were already in {}; {} played now",
                summary.games - summary.played_now,
                config.out.display(),
                summary.played_now
            );
        }
        print_summary(&config, &names, &summary.tally);
        println!("{}", summary.distinct.line());
        let opts = RatingOptions {
            confidence,
            ..RatingOptions::default()
        };
        let written = arena::report::write_all(&config.out, &opts).map_err(Error::failed)?;
        print!("{}", written.summary());
        if let Some(test) = &summary.sprt {
            println!("sprt {}: {}", test.params(), test.progress_line());
        }
        Ok(())
    })
}

fn print_game(r: &GameRecord, total: u64) {
    let mut line = format!(
        "game {}/{} seed={} {} vs {}: {} {} plies={} scores={}-{} {:.2}s",
        r.index + 1,
        total,
        r.seed,
        escape(&r.seats[0].name),
        escape(&r.seats[1].name),
        r.result,
        r.reason,
        r.moves.len(),
        r.scores[0],
        r.scores[1],
        r.duration_ms as f64 / 1000.0,
    );
    if let Some(d) = &r.detail {
        line.push_str(&format!(" ({}", escape(d)));
        if let Some(s) = r.offender {
            line.push_str(&format!(", by {}", escape(&r.seats[s].name)));
        }
        line.push(')');
    }
    println!("{line}");
}

fn print_summary(config: &MatchConfig, names: &[String; 2], tally: &[Tally; 2]) {
    println!(
        "{} games of {} ({})",
        tally[0].games(),
        config.game.name(),
        config
            .game
            .params()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (name, t) in names.iter().zip(tally) {
        let pct = t.score_pct().unwrap_or(0.0);
        println!(
            "  {}: {}-{}-{} (W-D-L), score {}/{} = {pct:.1}%",
            escape(name),
            t.wins,
            t.draws,
            t.losses,
            t.points(),
            t.games()
        );
    }
    println!(
        "records: {} and {}",
        config.out.join(arena::store::GAMES_JSONL).display(),
        config.out.join(arena::store::GAMES_CSV).display()
    );
}
