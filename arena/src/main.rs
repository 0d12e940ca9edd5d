use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use arena::rating::{self, RatingOptions};
use arena::report::ratings as ratings_report;

/// Referee and tournament harness for bot-versus-bot Dakon and Ludus latrunculorum.
#[derive(Parser)]
#[command(name = "arena", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Recompute ratings.csv, crosstable.csv and los.csv from a games file.
    Ratings(RatingsArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(Command::Ratings(args)) => ratings_command(args),
        None => {
            let names: Vec<&str> = arena::games::GAMES.iter().map(|(n, _)| *n).collect();
            println!("games: {}", names.join(", "));
            ExitCode::SUCCESS
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
    /// Bootstrap resamples for the Bradley-Terry intervals and LOS (0: none).
    #[arg(long, default_value_t = RatingOptions::DEFAULT_BOOTSTRAP)]
    bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_SEED)]
    seed: u64,
    /// Glicko RD growth per round.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_GLICKO_C)]
    glicko_c: f64,
    /// Glicko-2 volatility constraint.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_TAU)]
    tau: f64,
    /// Virtual draws per bot against the pool average (Bradley-Terry prior;
    /// 0 gives the plain maximum-likelihood fit, infinite for perfect scores).
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
            eprintln!("arena ratings: {e}");
            return ExitCode::FAILURE;
        }
    };
    let games = match ratings_report::load_games(&file) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("arena ratings: {e}");
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
        bootstrap: a.bootstrap,
        seed: a.seed,
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
