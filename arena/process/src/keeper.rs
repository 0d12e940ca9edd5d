//! Nothing a bot starts outlives its game or the referee, whatever it does
//! (`setsid`, `setpgid`, double forks, daemons) and however the referee
//! ends (even `kill -9`).
//!
//! - A command that runs bots calls [`install`] first thing: the process
//!   forks. The child goes on as the referee; the parent becomes its
//!   *keeper*, a small single-threaded process that only waits. The keeper
//!   is a child subreaper: if the referee dies, every bot and every orphan
//!   of a bot becomes the keeper's child, and the keeper kills and reaps
//!   them all, then exits as the referee did. If the keeper is killed, the
//!   referee gets SIGTERM (its parent-death signal) and stops as on Ctrl-C,
//!   killing its bots. The referee has a process group of its own, so that
//!   killing arena's process group kills the keeper only. Signals sent to the
//!   keeper (Ctrl-C, a scheduler's SIGTERM) are passed on to the referee.
//! - The referee is a child subreaper too, from its first bot on: a bot's
//!   process that loses its parent becomes the referee's child, and
//!   [`nudge`] (after each bot stops) kills and reaps such orphans.
//!   Builds run before the first bot, so their daemons (sccache, gradle) are
//!   left alone.
//! - Both are non-dumpable: a process of the same user cannot read their
//!   environment or memory through /proc.
//!
//! With cgroups ([`super::cgroup`]) a bot's processes are killed together
//! anyway; this is what holds without them.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{kill, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::{fork, getpgrp, getpid, getppid, ForkResult, Pid};

/// The keeper's pid, in the referee (0: no keeper).
static KEEPER: AtomicI32 = AtomicI32::new(0);
/// The referee's pid, in the keeper.
static REFEREE: AtomicI32 = AtomicI32::new(0);
/// In the keeper: the referee has started bots (become a subreaper).
static CONTAIN: AtomicBool = AtomicBool::new(false);
/// In the referee: [`install`] ran, so orphans are ours to sweep.
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// In the keeper: the referee has a process group of its own, so the
/// terminal's Ctrl-C reaches the keeper only.
static SEPARATE: AtomicBool = AtomicBool::new(false);

/// Splits this process into keeper and referee (see the module doc). Call
/// it before any thread is started. Returns in the referee only.
///
/// The referee gets a process group of its own, so that `kill -9` of
/// arena's process group (as `timeout -s KILL` does) kills the keeper only:
/// the referee then stops its bots as on Ctrl-C. An `interactive` command
/// (one that reads the terminal) stays in the terminal's group.
pub fn install(interactive: bool) {
    // Inherited by the child: neither exposes its environment to bots.
    let _ = nix::sys::prctl::set_dumpable(false);
    let parent = getpid();
    // The referee may signal the keeper before the keeper's handlers are
    // in place: held back until they are.
    let watched = watched_signals();
    let _ = watched.thread_block();
    // SAFETY: no other thread exists yet (the caller's contract), so the
    // child may run arbitrary code.
    match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            if !interactive {
                let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
            }
            let _ = watched.thread_unblock();
            let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
            if getppid() != parent {
                // The keeper died before the line above: stop at once.
                let _ = kill(getpid(), Signal::SIGTERM);
            }
            KEEPER.store(parent.as_raw(), Ordering::Relaxed);
            INSTALLED.store(true, Ordering::Relaxed);
        }
        Ok(ForkResult::Parent { child }) => {
            if !interactive {
                // Also here: whichever of the two runs first.
                let _ = nix::unistd::setpgid(child, child);
                SEPARATE.store(true, Ordering::Relaxed);
            }
            keep(child, watched)
        }
        // Without a keeper the referee still sweeps orphans while it lives.
        Err(_) => {
            let _ = watched.thread_unblock();
            INSTALLED.store(true, Ordering::Relaxed);
        }
    }
}

/// The signals the keeper handles: passed on to the referee, and SIGUSR1.
fn watched_signals() -> SigSet {
    let mut set = SigSet::empty();
    for sig in [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGUSR1,
    ] {
        set.add(sig);
    }
    set
}

/// The keeper: waits for the referee, then cleans up and exits as it did.
fn keep(referee: Pid, watched: SigSet) -> ! {
    REFEREE.store(referee.as_raw(), Ordering::Relaxed);
    let forward = SigAction::new(
        SigHandler::SigAction(forward),
        SaFlags::SA_SIGINFO,
        SigSet::empty(),
    );
    let contain = SigAction::new(
        SigHandler::Handler(contain),
        SaFlags::empty(),
        SigSet::empty(),
    );
    // SAFETY: the handlers only load and store atomics and call kill(2).
    unsafe {
        for sig in [
            Signal::SIGINT,
            Signal::SIGTERM,
            Signal::SIGHUP,
            Signal::SIGQUIT,
        ] {
            let _ = nix::sys::signal::sigaction(sig, &forward);
        }
        let _ = nix::sys::signal::sigaction(Signal::SIGUSR1, &contain);
    }
    let _ = watched.thread_unblock();
    let mut subreaper = false;
    let status = loop {
        if CONTAIN.load(Ordering::Relaxed) && !subreaper {
            subreaper = nix::sys::prctl::set_child_subreaper(true).is_ok();
        }
        match waitpid(None, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == referee => break Ok(code),
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == referee => break Err(sig),
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => break Ok(1),
        }
    };
    if CONTAIN.load(Ordering::Relaxed) {
        let pid = referee.as_raw() as u32;
        if let Some(dir) = super::cgroup::root_of(pid) {
            super::cgroup::kill_tree(&dir);
        }
        sweep(|_| true);
        if let Some(dir) = super::memcg::root_of(pid) {
            super::memcg::remove_tree(&dir);
        }
        if let Some(dir) = super::cgroup::share_root_of(pid) {
            super::cgroup::remove_share_tree(&dir);
        }
        super::sandbox::remove_box_root(pid);
    }
    match status {
        Ok(code) => std::process::exit(code),
        Err(sig) => {
            // Die the same way, so that shells and schedulers see it.
            // SAFETY: resetting a disposition to the default is always sound.
            unsafe {
                let _ = nix::sys::signal::signal(sig, SigHandler::SigDfl);
            }
            let _ = kill(getpid(), sig);
            std::process::exit(128 + sig as i32)
        }
    }
}

