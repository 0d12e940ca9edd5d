//! A running bot: spawning (argv only, a session of its own, piped stdin and
//! stdout, stderr drained into a capped log file, under the sandbox and
//! containment of this module's siblings), the `arena 1`/`ready` handshake,
//! deadline-aware reads, freezing, and kill escalation.
//!
//! Everything a bot does wrong comes back as a [`BotFailure`] (a game result
//! for the referee), never as a panic. Only a command that cannot be started
//! at all is an [`std::io::Error`] (a user mistake).
//!
//! No bot outlives its [`Bot`]: [`Bot::shutdown`] sends `quit`, waits a grace
//! period, then SIGTERMs and finally SIGKILLs the whole process group and
//! reaps the leader; dropping a `Bot` without shutting it down SIGKILLs the
//! group at once. [`kill_all_live`] kills every bot group still alive (the
//! keeper calls it when arena is stopped).

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::cgroup::Cgroup;
use super::limits::{apply_prlimits, apply_rlimits, Limits};
use super::line_reader::{LineReadError, LineReader};
use super::log_sink::{remove_log, spawn_drain, LogSink};
use super::members::Members;
use super::memcg::MemoryCgroup;
use super::sandbox::{self, BwrapPlan, PrivateDir};
use super::spec::BotSpec;
use super::transcript::{Transcript, Way};
use super::watchdog::{self, Watch};
use crate as process;
use arena_core::protocol::{self, FromBot, LineError, ToBot, MAX_LINE};
use arena_core::record::Reason;

/// What a bot did wrong: the game's losing reason and a readable detail
/// (including the offending text, truncated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotFailure {
    /// Why the bot loses: what the record's reason says.
    pub reason: Reason,
    /// What it did, in words for the record and the user.
    pub detail: String,
}

impl BotFailure {
    /// A failure for `reason`, with `detail` saying what happened.
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

impl std::error::Error for BotFailure {}

/// Why a bot could not be brought to `ready`.
#[derive(Debug)]
pub enum StartError {
    /// The command could not be run at all (not found, not executable...).
    Spawn {
        /// The command line, as a shell would quote it.
        command: String,
        /// Why it did not run.
        error: io::Error,
    },
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

/// The pid of bubblewrap's sandboxed child, from its `--info-fd` JSON.
/// Starts an unsandboxed bot through the init step's unsandboxed mode
/// (posix_spawn, no `fork` of the referee): puts the waiting step into
/// `ways_in` (the bot's cgroups), sets its resource limits, then lets it
/// drop to `uid` and exec `exe`. Returns the spawned step (soon the bot)
/// and the descriptor where it reports a failed `exec` ([`exec_result`]).
#[allow(clippy::too_many_arguments)]
fn spawn_held(
    init: &Path,
    exe: &Path,
    spec: &BotSpec,
    uid: Option<u32>,
    env: Vec<(&OsStr, &OsStr)>,
    cwd: &Path,
    ways_in: [Option<&super::cgroup::Procs>; 3],
    res: &super::limits::ResourceLimits,
) -> io::Result<(process::spawn::Spawned, std::os::fd::OwnedFd)> {
    use std::os::fd::AsRawFd as _;
    let cloexec = nix::fcntl::OFlag::O_CLOEXEC;
    let (hold_r, hold_w) = nix::unistd::pipe2(cloexec)?;
    let (report_r, report_w) = nix::unistd::pipe2(cloexec)?;
    let uid_text = uid.map(|u| u.to_string());
    let mut argv: Vec<&OsStr> = vec![
        OsStr::new("arena-sandbox-init"),
        OsStr::new(super::sandbox_init::UNSANDBOXED),
    ];
    if let Some(u) = &uid_text {
        argv.extend([OsStr::new("--uid"), OsStr::new(u)]);
    }
    argv.extend([OsStr::new("--program"), exe.as_os_str()]);
    // The bot's environment goes as arguments: the step runs as root with
    // none of its own.
    let entries: Vec<std::ffi::OsString> = env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.to_os_string();
            kv.push("=");
            kv.push(v);
            kv
        })
        .collect();
    for kv in &entries {
        argv.extend([OsStr::new("--env"), kv.as_os_str()]);
    }
    argv.push(OsStr::new("--"));
    argv.extend(spec.command.iter().map(OsStr::new));
    let [hold_at, report_at] = super::sandbox_init::HOLD_FDS;
    let spawned = process::spawn::spawn(process::spawn::Launch {
        program: init,
        argv,
        env: Vec::new(),
        cwd,
        fds: vec![
            (hold_r.as_raw_fd(), hold_at),
            (report_w.as_raw_fd(), report_at),
        ],
        pre_exec: None,
        merge_stderr: spec.build.is_some(),
        stdio_at: None,
    })?;
    drop((hold_r, report_w));
    let pid = spawned.child.id();
    let set_up = || -> io::Result<()> {
        for procs in ways_in.into_iter().flatten() {
            procs.add(pid);
        }
        apply_prlimits(pid, res)
    };
    if let Err(e) = set_up() {
        // The bot never ran: the step reads end of file and exits.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        return Err(e);
    }
    // Any byte lets the step go on to the bot.
    nix::unistd::write(&hold_w, b"go")?;
    Ok((spawned, report_r))
}

