use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Referee and tournament harness for bot-versus-bot Dakon and Ludus latrunculorum.
#[derive(Parser)]
#[command(name = "arena", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Writes DIR/index.html (standings, charts, replays) from DIR/games.jsonl
    /// and, when present, DIR/ratings.csv.
    Report {
        /// A report directory holding games.jsonl.
        dir: PathBuf,
    },
    /// Draws a recorded position in the terminal.
    Show {
        /// A games.jsonl file.
        file: PathBuf,
        /// The game's index (default: the first game in the file).
        #[arg(long)]
        game: Option<u64>,
        /// Show the position after this many plies (default: the final position).
        #[arg(long)]
        ply: Option<usize>,
    },
    /// Plays a game at the terminal.
    Play {
        /// The game's name, e.g. dakon.
        #[arg(long)]
        game: String,
        /// A person plays (both seats when no --bot is given).
        #[arg(long)]
        human: bool,
        /// A game parameter as key=value (repeatable).
        #[arg(long = "param", value_parser = arena::games::parse_param)]
        params: Vec<(String, String)>,
        /// A bot opponent as 'NAME=COMMAND ...' (not available yet).
        #[arg(long)]
        bot: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => {
            let names: Vec<&str> = arena::games::GAMES.iter().map(|(n, _)| *n).collect();
            println!("games: {}", names.join(", "));
            Ok(())
        }
        Some(Command::Report { dir }) => cmd_report(&dir),
        Some(Command::Show { file, game, ply }) => cmd_show(&file, game, ply),
        Some(Command::Play {
            game,
            human,
            params,
            bot,
        }) => cmd_play(&game, human, &params, &bot),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("arena: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `arena report DIR`
fn cmd_report(dir: &Path) -> Result<(), String> {
    let jsonl = dir.join("games.jsonl");
    let records = arena::report::read_records(&jsonl).map_err(|e| e.to_string())?;
    let path = arena::report::write_html(dir, &records).map_err(|e| e.to_string())?;
    println!("{}", path.display());
    Ok(())
}

/// `arena show FILE [--game K] [--ply P]`
fn cmd_show(file: &Path, game: Option<u64>, ply: Option<usize>) -> Result<(), String> {
    let records = arena::report::read_records(file).map_err(|e| e.to_string())?;
    let record = match game {
        None => records.first(),
        Some(k) => records.iter().find(|r| r.index == k),
    };
    let Some(record) = record else {
        let indices: Vec<u64> = records.iter().map(|r| r.index).collect();
        return Err(match (game, indices.first(), indices.last()) {
            (_, None, _) | (None, _, _) => format!("{}: no games in the file", file.display()),
            (Some(k), Some(lo), Some(hi)) => format!(
                "{}: no game with index {k} (the file has {} games, indices {lo}..={hi})",
                file.display(),
                indices.len()
            ),
            (Some(_), Some(_), None) => unreachable!(),
        });
    };
    let plies = record.moves.len();
    let ply = ply.unwrap_or(plies);
    if ply > plies {
        return Err(format!(
            "game {} has {plies} plies; --ply must be 0..={plies}",
            record.index
        ));
    }
    print!("{}", arena::report::text::render_game(record, ply));
    Ok(())
}

/// `arena play --game G --human [--param k=v ...] [--bot 'NAME=COMMAND']`
fn cmd_play(
    game: &str,
    human: bool,
    params: &[(String, String)],
    bots: &[String],
) -> Result<(), String> {
    if !bots.is_empty() {
        return Err(
            "--bot is not available yet: playing against a bot needs the referee's bot runner"
                .into(),
        );
    }
    if !human {
        return Err("nothing to play: give --human (two people take turns at the prompt)".into());
    }
    let game = arena::games::new_game(game, params).map_err(|e| e.to_string())?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    match arena::play::play_humans(game.as_ref(), ["human", "human"], &mut input, &mut out)
        .map_err(|e| e.to_string())?
    {
        arena::play::PlayEnd::Finished(_) | arena::play::PlayEnd::Forfeit { .. } => Ok(()),
        arena::play::PlayEnd::Abandoned => Err("game abandoned before the end".into()),
    }
}
