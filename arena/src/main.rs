use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use arena::bot::{self, BotSpec, Limits};
use arena::display::escape;
use arena::games;
use arena::matchplay::{self, MatchConfig, MatchError, MatchRun, Tally};
use arena::rating::{self, RatingOptions};
use arena::record::GameRecord;
use arena::referee::TimeControl;
use arena::report::ratings as ratings_report;
use arena::tournament::TournamentError;

mod cli;

/// Referee and tournament harness for bot-versus-bot Dakon and Ludus latrunculorum.
#[derive(Parser)]
// Alone, `arena` prints the help to stderr and exits with 2, as clap tools do.
#[command(name = "arena", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play N games between two bots, seats alternating, and record them.
    Match(MatchArgs),
    /// Run a tournament from a TOML config; results go to reports/<name>/.
    Tournament(arena::cli_tournament::TournamentArgs),
    /// Combine the run directories of shards into one report.
    Merge(arena::cli_tournament::MergeArgs),
    /// Run a tournament on a Slurm cluster: an array job of N shards and a
    /// dependent job that merges them into reports/<name>/.
    Slurm(arena::slurm::SlurmArgs),
    /// Recompute ratings.csv, crosstable.csv and los.csv from a games file.
    Ratings(RatingsArgs),
    /// Writes DIR/index.html (standings, charts, replays) from DIR/games.jsonl
    /// and, when present, DIR/ratings.csv.
    Report(cli::report::ReportArgs),
    /// Draws a recorded position in the terminal.
    Show(cli::report::ShowArgs),
    /// Plays a game at the terminal, people against each other or against a bot.
    Play(cli::report::PlayArgs),
    /// Run a bot through the handshake, games and odd positions, and say
    /// in plain words what would make it forfeit (exit 1 if anything would).
    CheckBot(arena::checkbot::CheckBotArgs),
    /// A built-in bot that plays the first legal move at once (for
    /// benchmarks and tests; speaks the protocol on stdin/stdout).
    #[command(hide = true)]
    BotFirst,
    /// Measures engines, referee, tournaments and process starts on this
    /// machine, beside the pipe round trip and the targets.
    ///
    /// The instant bot of the referee, tournament and process-start sections
    /// is bots/c/first_legal.c (built into arena), compiled with $CC (default
    /// cc); without a C compiler it is `arena bot-first`, and the output says so.
    Bench(BenchArgs),
    /// The echo child of `arena bench`'s pipe floor: answers `go` with
    /// `move 3` (as pingpong.c's child).
    #[command(hide = true)]
    BenchEcho,
}

#[derive(Args)]
struct BenchArgs {
    /// Print one JSON object with every figure instead of the table.
    #[arg(long)]
    json: bool,
    /// Small samples (seconds instead of about a minute; noisier figures).
    #[arg(long)]
    quick: bool,
    /// Games of the tournament round robin at each concurrency, over 5 rounds
    /// [default: 1000; 40 in one round with --quick].
    #[arg(long)]
    games: Option<u32>,
    /// shared/bench/pingpong.c: compile it with $CC (default cc) and show its round trip
    /// and session figures beside arena's own.
    #[arg(long, value_name = "PATH")]
    pingpong: Option<PathBuf>,
}

