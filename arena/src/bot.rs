//! Bot processes: spawning (argv only, a session of its own, piped stdin and
//! stdout, stderr drained into a capped log file, under the sandbox and
//! containment of [`crate::process`]), a capped line reader, the
//! `arena 1`/`ready` handshake, deadline-aware reads, freezing, and kill
//! escalation.
//!
//! Everything a bot does wrong comes back as a [`BotFailure`] (a game result
//! for the referee), never as a panic. Only a command that cannot be started
//! at all is an [`std::io::Error`] (a user mistake).
//!
//! No bot outlives its [`Bot`]: [`Bot::shutdown`] sends `quit`, waits a grace
//! period, then SIGTERMs and finally SIGKILLs the whole process group and
//! reaps the leader; dropping a `Bot` without shutting it down SIGKILLs the
//! group at once. [`kill_all_live`] kills every bot group still alive (the
//! CLI calls it on SIGINT/SIGTERM).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::process;
use crate::process::cgroup::Cgroup;
use crate::process::members::Members;
use crate::process::sandbox::{self, Plan, PrivateDir};
use crate::process::watchdog::{self, Watch};
use crate::protocol::{self, FromBot, LineError, ToBot, MAX_LINE};
use crate::record::Reason;

/// How to start a bot: an argv list (never a shell line), with an optional
/// working directory and extra environment variables.
///
/// The bot does not inherit the referee's environment: it gets `PATH` (the
/// referee's, to find interpreters), `HOME` and `TMPDIR` (its private
/// directory), `LANG=C.UTF-8`, and `env` — nothing else, so no secret of the
/// referee's environment reaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    pub name: String,
    pub command: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// Operating-system limits, set in the child before `exec`.
    pub resources: ResourceLimits,
    pub sandbox: Sandbox,
}

/// Per-bot limits: resident memory (watched by [`crate::process::watchdog`])
/// and operating-system limits (`setrlimit` in the child before `exec`;
/// they bind the bot and every process it starts). `None`: unlimited (the
/// referee's own limit is inherited).
///
/// `RLIMIT_NPROC` counts the processes of a user and root ignores it, so
/// when `processes` is set and the referee runs as root, the bot runs as an
/// unprivileged user of its own: a uid (and gid) from a range no account
/// uses ([`BOT_UIDS`]), a fresh one for every bot process, with no
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
}

impl ResourceLimits {
    /// Whether any limit must be set with `setrlimit`.
    fn any_rlimit(&self) -> bool {
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
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize, clap::Args,
)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// Resident memory of all the bot's processes together, in MB: over it
    /// the bot is killed and loses (`crash`, `memory limit`).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_mb: Option<u64>,
    /// Address space of each bot process, in MB (RLIMIT_AS; a JVM needs
    /// gigabytes of it, prefer --memory-mb).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub address_space_mb: Option<u64>,
    /// CPU time of each bot process, in seconds (RLIMIT_CPU).
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    pub cpu_seconds: Option<u64>,
    /// Processes (and threads) a bot may have at once (RLIMIT_NPROC; as
    /// root, bots then run under a uid of their own).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub processes: Option<u64>,
    /// Open files per bot process (RLIMIT_NOFILE).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub open_files: Option<u64>,
    /// Largest file a bot may write, in MB (RLIMIT_FSIZE).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub file_size_mb: Option<u64>,
    /// Stderr kept per bot per game, in kB (the rest is discarded).
    #[arg(long, value_name = "KB", value_parser = clap::value_parser!(u64).range(1..))]
    pub stderr_kb: Option<u64>,
}

impl LimitSettings {
    /// The limits in bytes and seconds; an error names a zero key.
    pub fn resources(&self) -> Result<ResourceLimits, String> {
        let keys = [
            ("memory_mb", self.memory_mb),
            ("address_space_mb", self.address_space_mb),
            ("cpu_seconds", self.cpu_seconds),
            ("processes", self.processes),
            ("open_files", self.open_files),
            ("file_size_mb", self.file_size_mb),
            ("stderr_kb", self.stderr_kb),
        ];
        if let Some((key, _)) = keys.iter().find(|(_, v)| *v == Some(0)) {
            return Err(format!(
                "{key} must be at least 1 (leave it out for no limit)"
            ));
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
        })
    }
}

pub use crate::process::sandbox::Sandbox;
pub use crate::process::{next_bot_uid, BOT_UIDS};

impl BotSpec {
    pub fn new(name: impl Into<String>, command: Vec<String>) -> Self {
        BotSpec {
            name: name.into(),
            command,
            cwd: None,
            env: Vec::new(),
            resources: ResourceLimits::default(),
            sandbox: Sandbox::default(),
        }
    }

