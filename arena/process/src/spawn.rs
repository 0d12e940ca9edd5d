//! Starting a bot process, and waiting for it, without `fork`.
//!
//! `fork` of the referee costs little CPU, but the new process must then be
//! scheduled before it can `exec`: on a loaded machine that is a time slice
//! (about 5 ms measured here) per bot, twice per game. `posix_spawn` (vfork:
//! the child runs at once, on the parent's CPU) does not wait, and glibc's
//! can start the child in a session of its own. What a plain spawn cannot
//! do is done from outside, before the bot runs any code of its own:
//!
//! - sandboxed, bubblewrap waits (`--block-fd`) after making the
//!   namespaces; arena puts the waiting process into the bot's cgroup and
//!   sets its resource limits (`prlimit`), then lets it `exec` the bot;
//! - unsandboxed, the process enters its cgroup just after `exec` (a bot
//!   that forks within those microseconds leaves a child outside it, which
//!   still dies with its game); with resource limits or another uid it is
//!   started with `fork` after all, which can set them before `exec`.
//!
//! The child is waited for through a pidfd (not tokio's process driver,
//! which only knows the children it spawned itself).

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::ExitStatus;

use tokio::io::unix::AsyncFd;
use tokio::net::unix::pipe;

/// What to run and how.
pub struct Launch<'a> {
    /// The executable, by path (no PATH search here).
    pub program: &'a Path,
    /// The full argument vector (`argv[0]` first).
    pub argv: Vec<&'a OsStr>,
    /// The whole environment.
    pub env: Vec<(&'a OsStr, &'a OsStr)>,
    /// Working directory.
    pub cwd: &'a Path,
    /// Other descriptors the child gets: (descriptor here, number there).
    pub fds: Vec<(RawFd, RawFd)>,
    /// Done between fork and exec: the slow path (see the module doc).
    pub pre_exec: Option<Box<dyn FnMut() -> io::Result<()> + Send + Sync>>,
    /// Its stderr goes to its stdout pipe (a build's output, in order);
    /// the stderr pipe then only ever reads end of file.
    pub merge_stderr: bool,
    /// Its stdin and stdout pipes go to these descriptors instead, and 0 and
    /// 1 are /dev/null: for bubblewrap, which holds its own 0, 1 and 2 for
    /// as long as the sandbox runs (a bot that closed its stdout would never
    /// be seen to), and closes the others, which the sandbox's init step
    /// moves onto the bot's 0 and 1.
    pub stdio_at: Option<[RawFd; 2]>,
}

/// A started process with piped stdin, stdout and stderr.
pub struct Spawned {
    /// The process, to wait for and signal.
    pub child: Child,
    /// Its stdin, to write to.
    pub stdin: pipe::Sender,
    /// Its stdout, to read.
    pub stdout: pipe::Receiver,
    /// Its stderr, to read (end of file at once with `merge_stderr`).
    pub stderr: pipe::Receiver,
}

fn cstr(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
}

/// A pipe whose two ends are close-on-exec (the child's end is duplicated
/// onto its standard descriptor by the spawn, which clears the flag there).
fn pipe2() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?)
}

/// Starts `launch` in a session of its own with piped standard streams.
/// Must be called within a tokio runtime.
pub fn spawn(mut launch: Launch<'_>) -> io::Result<Spawned> {
    let (in_r, in_w) = pipe2()?;
    let (out_r, out_w) = pipe2()?;
    let (err_r, err_w) = pipe2()?;
    let null = match launch.stdio_at {
        Some(at) => {
            launch
                .fds
                .extend([(in_r.as_raw_fd(), at[0]), (out_w.as_raw_fd(), at[1])]);
            Some(OwnedFd::from(
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open("/dev/null")?,
            ))
        }
        None => None,
    };
    let (stdin, stdout) = match &null {
        Some(null) => (null.as_raw_fd(), null.as_raw_fd()),
        None => (in_r.as_raw_fd(), out_w.as_raw_fd()),
    };
    let stdio = [
        (stdin, 0),
        (stdout, 1),
        (
            if launch.merge_stderr {
                out_w.as_raw_fd()
            } else {
                err_w.as_raw_fd()
            },
            2,
        ),
    ];
    let pid = match launch.pre_exec.take() {
        None => posix_spawn(&launch, &stdio)?,
        Some(hook) => fork_exec(&launch, &stdio, hook)?,
    };
    drop((in_r, out_w, err_w, null));
    let child = Child::new(pid)?;
    Ok(Spawned {
        child,
        stdin: pipe::Sender::from_owned_fd(nonblocking(in_w)?)?,
        stdout: pipe::Receiver::from_owned_fd(nonblocking(out_r)?)?,
        stderr: pipe::Receiver::from_owned_fd(nonblocking(err_r)?)?,
    })
}

