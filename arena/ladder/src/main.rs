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
        /// The worker token itself (`arena ladder worker add NAME` prints it):
        /// for a quick try only, since a command line is visible to every user
        /// (`ps`, Slurm's `squeue`). Give exactly one of --token, --token-file
        /// and the environment variable ARENA_WORKER_TOKEN.
        #[arg(long, value_name = "T")]
        token: Option<String>,
        /// A file holding the worker token, readable by its owner only (mode
        /// 600 or 400; refused when others can read it, a warning when its
        /// group can).
        #[arg(long, value_name = "PATH")]
        token_file: Option<PathBuf>,
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
    let mut cli = Cli::parse();
    if let Command::Worker {
        token, token_file, ..
    } = &mut cli.command
    {
        use arena_ladder::worker::{resolve_token, TOKEN_ENV};
        match resolve_token(
            token.take(),
            token_file.as_deref(),
            std::env::var_os(TOKEN_ENV),
        ) {
            Ok((t, warning)) => {
                if let Some(w) = warning {
                    eprintln!("arena worker: {w}");
                }
                *token = Some(t);
            }
            Err(e) => {
                eprintln!("arena worker: {e}");
                return ExitCode::from(2);
            }
        }
        // The secret stays in this process: nothing it starts (builds, bots,
        // with or without the sandbox) inherits it. Removed here, before the
        // runtime's threads exist, as `remove_var` requires.
        std::env::remove_var(TOKEN_ENV);
    }
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
                ..
            } => arena_ladder::worker::run(arena_ladder::worker::WorkerOptions {
                server,
                token: token.expect("resolved before the runtime started"),
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

#[cfg(test)]
mod tests {
    //! The ready-made deploy files (docs/deploy/) run `arena worker` with
    //! arguments this command line must accept: parsed here as clap parses
    //! them, so a renamed flag breaks this test, not a stranger's machine.
    use super::*;

    fn deploy(file: &str) -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/deploy/");
        std::fs::read_to_string(format!("{path}{file}")).unwrap()
    }

    /// The worker's arguments `argv` (from `worker` on) parse, with the token
    /// given exactly one way.
    fn parses(argv: &[String], env_token: bool) {
        let cli = Cli::try_parse_from(
            std::iter::once("arena-ladder".to_string()).chain(argv.iter().cloned()),
        )
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        let Command::Worker {
            token, token_file, ..
        } = cli.command
        else {
            panic!("not `worker`: {argv:?}");
        };
        let given = usize::from(token.is_some())
            + usize::from(token_file.is_some())
            + usize::from(env_token);
        assert_eq!(given, 1, "the token is given {given} ways: {argv:?}");
        assert!(token.is_none(), "a token on the command line: {argv:?}");
    }

    #[test]
    fn the_systemd_units_exec_start_is_a_worker_command_line() {
        let unit = deploy("arena-worker.service");
        let exec = unit
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart="))
            .expect("an ExecStart line");
        // systemd's specifiers: %d the credentials directory, %H the host.
        let words: Vec<String> = exec
            .replace("%d", "/run/credentials/arena-worker.service")
            .replace("%H", "lab-pc-1")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        assert!(words[0].ends_with("/arena"), "{exec}");
        parses(&words[1..], false);
        assert!(exec.contains("--token-file %d/token"), "{exec}");
        assert!(unit.contains("\nLoadCredential=token:"), "{unit}");
        assert!(unit.contains("\nKillSignal=SIGTERM\n"));
        assert!(
            unit.contains("\nKillMode=mixed\n"),
            "only the worker gets SIGTERM"
        );
    }

    #[test]
    fn the_kubernetes_deployments_command_is_a_worker_command_line() {
        let yaml = deploy("arena-worker.yaml");
        let command = yaml
            .lines()
            .find_map(|l| l.trim().strip_prefix("command: "))
            .expect("a command");
        let mut argv: Vec<String> = serde_json::from_str(command).expect("a JSON-style list");
        assert_eq!(argv.first().map(String::as_str), Some("arena"));
        argv.remove(0);
        // args: the `- ` items after `args:`, at that indentation.
        let mut lines = yaml.lines().skip_while(|l| l.trim() != "args:").skip(1);
        let first = lines.next().expect("args");
        let indent = first.len() - first.trim_start().len();
        for l in std::iter::once(first).chain(lines) {
            let Some(item) = l.get(indent..).and_then(|l| l.strip_prefix("- ")) else {
                break;
            };
            argv.push(
                item.trim_matches('"')
                    .replace("$(POD_NAME)", "arena-worker-5d9c-x2"),
            );
        }
        assert!(argv.len() > 3, "{argv:?}");
        let env_token = yaml.contains("- name: ARENA_WORKER_TOKEN\n");
        parses(&argv, env_token);
        assert!(yaml.contains("terminationGracePeriodSeconds: "));
    }
}
