//! `arena report`, `arena show` and `arena play`: the commands for people.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Writes DIR/index.html (standings, charts, replays) from DIR/games.jsonl
/// and, when present, DIR/ratings.csv.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// A report directory holding games.jsonl.
    pub dir: PathBuf,
}

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

/// Plays a game at the terminal.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// The game's name, e.g. dakon.
    #[arg(long)]
    pub game: String,
    /// A person plays (both seats when no --bot is given).
    #[arg(long)]
    pub human: bool,
    /// A game parameter as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = arena::run::config::parse_param)]
    pub params: Vec<(String, String)>,
    /// A bot opponent as 'NAME=COMMAND ARGS...' (argv split on spaces,
    /// quotes group; no shell).
    #[arg(long, value_name = "NAME=COMMAND")]
    pub bot: Option<String>,
    /// The person's seat against a bot (seat 0 moves first).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
    pub seat: u8,
    /// The bot's limit per move, in ms.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub movetime: u64,
    /// The game seed the bot is told in `newgame`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn exit(command: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("arena {command}: {}", arena::display::escape(&message));
            ExitCode::FAILURE
        }
    }
}

/// `arena report DIR`
pub fn report(args: ReportArgs) -> ExitCode {
    exit("report", write_report(&args.dir))
}

fn write_report(dir: &Path) -> Result<(), String> {
    use arena::store;
    let records =
        store::read_games_file(&dir.join(store::GAMES_JSONL)).map_err(|e| e.to_string())?;
    let ratings = store::read_ratings(dir).map_err(|e| e.to_string())?;
    let path =
        arena::report::write_html(dir, &records, ratings.as_deref()).map_err(|e| e.to_string())?;
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

/// `arena show FILE|DIR [--index K] [--ply P]`
pub fn show(args: ShowArgs) -> ExitCode {
    if let Some(k) = args.game {
        eprintln!(
            "arena show: warning: --game {k} is now --index {k} (the game's index; \
             elsewhere --game names the game); --game will stop working"
        );
    }
    exit(
        "show",
        show_position(&args.file, args.index.or(args.game), args.ply),
    )
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
    let records = arena::store::read_games_file(file).map_err(|e| e.to_string())?;
    let record = match game {
        None => records.first(),
        Some(k) => records.iter().find(|r| r.index == k),
    };
    let Some(record) = record else {
        return Err(match (game, records.first(), records.last()) {
            (Some(k), Some(first), Some(last)) => format!(
                "{}: no game with index {k} (the file has {} games, indices {}..={})",
                file.display(),
                records.len(),
                first.index,
                last.index
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
    print!("{}", arena::report::text::render_game(record, ply));
    Ok(())
}

/// `arena play --game G --human [--param k=v ...] [--bot 'NAME=COMMAND']`
pub fn play(args: PlayArgs) -> ExitCode {
    exit("play", play_game(&args))
}

fn play_game(args: &PlayArgs) -> Result<(), String> {
    if !args.human {
        return Err(
            "nothing to play: give --human (two people take turns at the prompt, \
             or one against --bot)"
                .into(),
        );
    }
    let game: std::sync::Arc<dyn arena_core::games::AnyGame> =
        arena_core::games::new_game(&args.game, &args.params)
            .map_err(|e| e.to_string())?
            .into();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    let end = match &args.bot {
        None => arena::play::play_humans(game.as_ref(), ["human", "human"], &mut input, &mut out),
        Some(text) => {
            let spec = arena::process::BotSpec::parse(text)?;
            arena::display::check_name(&spec.name)
                .map_err(|why| format!("--bot: bot name {why}"))?;
            let name = spec.name.clone();
            let human = args.seat as usize;
            let mut bot = super::bot_seat::BotSeat::start(
                spec,
                1 - human,
                game.clone(),
                args.seed,
                std::time::Duration::from_millis(args.movetime),
            )?;
            let mut names = ["human", "human"];
            names[1 - human] = &name;
            let mut seats: [Option<&mut dyn arena::play::MoveSource>; 2] = [None, None];
            seats[1 - human] = Some(&mut bot);
            arena::play::play(game.as_ref(), names, seats, &mut input, &mut out)
        }
    }
    .map_err(|e| {
        if super::pipe::is_closed(&e) {
            // The board goes to stdout: no reader, no game.
            super::pipe::end_as_by_sigpipe();
        }
        e.to_string()
    })?;
    match end {
        arena::play::PlayEnd::Finished(_) | arena::play::PlayEnd::Forfeit { .. } => Ok(()),
        arena::play::PlayEnd::Abandoned => Err("game abandoned before the end".into()),
    }
}
