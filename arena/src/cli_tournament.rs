//! The `arena tournament` and `arena merge` commands: argument parsing and
//! wiring (config -> builds -> referee player -> runner -> standings). Kept
//! out of `main.rs` so that main only lists the commands.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::process::{BotSpec, Limits};
use crate::rating::RatingOptions;
use crate::run::config::{self, Config};
use crate::run::schedule::Shard;
use crate::run::{self, ProgressMode, RefereePlayer, RunOptions, TournamentError};

/// `arena tournament CONFIG`.
#[derive(clap::Args, Debug)]
pub struct TournamentArgs {
    /// Tournament configs (TOML), e.g. tournaments/demo-dakon.toml; several
    /// are run one after the other.
    #[arg(required = true)]
    pub configs: Vec<PathBuf>,
    /// Output directory [default: reports/<name>, or
    /// reports/<name>/shard-K-of-N with --shard]; only with one config.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overrides the config's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games played at once [default: the config's `concurrency`, else the number of cores].
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Finish an interrupted run in --out: play only the missing games.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,
    /// Replace the run already in --out (removes only the files its manifest lists).
    #[arg(long)]
    pub overwrite: bool,
    /// Play only shard K of N (K from 1): the games whose pair id is K-1 modulo N.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// No progress output (the final standings are still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Skip the bots' `build` commands (their executables must already exist).
    #[arg(long)]
    pub no_build: bool,
    /// Pin each concurrent game (its bots and its referee thread) to a CPU
    /// of its own (round robin over the CPUs arena may use).
    #[arg(long)]
    pub affinity: bool,
}

/// `arena merge DIR...`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Run directories of the shards (each with tournament.json and games.jsonl).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged report goes [default: reports/<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `arena tournament`; prints errors and returns the exit code.
pub fn tournament(args: TournamentArgs) -> ExitCode {
    if args.out.is_some() && args.configs.len() > 1 {
        eprintln!(
            "arena tournament: --out needs a single config (each config writes to reports/<name>)"
        );
        return ExitCode::from(2);
    }
    // Check every config before running any.
    for path in &args.configs {
        if let Err(e) = Config::load(path) {
            eprintln!("arena tournament: {e}");
            return ExitCode::from(2);
        }
    }
    for (i, path) in args.configs.iter().enumerate() {
        if i > 0 {
            println!();
        }
        let code = tournament_one(&args, path);
        if code != ExitCode::SUCCESS {
            return code;
        }
    }
    ExitCode::SUCCESS
}

