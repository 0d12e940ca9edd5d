//! `arena check-bot -- COMMAND...`: a bot through what a tournament will
//! ask of it ([`arena::tools::check_bot`]), in plain words.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::Error;
use arena::process::{BotSpec, Sandbox};
use arena::tools::check_bot::{self, CheckOptions};
use arena_core::games::{self, AnyGame};

/// Options of `arena check-bot`.
#[derive(Args, Clone, Debug)]
pub struct CheckBotArgs {
    #[arg(long, help = super::game_help())]
    pub game: String,
    /// A game parameter for the full games, as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = arena::run::config::parse_param)]
    pub params: Vec<(String, String)>,
    /// Limit per decision, in ms (as in `arena match --movetime`).
    #[arg(long, value_name = "MS", default_value_t = 100)]
    pub movetime: u64,
    /// Overrun tolerated past the limit before a bot loses on time, in ms.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    pub margin: u64,
    /// Full games to play against the checker's random mover (seats alternate).
    #[arg(long, default_value_t = 2)]
    pub games: u64,
    /// Seed of the checker's random mover and of the `newgame` seeds.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time the bot has to answer `arena 1` with `ready`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub startup_ms: u64,
    /// How the bot is confined, as in a tournament: auto (bubblewrap where
    /// it works), bwrap or none.
    #[arg(long, value_name = "KIND", default_value_t = Sandbox::default())]
    pub sandbox: Sandbox,
    /// The bot's command and arguments (after `--`; run as an argv list, no shell).
    #[arg(required = true, trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Runs `arena check-bot`: the findings line by line, then the verdict.
pub fn run(args: CheckBotArgs) -> Result<(), Error> {
    let game: Arc<dyn AnyGame> = games::new_game(&args.game, &args.params)
        .map_err(Error::usage)?
        .into();
    if args.movetime == 0 {
        return Err(Error::Usage("--movetime must be positive".into()));
    }
    let here = std::env::current_dir().unwrap_or_else(|_| ".".into());
    // Found as a tournament finds its bots' programs (the settings funnel);
    // a missing script is left for the bot's start to show.
    arena::run::settings::program(&args.command, &here, &Default::default(), "command")
        .map_err(|r| Error::Usage(format!("cannot start bot command: {}", r.reason)))?;
    let runtime = super::runtime()?;
    let mut spec = BotSpec::new("bot", args.command.clone());
    let (sandbox, warning) =
        arena::process::sandbox::resolve(args.sandbox).map_err(Error::usage)?;
    if let Some(w) = warning {
        eprintln!("arena check-bot: warning: {w}");
    }
    spec.sandbox = sandbox;
    let spec = Arc::new(spec);
    let params: Vec<String> = game
        .params()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!(
        "arena check-bot: `{}` on {} ({}), movetime {} ms, {} games, seed {}",
        spec.command_line(),
        game.name(),
        params.join(" "),
        args.movetime,
        args.games,
        args.seed
    );
    if spec.sandbox.is_bwrap() {
        let dir = std::env::current_dir().unwrap_or_default();
        println!(
            "INFO sandbox: bwrap, as in a tournament: {}",
            arena::process::sandbox::view(&spec.command, &dir, &spec.interpreters)
        );
    } else {
        println!("INFO sandbox: none (the bot runs as you, with your files)");
    }
    let opts = CheckOptions {
        movetime: Duration::from_millis(args.movetime),
        margin: Duration::from_millis(args.margin),
        games: args.games,
        seed: args.seed,
        startup: Duration::from_millis(args.startup_ms),
    };
    let report = runtime
        .block_on(async {
            tokio::spawn(async {
                arena::process::stop_signal().await;
                arena::process::keeper::finish();
                std::process::exit(130);
            });
            check_bot::check(&opts, game, spec).await
        })
        .map_err(Error::usage)?;
    let (f, w) = (report.failures(), report.warnings());
    if f > 0 {
        println!(
            "result: FAIL ({f} failure{}, {w} warning{}): this bot would forfeit games in a tournament",
            plural(f),
            plural(w)
        );
        Err(Error::Reported)
    } else {
        println!(
            "result: PASS ({w} warning{}): this bot would not forfeit",
            plural(w)
        );
        Ok(())
    }
}
