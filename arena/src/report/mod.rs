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

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use crate::record::GameRecord;

pub use html::write_html;

/// Reads a `games.jsonl` file: one [`GameRecord`] per line, blank lines
/// skipped. A bad line is an error naming the file and line.
pub fn read_records(path: &Path) -> io::Result<Vec<GameRecord>> {
    let file = File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let mut records = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let record: GameRecord = serde_json::from_str(&line).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}:{}: not a game record: {e}", path.display(), i + 1),
            )
        })?;
        records.push(record);
    }
    Ok(records)
}
