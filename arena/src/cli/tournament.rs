//! `arena tournament CONFIG...`: a tournament from its config, into
//! `reports/<name>/` (or a shard of it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use super::Error;
use arena::display::escape;
use arena::run::config::{Config, ConfigError};
use arena::run::{self, ProgressMode, RefereePlayer, RunOptions};
use arena::settings::Shard;
use arena::store;

/// `arena tournament CONFIG`.
#[derive(Args, Debug)]
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
    /// Play only shard K of N (K from 1): the games whose pair id is K-1 modulo N
    /// (a gauntlet with `sprt`: every game of every N-th challenger from the K-th).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// No progress output (the final standings are still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Skip the bots' `build` commands (their executables must already exist).
    #[arg(long)]
    pub no_build: bool,
    /// Keep each game's conversation with each bot, both ways and timed, in
    /// logs/ (as `transcript = true` in the config).
    #[arg(long)]
    pub transcript: bool,
    /// The level of every interval of the ratings [default: the config's
    /// `confidence`, else 0.95].
    #[arg(long)]
    pub confidence: Option<f64>,
    /// Pin each concurrent game (its bots and its referee thread) to a CPU
    /// of its own (round robin over the CPUs arena may use).
    #[arg(long)]
    pub affinity: bool,
}

/// Runs `arena tournament`: checks every config first, then runs them one
/// after the other.
pub fn run(args: TournamentArgs) -> Result<(), Error> {
    if args.out.is_some() && args.configs.len() > 1 {
        return Err(Error::Usage(
            "--out needs a single config (each config writes to reports/<name>)".into(),
        ));
    }
    for path in &args.configs {
        Config::load(path).map_err(Error::usage)?;
    }
    for (i, path) in args.configs.iter().enumerate() {
        if i > 0 {
            println!();
        }
        run_one(&args, path)?;
    }
    Ok(())
}

fn run_one(args: &TournamentArgs, path: &Path) -> Result<(), Error> {
    let mut config = Config::load(path).map_err(Error::usage)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    config.transcript |= args.transcript;
    if let Some(level) = args.confidence {
        config.confidence = arena::rating::RatingOptions::check_confidence(level)
            .map_err(|e| Error::Usage(format!("--confidence {e}")))?;
    }
    if args.concurrency == Some(0) {
        return Err(Error::usage(ConfigError {
            file: path.to_path_buf(),
            key: "--concurrency".into(),
            reason: "must be at least 1".into(),
        }));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let base = arena::store::default_run_dir(&config.name);
        match args.shard {
            Some(s) => base.join(arena::store::shard_dir_name(s.k, s.n)),
            None => base,
        }
    });
    // A sandboxed build does not see the run directory, even when it lies
    // in its program directory (as reports/ does in the demo).
    if args.no_build {
        config.check_bots()
    } else {
        config.run_builds(args.quiet, std::slice::from_ref(&out))
    }
    .map_err(Error::usage)?;
    let (sandboxes, warnings) = config.sandboxes().map_err(Error::usage)?;
    for w in &warnings {
        eprintln!("arena tournament: warning: {w}");
    }
    let player = RefereePlayer::for_config(&config, &sandboxes, &out);
    // Fail fast: every bot must start and answer `ready` before the first
    // game, or the run would be played as forfeits.
    let check = config.on_bot_failure == arena::run::config::OnBotFailure::Stop;
    super::runtime()?.block_on(super::interruptible(async {
        for spec in player.bots.iter().filter(|_| check) {
            arena::referee::check_command(spec, &player.limits)
                .await
                .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
        }
        Ok(())
    }))?;
    let opts = RunOptions {
        out: out.clone(),
        concurrency: args
            .concurrency
            .or(config.concurrency)
            .unwrap_or_else(super::cores),
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
        record_states: config.record_states as usize,
        dead_bot_stop: check.then_some(run::DEAD_BOT_GAMES),
        programs: run::conditions::bot_files(&player.bots),
        ratings: Some({
            let o = config.rating_options();
            arena::store::RatingSettings {
                anchor: o.anchor,
                anchor_bot: o.anchor_bot,
                confidence: o.confidence,
            }
        }),
    };
    // Games run on threads of their own (`lanes::Lanes`); this thread
    // only schedules them and collects the records.
    let summary =
        super::runtime()?.block_on(run::run(&config.normalized(), Arc::new(player), &opts))?;
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
    println!("{}", summary.distinct.line());
    print_sprt(&summary.dir, &summary.sprt);
    println!(
        "reports: {} ({}, {})",
        summary.dir.display(),
        store::GAMES_JSONL,
        store::GAMES_CSV
    );
    if args.shard.is_none() {
        let written =
            arena::report::write_all(&summary.dir, &config.rating_options()).map_err(|e| {
                Error::Failed(format!(
                    "every game is recorded, but the report failed: {e}"
                ))
            })?;
        print!("{}", written.summary());
        print!("{}", summary.standings.forfeits_line());
    }
    Ok(())
}

/// A gauntlet's tests, one line each, from the challenger's side (W-D-L
/// and Elo are the challenger's against the champion), and where
/// `sprt.csv` is.
pub(super) fn print_sprt(dir: &Path, tests: &[arena::run::runner::PairingTest]) {
    for t in tests {
        println!(
            "sprt {} vs {}: {}",
            escape(&t.challenger),
            escape(&t.champion),
            t.sprt.progress_line()
        );
    }
    if let Some(t) = tests.first() {
        println!(
            "sprt {}: {}",
            t.sprt.params(),
            dir.join(store::SPRT_CSV).display()
        );
    }
}
