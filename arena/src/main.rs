use clap::Parser;

/// Referee and tournament harness for bot-versus-bot Dakon and Ludus latrunculorum.
#[derive(Parser)]
#[command(name = "arena", version)]
struct Cli {}

fn main() {
    let _ = Cli::parse();
    let names: Vec<&str> = arena::games::GAMES.iter().map(|(n, _)| *n).collect();
    println!("games: {}", names.join(", "));
}