fn nonblocking(fd: OwnedFd) -> io::Result<OwnedFd> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let flags = OFlag::from_bits_truncate(fcntl(&fd, FcntlArg::F_GETFL)?);
    fcntl(&fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(fd)
}

/// The signals a child gets back at their default action (Rust ignores
/// SIGPIPE; a shell that started arena in the background ignores SIGINT and
/// SIGQUIT; ignored signals stay ignored across `exec`).
const DEFAULT_SIGNALS: [i32; 7] = [
    nix::libc::SIGPIPE,
    nix::libc::SIGINT,
    nix::libc::SIGQUIT,
    nix::libc::SIGHUP,
    nix::libc::SIGTERM,
    nix::libc::SIGUSR1,
    nix::libc::SIGUSR2,
];

fn posix_spawn(launch: &Launch<'_>, stdio: &[(RawFd, RawFd); 3]) -> io::Result<i32> {
    use nix::libc;
    let program = cstr(launch.program.as_os_str())?;
    let argv: Vec<CString> = launch
        .argv
        .iter()
        .map(|a| cstr(a))
        .collect::<io::Result<_>>()?;
    let env: Vec<CString> = launch
        .env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.as_bytes().to_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            CString::new(kv).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
        })
        .collect::<io::Result<_>>()?;
    let cwd = cstr(launch.cwd.as_os_str())?;
    let mut argv_p: Vec<*mut libc::c_char> = argv.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv_p.push(std::ptr::null_mut());
    let mut env_p: Vec<*mut libc::c_char> = env.iter().map(|a| a.as_ptr() as *mut _).collect();
    env_p.push(std::ptr::null_mut());
    let check = |rc: libc::c_int| {
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(rc))
        }
    };
    // SAFETY: the attribute and file-action objects are initialised before
    // use and destroyed on every path below; every pointer handed to
    // posix_spawn outlives the call.
    unsafe {
        let mut fa: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        check(libc::posix_spawn_file_actions_init(&mut fa))?;
        if let Err(e) = check(libc::posix_spawnattr_init(&mut attr)) {
            libc::posix_spawn_file_actions_destroy(&mut fa);
            return Err(e);
        }
        let result = (|| {
            for &(from, to) in stdio.iter().chain(&launch.fds) {
                check(libc::posix_spawn_file_actions_adddup2(&mut fa, from, to))?;
            }
            check(libc::posix_spawn_file_actions_addchdir_np(
                &mut fa,
                cwd.as_ptr(),
            ))?;
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            check(libc::posix_spawnattr_setsigmask(&mut attr, &empty))?;
            let mut defaults: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut defaults);
            for sig in DEFAULT_SIGNALS {
                libc::sigaddset(&mut defaults, sig);
            }
            check(libc::posix_spawnattr_setsigdefault(&mut attr, &defaults))?;
            let flags = libc::POSIX_SPAWN_SETSID as libc::c_int
                | libc::POSIX_SPAWN_SETSIGMASK as libc::c_int
                | libc::POSIX_SPAWN_SETSIGDEF as libc::c_int;
            check(libc::posix_spawnattr_setflags(
                &mut attr,
                flags as libc::c_short,
            ))?;
            let mut pid: libc::pid_t = 0;
            check(libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                &fa,
                &attr,
                argv_p.as_ptr(),
                env_p.as_ptr(),
            ))?;
            Ok(pid)
        })();
        libc::posix_spawn_file_actions_destroy(&mut fa);
        libc::posix_spawnattr_destroy(&mut attr);
        result
    }
}

