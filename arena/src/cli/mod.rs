//! The `arena` command line: one file per command. The clap types and the
//! exit codes live here and nowhere else; a command reads its options into
//! the library's types, calls the library and prints what it says.
//!
//! Exit codes ([`Error::code`]): 0 done, 1 the command ran and failed (or
//! a bot check failed), 2 a mistake in what was asked (nothing ran), 130
//! interrupted (Ctrl-C, SIGTERM).

mod bench;
mod bot_first;
mod check_bot;
mod export;
mod external;
mod r#match;
mod merge;
mod openings;
mod pipe;
mod play;
mod ratings;
mod report;
mod show;
mod slurm;
mod tournament;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use arena::display::escape;

/// Referee and tournament harness for bot-versus-bot Dakon and Ludus latrunculorum.
#[derive(Parser)]
// Alone, `arena` prints the help to stderr and exits with 2, as clap tools do.
#[command(
    name = "arena",
    version,
    arg_required_else_help = true,
    after_help = "The ladder: `arena serve`, `arena ladder author|worker ...` and `arena worker` (a remote worker) run the `arena-ladder` program (beside arena, else on PATH)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play N games between two bots, seats alternating, and record them.
    Match(Box<r#match::MatchArgs>),
    /// Run a tournament from a TOML config; results go to reports/<name>/.
    Tournament(tournament::TournamentArgs),
    /// Combine the run directories of shards into one report.
    Merge(merge::MergeArgs),
    /// Run a tournament on a Slurm cluster: an array job of N shards and a
    /// dependent job that merges them into reports/<name>/; or, with
    /// --workers N, an array job of N ladder workers.
    Slurm(slurm::SlurmArgs),
    /// Write an opening suite: N distinct openings of a game, optionally
    /// only those a reference search judges close to even.
    ///
    /// The suite: N distinct openings of a game, one per line: the moves from the
    /// initial position in protocol notation, space separated (`#` starts a
    /// comment; the header says which command made the file).
    ///
    /// Candidates are random games of the asked length: every move drawn
    /// uniformly (ChaCha8 seeded with --seed) among the legal moves that do not
    /// end the game. A candidate is dropped when it leads to a position already
    /// kept or seen, when it cannot be played to its length, and with
    /// --balanced when it is not close to even. In Ludus latrunculorum the
    /// placement phase is always played to its end at random first and --plies
    /// counts the moves after it (unless --allow-placement).
    ///
    /// --balanced: the reference search is full-width minimax with alpha-beta
    /// to --depth plies (every move one ply, Dakon's bonus moves included), a
    /// finished game valued as won, lost or drawn, a position at the depth
    /// limit by seat 0's material less seat 1's (seeds in the stores for Dakon;
    /// pieces on the board and in hand for Ludus latrunculorum). An opening is
    /// kept when that value is within --margin either way, which is the same
    /// as saying both seats' values are within the margin. Defaults: Dakon
    /// depth 8 margin 2 (seeds), Ludus latrunculorum depth 3 margin 0 (pieces).
    Openings(openings::OpeningsArgs),
    /// Recompute ratings.csv, crosstable.csv and los.csv from a games file.
    Ratings(ratings::RatingsArgs),
    /// Write a run's games for other rating tools: PGN (Ordo, BayesElo) or
    /// the minimal results CSV.
    Export(export::ExportArgs),
    /// Writes DIR/index.html (standings, charts, replays) from DIR/games.jsonl
    /// and, when present, DIR/ratings.csv.
    Report(report::ReportArgs),
    /// Draws a recorded position in the terminal.
    Show(show::ShowArgs),
    /// Plays a game at the terminal, people against each other or against a bot.
    Play(play::PlayArgs),
    /// Run a bot through the handshake, games and odd positions, and say
    /// in plain words what would make it forfeit (exit 1 if anything would).
    CheckBot(check_bot::CheckBotArgs),
    /// A built-in bot that plays the first legal move at once (for
    /// benchmarks and tests; speaks the protocol on stdin/stdout).
    #[command(hide = true)]
    BotFirst,
    /// Measures engines, referee, tournaments and process starts on this
    /// machine, beside the pipe round trip and the targets.
    ///
    /// The instant bot of the referee, tournament and process-start sections
    /// is bots/c/first_legal.c (built into arena), compiled with $CC (default
    /// cc); without a C compiler it is `arena bot-first`, and the output says so.
    Bench(bench::BenchArgs),
    /// The echo child of `arena bench`'s pipe floor: answers `go` with
    /// `move 3` (as pingpong.c's child).
    #[command(hide = true)]
    BenchEcho,
}

