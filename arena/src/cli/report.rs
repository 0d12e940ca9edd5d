//! `arena report DIR`: the HTML report of a run directory.

use std::path::PathBuf;

use super::Error;

/// Writes DIR/index.html (standings, charts, replays) from DIR/games.jsonl
/// and, when present, DIR/ratings.csv.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// A report directory holding games.jsonl.
    pub dir: PathBuf,
}

/// `arena report DIR`
pub fn run(args: ReportArgs) -> Result<(), Error> {
    let dir = args.dir.as_path();
    use arena::store;
    let records = store::read_games_file(&dir.join(store::GAMES_JSONL)).map_err(Error::failed)?;
    let ratings = store::read_ratings(dir).map_err(Error::failed)?;
    let path =
        arena::report::write_html(dir, &records, ratings.as_deref()).map_err(Error::failed)?;
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