fn tournament_one(args: &TournamentArgs, path: &Path) -> ExitCode {
    match run_tournament(args, path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Config(e)) => {
            eprintln!("arena tournament: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Run(e @ TournamentError::Interrupted { .. })) => {
            eprintln!("arena tournament: {e}");
            ExitCode::from(130)
        }
        Err(Failure::Run(e)) => {
            eprintln!("arena tournament: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Report(e)) => {
            eprintln!("arena tournament: every game is recorded, but the report failed: {e}");
            ExitCode::from(1)
        }
    }
}

enum Failure {
    Config(config::ConfigError),
    Run(TournamentError),
    /// The games are all recorded, but the ratings or the HTML report could not be written.
    Report(String),
}

fn run_tournament(args: &TournamentArgs, path: &Path) -> Result<(), Failure> {
    let mut config = Config::load(path).map_err(Failure::Config)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if args.concurrency == Some(0) {
        return Err(Failure::Config(config::ConfigError {
            file: path.to_path_buf(),
            key: "--concurrency".into(),
            reason: "must be at least 1".into(),
        }));
    }
    if args.no_build {
        config.check_bots()
    } else {
        config.run_builds(args.quiet)
    }
    .map_err(Failure::Config)?;
    // After the builds, which run unsandboxed as they always did.
    let (sandboxes, warnings) = config.sandboxes().map_err(Failure::Config)?;
    for w in &warnings {
        eprintln!("arena tournament: warning: {w}");
    }

    let game = arena_core::games::new_game(&config.game, &config.params)
        .expect("validated when the config was loaded");
    let out = args.out.clone().unwrap_or_else(|| {
        let base = Path::new("reports").join(&config.name);
        match args.shard {
            Some(s) => base.join(format!("shard-{}-of-{}", s.k, s.n)),
            None => base,
        }
    });
    let concurrency = args
        .concurrency
        .or(config.concurrency)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let player = RefereePlayer {
        game: Arc::from(game),
        bots: config
            .bots
            .iter()
            .zip(&sandboxes)
            .map(|(b, &sandbox)| {
                let mut command = b.command.clone();
                if command[0].contains('/') {
                    // Relative to the bot's cwd, made absolute: how a
                    // relative program path combines with a child's cwd is
                    // platform-specific.
                    command[0] = b.cwd.join(&command[0]).display().to_string();
                }
                Arc::new(BotSpec {
                    name: b.name.clone(),
                    command,
                    cwd: Some(b.cwd.clone()),
                    env: b.env.clone().into_iter().collect(),
                    resources: b.limits.resources().expect("validated with the config"),
                    sandbox,
                })
            })
            .collect(),
        commands: config.bots.iter().map(|b| b.command.clone()).collect(),
        keep: config.bots.iter().map(|b| b.keep).collect(),
        time: config.time_control,
        ponder: config.ponder,
        limits: Limits {
            // A sandboxed bot whose program directory holds the run
            // directory (reports/ in a checkout) must not see it.
            hide: vec![std::path::absolute(&out).unwrap_or_else(|_| out.clone())],
            ..Limits::default()
        },
        opening_plies: config.random_opening_plies,
        run_dir: out.clone(),
        kept: Default::default(),
    };
    let opts = RunOptions {
        out: out.clone(),
        concurrency,
        resume: args.resume,
        overwrite: args.overwrite,
        shard: args.shard,
        progress: if args.quiet {
            ProgressMode::Quiet
        } else {
            ProgressMode::Auto
        },
        affinity: args.affinity,
        warnings,
    };
    let normalized = config.normalized();
    // Games run on threads of their own (`lanes::Lanes`); this thread
    // only schedules them and collects the records.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the tokio runtime starts");
    let summary = runtime
        .block_on(run::run(&normalized, Arc::new(player), &opts))
        .map_err(Failure::Run)?;
    println!();
    println!(
        "{}: {} games{}{}",
        config.name,
        summary.games,
        args.shard
            .map(|s| format!(" (shard {s})"))
            .unwrap_or_default(),
        if summary.played_now < summary.games {
            format!(", {} played now, the rest resumed", summary.played_now)
        } else {
            String::new()
        }
    );
    // A shard's games are a slice of the schedule: points only; the
    // ratings (one standings table) come with the whole set of games.
    if args.shard.is_some() {
        print!("{}", summary.standings.table());
    }
    println!(
        "reports: {} ({}, {})",
        summary.dir.display(),
        crate::store::GAMES_JSONL,
        crate::store::GAMES_CSV
    );
    if args.shard.is_none() {
        let written = crate::report::write_all(&summary.dir, &RatingOptions::default())
            .map_err(|e| Failure::Report(e.to_string()))?;
        print!("{}", written.summary());
        print!("{}", summary.standings.forfeits_line());
    }
    Ok(())
}

/// Runs `arena merge`; prints errors and returns the exit code.
pub fn merge(args: MergeArgs) -> ExitCode {
    match run::merge::merge(&args.dirs, args.out.as_deref()) {
        Ok(s) => {
            println!("merged {} games from {} runs", s.games, args.dirs.len());
            println!(
                "reports: {} ({}, {})",
                s.dir.display(),
                crate::store::GAMES_JSONL,
                crate::store::GAMES_CSV
            );
            match crate::report::write_all(&s.dir, &RatingOptions::default()) {
                Ok(written) => {
                    print!("{}", written.summary());
                    print!("{}", s.standings.forfeits_line());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("arena merge: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Err(e) => {
            eprintln!("arena merge: {e}");
            ExitCode::from(1)
        }
    }
}
