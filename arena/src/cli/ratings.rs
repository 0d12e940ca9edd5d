//! `arena ratings`: ratings.csv, crosstable.csv and los.csv from a games
//! file, and the standings table.

use std::path::PathBuf;

use clap::Args;

use super::Error;
use arena::rating::{self, RatingOptions};
use arena::report::ratings as ratings_report;
use arena::store;

#[derive(Args)]
pub struct RatingsArgs {
    /// games.csv or games.jsonl, or a report directory holding one.
    input: PathBuf,
    /// Elo K factor.
    #[arg(long, default_value_t = RatingOptions::DEFAULT_K)]
    k: f64,
    /// Where the scale sits. A number: the Bradley-Terry main group
    /// averages it (Ordo's -a), and every system starts every bot there.
    /// BOT or BOT=ELO: that bot's Bradley-Terry rating is ELO (default
    /// 1500; Ordo's -A), a shift of the whole scale.
    #[arg(long, default_value = "1500", value_name = "ELO|BOT[=ELO]")]
    anchor: String,
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
    /// The level of every interval (Bradley-Terry, seat advantage,
    /// pairings).
    #[arg(long, default_value_t = RatingOptions::DEFAULT_CONFIDENCE)]
    confidence: f64,
    /// Where to write the CSVs (default: the report directory, or the games
    /// file's directory).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `arena ratings`: read games, rate, print the table, write the files.
pub fn run(a: RatingsArgs) -> Result<(), Error> {
    let checks = [
        ("--k", a.k, a.k.is_finite() && a.k > 0.0),
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
            return Err(Error::Usage(format!("{flag} {value} is out of range")));
        }
    }
    RatingOptions::check_confidence(a.confidence)
        .map_err(|e| Error::Usage(format!("--confidence {e}")))?;
    let (anchor, anchor_bot) = RatingOptions::parse_anchor(&a.anchor)
        .map_err(|e| Error::Usage(format!("--anchor {}: {e}", a.anchor)))?;
    let file = store::games_file(&a.input).map_err(Error::failed)?;
    if let Some(columns) = store::results_columns(&file).map_err(Error::failed)? {
        eprintln!(
            "arena ratings: {}: {}",
            file.display(),
            results_file_note(&columns)
        );
    }
    let pool = ratings_report::load_pool(&file).map_err(Error::failed)?;
    if pool.games.is_empty() && pool.self_play == 0 {
        return Err(Error::Failed(format!("{}: no games", file.display())));
    }
    // The pool's games are in index order.
    let dups = pool
        .games
        .windows(2)
        .filter(|w| w[0].index == w[1].index)
        .count();
    if dups > 0 {
        eprintln!(
            "arena ratings: warning: {}: {dups} games share an index with another \
             (merged twice?); they are rated in file order",
            file.display()
        );
    }
    if let Some(bot) = anchor_bot.as_ref().filter(|b| !pool.names.contains(b)) {
        return Err(Error::Usage(format!(
            "--anchor {}: {}: no bot named `{}` (bots: {})",
            a.anchor,
            file.display(),
            arena::display::escape(bot),
            pool.names
                .iter()
                .map(|n| arena::display::escape(n).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let opts = RatingOptions {
        k: a.k,
        anchor,
        anchor_bot,
        glicko_c: a.glicko_c,
        glicko2_tau: a.tau,
        prior_draws: a.prior_draws,
        confidence: a.confidence,
    };
    let ratings = rating::compute_pool(&pool, &opts);
    print!("{}", ratings_report::standings_table(&ratings));
    let out = a.out.unwrap_or_else(|| {
        if a.input.is_dir() {
            a.input.clone()
        } else {
            file.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from)
        }
    });
    for p in ratings_report::write_ratings_files(&out, &ratings).map_err(Error::failed)? {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// What `arena ratings` read of a results file from elsewhere, and what
/// follows from the columns it lacks.
fn results_file_note(c: &store::ResultColumns) -> String {
    let used = c.used();
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let mut note = format!(
        "results file (seat0, seat1, result); optional columns used: {}",
        list(&used)
    );
    if !used.contains(&"round") {
        note += "; no round: all games are one Glicko rating period";
    }
    if !c.paired() {
        note += "; no pair or opening: every game is a pair of its own";
    }
    if !c.ignored.is_empty() {
        let ignored: Vec<String> = c
            .ignored
            .iter()
            .map(|h| format!("`{}`", arena::display::escape(h)))
            .collect();
        note += &format!("; ignored: {}", ignored.join(", "));
    }
    note
}
