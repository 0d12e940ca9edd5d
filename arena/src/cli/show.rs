//! `arena show`: a recorded position drawn in the terminal.

use std::path::{Path, PathBuf};

use super::Error;

/// Draws a recorded position in the terminal.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// A games.jsonl file, or a report directory holding one.
    pub file: PathBuf,
    /// The game's index (its position in the schedule, as in games.csv;
    /// default: the first game in the file).
    #[arg(long, value_name = "K")]
    pub index: Option<u64>,
    /// The old spelling of --index (elsewhere --game names the game, e.g.
    /// dakon); accepted with a warning.
    #[arg(long, value_name = "K", hide = true, conflicts_with = "index")]
    pub game: Option<u64>,
    /// Show the position after this many plies (default: the final position).
    #[arg(long)]
    pub ply: Option<usize>,
}

/// `arena show FILE|DIR [--index K] [--ply P]`
pub fn run(args: ShowArgs) -> Result<(), Error> {
    if let Some(k) = args.game {
        eprintln!(
            "arena show: warning: --game {k} is now --index {k} (the game's index; \
             elsewhere --game names the game); --game will stop working"
        );
    }
    show_position(&args.file, args.index.or(args.game), args.ply).map_err(Error::Failed)
}

/// The games.jsonl of `path`: the file itself, or the one in a report
/// directory.
fn jsonl_of(path: &Path) -> Result<PathBuf, String> {
    if path.is_dir() {
        let file = path.join(arena::store::GAMES_JSONL);
        return if file.is_file() {
            Ok(file)
        } else {
            Err(format!(
                "{}: no games.jsonl in this directory (give a report directory or a games.jsonl file)",
                path.display()
            ))
        };
    }
    if path.extension().is_some_and(|e| e == "csv") {
        return Err(format!(
            "{}: games.csv holds no moves; give games.jsonl or the report directory",
            path.display()
        ));
    }
    Ok(path.to_path_buf())
}

fn show_position(path: &Path, game: Option<u64>, ply: Option<usize>) -> Result<(), String> {
    let file = &jsonl_of(path)?;
    // One record at a time: only the one asked for is kept.
    let (mut count, mut first, mut last) = (0u64, None, None);
    let mut found = None;
    for line in arena::store::games_in(file).map_err(|e| e.to_string())? {
        let r = line.map_err(|e| e.to_string())?.record;
        count += 1;
        first.get_or_insert(r.index);
        last = Some(r.index);
        if game.is_none_or(|k| k == r.index) {
            found = Some(r);
            break;
        }
    }
    let Some(record) = found else {
        return Err(match (game, first, last) {
            (Some(k), Some(first), Some(last)) => format!(
                "{}: no game with index {k} (the file has {count} games, indices {first}..={last})",
                file.display(),
            ),
            _ => format!("{}: no games in the file", file.display()),
        });
    };
    let plies = record.moves.len();
    let ply = ply.unwrap_or(plies);
    if ply > plies {
        return Err(format!(
            "{}: game {} has {plies} plies; --ply must be 0..={plies}",
            file.display(),
            record.index
        ));
    }
    print!("{}", arena::report::text::render_game(&record, ply));
    Ok(())
}