impl Command {
    /// The name in messages (`arena NAME: ...`).
    fn name(&self) -> &'static str {
        match self {
            Command::Match(_) => "match",
            Command::Tournament(_) => "tournament",
            Command::Merge(_) => "merge",
            Command::Slurm(_) => "slurm",
            Command::Openings(_) => "openings",
            Command::Ratings(_) => "ratings",
            Command::Export(_) => "export",
            Command::Report(_) => "report",
            Command::Show(_) => "show",
            Command::Play(_) => "play",
            Command::CheckBot(_) => "check-bot",
            Command::BotFirst => "bot-first",
            Command::Bench(_) => "bench",
            Command::BenchEcho => "bench-echo",
        }
    }

    /// Whether the command starts bots (and so needs the keeper).
    fn runs_bots(&self) -> bool {
        matches!(
            self,
            Command::Match(_)
                | Command::Tournament(_)
                | Command::CheckBot(_)
                | Command::Play(_)
                | Command::Bench(_)
        )
    }

    fn run(self) -> Result<(), Error> {
        match self {
            Command::Match(args) => r#match::run(*args),
            Command::Tournament(args) => tournament::run(args),
            Command::Merge(args) => merge::run(args),
            Command::Slurm(args) => slurm::run(args),
            Command::Openings(args) => openings::run(args),
            Command::Ratings(args) => ratings::run(args),
            Command::Export(args) => export::run(args),
            Command::Report(args) => report::run(args),
            Command::Show(args) => show::run(args),
            Command::Play(args) => play::run(args),
            Command::CheckBot(args) => check_bot::run(args),
            Command::BotFirst => bot_first::run(),
            Command::Bench(args) => bench::run(args),
            Command::BenchEcho => {
                arena::tools::bench::echo_child();
                Ok(())
            }
        }
    }
}

/// Why a command stopped: the one place its exit code comes from.
#[derive(Debug)]
pub enum Error {
    /// A mistake in what was asked (options, config, a bot that cannot be
    /// started): nothing ran. Exit 2.
    Usage(String),
    /// The command ran and failed: a refused directory, a disk error, a
    /// report that could not be written. Exit 1.
    Failed(String),
    /// Ctrl-C, SIGTERM or SIGHUP: what was finished is kept. Exit 130.
    Interrupted(String),
    /// The command said why on stdout already (check-bot's FAIL lines).
    /// Exit 1.
    Reported,
}

impl Error {
    /// The exit code.
    fn code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Failed(_) | Error::Reported => 1,
            Error::Interrupted(_) => 130,
        }
    }

    fn message(&self) -> Option<&str> {
        match self {
            Error::Usage(m) | Error::Failed(m) | Error::Interrupted(m) => Some(m),
            Error::Reported => None,
        }
    }

    /// A usage mistake, from anything that can say what it is.
    fn usage(e: impl std::fmt::Display) -> Error {
        Error::Usage(e.to_string())
    }

    /// A failure, from anything that can say what it is.
    fn failed(e: impl std::fmt::Display) -> Error {
        Error::Failed(e.to_string())
    }
}

/// A run that stopped: interrupted, or failed.
impl From<arena::run::TournamentError> for Error {
    fn from(e: arena::run::TournamentError) -> Error {
        match e {
            e @ arena::run::TournamentError::Interrupted { .. } => {
                Error::Interrupted(e.to_string())
            }
            e => Error::Failed(e.to_string()),
        }
    }
}

/// A bench that stopped: interrupted in its tournament section, or failed.
impl From<arena::tools::bench::BenchError> for Error {
    fn from(e: arena::tools::bench::BenchError) -> Error {
        use arena::tools::bench::BenchError;
        match e {
            // Its games are thrown away with its temporary directory: no
            // "--resume" hint.
            BenchError::Tournament(arena::run::TournamentError::Interrupted { .. }) => {
                Error::Interrupted("interrupted".into())
            }
            e => Error::Failed(e.to_string()),
        }
    }
}

/// Runs `arena`: parses the command line, runs the command, prints why it
/// failed (made safe for a terminal) and returns its exit code.
pub fn main() -> ExitCode {
    if let Some(code) = external::forward_if_asked() {
        return code;
    }
    pipe::install();
    let cli = Cli::parse();
    let runs_bots = cli.command.runs_bots();
    if runs_bots {
        // Before any thread exists (see process::keeper).
        // `play` reads the terminal: it stays in the terminal's group.
        arena::process::keeper::install(matches!(cli.command, Command::Play(_)));
    }
    let name = cli.command.name();
    let code = match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(message) = e.message() {
                eprintln!("arena {name}: {}", escape(message));
            }
            ExitCode::from(e.code())
        }
    };
    if runs_bots {
        arena::process::keeper::finish();
    }
    code
}

/// `--game`'s help: the games of the registry.
fn game_help() -> String {
    let names: Vec<&str> = arena_core::games::GAMES.iter().map(|g| g.name).collect();
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    format!("The game: {list}.")
}

/// A current-thread tokio runtime (the referee's; games in a tournament run
/// on lanes of their own).
/// Runs `work` (what comes before a run's first game), or ends with
/// [`Error::Interrupted`] (exit 130) on Ctrl-C or SIGTERM; the bots it
/// started die with it.
async fn interruptible(
    work: impl std::future::Future<Output = Result<(), Error>>,
) -> Result<(), Error> {
    tokio::select! {
        done = work => done,
        _ = arena::process::stop_signal() => {
            arena::process::bot::kill_all_live();
            Err(Error::Interrupted(
                "interrupted before the first game: nothing was played".into(),
            ))
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the runtime: {e}")))
}

/// The number of cores arena may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
