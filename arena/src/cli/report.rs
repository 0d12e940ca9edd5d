//! `arena report DIR`: the HTML report of a run directory.

use std::path::PathBuf;

use super::Error;

/// Writes DIR/index.html (standings, charts, the games listed and their
/// replays) and DIR/replays/ (every game's replay, loaded by the page when
/// opened) from DIR/games.jsonl and, when present, DIR/ratings.csv.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// A report directory holding games.jsonl.
    pub dir: PathBuf,
    /// Games (by index) whose replays the page embeds besides the ones it
    /// picks (the last games of each pairing, forfeits), e.g. `--games 12,57`.
    #[arg(long, value_delimiter = ',', value_name = "K,K...")]
    pub games: Vec<u64>,
}

/// `arena report DIR`
pub fn run(args: ReportArgs) -> Result<(), Error> {
    let dir = args.dir.as_path();
    use arena::store;
    let ratings = store::read_ratings(dir).map_err(Error::failed)?;
    let path =
        arena::report::write_html(dir, ratings.as_deref(), &args.games).map_err(Error::failed)?;
    println!("{}", path.display());
    if ratings.is_none() {
        eprintln!(
            "note: no ratings.csv in {0}: the page shows score % instead of ratings \
             (`arena ratings {0}` computes them)",
            dir.display()
        );
    }
    Ok(())
}