/// Whether the init step's `exec` of the bot succeeded: end of file (the
/// descriptor closed on exec), or the errno it failed with.
async fn exec_result(report: std::os::fd::OwnedFd) -> io::Result<()> {
    use tokio::io::AsyncReadExt as _;
    let mut pipe = pipe::Receiver::from_owned_fd(report)?;
    let mut errno = [0u8; 4];
    let mut got = 0;
    let read = async {
        while got < errno.len() {
            let n = pipe.read(&mut errno[got..]).await?;
            if n == 0 {
                break;
            }
            got += n;
        }
        Ok::<_, io::Error>(())
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .map_err(|_| io::Error::other("the bot's start did not finish within 10 s"))??;
    match got {
        0 => Ok(()),
        4 => Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno))),
        _ => Err(io::Error::other("the bot's start ended half-way")),
    }
}

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
// The bot.

/// One running bot process (and everything it starts).
pub struct Bot {
    /// How it was started: its name, command and confinement.
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
    /// The conversation so far, if kept (`Limits::transcript`).
    transcript: Option<Transcript>,
    /// Set by the first failure; a failed bot is not used again.
    failed: Option<BotFailure>,
    exited: bool,
    done: bool,
    /// An unsandboxed bot's `HOME` and `TMPDIR` (a sandboxed bot's are
    /// tmpfs that go with its namespace): removed after the bot is gone
    /// (fields drop after [`Bot`]'s `drop`).
    _private: Option<PrivateDir>,
    /// Its uid, when it has one of its own: back to the pool after the bot
    /// is gone (and handed out again only when no process holds it).
    _uid: Option<process::uids::BotUid>,
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
        // Decided with the run's settings, never here: a bot's start
        // neither probes bubblewrap nor warns.
        let sandboxed = spec.sandbox.is_bwrap();
        let root = nix::unistd::geteuid().is_root();
        // As root, a sandboxed bot, and one whose process count is limited
        // (root ignores RLIMIT_NPROC), run under a uid of their own.
        let bot_uid =
            if root && spec.build.is_none() && (sandboxed || spec.resources.processes.is_some()) {
                Some(process::uids::lease()?)
            } else {
                None
            };
        // A build runs as its directory's owner (see `Build`).
        let build_uid = spec.build.as_ref().and_then(|b| b.owner).map(|o| o.0);
        let uid = bot_uid
            .as_ref()
            .map(process::uids::BotUid::get)
            .or(build_uid.filter(|_| root));
        let private = if sandboxed {
            None
        } else {
            Some(PrivateDir::create(uid)?)
        };
        let cgroup = Cgroup::create();
        let memcg = spec.resources.memory_bytes.and_then(MemoryCgroup::create);
        let res = spec.resources.clone();
        let limited = res.any_rlimit();