extern "C" fn forward(
    sig: nix::libc::c_int,
    info: *mut nix::libc::siginfo_t,
    _: *mut std::ffi::c_void,
) {
    // When the referee shares the keeper's process group (`play`), the
    // terminal's Ctrl-C reaches it directly: only a SIGINT that a process
    // sent to the keeper is passed on. Otherwise every signal is.
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let from_process = unsafe { (*info).si_code } == nix::libc::SI_USER;
    if sig != nix::libc::SIGINT || from_process || SEPARATE.load(Ordering::Relaxed) {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe { nix::libc::kill(REFEREE.load(Ordering::Relaxed), sig) };
    }
}

extern "C" fn contain(_: nix::libc::c_int) {
    CONTAIN.store(true, Ordering::Relaxed);
}

// ---------------------------------------------------------------------------
// In the referee.

/// Held while a bot is being spawned and registered, and while orphans are
/// swept: a just-spawned bot is never mistaken for an orphan.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Takes the spawn lock (see `SPAWNING`); the first call also makes this
/// process a subreaper and tells the keeper that bots are running.
pub fn spawning() -> MutexGuard<'static, ()> {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        if !INSTALLED.load(Ordering::Relaxed) {
            return;
        }
        let _ = nix::sys::prctl::set_child_subreaper(true);
        let keeper = KEEPER.load(Ordering::Relaxed);
        if keeper != 0 {
            let _ = kill(Pid::from_raw(keeper), Signal::SIGUSR1);
        }
        let _ = std::thread::Builder::new()
            .name("arena-orphans".into())
            .spawn(sweeper);
    });
    SPAWNING.lock().unwrap_or_else(|e| e.into_inner())
}

static NUDGED: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Asks for a sweep of orphans soon (after a bot stopped: what it left
/// behind is killed within a few milliseconds).
pub fn nudge() {
    if INSTALLED.load(Ordering::Relaxed) {
        *NUDGED.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        NUDGED.1.notify_one();
    }
}

fn sweeper() {
    loop {
        {
            let mut nudged = NUDGED.0.lock().unwrap_or_else(|e| e.into_inner());
            while !*nudged {
                nudged = NUDGED.1.wait(nudged).unwrap_or_else(|e| e.into_inner());
            }
            *nudged = false;
        }
        sweep_orphans();
        // At most one scan of /proc (milliseconds of CPU) per interval,
        // however many bots stop.
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Kills and reaps this process's children that it did not start as bots
/// (orphans of bots it adopted as a subreaper). Children in this process's
/// own process group (builds, compilers) are not bots' and are left alone:
/// every bot leads a session of its own, so none of its processes can join
/// that group.
pub fn sweep_orphans() {
    if !INSTALLED.load(Ordering::Relaxed) {
        return;
    }
    let _held = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    let group = getpgrp().as_raw();
    sweep(|stat| stat.pgrp != group && !crate::bot::is_live(stat.pid));
}

/// Kills and reaps, until none is left, every child of this process that
/// `orphan` selects.
fn sweep(orphan: impl Fn(&procfs::process::Stat) -> bool) {
    let me = std::process::id() as i32;
    for _ in 0..1000 {
        let Ok(all) = procfs::process::all_processes() else {
            return;
        };
        let found: Vec<i32> = all
            .flatten()
            .filter_map(|p| p.stat().ok())
            .filter(|s| s.ppid == me && orphan(s))
            .map(|s| s.pid)
            .collect();
        if found.is_empty() {
            return;
        }
        for &pid in &found {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        for pid in found {
            let _ = waitpid(Pid::from_raw(pid), None);
        }
    }
}

/// Runs `f` when this process exits normally (`exit`, the end of `main`),
/// whoever exits: what a process made outside itself (cgroups) goes even
/// when it never reaches [`finish`], as a test binary does not.
pub fn at_exit(f: extern "C" fn()) {
    // SAFETY: `f` is a plain function with no arguments, as atexit expects.
    unsafe {
        nix::libc::atexit(f);
    }
}

/// The end of a command that ran bots: every bot, every orphan, every bot
/// cgroup and private directory goes.
pub fn finish() {
    crate::bot::kill_all_live();
    super::cgroup::remove_root();
    sweep_orphans();
    super::memcg::remove_root();
    super::sandbox::remove_box_root(std::process::id());
}
