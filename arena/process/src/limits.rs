//! What a bot may use: the per-bot limits of a config or the command line
//! ([`LimitSettings`], in MB and seconds), the same in bytes
//! ([`ResourceLimits`], set with `setrlimit`/`prlimit` and watched by
//! [`super::watchdog`]), and the referee's own limits on every bot
//! ([`Limits`]: start-up time, grace periods, stderr kept).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// Per-bot limits: resident memory (watched by [`crate::watchdog`])
/// and operating-system limits (`setrlimit` in the child before `exec`;
/// they bind the bot and every process it starts). `None`: unlimited (the
/// referee's own limit is inherited).
///
/// `RLIMIT_NPROC` counts the processes of a user and root ignores it, so
/// when `processes` is set and the referee runs as root, the bot runs as an
/// unprivileged user of its own: a uid (and gid) from a range no account
/// uses ([`super::BOT_UIDS`]), a fresh one for every bot process, with no
/// supplementary groups (a sandboxed bot always does, when arena is root).
/// Its count is then its own, not shared with other bots. The bot's command
/// must be readable and executable by others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Resident memory of all the bot's processes together, bytes: over it
    /// the bot is killed (and loses with `crash`, `memory limit (N MB)`).
    pub memory_bytes: Option<u64>,
    /// Address space of each process (`RLIMIT_AS`), bytes: allocations
    /// beyond fail.
    pub address_space_bytes: Option<u64>,
    /// CPU time (`RLIMIT_CPU`), seconds: SIGXCPU, then SIGKILL a second later.
    pub cpu_seconds: Option<u64>,
    /// Processes of the bot's user (`RLIMIT_NPROC`): `fork` fails beyond.
    pub processes: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
    /// Largest file the bot may write (`RLIMIT_FSIZE`), bytes.
    pub file_size_bytes: Option<u64>,
    /// Bytes of stderr kept in the game's log (overrides [`Limits::log_cap`]).
    pub stderr_bytes: Option<u64>,
    /// Size of a sandboxed bot's writable directories (`/tmp`, and
    /// `/dev/shm` apart), bytes; `None` for [`DEFAULT_DISK_BYTES`]. Writes
    /// beyond fail with "no space left on device".
    pub disk_bytes: Option<u64>,
}

/// What a sandboxed bot may write by default: enough for a JVM's or a
/// compiler's scratch files, not enough to fill the machine's disk or, the
/// directories being in memory, its memory.
pub const DEFAULT_DISK_BYTES: u64 = 64 << 20;

impl ResourceLimits {
    /// Whether any limit must be set with `setrlimit`.
    pub(super) fn any_rlimit(&self) -> bool {
        [
            self.address_space_bytes,
            self.cpu_seconds,
            self.processes,
            self.open_files,
            self.file_size_bytes,
        ]
        .iter()
        .any(Option::is_some)
    }
}

/// [`ResourceLimits`] in the units people write: the `[bots.limits]` keys
/// of a tournament config and the `arena match` options of the same names.
/// Zero is refused (it would make the bot unusable; leave a key out for no
/// limit).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// Resident memory of all the bot's processes together, in MB: over it
    /// the bot is killed and loses (`crash`, `memory limit`).
    pub memory_mb: Option<u64>,
    /// Address space of each bot process, in MB (RLIMIT_AS; a JVM needs
    /// gigabytes of it, prefer --memory-mb).
    pub address_space_mb: Option<u64>,
    /// CPU time of each bot process, in seconds (RLIMIT_CPU).
    pub cpu_seconds: Option<u64>,
    /// Processes (and threads) a bot may have at once (RLIMIT_NPROC; as
    /// root, bots then run under a uid of their own).
    pub processes: Option<u64>,
    /// Open files per bot process (RLIMIT_NOFILE).
    pub open_files: Option<u64>,
    /// Largest file a bot may write, in MB (RLIMIT_FSIZE).
    pub file_size_mb: Option<u64>,
    /// Stderr kept per bot per game, in kB (the rest is discarded).
    pub stderr_kb: Option<u64>,
    /// What a sandboxed bot may write, in MB: its /tmp and its /dev/shm
    /// hold this much each (default 64).
    pub disk_mb: Option<u64>,
}

