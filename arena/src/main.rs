use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

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
    Report(cli::report::ReportArgs),
    /// Draws a recorded position in the terminal.
    Show(cli::report::ShowArgs),
    /// Plays a game at the terminal, people against each other (or a bot).
    Play(cli::report::PlayArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            let names: Vec<&str> = arena::games::GAMES.iter().map(|(n, _)| *n).collect();
            println!("games: {}", names.join(", "));
            ExitCode::SUCCESS
        }
        Some(Command::Report(args)) => cli::report::report(args),
        Some(Command::Show(args)) => cli::report::show(args),
        Some(Command::Play(args)) => cli::report::play(args),
    }
}
