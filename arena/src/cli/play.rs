//! `arena play`: a game at the terminal, people against each other or
//! against a bot.

use super::Error;

/// Plays a game at the terminal.
#[derive(clap::Args)]
pub struct PlayArgs {
    #[arg(long, help = super::game_help())]
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

/// `arena play --game G --human [--param k=v ...] [--bot 'NAME=COMMAND']`
pub fn run(args: PlayArgs) -> Result<(), Error> {
    play_game(&args).map_err(Error::Failed)
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
        None => {
            arena::tools::play::play_humans(game.as_ref(), ["human", "human"], &mut input, &mut out)
        }
        Some(text) => {
            let mut spec = arena::process::BotSpec::parse(text).map_err(|e| e.to_string())?;
            arena::display::check_name(&spec.name)
                .map_err(|why| format!("--bot: bot name {why}"))?;
            // `arena play` has no --sandbox: its bot is confined as `auto`
            // confines, decided here, once, before it starts.
            let (sandbox, warning) =
                arena::process::sandbox::resolve(arena::process::Sandbox::Auto)
                    .map_err(|e| e.to_string())?;
            if let Some(w) = warning {
                eprintln!("arena play: warning: {w}");
            }
            spec.sandbox = sandbox;
            let name = spec.name.clone();
            let human = args.seat as usize;
            let mut bot = arena::tools::bot_seat::BotSeat::start(
                spec,
                1 - human,
                game.clone(),
                args.seed,
                std::time::Duration::from_millis(args.movetime),
            )
            .map_err(|e| e.to_string())?;
            let mut names = ["human", "human"];
            names[1 - human] = &name;
            let mut seats: [Option<&mut dyn arena::tools::play::MoveSource>; 2] = [None, None];
            seats[1 - human] = Some(&mut bot);
            arena::tools::play::play(game.as_ref(), names, seats, &mut input, &mut out)
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
        arena::tools::play::PlayEnd::Finished(_) | arena::tools::play::PlayEnd::Forfeit { .. } => {
            Ok(())
        }
        arena::tools::play::PlayEnd::Abandoned => Err("game abandoned before the end".into()),
    }
}