    /// Parses the command line form `NAME=COMMAND ARGS...`. Arguments are
    /// split on whitespace; single or double quotes group words (no other
    /// shell syntax: no variables, globs or pipes).
    pub fn parse(text: &str) -> Result<BotSpec, String> {
        let Some((name, command)) = text.split_once('=') else {
            return Err(format!("bot `{text}`: expected NAME=COMMAND [ARGS...]"));
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!(
                "bot `{text}`: the name before `=` must be one non-empty word"
            ));
        }
        let command = split_words(command).map_err(|e| format!("bot `{text}`: {e}"))?;
        if command.is_empty() {
            return Err(format!("bot `{text}`: no command after `{name}=`"));
        }
        Ok(BotSpec::new(name, command))
    }

    /// The command as one readable line (for messages only).
    pub fn command_line(&self) -> String {
        self.command
            .iter()
            .map(|w| {
                if w.is_empty() || w.contains(|c: char| c.is_whitespace() || c == '\'') {
                    format!("{w:?}")
                } else {
                    w.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Splits `text` into words on whitespace, with '...' and "..." quoting.
fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unclosed quote".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// What a bot did wrong: the game's losing reason and a readable detail
/// (including the offending text, truncated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotFailure {
    pub reason: Reason,
    pub detail: String,
}

impl BotFailure {
    pub fn new(reason: Reason, detail: impl Into<String>) -> Self {
        BotFailure {
            reason,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for BotFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)
    }
}

/// Why a bot could not be brought to `ready`.
#[derive(Debug)]
pub enum StartError {
    /// The command could not be run at all (not found, not executable...).
    Spawn { command: String, error: io::Error },
    /// It started but failed before or during the handshake.
    Failed(BotFailure),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Spawn { command, error } => {
                write!(f, "cannot start bot command `{command}`: {error}")
            }
            StartError::Failed(failure) => write!(f, "bot failed to start: {failure}"),
        }
    }
}

impl std::error::Error for StartError {}

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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            startup: Duration::from_secs(10),
            grace: Duration::from_millis(200),
            write_stall: Duration::from_secs(5),
            log_cap: 1 << 20,
            hide: Vec::new(),
        }
    }
}

/// Sets the limits of the process `pid` from outside (`prlimit`): the
/// sandboxed child that waits for them before it starts the bot.
fn apply_prlimits(pid: i32, res: &ResourceLimits) -> io::Result<()> {
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

/// The pid of bubblewrap's sandboxed child, from its `--info-fd` JSON.
async fn bwrap_child(info: std::os::fd::OwnedFd) -> io::Result<i32> {
    use tokio::io::AsyncReadExt as _;
    let mut pipe = pipe::Receiver::from_owned_fd(info)?;
    let mut text = Vec::new();
    let mut buf = [0u8; 512];
    // bubblewrap writes one small JSON object; a bwrap that fails first
    // closes the pipe instead.
    let read = async {
        while !text.contains(&b'}') {
            let n = pipe.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            text.extend_from_slice(&buf[..n]);
        }
        Ok::<_, io::Error>(())
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .map_err(|_| io::Error::other("bubblewrap did not start its sandbox within 10 s"))??;
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|_| {
        io::Error::other(format!(
            "bubblewrap could not start the sandbox ({})",
            String::from_utf8_lossy(&text).trim()
        ))
    })?;
    value["child-pid"]
        .as_i64()
        .map(|p| p as i32)
        .ok_or_else(|| io::Error::other("bubblewrap did not say its child's pid"))
}

/// Sets the limits in the child (between `fork` and `exec`).
fn apply_rlimits(res: &ResourceLimits) -> io::Result<()> {
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

// ---------------------------------------------------------------------------
// Live process groups, for emergency cleanup.

static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn live_add(pgid: i32) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
}

fn live_remove(pgid: i32) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = live.iter().position(|&p| p == pgid) {
        live.swap_remove(i);
    }
}

/// SIGKILLs every bot process group still alive. Safe to call from a signal
/// handling task before the referee exits.
pub fn kill_all_live() {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for &pgid in live.iter() {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// Whether the bot process group `pgid` is still registered as alive.
pub fn is_live(pgid: i32) -> bool {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&pgid)
}

// ---------------------------------------------------------------------------
// Line reader.

/// Why no line could be read.
#[derive(Debug)]
pub enum ReadError {
    /// End of output; `partial` holds bytes of an unfinished last line.
    Eof {
        partial: usize,
    },
    /// More than [`MAX_LINE`] bytes without a newline (the start of it).
    TooLong(String),
    /// More bytes than allowed (see [`LineReader::flood_at`]).
    Flood,
    Io(io::Error),
}

/// Reads `\n`-terminated lines with a fixed buffer: never holds more than
/// about two maximal lines, so a bot flooding without newlines cannot make
/// the referee buffer without bound. Cancel-safe: a cancelled
/// [`LineReader::next_line`] loses nothing.
pub struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Bytes in `buf[start..scanned]` hold no newline.
    scanned: usize,
    /// Every byte returned or consumed so far (lines with their newlines).
    pub consumed: u64,
    /// Returning a line that takes `consumed` past this is a [`ReadError::Flood`].
    pub flood_at: u64,
}