        // The environment: later entries replace earlier ones; the bot's own
        // `env` cannot move HOME or TMPDIR out of its private directory.
        let home: OsString = match &private {
            Some(dir) => dir.path().into(),
            None => "/tmp".into(),
        };
        let mut env: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), path.clone()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        // A bot's stdin and stdout reach it past bubblewrap (see
        // `Launch::stdio_at`); a build's output ends with its process anyway.
        let stdio_at =
            (sandboxed && spec.build.is_none()).then_some(super::sandbox_init::STDIO_FDS);
        let plan = sandboxed.then(|| {
            let mut plan = BwrapPlan::new(
                &spec.command,
                &cwd,
                spec.resources
                    .disk_bytes
                    .unwrap_or(process::limits::DEFAULT_DISK_BYTES),
                &limits.hide,
                uid,
                &path,
                sandbox::Roots {
                    interpreters: &spec.interpreters,
                    bot_dirs: &limits.bot_dirs,
                    build: spec.build.as_ref(),
                },
            );
            if stdio_at.is_some() {
                plan.take_stdio();
            }
            plan
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
        let hold = sandboxed && (cgroup.is_some() || memcg.is_some() || limited);
        let (block, info) = if hold {
            let (br, bw) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
            let (ir, iw) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
            (Some((br, bw)), Some((ir, iw)))
        } else {
            (None, None)
        };
        // Set when the bot was started by the init step's unsandboxed mode:
        // where it says whether its `exec` failed.
        let mut exec_report: Option<std::os::fd::OwnedFd> = None;
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
                    merge_stderr: spec.build.is_some(),
                    stdio_at,
                })?
            } else {
                let exe = sandbox::find_on_path(program.as_ref(), &path)
                    .filter(|_| !program.contains('/'))
                    .unwrap_or_else(|| PathBuf::from(program));
                let drop_to = uid;
                let set_up_first = limited || drop_to.is_some() || memcg.is_some();
                let init = set_up_first
                    .then(|| super::sandbox_init::program().ok())
                    .flatten();
                if let Some(init) = init {
                    // Limits, cgroups and another uid, set up before the bot
                    // runs without a `fork` of this process (see
                    // `sandbox_init::UNSANDBOXED`).
                    let (spawned, report) = spawn_held(
                        &init,
                        &exe,
                        &spec,
                        drop_to,
                        env_refs,
                        &cwd,
                        [
                            cgroup.as_ref().map(Cgroup::procs),
                            cgroup.as_ref().and_then(Cgroup::share),
                            memcg.as_ref().map(MemoryCgroup::procs),
                        ],
                        &res,
                    )?;
                    exec_report = Some(report);
                    spawned
                } else {
                    // Without the init step's binary: `fork`, which can set them in the child.
                    let join = cgroup.as_ref().map(|cg| cg.procs().fd());
                    let join_share = cgroup.as_ref().and_then(Cgroup::share).map(|p| p.fd());
                    let join_memory = memcg.as_ref().map(|cg| cg.procs().fd());
                    let hook = (limited || drop_to.is_some() || join_memory.is_some()).then(|| {
                        let res = res.clone();
                        Box::new(move || {
                            for fd in [join, join_share, join_memory].into_iter().flatten() {
                                // SAFETY: the cgroups' descriptors outlive the spawn.
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
                        })
                            as Box<dyn FnMut() -> io::Result<()> + Send + Sync>
                    });
                    let slow = hook.is_some();
                    let spawned = process::spawn::spawn(process::spawn::Launch {
                        program: &exe,
                        argv: spec.command.iter().map(OsStr::new).collect(),
                        env: env_refs,
                        cwd: &cwd,
                        fds: Vec::new(),
                        pre_exec: hook,
                        merge_stderr: spec.build.is_some(),
                        stdio_at: None,
                    })?;
                    if let (Some(cg), false) = (&cgroup, slow) {
                        cg.procs().add(spawned.child.id());
                        if let Some(share) = cg.share() {
                            share.add(spawned.child.id());
                        }
                    }
                    spawned
                }
            };
            live_add(spawned.child.id());
            spawned
        };
        let mut spawned = spawned;
        if let Some(report) = exec_report {
            if let Err(e) = exec_result(report).await {
                // The step said why on stderr and exited: reap it.
                let _ = killpg(Pid::from_raw(spawned.child.id()), Signal::SIGKILL);
                let _ = spawned.child.wait().await;
                live_remove(spawned.child.id());
                return Err(e);
            }
        }
        if let (Some((br, bw)), Some((ir, iw))) = (block, info) {
            drop((br, iw));
            let child = bwrap_child(ir).await;
            let hold_up = || -> io::Result<()> {
                let child = child?;
                let ways_in = [
                    cgroup.as_ref().map(Cgroup::procs),
                    cgroup.as_ref().and_then(Cgroup::share),
                    memcg.as_ref().map(MemoryCgroup::procs),
                ];
                for procs in ways_in.into_iter().flatten() {
                    procs.add(spawned.child.id());
                    procs.add(child);
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
        let members = Arc::new(Members::new(pid, cgroup, sandboxed, memcg));
        let memory = spec
            .resources
            .memory_bytes
            .map(|limit| watchdog::watch(&members, limit));
        let log_sink = Arc::new(Mutex::new(LogSink {
            cap: spec.resources.stderr_bytes.unwrap_or(limits.log_cap),
            ..LogSink::default()
        }));
        let drain = spawn_drain(stderr, log_sink.clone());
        let cap = spec.resources.stderr_bytes.unwrap_or(limits.log_cap);
        let transcript = limits.transcript.then(|| Transcript::new(cap));
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
            transcript,
            failed: None,
            exited: false,
            done: false,
            _private: private,
            _uid: bot_uid,
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
                    self.ready_text =
                        protocol::plain_text(&protocol::truncate(&text, protocol::SHOW));
                    // A bot that is ready waits frozen for its first `go`:
                    // nothing it leaves running takes the CPU another bot
                    // needs to start or to think.
                    self.set_frozen(true);
                    return Ok(());
                }
                Ok(FromBot::Info(_)) | Ok(FromBot::Empty) => {}
                Ok(FromBot::ReadyOk) => {
                    return Err(self.fail(BotFailure::new(
                        Reason::Protocol,
                        "`readyok` before `ready`",
                    )))
                }
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

    /// The conversation since the last call (or the start), if one is
    /// kept: see [`super::transcript`].
    pub fn take_transcript(&mut self) -> Option<Vec<u8>> {
        self.transcript.as_mut().map(Transcript::take)
    }

    /// The current stderr log file, if any.
    pub fn log_path(&self) -> Option<&Path> {
        self.log_path.as_deref()
    }

    /// The bot's pid, also the id of its process group, which arena signals
    /// to reach everything the bot started.
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

    /// How long the bot has to start (`ready`) or to set up for a game
    /// (`readyok`).
    pub fn startup_limit(&self) -> Duration {
        self.limits.startup
    }

    /// How long [`Bot::flush`] waits for a bot that does not take its input.
    pub fn write_stall(&self) -> Duration {
        self.limits.write_stall
    }

    /// [`Bot::flush`] with a custom stall limit.
    pub async fn flush_within(&mut self, stall: Duration) -> Result<(), BotFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            self.out.clear();
            return Err(self.fail(BotFailure::new(Reason::Crash, "input already closed")));
        };
        if let Some(t) = self.transcript.as_mut() {
            t.written(&self.out);
        }
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
                    Ok(raw) => {
                        if let Some(t) = self.transcript.as_mut() {
                            t.line(Way::FromBot, raw);
                        }
                        match protocol::parse_bytes(raw) {
                            Ok(FromBot::Empty) => continue,
                            Ok(msg) => return Ok(msg),
                            Err(e) => line_failure(e),
                        }
                    }
                    Err(LineReadError::Eof { partial }) => self.exit_failure(partial, "closed its output").await,
                    Err(LineReadError::Flood) => BotFailure::new(
                        Reason::Protocol,
                        "flooded its output (too many bytes for one decision)",
                    ),
                    Err(LineReadError::TooLong(start)) => BotFailure::new(
                        Reason::Protocol,
                        format!("line longer than {MAX_LINE} bytes: {start}"),
                    ),
                    Err(LineReadError::Io(e)) => BotFailure::new(
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
        let over = self.memory.as_ref().is_some_and(|w| w.tripped()) || self.members.over_memory();
        if let (true, Some(limit)) = (over, self.spec.resources.memory_bytes) {
            return BotFailure::new(Reason::Crash, format!("memory limit ({} MB)", limit >> 20));
        }
        let detail = if partial > 0 {
            format!("{status} (after an unfinished line of {partial} bytes)")
        } else {
            status
        };
        BotFailure::new(Reason::Crash, detail)
    }

    /// For a process that is not a bot (a sandboxed build): closes its
    /// input, gives each line of its output to `line` until it exits, and
    /// returns its exit status; a failure when `deadline` passes first
    /// (`timeout`) or it goes over its memory (`crash`, `memory limit`).
    /// `check` runs every 250 ms and may end it with a failure of its own.
    /// Whatever it leaves running is the caller's to [`Bot::kill`].
    pub async fn run_to_exit(
        &mut self,
        deadline: Instant,
        mut line: impl FnMut(&[u8]),
        mut check: impl FnMut() -> Option<BotFailure>,
    ) -> Result<std::process::ExitStatus, BotFailure> {
        drop(self.stdin.take());
        let mut eof = false;
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        let status = loop {
            tokio::select! {
                l = self.reader.next_line(), if !eof => match l {
                    Ok(raw) => line(raw),
                    Err(LineReadError::TooLong(start)) => line(start.as_bytes()),
                    Err(_) => eof = true,
                },
                status = self.child.wait() => {
                    self.exited = true;
                    break status.map_err(|e| BotFailure::new(Reason::Crash, e.to_string()))?;
                }
                _ = tick.tick() => if let Some(failure) = check() {
                    return Err(self.fail(failure));
                },
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(self.fail(BotFailure::new(Reason::Timeout, "out of time")));
                }
            }
        };
        // What it wrote just before it exited (a child may keep the pipe
        // open: not waited for).
        let rest = Instant::now() + Duration::from_millis(100);
        while !eof {
            match tokio::time::timeout_at(rest, self.reader.next_line()).await {
                Ok(Ok(raw)) => line(raw),
                Ok(Err(LineReadError::TooLong(start))) => line(start.as_bytes()),
                _ => eof = true,
            }
        }
        let over = self.memory.as_ref().is_some_and(|w| w.tripped()) || self.members.over_memory();
        if let (true, Some(limit)) = (over, self.spec.resources.memory_bytes) {
            return Err(self.fail(BotFailure::new(
                Reason::Crash,
                format!("memory limit ({} MB)", limit >> 20),
            )));
        }
        Ok(status)
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
            self.child.start_kill();
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
