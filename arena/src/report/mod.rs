//! Report writers: files from game records and ratings. The ratings CSVs
//! ([`ratings`]); reports people can look at: a self-contained HTML page
//! with standings, charts and a replay viewer ([`html`], from the numbers
//! of [`summary`]), and games drawn as text for the terminal ([`text`]).
//!
//! The reports read game records and ratings, never the rules: boards are
//! drawn by the drawers the game registry names. Files are read and written
//! through [`crate::store`].

pub mod course;
pub mod export;
pub mod html;
pub mod ratings;
pub mod summary;
pub mod text;

use std::path::Path;

use crate::rating::{self, RatingOptions};
use crate::store::{self, StoreError};

pub use html::write_html;

/// What a finished run leaves beside its records: `ratings.csv`,
/// `crosstable.csv`, `los.csv`, `index.html` and `replays/` in `dir`, from
/// `dir/games.jsonl`, read one record at a time (memory grows with the
/// bots and, for the rating fit, by 48 bytes a game). `arena match`, `arena tournament` and `arena merge`
/// end with it; `arena ratings` and `arena report` redo its parts with other
/// options. The page draws the ratings just computed.
pub fn write_all(dir: &Path, opts: &RatingOptions) -> Result<Written, ReportError> {
    let pool = ratings::load_pool(&dir.join(store::GAMES_JSONL))?;
    let ratings = if pool.games.is_empty() && pool.self_play == 0 {
        None
    } else {
        let r = rating::compute_pool(&pool, opts);
        ratings::write_ratings_files(dir, &r)?;
        Some(r)
    };
    drop(pool);
    let rows = ratings.as_ref().map(ratings::rows);
    let html = write_html(dir, rows.as_deref(), &[])?;
    Ok(Written { ratings, html })
}

/// Why the report of a run could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file of the run could not be read or written, or was refused.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The ratings files could not be written.
    #[error(transparent)]
    Ratings(#[from] ratings::WriteError),
    /// The games could not be read for the ratings.
    #[error(transparent)]
    Load(#[from] store::LoadError),
}

/// What [`write_all`] wrote.
pub struct Written {
    /// The ratings, when there was a game to rate.
    pub ratings: Option<rating::Ratings>,
    /// The HTML report.
    pub html: std::path::PathBuf,
}

impl Written {
    /// The ratings table and where the report is, for the console.
    pub fn summary(&self) -> String {
        let mut text = self
            .ratings
            .as_ref()
            .map(ratings::standings_table)
            .unwrap_or_default();
        text.push_str(&format!("report: {}\n", self.html.display()));
        text
    }
}
