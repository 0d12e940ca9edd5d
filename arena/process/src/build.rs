//! A bot's `build` command, run as strangers' code: in the sandbox, like
//! the bot itself, but with its program directory writable.
//!
//! A build is code execution. Sandboxed, it sees what its bot would see
//! (the system directories read-only, a private `/tmp` of bounded size that
//! is its `HOME` and `TMPDIR`, no other bot's files, no run directory), plus
//! its program directory read-write, which is also its working directory.
//! It gets a clean environment (`PATH`, `LANG`, `HOME`, `TMPDIR` and the
//! bot's `env`), no network unless the config allows it, a time limit, a
//! memory limit and a bound on what it adds to its directory. It is the
//! first process of a PID namespace of its own: when it exits, everything
//! it started (a daemon, say) is killed with it, and its cgroup, where
//! there is one, is killed after it. When arena is root it runs as the
//! owner of its program directory, never as root: a root-owned directory
//! is refused. The same path serves every front end that builds bots.

use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::limits::{Limits, ResourceLimits};
use super::sandbox::ResolvedSandbox;
use super::spec::{BotSpec, Build};
use super::Bot;

/// One build to run in the sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildJob {
    /// The build's argv (no shell).
    pub command: Vec<String>,
    /// Its program directory: writable for it, and where it runs.
    pub dir: PathBuf,
    /// Extra environment (the bot's `env`).
    pub env: Vec<(String, String)>,
    /// Whether it may use the network.
    pub network: bool,
    /// How long it may run.
    pub time: Duration,
    /// Resident memory of all its processes together, bytes.
    pub memory_bytes: u64,
    /// How much it may add to its program directory, bytes.
    pub dir_growth_bytes: u64,
    /// Size of its `/tmp` (and `/dev/shm`), bytes.
    pub tmp_bytes: u64,
    /// Paths it must not see inside visible directories (a run directory).
    pub hide: Vec<PathBuf>,
}

/// Why a sandboxed build did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// arena is root and the program directory belongs to root.
    #[error(
        "{} belongs to root, and a sandboxed build runs as its program directory's owner, \
         never as root: chown the directory to the account the build should run as, or give \
         the build `sandbox = \"none\"` if you trust it",
        dir.display()
    )]
    RootOwned {
        /// The program directory.
        dir: PathBuf,
    },
    /// The directory cannot be read.
    #[error("{}: {source}", dir.display())]
    Dir {
        /// The program directory.
        dir: PathBuf,
        /// Why it could not be read.
        source: io::Error,
    },
    /// bubblewrap or the command could not be started.
    #[error("cannot start it: {0}")]
    Start(io::Error),
    /// It ran and failed; the last lines of its output.
    #[error("it failed ({status}){}", tail_text(tail))]
    Failed {
        /// How it exited, as the OS says it.
        status: String,
        /// Its last lines of output, to show why.
        tail: Vec<String>,
    },
    /// It ran out of time.
    #[error("it took longer than {} s and was killed{}", time.as_secs(), tail_text(tail))]
    TimedOut {
        /// The time it was allowed.
        time: Duration,
        /// Its last lines of output.
        tail: Vec<String>,
    },
    /// It went over a limit (memory, or what it wrote to its directory).
    #[error("it was killed: {why}{}", tail_text(tail))]
    Limit {
        /// Which limit, in words.
        why: String,
        /// Its last lines of output.
        tail: Vec<String>,
    },
}

fn tail_text(tail: &[String]) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; its last output:\n  {}", tail.join("\n  "))
    }
}

/// Lines of output kept for an error message.
const TAIL_LINES: usize = 20;

/// Runs `job` in the sandbox; with `echo`, its output goes to arena's
/// stderr as it comes (control characters escaped: a stranger's text).
pub async fn run(job: &BuildJob, echo: bool) -> Result<(), BuildError> {
    let meta = std::fs::metadata(&job.dir).map_err(|source| BuildError::Dir {
        dir: job.dir.clone(),
        source,
    })?;
    let owner = if nix::unistd::geteuid().is_root() {
        if meta.uid() == 0 {
            return Err(BuildError::RootOwned {
                dir: job.dir.clone(),
            });
        }
        Some((meta.uid(), meta.gid()))
    } else {
        None
    };
    let mut spec = BotSpec::new("build", job.command.clone());
    spec.cwd = Some(job.dir.clone());
    spec.env = job.env.clone();
    spec.sandbox = ResolvedSandbox::Bwrap;
    spec.resources = ResourceLimits {
        memory_bytes: Some(job.memory_bytes),
        disk_bytes: Some(job.tmp_bytes),
        // No file it writes may be larger than all it may write.
        file_size_bytes: Some(job.dir_growth_bytes),
        ..ResourceLimits::default()
    };
    spec.build = Some(Build {
        network: job.network,
        owner,
    });
    let limits = Limits {
        hide: job.hide.clone(),
        ..Limits::default()
    };
    let mut bot = Bot::spawn(Arc::new(spec), &limits, None)
        .await
        .map_err(BuildError::Start)?;
    let start_size = dir_bytes(&job.dir);
    let mut tail: std::collections::VecDeque<String> = Default::default();
    let mut keep = |raw: &[u8]| {
        let text = String::from_utf8_lossy(raw);
        if echo {
            eprintln!("{}", arena_core::text::escape(&text));
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(arena_core::protocol::truncate(
            &arena_core::text::escape(&text),
            300,
        ));
    };
    let growth = job.dir_growth_bytes;
    let check = || {
        (dir_bytes(&job.dir).saturating_sub(start_size) > growth).then(|| {
            super::BotFailure::new(
                arena_core::record::Reason::Crash,
                format!(
                    "it wrote more than {} MB into {}",
                    growth >> 20,
                    job.dir.display()
                ),
            )
        })
    };
    let result = bot
        .run_to_exit(Instant::now() + job.time, &mut keep, check)
        .await;
    // Whatever it left running dies now, with its cgroup.
    bot.kill().await;
    let tail: Vec<String> = tail.into_iter().collect();
    match result {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(BuildError::Failed {
            status: status.to_string(),
            tail,
        }),
        Err(f) if f.reason == arena_core::record::Reason::Timeout => Err(BuildError::TimedOut {
            time: job.time,
            tail,
        }),
        Err(f) => Err(BuildError::Limit {
            why: f.detail,
            tail,
        }),
    }
}

/// Bytes the files under `dir` take on disk (links not followed; what
/// cannot be read counts nothing).
pub fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            total += meta.blocks() * 512;
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    total
}