const READ_BUF: usize = 2 * (MAX_LINE + 2);

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: vec![0; READ_BUF].into_boxed_slice(),
            start: 0,
            end: 0,
            scanned: 0,
            consumed: 0,
            flood_at: u64::MAX,
        }
    }

    /// A complete line already in the buffer, without its `\n`.
    fn buffered_line(&mut self) -> Option<Result<(usize, usize), ReadError>> {
        let from = self.scanned.max(self.start);
        match memchr(b'\n', &self.buf[from..self.end]) {
            Some(i) => {
                let (s, e) = (self.start, from + i);
                if self.consumed + (e + 1 - s) as u64 > self.flood_at {
                    return Some(Err(ReadError::Flood));
                }
                self.start = e + 1;
                self.scanned = self.start;
                self.consumed += (e + 1 - s) as u64;
                Some(Ok((s, e)))
            }
            None => {
                self.scanned = self.end;
                if self.end - self.start > MAX_LINE + 1 {
                    let shown = protocol::show_bytes(&self.buf[self.start..self.end]);
                    Some(Err(ReadError::TooLong(shown)))
                } else {
                    None
                }
            }
        }
    }

    /// The next line, without its `\n` (a `\r` is left for the parser).
    pub async fn next_line(&mut self) -> Result<&[u8], ReadError> {
        loop {
            match self.buffered_line() {
                Some(Ok((s, e))) => return Ok(&self.buf[s..e]),
                Some(Err(err)) => return Err(err),
                None => {}
            }
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
                self.scanned = 0;
            } else if self.end == self.buf.len() || self.start > self.buf.len() / 2 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.scanned -= self.start;
                self.start = 0;
            }
            let n = match self.inner.read(&mut self.buf[self.end..]).await {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::Io(e)),
            };
            if n == 0 {
                return Err(ReadError::Eof {
                    partial: self.end - self.start,
                });
            }
            self.end += n;
        }
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

// ---------------------------------------------------------------------------
// Stderr log.

/// Where a bot's stderr goes: a file, capped; bytes beyond the cap (or with
/// no file) are read and dropped so the bot never blocks on stderr. The file
/// is created at the first byte: most bots write nothing, and creating two
/// empty files per game was a fifth of a fast tournament's CPU time.
///
/// A bot may have planted a link where its log will be: the file is made
/// new (`O_EXCL`), never through a link (`O_NOFOLLOW`, in a directory
/// opened without following links), mode 0600.
#[derive(Debug, Default)]
struct LogSink {
    path: Option<PathBuf>,
    file: Option<std::fs::File>,
    written: u64,
    cap: u64,
    noted: bool,
}

/// Opens the directory of `path` (made if missing, mode 0700) without
/// following a link, and gives the file's name in it.
fn log_dir(path: &Path) -> io::Result<(std::os::fd::OwnedFd, &std::ffi::OsStr)> {
    use nix::fcntl::{open, OFlag};
    use std::os::unix::fs::DirBuilderExt as _;
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file path",
        ));
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let flags = OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY;
    let fd = open(dir, flags, nix::sys::stat::Mode::empty())?;
    Ok((fd, name))
}

/// Removes the file at `path` (never what a link there points to).
fn remove_log(path: &Path) {
    if let Ok((dir, name)) = log_dir(path) {
        let _ = nix::unistd::unlinkat(&dir, name, nix::unistd::UnlinkatFlags::NoRemoveDir);
    }
}

/// Creates the log file at `path`: new, mode 0600, never through a link.
fn create_log(path: &Path) -> io::Result<std::fs::File> {
    use nix::fcntl::{openat, OFlag};
    let (dir, name) = log_dir(path)?;
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mode = nix::sys::stat::Mode::from_bits_truncate(0o600);
    let fd = openat(&dir, name, flags, mode)?;
    Ok(std::fs::File::from(fd))
}

