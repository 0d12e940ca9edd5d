#![warn(missing_docs)]
//! Bot processes: how they are started, talked to and contained, whatever
//! they do:
//!
//! - [`spec`]: how to start a bot ([`BotSpec`]);
//! - [`build`]: a bot's `build` command in the sandbox;
//! - [`limits`]: what it may use ([`LimitSettings`], [`ResourceLimits`],
//!   [`Limits`]);
//! - [`bot`]: a running bot ([`Bot`]): spawn, handshake, reads with
//!   deadlines, freezing, kill escalation; what it did wrong ([`BotFailure`]);
//! - [`line_reader`]: its stdout, line by line, bounded;
//! - [`log_sink`]: its stderr, into a capped log file;
//! - [`sandbox`]: bubblewrap, private directories, what a bot may see;
//! - [`sandbox_init`]: the step inside the sandbox before the bot (file
//!   bounds, dropping to the bot's uid and every capability);
//! - [`cgroup`]: a cgroup per bot where arena may make them;
//! - [`members`]: a bot's processes as one thing to freeze, kill, measure;
//! - [`spawn`]: starting a bot without `fork`, waiting for it by pidfd;
//! - [`memcg`]: the memory limit in the kernel, where it can be set;
//! - [`uids`]: a uid of its own for each bot, never one a live process holds;
//! - [`watchdog`]: the resident-memory limit, everywhere;
//! - [`keeper`]: nothing outlives its game or the referee (keeper process,
//!   subreaper, orphan sweeps).

pub mod bot;
pub mod build;
pub mod cgroup;
pub mod keeper;
pub mod limits;
pub mod line_reader;
pub mod log_sink;
pub mod members;
pub mod memcg;
pub mod sandbox;
pub mod sandbox_init;
pub mod spawn;
pub mod spec;
pub mod transcript;
pub mod uids;
pub mod watchdog;

pub use bot::{Bot, BotFailure, StartError};
pub use limits::{LimitSettings, Limits, ResourceLimits};
pub use sandbox::{ResolvedSandbox, Sandbox};
pub use spec::BotSpec;
pub use uids::BOT_UIDS;

/// `PATH` for bots when the referee has none.
pub const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Resolves on SIGINT (Ctrl-C), SIGTERM (a scheduler stopping the job, or
/// the keeper's death) or SIGHUP (the terminal closed): every command that
/// runs bots stops on it and kills them.
pub async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
        _ = hup.recv() => {}
    }
}