/// The slow path: `fork`, `setsid`, the extra descriptors and `hook` in the
/// child, then `exec` (std's `Command`, which reports a failed `exec`).
fn fork_exec(
    launch: &Launch<'_>,
    stdio: &[(RawFd, RawFd); 3],
    mut hook: Box<dyn FnMut() -> io::Result<()> + Send + Sync>,
) -> io::Result<i32> {
    use std::os::unix::process::CommandExt as _;
    use std::process::Stdio;
    let dup = |fd: RawFd| -> io::Result<Stdio> {
        use nix::fcntl::{fcntl, FcntlArg};
        // Close-on-exec, as every descriptor here: a copy left open in this
        // child, or in another one spawned meanwhile, would keep the bot's
        // pipe open after the bot closed it. SAFETY: `fd` is open for the
        // whole call; the duplicate is owned by the Stdio.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        let copy = fcntl(fd, FcntlArg::F_DUPFD_CLOEXEC(0))?;
        // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor nothing else owns.
        Ok(Stdio::from(unsafe { OwnedFd::from_raw_fd(copy) }))
    };
    let mut cmd = std::process::Command::new(launch.program);
    if let Some((first, rest)) = launch.argv.split_first() {
        cmd.arg0(first).args(rest);
    }
    cmd.env_clear()
        .envs(launch.env.iter().copied())
        .current_dir(launch.cwd)
        .stdin(dup(stdio[0].0)?)
        .stdout(dup(stdio[1].0)?)
        .stderr(dup(stdio[2].0)?);
    let fds = launch.fds.clone();
    // SAFETY: between fork and exec the closure makes only
    // async-signal-safe system calls (setsid, dup2, and what `hook` does,
    // whose contract is the same) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            nix::unistd::setsid()?;
            for &(from, to) in &fds {
                if nix::libc::dup2(from, to) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            hook()
        });
    }
    let child = cmd.spawn()?;
    // Waited for through its pidfd (std's Child does not reap on drop).
    Ok(child.id() as i32)
}

/// A child process, waited for through a pidfd.
#[derive(Debug)]
pub struct Child {
    pid: i32,
    pidfd: AsyncFd<OwnedFd>,
    status: Option<ExitStatus>,
}

impl Child {
    fn new(pid: i32) -> io::Result<Child> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new
        // descriptor (or -1), which is owned from here on.
        let fd = unsafe { nix::libc::syscall(nix::libc::SYS_pidfd_open, pid, 0) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            // Without a pidfd it could never be waited for: do not leave it.
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
            let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None);
            return Err(e);
        }
        // SAFETY: `fd` was just returned by pidfd_open and nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        Ok(Child {
            pid,
            // SAFETY: an OwnedFd keeps returning the descriptor it owns,
            // open until the AsyncFd drops it.
            pidfd: unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)? },
            status: None,
        })
    }

    /// The child's pid.
    pub fn id(&self) -> i32 {
        self.pid
    }

    /// The exit status, if it has exited (reaping it).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
        if self.status.is_some() {
            return Ok(self.status);
        }
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG;
        let status = match waitid(
            Id::PIDFd(std::os::fd::AsFd::as_fd(self.pidfd.get_ref())),
            flags,
        )? {
            WaitStatus::Exited(_, code) => ExitStatus::from_raw((code & 0xff) << 8),
            WaitStatus::Signaled(_, sig, core) => {
                ExitStatus::from_raw(sig as i32 | if core { 0x80 } else { 0 })
            }
            _ => return Ok(None),
        };
        self.status = Some(status);
        Ok(self.status)
    }

    /// Waits for it to exit (cancel-safe).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            let mut ready = self.pidfd.readable().await?;
            ready.clear_ready();
        }
    }

    /// SIGKILLs it (once it is reaped, its pid may be another process's:
    /// the pidfd never is).
    pub fn start_kill(&mut self) {
        if self.status.is_none() {
            // SAFETY: pidfd_send_signal takes a descriptor we own, a signal
            // number and no siginfo.
            unsafe {
                nix::libc::syscall(
                    nix::libc::SYS_pidfd_send_signal,
                    self.pidfd.get_ref().as_raw_fd(),
                    nix::libc::SIGKILL,
                    std::ptr::null::<()>(),
                    0,
                );
            }
        }
    }
}