#[derive(Args)]
struct MatchArgs {
    /// The game: dakon or latrunculi.
    #[arg(long)]
    game: String,
    /// A bot as NAME=COMMAND ARGS... (argv split on spaces, quotes group;
    /// no shell). Give exactly two.
    #[arg(long = "bot", value_name = "NAME=COMMAND")]
    bots: Vec<String>,
    /// A game parameter as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = games::parse_param)]
    params: Vec<(String, String)>,
    /// Number of games (seats alternate; games 2k and 2k+1 share a seed).
    /// With --sprt, the most games to play [default: 2, or 20000 with --sprt].
    #[arg(long)]
    games: Option<u64>,
    /// Sequential probability ratio test of the first bot against the second
    /// on game pairs (pentanomial model), e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05:
    /// the match stops when it accepts H0 or H1.
    #[arg(long, value_name = "elo0=..,elo1=..[,alpha=..,beta=..]")]
    sprt: Option<rating::SprtParams>,
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
          value_parser = arena::config::parse_tc)]
    tc: Option<(u64, u64)>,
    /// Limit per decision in seconds, e.g. 0.2. Instead of --movetime.
    #[arg(long, value_name = "SECS", conflicts_with = "movetime",
          value_parser = arena::config::parse_st)]
    st: Option<u64>,
    /// Overrun tolerated before a bot loses on time, in ms.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    margin: u64,
    /// Time a bot has to answer `arena 1` with `ready`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    startup_ms: u64,
    /// Operating-system limits applied to both bots (none by default).
    #[command(flatten)]
    bot_limits: bot::LimitSettings,
    /// How both bots are confined: auto (bubblewrap where it works, else
    /// none with a warning), bwrap (an error if it cannot be set up), or
    /// none (for bots you trust).
    #[arg(long, value_name = "KIND", default_value = "auto")]
    sandbox: bot::Sandbox,
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
    /// Output directory for games.jsonl, games.csv and logs/ (a run
    /// directory, as a tournament's: refused if it holds a run).
    #[arg(long, default_value = "reports/match")]
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

fn main() -> ExitCode {
    cli::pipe::install();
    let cli = Cli::parse();
    let runs_bots = matches!(
        cli.command,
        Command::Match(_)
            | Command::Tournament(_)
            | Command::CheckBot(_)
            | Command::Play(_)
            | Command::Bench(_)
    );
    if runs_bots {
        // Before any thread exists (see process::keeper).
        // `play` reads the terminal: it stays in the terminal's group.
        arena::process::keeper::install(matches!(cli.command, Command::Play(_)));
    }
    let code = run(cli);
    if runs_bots {
        arena::process::keeper::finish();
    }
    code
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::BotFirst => bot_first(),
        Command::BenchEcho => {
            arena::bench::echo_child();
            ExitCode::SUCCESS
        }
        Command::Bench(args) => bench(args),
        Command::Tournament(args) => arena::cli_tournament::tournament(args),
        Command::Merge(args) => arena::cli_tournament::merge(args),
        Command::Slurm(args) => arena::slurm::slurm(args),
        Command::Ratings(args) => ratings_command(args),
        Command::Report(args) => cli::report::report(args),
        Command::Show(args) => cli::report::show(args),
        Command::Play(args) => cli::report::play(args),
        Command::CheckBot(args) => arena::checkbot::main(args),
        Command::Match(args) => match run_match(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("arena match: {}", escape(&e.to_string()));
                ExitCode::from(match e {
                    MatchError::Config(_) => 2,
                    MatchError::Run(TournamentError::Interrupted { .. }) => 130,
                    MatchError::Run(_) => 1,
                })
            }
        },
    }
}