impl LogSink {
    fn write(&mut self, data: &[u8]) {
        if self.file.is_none() {
            let Some(path) = &self.path else { return };
            match create_log(path) {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    self.path = None;
                    return;
                }
            }
        }
        let file = self.file.as_mut().expect("created above");
        let room = self.cap.saturating_sub(self.written);
        let take = (data.len() as u64).min(room) as usize;
        if take > 0 && file.write_all(&data[..take]).is_ok() {
            self.written += take as u64;
        }
        if take < data.len() && !self.noted {
            self.noted = true;
            let _ = writeln!(
                file,
                "\n[arena: log capped at {} bytes; the rest was discarded]",
                self.cap
            );
        }
    }
}

fn spawn_drain(mut stderr: pipe::Receiver, sink: Arc<Mutex<LogSink>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .write(&buf[..n]),
            }
        }
    })
}

// ---------------------------------------------------------------------------
// The bot.

/// One running bot process (and everything it starts).
pub struct Bot {
    pub spec: Arc<BotSpec>,
    child: process::spawn::Child,
    pgid: i32,
    members: Arc<Members>,
    memory: Option<Arc<Watch>>,
    frozen: bool,
    stdin: Option<pipe::Sender>,
    reader: LineReader<pipe::Receiver>,
    log: Arc<Mutex<LogSink>>,
    log_path: Option<PathBuf>,
    drain: Option<JoinHandle<()>>,
    out: Vec<u8>,
    limits: Limits,
    /// What the bot answered after `ready`.
    pub ready_text: String,
    /// Set by the first failure; a failed bot is not used again.
    failed: Option<BotFailure>,
    exited: bool,
    done: bool,
    /// Its `HOME`, `TMPDIR` (and, sandboxed, working directory): removed
    /// after the bot is gone (fields drop after [`Bot`]'s `drop`).
    _private: PrivateDir,
}

impl std::fmt::Debug for Bot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bot")
            .field("name", &self.spec.name)
            .field("pgid", &self.pgid)
            .field("failed", &self.failed)
            .finish()
    }
}

