//! Report writers: files from game records and ratings. The ratings CSVs
//! ([`ratings`]); reports people can look at: a self-contained HTML page
//! with standings, charts and a replay viewer ([`html`]), and boards drawn
//! as text for the terminal ([`text`]).
//!
//! The HTML and text reports only read game records and, when present, the
//! ratings CSV beside them. They know the games' state notations well
//! enough to draw them, but no rules and no processes.

pub mod html;
pub mod ratings;
pub mod summary;
pub mod text;

use std::io;
use std::path::Path;

use arena_core::record::GameRecord;

pub use html::write_html;

/// Reads a `games.jsonl` file: one [`GameRecord`] per line, blank lines
/// skipped. A bad line is an error naming the file and line; a FIFO or
/// device is refused without being read.
pub fn read_records(path: &Path) -> io::Result<Vec<GameRecord>> {
    use crate::store::{self, StoreError};
    match store::read_lines(path, store::Tail::Keep, false) {
        Ok(lines) => Ok(lines.into_iter().map(|l| l.record).collect()),
        Err(StoreError::Io { path, source }) => Err(io::Error::new(
            source.kind(),
            format!("{}: {source}", path.display()),
        )),
        Err(StoreError::Refused(m)) => Err(io::Error::new(io::ErrorKind::InvalidData, m)),
    }
}

/// What a finished run leaves beside its records: `ratings.csv`,
/// `crosstable.csv`, `los.csv` and `index.html` in `dir`, from
/// `dir/games.jsonl`. `arena match`, `arena tournament` and `arena merge`
/// end with it; `arena ratings` and `arena report` redo its parts with other
/// options.
pub fn write_all(dir: &Path, opts: &crate::rating::RatingOptions) -> Result<Written, String> {
    let records = read_records(&dir.join("games.jsonl")).map_err(|e| e.to_string())?;
    let standings = if records.is_empty() {
        None
    } else {
        Some(ratings::write_ratings_for_records(dir, &records, opts).map_err(|e| e.to_string())?)
    };
    let html = write_html(dir, &records).map_err(|e| e.to_string())?;
    // The ratings files are created with the default mode; a run's files are private.
    let names = [
        ratings::RATINGS_FILE,
        ratings::CROSSTABLE_FILE,
        ratings::LOS_FILE,
    ];
    crate::store::restrict_files(dir, &names).map_err(|e| e.to_string())?;
    Ok(Written { standings, html })
}

/// What [`write_all`] wrote.
pub struct Written {
    /// The ratings, when there was a game to rate.
    pub standings: Option<crate::rating::Standings>,
    /// The HTML report.
    pub html: std::path::PathBuf,
}

impl Written {
    /// The ratings table and where the report is, for the console.
    pub fn summary(&self) -> String {
        let mut text = self
            .standings
            .as_ref()
            .map(ratings::standings_table)
            .unwrap_or_default();
        text.push_str(&format!("report: {}\n", self.html.display()));
        text
    }
}