fn match_config(args: &MatchArgs) -> Result<MatchConfig, String> {
    let game = games::new_game(&args.game, &args.params).map_err(|e| e.to_string())?;
    if args.bots.len() != 2 {
        return Err(format!(
            "give exactly two --bot NAME=COMMAND options (got {})",
            args.bots.len()
        ));
    }
    let mut a = BotSpec::parse(&args.bots[0])?;
    let mut b = BotSpec::parse(&args.bots[1])?;
    for spec in [&a, &b] {
        arena::display::check_name(&spec.name).map_err(|why| format!("--bot: bot name {why}"))?;
    }
    let (sandbox, _) = arena::process::sandbox::resolve(args.sandbox)?;
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    for spec in [&mut a, &mut b] {
        spec.resources = args.bot_limits.resources()?;
        spec.sandbox = sandbox;
        let problem =
            arena::config::executable_problem(&spec.command[0], &here, &Default::default());
        if let Some(problem) = problem {
            return Err(format!("bot `{}`: {problem}", spec.name));
        }
    }
    if a.name == b.name {
        return Err(format!(
            "both bots are named `{}`: give them different names",
            a.name
        ));
    }
    let (time, inc) = match args.tc {
        Some((time, inc)) => (Some(time), inc),
        None => (args.time, args.inc),
    };
    let movetime = match (args.movetime.or(args.st), time) {
        (None, None) => Some(1000),
        (m, _) => m,
    };
    let games = args
        .games
        .unwrap_or(if args.sprt.is_some() { 20_000 } else { 2 });
    if games == 0 || games > arena::schedule::MAX_GAMES {
        return Err(format!(
            "--games must be from 1 to {} (got {games})",
            arena::schedule::MAX_GAMES
        ));
    }
    if args.sprt.is_some() && games % 2 == 1 {
        return Err("with --sprt, --games must be even: the test counts seat-swapped pairs".into());
    }
    if movetime == Some(0) || time == Some(0) {
        return Err("--movetime and --time must be positive".into());
    }
    Ok(MatchConfig {
        game: Arc::from(game),
        bots: [Arc::new(a), Arc::new(b)],
        games,
        seed: args.seed,
        time: TimeControl {
            movetime: movetime.map(Duration::from_millis),
            time: time.map(Duration::from_millis),
            inc: Duration::from_millis(inc),
            margin: Duration::from_millis(args.margin),
            ponder: args.ponder,
        },
        limits: Limits {
            startup: Duration::from_millis(args.startup_ms),
            hide: vec![std::path::absolute(&args.out).unwrap_or_else(|_| args.out.clone())],
            ..Limits::default()
        },
        keep_bots: args.keep_bots,
        out: args.out.clone(),
        sprt: args.sprt,
    })
}

fn run_match(args: MatchArgs) -> Result<(), MatchError> {
    let config = match_config(&args).map_err(MatchError::Config)?;
    let (_, warning) =
        arena::process::sandbox::resolve(args.sandbox).map_err(MatchError::Config)?;
    if let Some(w) = &warning {
        eprintln!("arena match: warning: {w}");
    }
    let run = MatchRun {
        concurrency: args.concurrency.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |n| n as usize,
        ),
        resume: args.resume,
        overwrite: args.overwrite,
        affinity: args.affinity,
        warnings: warning.into_iter().collect(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| MatchError::Config(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let names = [config.bots[0].name.clone(), config.bots[1].name.clone()];
        let total = config.games;
        let quiet = args.quiet;
        let summary = matchplay::run_match_with(&config, &run, |record, _, sprt| {
            if !quiet {
                print_game(record, total);
            }
            if let Some(test) = sprt {
                println!("sprt: {}", test.progress_line());
            }
        })
        .await?;
        if summary.played_now < summary.games {
            println!(
                "{} games were already in {}; {} played now",
                summary.games - summary.played_now,
                config.out.display(),
                summary.played_now
            );
        }
        print_summary(&config, &names, &summary.tally);
        let written = arena::report::write_all(&config.out, &RatingOptions::default())
            .map_err(|e| MatchError::Run(TournamentError::Refused(e)))?;
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
        let pct = if t.games() == 0 {
            0.0
        } else {
            100.0 * t.score() / t.games() as f64
        };
        println!(
            "  {}: {}-{}-{} (W-D-L), score {}/{} = {pct:.1}%",
            escape(name),
            t.wins,
            t.draws,
            t.losses,
            t.score(),
            t.games()
        );
    }
    println!(
        "records: {} and {}",
        config.out.join("games.jsonl").display(),
        config.out.join("games.csv").display()
    );
}

/// `arena bench`: runs every section, prints the table or the JSON.
fn bench(args: BenchArgs) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arena bench: cannot find the arena executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut opts = arena::bench::BenchOptions::new(exe, args.quick);
    if let Some(g) = args.games {
        opts.tournament_games = g;
    }
    opts.pingpong = args.pingpong;
    match arena::bench::run(&opts, |section| eprintln!("arena bench: {section}")) {
        Ok(report) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("figures serialize")
                );
            } else {
                print!("{report}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("arena bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The built-in instant bot: answers `go` with the first move of the last
/// `legal` line. Plain blocking I/O, a flush per answer.
fn bot_first() -> ExitCode {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    let mut first = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return ExitCode::SUCCESS,
            Ok(_) => {}
        }
        let text = line.trim_end();
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let reply = match word {
            "arena" => Some(format_args!("ready arena-first\n").to_string()),
            "legal" => {
                first.clear();
                first.push_str(rest.split(' ').next().unwrap_or(""));
                None
            }
            "go" => Some(format!("move {first}\n")),
            "quit" => return ExitCode::SUCCESS,
            _ => None,
        };
        if let Some(reply) = reply {
            if out
                .write_all(reply.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return ExitCode::SUCCESS;
            }
        }
    }
}

