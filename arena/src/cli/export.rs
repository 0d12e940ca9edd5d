//! `arena export`: a run's games for other rating tools (PGN for Ordo and
//! BayesElo, or the minimal results CSV).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Error;
use arena::report::export::{self, Format};

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    /// PGN tags (Event, Site, Date, Round PAIR.GAME, White = seat 0, Black,
    /// Result, Termination, PlyCount), a comment as movetext.
    Pgn,
    /// seat0,seat1,result,round,pair: what `arena ratings FILE.csv` reads.
    Csv,
}

#[derive(Args)]
pub struct ExportArgs {
    /// What to write.
    #[arg(long, value_enum)]
    format: FormatArg,
    /// A run directory, or a games.jsonl, games.csv or results file.
    input: PathBuf,
    /// The file to write (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `arena export`: read the games, write them in the asked format.
pub fn run(a: ExportArgs) -> Result<(), Error> {
    let format = match a.format {
        FormatArg::Pgn => Format::Pgn,
        FormatArg::Csv => Format::Csv,
    };
    let Some(path) = a.out else {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        export::export(&a.input, format, &mut lock).map_err(Error::failed)?;
        return lock.flush().map_err(Error::failed);
    };
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&path)
            .map_err(|e| Error::Failed(format!("{}: {e}", path.display())))?,
    );
    let n = export::export(&a.input, format, &mut file)
        .map_err(|e| Error::Failed(format!("{}: {e}", path.display())))?;
    eprintln!("arena export: wrote {n} games to {}", path.display());
    Ok(())
}