impl Bot {
    /// Starts the process only (no handshake). An error here means the
    /// command cannot be run at all. Must be called within a tokio runtime.
    ///
    /// The bot leads a session of its own (no controlling terminal, so no
    /// keystrokes into the user's shell), is in its cgroup where there are
    /// cgroups, gets its limits, and runs under bubblewrap or, unsandboxed,
    /// as a plain process ([`process::spawn`] says how each is done).
    pub async fn spawn(spec: Arc<BotSpec>, limits: &Limits, log: Option<&Path>) -> io::Result<Bot> {
        use std::ffi::{OsStr, OsString};
        let Some((program, _)) = spec.command.split_first() else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
        };
        let cwd = match &spec.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir()?,
        };
        let path = std::env::var_os("PATH").unwrap_or(process::SAFE_PATH.into());
        let sandboxed = match spec.sandbox {
            Sandbox::Bwrap => true,
            Sandbox::None => false,
            Sandbox::Auto => {
                let (s, warning) = sandbox::resolve(Sandbox::Auto).map_err(io::Error::other)?;
                if let Some(w) = warning {
                    warn_once(&w);
                }
                s == Sandbox::Bwrap
            }
        };
        let root = nix::unistd::geteuid().is_root();
        // As root, a sandboxed bot, and one whose process count is limited
        // (root ignores RLIMIT_NPROC), run under a uid of their own.
        let uid =
            (root && (sandboxed || spec.resources.processes.is_some())).then(process::next_bot_uid);
        let private = PrivateDir::create(uid, sandboxed.then_some(cwd.as_path()))?;
        let cgroup = Cgroup::create();
        let res = spec.resources.clone();
        let limited = res.any_rlimit();

        // The environment: later entries replace earlier ones; the bot's own
        // `env` cannot move HOME or TMPDIR out of its private directory.
        let home: OsString = if sandboxed {
            "/tmp".into()
        } else {
            private.path().into()
        };
        let mut env: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), path.clone()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        let plan = sandboxed.then(|| {
            Plan::new(
                &spec.command,
                &cwd,
                private.path(),
                &limits.hide,
                uid,
                &path,
            )
        });
        if let Some(plan) = &plan {
            env.extend(plan.env.iter().map(|(k, v)| (k.into(), v.into())));
        }
        env.extend(spec.env.iter().map(|(k, v)| (k.into(), v.into())));
        env.extend([("HOME".into(), home.clone()), ("TMPDIR".into(), home)]);
        let mut seen = std::collections::HashSet::new();
        env.reverse();
        env.retain(|(k, _)| seen.insert(k.clone()));
        env.reverse();
        let env_refs: Vec<(&OsStr, &OsStr)> = env
            .iter()
            .map(|(k, v)| (k.as_os_str(), v.as_os_str()))
            .collect();

        // Sandboxed with a cgroup or limits, bubblewrap waits once its
        // namespaces exist (fd 3) and says its child's pid (fd 4), so that
        // both are set before the bot runs.
        let hold = sandboxed && (cgroup.is_some() || limited);
        let (block, info) = if hold {
            let (br, bw) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
            let (ir, iw) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
            (Some((br, bw)), Some((ir, iw)))
        } else {
            (None, None)
        };
        let spawned = {
            let _spawning = process::keeper::spawning();
            let spawned = if let Some(plan) = &plan {
                let bwrap = sandbox::find_on_path("bwrap".as_ref(), &path).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::NotFound, "bwrap is not on PATH")
                })?;
                let mut argv: Vec<&OsStr> = vec!["bwrap".as_ref()];
                if hold {
                    argv.extend(["--block-fd", "3", "--info-fd", "4"].map(OsStr::new));
                }
                argv.extend(plan.args.iter().map(|a| a.as_os_str()));
                let mut fds = Vec::new();
                if let (Some((br, _)), Some((_, iw))) = (&block, &info) {
                    use std::os::fd::AsRawFd as _;
                    fds = vec![(br.as_raw_fd(), 3), (iw.as_raw_fd(), 4)];
                }
                process::spawn::spawn(process::spawn::Launch {
                    program: &bwrap,
                    argv,
                    env: env_refs,
                    cwd: Path::new("/"),
                    fds,
                    pre_exec: None,
                })?
            } else {
                let exe = sandbox::find_on_path(program.as_ref(), &path)
                    .filter(|_| !program.contains('/'))
                    .unwrap_or_else(|| PathBuf::from(program));
                // Limits and another uid can only be set in the child.
                let drop_to = uid;
                let join = cgroup.as_ref().map(Cgroup::procs_fd);
                let hook = (limited || drop_to.is_some()).then(|| {
                    let res = res.clone();
                    Box::new(move || {
                        if let Some(fd) = join {
                            // SAFETY: the cgroup's descriptor outlives the spawn.
                            let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                            nix::unistd::write(fd, b"0")?;
                        }
                        apply_rlimits(&res)?;
                        if let Some(id) = drop_to {
                            nix::unistd::setgroups(&[])?;
                            nix::unistd::setgid(nix::unistd::Gid::from_raw(id))?;
                            nix::unistd::setuid(nix::unistd::Uid::from_raw(id))?;
                        }
                        Ok(())
                    }) as Box<dyn FnMut() -> io::Result<()> + Send + Sync>
                });
                let slow = hook.is_some();
                let spawned = process::spawn::spawn(process::spawn::Launch {
                    program: &exe,
                    argv: spec.command.iter().map(OsStr::new).collect(),
                    env: env_refs,
                    cwd: &cwd,
                    fds: Vec::new(),
                    pre_exec: hook,
                })?;
                if let (Some(cg), false) = (&cgroup, slow) {
                    cg.add(spawned.child.id());
                }
                spawned
            };
            live_add(spawned.child.id());
            spawned
        };
        if let (Some((br, bw)), Some((ir, iw))) = (block, info) {
            drop((br, iw));
            let child = bwrap_child(ir).await;
            let hold_up = || -> io::Result<()> {
                let child = child?;
                if let Some(cg) = &cgroup {
                    cg.add(spawned.child.id());
                    cg.add(child);
                }
                apply_prlimits(child, &res)
            };
            if let Err(e) = hold_up() {
                // The bot never ran: end bubblewrap and say why.
                let _ = killpg(Pid::from_raw(spawned.child.id()), Signal::SIGKILL);
                live_remove(spawned.child.id());
                return Err(e);
            }
            // Any byte lets the sandboxed child go on to the bot.
            nix::unistd::write(&bw, b"go")?;
        }
        let process::spawn::Spawned {
            child,
            stdin,
            stdout,
            stderr,
        } = spawned;
        let pid = child.id();
        let members = Arc::new(Members::new(pid, cgroup, sandboxed));
        let memory = spec
            .resources
            .memory_bytes
            .map(|limit| watchdog::watch(&members, limit));
        let log_sink = Arc::new(Mutex::new(LogSink {
            cap: spec.resources.stderr_bytes.unwrap_or(limits.log_cap),
            ..LogSink::default()
        }));
        let drain = spawn_drain(stderr, log_sink.clone());
        let mut bot = Bot {
            spec,
            child,
            pgid: pid,
            members,
            memory,
            frozen: false,
            stdin: Some(stdin),
            reader: LineReader::new(stdout),
            log: log_sink,
            log_path: None,
            drain: Some(drain),
            out: Vec::with_capacity(4096),
            limits: limits.clone(),
            ready_text: String::new(),
            failed: None,
            exited: false,
            done: false,
            _private: private,
        };
        bot.set_log(log);
        Ok(bot)
    }

    /// Spawns the bot and waits for `ready` (within `limits.startup`).
    pub async fn start(
        spec: Arc<BotSpec>,
        limits: &Limits,
        log: Option<&Path>,
    ) -> Result<Bot, StartError> {
        let mut bot = Bot::spawn(spec.clone(), limits, log)
            .await
            .map_err(|error| StartError::Spawn {
                command: spec.command_line(),
                error,
            })?;
        match bot.handshake().await {
            Ok(()) => Ok(bot),
            Err(failure) => {
                bot.shutdown().await;
                Err(StartError::Failed(failure))
            }
        }
    }

    /// Sends `arena 1` and waits for `ready`.
    pub async fn handshake(&mut self) -> Result<(), BotFailure> {
        self.send(&[ToBot::Hello]).await?;
        let deadline = Instant::now() + self.limits.startup;
        loop {
            match self.read_message(Some(deadline)).await {
                Ok(FromBot::Ready(text)) => {
                    self.ready_text = protocol::truncate(&text, protocol::SHOW);
                    return Ok(());
                }
                Ok(FromBot::Info(_)) | Ok(FromBot::Empty) => {}
                Ok(FromBot::Move(mv)) => {
                    return Err(self.fail(BotFailure::new(
                        Reason::Protocol,
                        format!(
                            "`move {}` before `ready`",
                            protocol::truncate(&mv, protocol::SHOW)
                        ),
                    )))
                }
                Err(mut failure) => {
                    if failure.reason == Reason::Timeout {
                        failure.detail = format!(
                            "no `ready` within {} ms of `arena 1`",
                            self.limits.startup.as_millis()
                        );
                    }
                    return Err(failure);
                }
            }
        }
    }

    /// Directs the bot's stderr to a new log file (created, or truncated, when
    /// the first byte comes), or nowhere. Used per game; kept bots switch
    /// files between games.
    pub fn set_log(&mut self, path: Option<&Path>) {
        if let Some(p) = path {
            // A log left by an interrupted earlier attempt at this game must
            // not pass for this one's.
            remove_log(p);
        }
        let mut sink = self.log.lock().unwrap_or_else(|e| e.into_inner());
        sink.path = path.map(Path::to_path_buf);
        sink.file = None;
        sink.written = 0;
        sink.noted = false;
        self.log_path = sink.path.clone();
    }

    /// The current stderr log file, if any.
    pub fn log_path(&self) -> Option<&Path> {
        self.log_path.as_deref()
    }

    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// Stops every process of the bot (`true`: it is not on move and may
    /// not ponder) or lets them run again. Cheap when nothing changes.
    pub fn set_frozen(&mut self, frozen: bool) {
        if self.frozen != frozen && !self.done {
            self.members.set_frozen(frozen);
            self.frozen = frozen;
        }
    }

    /// CPU time all the bot's processes have used so far (see
    /// [`Members::cpu_time`]); `None` where it cannot be measured.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.members.cpu_time()
    }

    /// The failure that made this bot unusable, if any.
    pub fn failure(&self) -> Option<&BotFailure> {
        self.failed.as_ref()
    }

    fn fail(&mut self, failure: BotFailure) -> BotFailure {
        if self.failed.is_none() {
            self.failed = Some(failure.clone());
        }
        failure
    }

    /// Appends a message to the output buffer; [`Bot::flush`] writes it.
    pub fn queue(&mut self, msg: &ToBot<'_>) {
        msg.write_to(&mut self.out);
    }

    /// Writes the messages in one write (a line each) and flushes.
    pub async fn send(&mut self, msgs: &[ToBot<'_>]) -> Result<(), BotFailure> {
        for m in msgs {
            m.write_to(&mut self.out);
        }
        self.flush().await
    }

    /// Writes everything queued in one write and flushes. A bot that does
    /// not take its input within `limits.write_stall` loses on time.
    pub async fn flush(&mut self) -> Result<(), BotFailure> {
        let stall = self.limits.write_stall;
        self.flush_within(stall).await
    }

    /// [`Bot::flush`] with a custom stall limit.
    pub async fn flush_within(&mut self, stall: Duration) -> Result<(), BotFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            self.out.clear();
            return Err(self.fail(BotFailure::new(Reason::Crash, "input already closed")));
        };
        let write = async {
            stdin.write_all(&self.out).await?;
            stdin.flush().await
        };
        let result = tokio::time::timeout(stall, write).await;
        self.out.clear();
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                let failure = self.exit_failure(0, "closed its input").await;
                Err(self.fail(failure))
            }
            Ok(Err(e)) => Err(self.fail(BotFailure::new(
                Reason::Crash,
                format!("writing to the bot failed: {e}"),
            ))),
            Err(_) => Err(self.fail(BotFailure::new(
                Reason::Timeout,
                format!("did not read its input for {} ms", stall.as_millis()),
            ))),
        }
    }

    /// Marks the bot as failed (e.g. after an illegal move) so that it is not
    /// used for another game.
    pub fn mark_failed(&mut self, failure: BotFailure) {
        self.fail(failure);
    }

    /// From now on, more than `bytes` further bytes of output before the next
    /// call is a flood (a protocol violation).
    pub fn set_output_budget(&mut self, bytes: u64) {
        self.reader.flood_at = self.reader.consumed.saturating_add(bytes);
    }

    /// Bytes of output read from the bot so far (lines with newlines).
    pub fn bytes_read(&self) -> u64 {
        self.reader.consumed
    }

    /// Reads the next non-empty message, waiting until `deadline` (`None`:
    /// no limit). Notices the bot's exit even if a child keeps its output
    /// open.
    pub async fn read_message(&mut self, deadline: Option<Instant>) -> Result<FromBot, BotFailure> {
        if let Some(f) = &self.failed {
            return Err(f.clone());
        }
        let mut deadline = deadline;
        loop {
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            let failure: BotFailure = tokio::select! {
                biased;
                line = self.reader.next_line() => match line {
                    Ok(raw) => match protocol::parse_bytes(raw) {
                        Ok(FromBot::Empty) => continue,
                        Ok(msg) => return Ok(msg),
                        Err(e) => line_failure(e),
                    },
                    Err(ReadError::Eof { partial }) => self.exit_failure(partial, "closed its output").await,
                    Err(ReadError::Flood) => BotFailure::new(
                        Reason::Protocol,
                        "flooded its output (too many bytes for one decision)",
                    ),
                    Err(ReadError::TooLong(start)) => BotFailure::new(
                        Reason::Protocol,
                        format!("line longer than {MAX_LINE} bytes: {start}"),
                    ),
                    Err(ReadError::Io(e)) => BotFailure::new(
                        Reason::Crash,
                        format!("reading the bot's output failed: {e}"),
                    ),
                },
                status = self.child.wait(), if !self.exited => {
                    // The leader exited: give a complete last line a moment
                    // to arrive, then call it a crash (a child may hold the
                    // pipe open forever).
                    self.exited = true;
                    let _ = status;
                    let soon = Instant::now() + Duration::from_millis(100);
                    deadline = Some(deadline.map_or(soon, |d| d.min(soon)));
                    continue;
                }
                _ = sleep => if self.exited {
                    self.exit_failure(0, "closed its output").await
                } else {
                    BotFailure::new(Reason::Timeout, "no answer in time")
                },
            };
            return Err(self.fail(failure));
        }
    }

    /// Returns a message only if one is already readable, without waiting.
    pub async fn poll_message(&mut self) -> Option<Result<FromBot, BotFailure>> {
        if self.failed.is_some() {
            return None;
        }
        loop {
            match poll_once(self.read_message(None)).await {
                Some(Ok(FromBot::Empty)) => continue,
                other => return other,
            }
        }
    }

    /// Describes a bot whose output (or input) closed: its exit status if
    /// it exits within 100 ms (the pipe closes a moment before the process
    /// is gone), else `otherwise`.
    async fn exit_failure(&mut self, partial: usize, otherwise: &str) -> BotFailure {
        let wait = tokio::time::timeout(Duration::from_millis(100), self.child.wait());
        let status = match wait.await {
            Ok(Ok(status)) => {
                self.exited = true;
                describe_status(status)
            }
            _ => otherwise.to_string(),
        };
        if let Some(w) = self.memory.as_ref().filter(|w| w.tripped()) {
            return BotFailure::new(
                Reason::Crash,
                format!("memory limit ({} MB)", w.limit() >> 20),
            );
        }
        let detail = if partial > 0 {
            format!("{status} (after an unfinished line of {partial} bytes)")
        } else {
            status
        };
        BotFailure::new(Reason::Crash, detail)
    }

    /// Kills the whole group at once (no `quit`, no grace) and reaps the leader.
    pub async fn kill(&mut self) {
        if let Some(stdin) = self.stdin.take() {
            drop(stdin);
        }
        self.failed
            .get_or_insert(BotFailure::new(Reason::Crash, "killed"));
        self.members.kill();
        self.shutdown().await;
    }

    /// Ends the bot: `quit`, a grace period, SIGTERM to the group, a grace
    /// period, SIGKILL to the group; reaps the leader. Never hangs.
    pub async fn shutdown(&mut self) {
        if self.done {
            return;
        }
        let grace = self.limits.grace;
        // A frozen bot could not read `quit` or act on SIGTERM.
        self.set_frozen(false);
        if let Some(mut stdin) = self.stdin.take() {
            if self.failed.is_none() {
                let _ = tokio::time::timeout(grace, stdin.write_all(b"quit\n")).await;
            }
            drop(stdin); // EOF for bots that read until it
        }
        let mut reaped = self.exited && matches!(self.child.try_wait(), Ok(Some(_)));
        if !reaped {
            reaped = tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        }
        if !reaped {
            self.members.terminate();
            reaped = tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        }
        // Whatever is left (children of the bot included) dies now; what
        // had left the bot's tree becomes arena's to reap.
        let orphans = self.members.may_leave_orphans();
        self.members.kill();
        if !reaped {
            let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        }
        if let Some(drain) = self.drain.take() {
            // Let the last stderr bytes reach the log, unless something
            // outside the group holds the pipe.
            let abort = drain.abort_handle();
            if tokio::time::timeout(Duration::from_millis(100), drain)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        live_remove(self.pgid);
        self.done = true;
        if orphans {
            process::keeper::nudge();
        }
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        if !self.done {
            let orphans = self.members.may_leave_orphans();
            self.members.kill();
            let _ = self.child.start_kill();
            // Reap the leader here (SIGKILL takes effect within a moment):
            // tokio's orphan queue would only reap it at some later SIGCHLD.
            for _ in 0..200 {
                match self.child.try_wait() {
                    Ok(None) => std::thread::sleep(Duration::from_millis(1)),
                    _ => break,
                }
            }
            if let Some(drain) = self.drain.take() {
                drain.abort();
            }
            live_remove(self.pgid);
            if orphans {
                process::keeper::nudge();
            }
        }
    }
}