#[derive(Args)]
struct RatingsArgs {
    /// games.csv or games.jsonl, or a report directory holding one.
    input: PathBuf,
    /// Elo K factor.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_K)]
    k: f64,
    /// Starting rating of every system; Bradley-Terry ratings average to it.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_ANCHOR)]
    anchor: f64,
    /// Glicko RD growth per round.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_GLICKO_C)]
    glicko_c: f64,
    /// Glicko-2 volatility constraint.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_TAU)]
    tau: f64,
    /// Virtual draws per bot against the pool average (BayesElo-style
    /// shrinkage of the Bradley-Terry ratings towards the average; 0, the
    /// default, is the plain maximum-likelihood fit, Ordo's).
    #[arg(long, default_value_t = RatingOptions::DEFAULT_PRIOR_DRAWS)]
    prior_draws: f64,
    /// Where to write the CSVs (default: the report directory, or the games
    /// file's directory).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `arena ratings`: read games, rate, print the table, write the files.
fn ratings_command(a: RatingsArgs) -> ExitCode {
    let checks = [
        ("--k", a.k, a.k.is_finite() && a.k > 0.0),
        ("--anchor", a.anchor, a.anchor.is_finite()),
        (
            "--glicko-c",
            a.glicko_c,
            a.glicko_c.is_finite() && a.glicko_c >= 0.0,
        ),
        ("--tau", a.tau, a.tau.is_finite() && a.tau > 0.0),
        (
            "--prior-draws",
            a.prior_draws,
            a.prior_draws.is_finite() && a.prior_draws >= 0.0,
        ),
    ];
    for (flag, value, ok) in checks {
        if !ok {
            eprintln!("arena ratings: {flag} {value} is out of range");
            return ExitCode::from(2);
        }
    }
    let file = match ratings_report::games_file(&a.input) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("arena ratings: {}", escape(&e.to_string()));
            return ExitCode::FAILURE;
        }
    };
    let games = match ratings_report::load_games(&file) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("arena ratings: {}", escape(&e.to_string()));
            return ExitCode::FAILURE;
        }
    };
    if games.is_empty() {
        eprintln!("arena ratings: {}: no games", file.display());
        return ExitCode::FAILURE;
    }
    let mut indices: Vec<u64> = games.iter().map(|g| g.index).collect();
    indices.sort_unstable();
    let dups = indices.windows(2).filter(|w| w[0] == w[1]).count();
    if dups > 0 {
        eprintln!(
            "arena ratings: warning: {}: {dups} games share an index with another \
             (merged twice?); they are rated in file order",
            file.display()
        );
    }
    let opts = RatingOptions {
        k: a.k,
        anchor: a.anchor,
        glicko_c: a.glicko_c,
        glicko2_tau: a.tau,
        prior_draws: a.prior_draws,
    };
    let standings = rating::compute(&games, &opts);
    print!("{}", ratings_report::standings_table(&standings));
    let out = a.out.unwrap_or_else(|| {
        if a.input.is_dir() {
            a.input.clone()
        } else {
            file.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from)
        }
    });
    match ratings_report::write_ratings_files(&out, &standings) {
        Ok(paths) => {
            for p in paths {
                println!("wrote {}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("arena ratings: {e}");
            ExitCode::FAILURE
        }
    }
}
