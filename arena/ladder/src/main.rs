//! `arena-ladder`: `serve` and `ladder author ...` (the `arena` binary
//! forwards `arena serve` and `arena ladder` here). The command line only:
//! everything it does is in the library.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "arena-ladder",
    about = "arena's ladder: a server that strangers submit bots to"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct Where {
    /// The data directory (database, uploaded bots).
    #[arg(long, default_value = "ladder")]
    data: PathBuf,
    /// The database: sqlite://PATH or postgres://... (default: DATA/ladder.db).
    #[arg(long)]
    db: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Runs the ladder: HTTP API, builder, scheduler and workers.
    Serve {
        #[command(flatten)]
        at: Where,
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// Built-in workers (default: the number of cores).
        #[arg(long)]
        workers: Option<usize>,
        /// The ladder config (default: Dakon at 100 ms a move).
        #[arg(long)]
        config: Option<PathBuf>,
        /// `none` runs strangers' bots and builds without a sandbox (a warning in every response).
        #[arg(long, value_parser = ["none"])]
        sandbox: Option<String>,
    },
    /// A remote worker: plays a ladder server's games on this machine.
    Worker {
        /// The server's base URL, say http://ladder.example.org:8080.
        #[arg(long)]
        server: String,
        /// The worker token (`arena ladder worker add NAME` prints it).
        #[arg(long)]
        token: String,
        /// Games played at once (default: the number of cores).
        #[arg(long)]
        concurrency: Option<usize>,
        /// The name reported with this machine (default: the host name).
        #[arg(long)]
        name: Option<String>,
        /// Where bot versions are cached and unposted records kept.
        #[arg(long, default_value = "arena-worker")]
        data: PathBuf,
        /// `none` runs bots and builds without a sandbox.
        #[arg(long, value_parser = ["none"])]
        sandbox: Option<String>,
    },
    /// The organiser's commands.
    Ladder {
        #[command(subcommand)]
        command: LadderCommand,
    },
}

#[derive(Subcommand)]
enum LadderCommand {
    /// Authors and their tokens.
    Author {
        #[command(subcommand)]
        command: AuthorCommand,
    },
    /// Remote workers and their tokens.
    Worker {
        #[command(subcommand)]
        command: WorkerCommand,
    },
}

#[derive(Subcommand)]
enum WorkerCommand {
    /// Adds a worker and prints its token, once, alone on the last line.
    Add {
        name: String,
        #[command(flatten)]
        at: Where,
    },
    /// Revokes a worker's token (final): it stops at its next request.
    Revoke {
        name: String,
        #[command(flatten)]
        at: Where,
    },
    /// Suspends a worker: no leases, no records, until `resume`.
    Suspend {
        name: String,
        #[command(flatten)]
        at: Where,
    },
    /// Lifts a worker's suspension.
    Resume {
        name: String,
        #[command(flatten)]
        at: Where,
    },
    /// Lists workers: status, games, forfeit rate per reason, refused
    /// records by reason, machine (never tokens).
    List {
        #[command(flatten)]
        at: Where,
    },
}

#[derive(Subcommand)]
enum AuthorCommand {
    /// Adds an author and prints their token, once, alone on the last line.
    Add {
        name: String,
        /// An organiser: may retire bots, re-run builds, pause the ladder.
        #[arg(long)]
        admin: bool,
        #[command(flatten)]
        at: Where,
    },
    /// Revokes an author's token.
    Revoke {
        name: String,
        #[command(flatten)]
        at: Where,
    },
    /// Lists authors (never tokens).
    List {
        #[command(flatten)]
        at: Where,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result: Result<(), String> = rt.block_on(async {
        use arena_ladder::authors;
        match cli.command {
            Command::Serve {
                at,
                listen,
                workers,
                config,
                sandbox,
            } => arena_ladder::app::serve(arena_ladder::app::ServeOptions {
                data: at.data,
                db: at.db,
                listen,
                workers: workers
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                config,
                no_sandbox: sandbox.is_some(),
            })
            .await
            .map_err(|e| e.to_string()),
            Command::Worker {
                server,
                token,
                concurrency,
                name,
                data,
                sandbox,
            } => arena_ladder::worker::run(arena_ladder::worker::WorkerOptions {
                server,
                token,
                concurrency: concurrency
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                name,
                data,
                no_sandbox: sandbox.is_some(),
            })
            .await
            .map_err(|e| e.to_string()),
            Command::Ladder {
                command: LadderCommand::Worker { command },
            } => {
                use arena_ladder::workers;
                match command {
                    WorkerCommand::Add { name, at } => workers::add(
                        &at.data,
                        at.db.as_deref(),
                        &name,
                    )
                    .await
                    .map(|token| {
                        println!("added worker `{name}`; its token (shown once, keep it secret):");
                        println!("{token}");
                    }),
                    WorkerCommand::Revoke { name, at } => {
                        workers::revoke(&at.data, at.db.as_deref(), &name)
                            .await
                            .map(|()| println!("revoked worker `{name}`"))
                    }
                    WorkerCommand::Suspend { name, at } => {
                        workers::suspend(&at.data, at.db.as_deref(), &name, true)
                            .await
                            .map(|()| println!("suspended worker `{name}`"))
                    }
                    WorkerCommand::Resume { name, at } => {
                        workers::suspend(&at.data, at.db.as_deref(), &name, false)
                            .await
                            .map(|()| println!("resumed worker `{name}`"))
                    }
                    WorkerCommand::List { at } => workers::list(&at.data, at.db.as_deref())
                        .await
                        .map(|lines| lines.iter().for_each(|l| println!("{l}"))),
                }
                .map_err(|e| e.to_string())
            }
            Command::Ladder {
                command: LadderCommand::Author { command },
            } => match command {
                AuthorCommand::Add { name, admin, at } => {
                    authors::add(&at.data, at.db.as_deref(), &name, admin)
                        .await
                        .map(|token| {
                            println!(
                                "added {} `{name}`; their token (shown once, keep it secret):",
                                if admin { "admin" } else { "author" }
                            );
                            println!("{token}");
                        })
                        .map_err(|e| e.to_string())
                }
                AuthorCommand::Revoke { name, at } => {
                    authors::revoke(&at.data, at.db.as_deref(), &name)
                        .await
                        .map(|()| println!("revoked `{name}`"))
                        .map_err(|e| e.to_string())
                }
                AuthorCommand::List { at } => authors::list(&at.data, at.db.as_deref())
                    .await
                    .map(|lines| lines.iter().for_each(|l| println!("{l}")))
                    .map_err(|e| e.to_string()),
            },
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arena-ladder: {e}");
            ExitCode::from(2)
        }
    }
}
