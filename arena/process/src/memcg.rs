//! The memory limit in the kernel, where arena may make memory cgroups (a
//! writable cgroup v1 `memory` hierarchy, as root): each bot with a
//! `memory_mb` gets one, and the kernel charges to it everything the bot's
//! processes hold, what the watchdog ([`super::watchdog`]) cannot see among
//! it: files in memory (a memfd written and never mapped, tmpfs), kernel
//! buffers. Over the limit the kernel kills the bot; [`MemoryCgroup::oom_killed`]
//! tells arena why it died.
//!
//! On a cgroup v2 system the memory controller reaches arena's bot cgroups
//! only through a delegated subtree with no process in its parents: not
//! attempted; the watchdog alone holds the limit there. The cgroups live
//! under `arena-PID/` beside arena's own memory cgroup, and `ARENA_CGROUPS=off`
//! turns them off with the others.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::cgroup::{open_in, Procs};

/// This process's directory of bot memory cgroups, made at the first call;
/// `None` where none can be made.
fn root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        if std::env::var_os("ARENA_CGROUPS").is_some_and(|v| v == "off") {
            return None;
        }
        let dir = root_of(std::process::id())?;
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
        if !dir.join("memory.limit_in_bytes").exists() {
            let _ = fs::remove_dir(&dir);
            return None;
        }
        super::keeper::at_exit(remove_root_at_exit);
        Some(dir)
    })
    .as_deref()
}

/// Whether bots with a memory limit get a memory cgroup in this process.
pub fn available() -> bool {
    root().is_some()
}

/// Where the bot memory cgroups of the arena process `pid` live (the keeper
/// removes them after a referee that was killed).
pub fn root_of(pid: u32) -> Option<PathBuf> {
    let me = procfs::process::Process::myself().ok()?;
    let path = me
        .cgroups()
        .ok()?
        .into_iter()
        .find(|c| c.controllers.iter().any(|c| c == "memory"))?
        .pathname;
    let mount = me
        .mountinfo()
        .ok()?
        .into_iter()
        .find(|m| m.fs_type == "cgroup" && m.super_options.contains_key("memory"))?
        .mount_point;
    Some(
        mount
            .join(path.trim_start_matches('/'))
            .join(format!("arena-{pid}")),
    )
}

/// Removes the memory cgroups under `dir` (their processes are gone or
/// going: the bot cgroups' kill, or the keeper's, came first).
pub fn remove_tree(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove(&e.path());
            }
        }
    }
    remove(dir);
}

/// `rmdir`, retried while the last processes finish dying.
fn remove(dir: &Path) {
    let start = Instant::now();
    while fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(nix::libc::EBUSY))
        && start.elapsed() < Duration::from_secs(1)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// One bot's memory cgroup, removed when dropped.
#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    procs: Procs,
    oom: File,
}

impl MemoryCgroup {
    /// A fresh memory cgroup limited to `limit` bytes, or `None` where they
    /// cannot be made.
    pub fn create(limit: u64) -> Option<MemoryCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = root()?.join(format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        let _ = fs::remove_dir(&dir); // a leftover of an earlier process with our pid
        fs::create_dir(&dir).ok()?;
        let made = (|| {
            fs::write(dir.join("memory.limit_in_bytes"), limit.to_string())?;
            // With swap, the limit would only move memory to it.
            let memsw = dir.join("memory.memsw.limit_in_bytes");
            if memsw.exists() {
                fs::write(memsw, limit.to_string())?;
            }
            Ok::<_, io::Error>((
                Procs::open(&dir)?,
                open_in(&dir, "memory.oom_control", false)?,
            ))
        })();
        match made {
            Ok((procs, oom)) => Some(MemoryCgroup { dir, procs, oom }),
            Err(_) => {
                let _ = fs::remove_dir(&dir);
                None
            }
        }
    }

    /// The way in.
    pub fn procs(&self) -> &Procs {
        &self.procs
    }

    /// Whether the kernel killed a process of the bot for going over the
    /// limit.
    pub fn oom_killed(&self) -> bool {
        let mut buf = [0u8; 256];
        let Ok(n) = self.oom.read_at(&mut buf, 0) else {
            return false;
        };
        String::from_utf8_lossy(&buf[..n])
            .lines()
            .filter_map(|l| l.strip_prefix("oom_kill "))
            .any(|n| n.trim().parse::<u64>().is_ok_and(|n| n > 0))
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        remove(&self.dir);
    }
}

extern "C" fn remove_root_at_exit() {
    remove_root();
}

/// Removes this process's memory cgroups: at exit (also from `atexit`).
pub fn remove_root() {
    if let Some(root) = root() {
        remove_tree(root);
    }
}