/// A limit of zero, which would make a bot unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} must be at least 1 (leave it out for no limit)")]
pub struct ZeroLimit(pub &'static str);

impl LimitSettings {
    /// The limits in bytes and seconds; an error names a zero key.
    pub fn resources(&self) -> Result<ResourceLimits, ZeroLimit> {
        let keys = [
            ("memory_mb", self.memory_mb),
            ("address_space_mb", self.address_space_mb),
            ("cpu_seconds", self.cpu_seconds),
            ("processes", self.processes),
            ("open_files", self.open_files),
            ("file_size_mb", self.file_size_mb),
            ("stderr_kb", self.stderr_kb),
            ("disk_mb", self.disk_mb),
        ];
        if let Some((key, _)) = keys.iter().find(|(_, v)| *v == Some(0)) {
            return Err(ZeroLimit(key));
        }
        let mb = |v: Option<u64>| v.map(|v| v.saturating_mul(1 << 20));
        Ok(ResourceLimits {
            memory_bytes: mb(self.memory_mb),
            address_space_bytes: mb(self.address_space_mb),
            cpu_seconds: self.cpu_seconds,
            processes: self.processes,
            open_files: self.open_files,
            file_size_bytes: mb(self.file_size_mb),
            stderr_bytes: self.stderr_kb.map(|v| v.saturating_mul(1 << 10)),
            disk_bytes: mb(self.disk_mb),
        })
    }
}

/// Limits on bot processes.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Time to answer `arena 1` with `ready`.
    pub startup: Duration,
    /// Time to exit after `quit` before SIGTERM, and after SIGTERM before SIGKILL.
    pub grace: Duration,
    /// Longest a write to a bot may block (a bot that stops reading its input).
    pub write_stall: Duration,
    /// Bytes of stderr kept per log file; the rest is read and discarded.
    pub log_cap: u64,
    /// Paths a sandboxed bot must not see even inside a directory it sees
    /// (the run directory, when it lies in a bot's program directory).
    pub hide: Vec<PathBuf>,
    /// Every bot's program directory: a sandboxed bot is shown nothing
    /// inside another's (nor containing one) for an interpreter.
    pub bot_dirs: Vec<PathBuf>,
    /// Keep each bot's conversation, both ways (see
    /// [`super::transcript`]), bounded like its stderr.
    pub transcript: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            startup: Duration::from_secs(10),
            grace: Duration::from_millis(200),
            write_stall: Duration::from_secs(5),
            log_cap: 1 << 20,
            hide: Vec::new(),
            bot_dirs: Vec::new(),
            transcript: false,
        }
    }
}

/// Sets the limits of the process `pid` from outside (`prlimit`): the
/// sandboxed child that waits for them before it starts the bot.
pub(super) fn apply_prlimits(pid: i32, res: &ResourceLimits) -> io::Result<()> {
    use nix::libc;
    let set = |resource: libc::__rlimit_resource_t, soft: u64, hard: u64| -> io::Result<()> {
        let lim = libc::rlimit64 {
            rlim_cur: soft,
            rlim_max: hard,
        };
        // SAFETY: prlimit64 reads one rlimit64 and writes nothing (old is null).
        let rc = unsafe { libc::prlimit64(pid, resource, &lim, std::ptr::null_mut()) };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    };
    let pairs = [
        (libc::RLIMIT_AS, res.address_space_bytes),
        (libc::RLIMIT_NPROC, res.processes),
        (libc::RLIMIT_NOFILE, res.open_files),
        (libc::RLIMIT_FSIZE, res.file_size_bytes),
    ];
    for (resource, v) in pairs {
        if let Some(v) = v {
            set(resource, v, v)?;
        }
    }
    if let Some(cpu) = res.cpu_seconds {
        set(libc::RLIMIT_CPU, cpu, cpu.saturating_add(1))?;
    }
    Ok(())
}

/// Sets the limits in the child (between `fork` and `exec`).
pub(super) fn apply_rlimits(res: &ResourceLimits) -> io::Result<()> {
    use nix::sys::resource::{setrlimit, Resource};
    let set = |r: Resource, v: Option<u64>| -> io::Result<()> {
        match v {
            Some(v) => setrlimit(r, v, v).map_err(io::Error::from),
            None => Ok(()),
        }
    };
    set(Resource::RLIMIT_AS, res.address_space_bytes)?;
    // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL.
    if let Some(cpu) = res.cpu_seconds {
        setrlimit(Resource::RLIMIT_CPU, cpu, cpu.saturating_add(1)).map_err(io::Error::from)?;
    }
    set(Resource::RLIMIT_NPROC, res.processes)?;
    set(Resource::RLIMIT_NOFILE, res.open_files)?;
    set(Resource::RLIMIT_FSIZE, res.file_size_bytes)?;
    Ok(())
}
