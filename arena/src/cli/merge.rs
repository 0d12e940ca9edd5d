//! `arena merge DIR...`: the runs of a config's shards made into one.

use std::path::PathBuf;

use clap::Args;

use super::Error;
use arena::rating::RatingOptions;
use arena::store;

/// `arena merge DIR...`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Run directories of the shards (each with tournament.json and games.jsonl).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged report goes [default: reports/<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `arena merge`.
pub fn run(args: MergeArgs) -> Result<(), Error> {
    let s = arena::run::merge::merge(&args.dirs, args.out.as_deref()).map_err(Error::failed)?;
    println!("merged {} games from {} runs", s.games, args.dirs.len());
    super::tournament::print_sprt(&s.dir, &s.sprt);
    println!(
        "reports: {} ({}, {})",
        s.dir.display(),
        store::GAMES_JSONL,
        store::GAMES_CSV
    );
    // As the shards' config asks (its `anchor` and `confidence`), else the defaults.
    let opts = match &s.ratings {
        Some(r) => RatingOptions {
            anchor: r.anchor,
            anchor_bot: r.anchor_bot.clone(),
            confidence: r.confidence,
            ..RatingOptions::default()
        },
        None => RatingOptions::default(),
    };
    let written = arena::report::write_all(&s.dir, &opts).map_err(Error::failed)?;
    print!("{}", written.summary());
    print!("{}", s.standings.forfeits_line());
    Ok(())
}