/// Prints `warning` on stderr, once per process.
fn warn_once(warning: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| eprintln!("arena: warning: {warning}"));
}

/// Polls `fut` once: its output if it is ready at once, else `None` (the
/// future is dropped; [`Bot::read_message`] is cancel-safe).
async fn poll_once<F: std::future::Future>(fut: F) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(|cx| match fut.as_mut().poll(cx) {
        std::task::Poll::Ready(v) => std::task::Poll::Ready(Some(v)),
        std::task::Poll::Pending => std::task::Poll::Ready(None),
    })
    .await
}

fn line_failure(e: LineError) -> BotFailure {
    let reason = Reason::Protocol;
    BotFailure::new(reason, e.to_string())
}

fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => format!(
            "killed by signal {sig}{}",
            Signal::try_from(sig)
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        ),
        _ => "exited".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_specs_parse_name_and_argv() {
        let spec = BotSpec::parse("first=python3 bots/test/testbot.py --mode first").unwrap();
        assert_eq!(spec.name, "first");
        assert_eq!(
            spec.command,
            ["python3", "bots/test/testbot.py", "--mode", "first"]
        );
        let spec = BotSpec::parse("q=prog 'two words' \"x y\" a=b").unwrap();
        assert_eq!(spec.command, ["prog", "two words", "x y", "a=b"]);
        assert!(BotSpec::parse("nocommand").is_err());
        assert!(BotSpec::parse("=prog").is_err());
        assert!(BotSpec::parse("name=").is_err());
        assert!(BotSpec::parse("name=prog 'open").is_err());
    }

    #[tokio::test]
    async fn line_reader_splits_caps_and_reports_eof() {
        let data: &[u8] = b"one\r\ntwo\n\nthree";
        let mut r = LineReader::new(data);
        assert_eq!(r.next_line().await.unwrap(), b"one\r");
        assert_eq!(r.next_line().await.unwrap(), b"two");
        assert_eq!(r.next_line().await.unwrap(), b"");
        assert!(matches!(
            r.next_line().await,
            Err(ReadError::Eof { partial: 5 })
        ));

        let mut big = vec![b'a'; MAX_LINE];
        big.push(b'\n');
        big.extend(vec![b'b'; 3 * MAX_LINE]);
        let mut r = LineReader::new(&big[..]);
        assert_eq!(r.next_line().await.unwrap().len(), MAX_LINE);
        assert!(matches!(r.next_line().await, Err(ReadError::TooLong(_))));
    }

    #[tokio::test]
    async fn line_reader_handles_many_small_lines_across_refills() {
        let mut data = Vec::new();
        for i in 0..50_000 {
            data.extend(format!("info {i}\n").as_bytes());
        }
        let mut r = LineReader::new(&data[..]);
        for i in 0..50_000 {
            assert_eq!(r.next_line().await.unwrap(), format!("info {i}").as_bytes());
        }
        assert_eq!(r.consumed, data.len() as u64);
    }
}
