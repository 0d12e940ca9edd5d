//! A cgroup (v2) per bot, where arena may create them (as root, or in a
//! delegated subtree): every process a bot starts stays in its cgroup
//! whatever it does to its session or process group, so the cgroup is what
//! arena kills, reads CPU time from, and finds the processes to freeze in. Where no cgroup can be
//! made, [`super::members`] falls back to the bot's process group.
//!
//! Each bot's cgroup also has the same CPU share as every other bot's: its
//! v2 `cpu.weight` where the cpu controller reaches arena's cgroups, else a
//! cgroup of its own in the v1 `cpu` hierarchy with the same `cpu.shares`
//! (hybrid systems, such as this project's machines). The scheduler then
//! divides the CPU between bots, not between their threads or sessions.
//!
//! The cgroups live under `arena-PID/` beside arena's own cgroup. `ARENA_CGROUPS=off`
//! in arena's environment turns them off (to try the fallback, or where a
//! cgroup manager objects to foreign directories).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt as _, OpenOptionsExt as _};
use std::os::unix::io::{AsRawFd as _, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The directory that holds this process's bot cgroups, made at the first
/// call; `None` where cgroups cannot be made here.
fn root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        if std::env::var_os("ARENA_CGROUPS").is_some_and(|v| v == "off") {
            return None;
        }
        let dir = own_cgroup_dir()?.join(format!("arena-{}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
        // Where the v2 cpu controller reaches this directory, the bots' own
        // cgroups get it (and so equal weights); where it does not, this
        // fails and the v1 `cpu` hierarchy gives the shares ([`share_root`]).
        let _ = fs::write(dir.join("cgroup.subtree_control"), b"+cpu");
        // As for the v1 shares ([`share_root`]): the bots together weigh
        // one task per CPU.
        let _ = fs::write(
            dir.join("cpu.weight"),
            (100 * cpus()).min(10000).to_string(),
        );
        // cgroup.kill came with Linux 5.14; without it the fallback is better.
        if dir.join("cgroup.kill").exists() {
            super::keeper::at_exit(remove_root_at_exit);
            Some(dir)
        } else {
            let _ = fs::remove_dir(&dir);
            None
        }
    })
    .as_deref()
}

/// The CPUs this process may use.
fn cpus() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// Whether bots get cgroups of their own in this process.
pub fn available() -> bool {
    root().is_some()
}

/// The cgroup v2 directory this process is in (from /proc/self/cgroup and
/// the cgroup2 mount in /proc/self/mountinfo).
fn own_cgroup_dir() -> Option<PathBuf> {
    let me = procfs::process::Process::myself().ok()?;
    let path = me
        .cgroups()
        .ok()?
        .into_iter()
        .find(|c| c.hierarchy == 0 && c.controllers.is_empty())?
        .pathname;
    let mount = me
        .mountinfo()
        .ok()?
        .into_iter()
        .find(|m| m.fs_type == "cgroup2")?
        .mount_point;
    Some(mount.join(path.trim_start_matches('/')))
}

/// Where the bot cgroups of the arena process `pid` live: the keeper uses it
/// to clean up after a referee that was killed.
pub fn root_of(pid: u32) -> Option<PathBuf> {
    if std::env::var_os("ARENA_CGROUPS").is_some_and(|v| v == "off") {
        return None;
    }
    Some(own_cgroup_dir()?.join(format!("arena-{pid}")))
}

/// Kills every process in the cgroup tree `dir` and removes it (best effort).
pub fn kill_tree(dir: &Path) {
    let _ = fs::write(dir.join("cgroup.kill"), b"1");
    wait_empty(dir, Duration::from_secs(2));
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = fs::remove_dir(e.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

/// Waits (polling) until no process is left in `dir`'s tree.
fn wait_empty(dir: &Path, within: Duration) {
    let start = Instant::now();
    while populated(dir) && start.elapsed() < within {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn populated(dir: &Path) -> bool {
    fs::read_to_string(dir.join("cgroup.events"))
        .map(|t| t.lines().any(|l| l == "populated 1"))
        .unwrap_or(false)
}

/// Opens `name` in the cgroup directory `dir`, close-on-exec.
pub(super) fn open_in(dir: &Path, name: &str, write: bool) -> io::Result<File> {
    OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(nix::libc::O_CLOEXEC)
        .open(dir.join(name))
}

/// A cgroup's `cgroup.procs` (v2, or v1 for [`super::memcg`]), open for
/// writing: the way into it.
#[derive(Debug)]
pub struct Procs(File);

impl Procs {
    pub(super) fn open(dir: &Path) -> io::Result<Procs> {
        open_in(dir, "cgroup.procs", true).map(Procs)
    }

    /// The descriptor a child writes `0` to (between `fork` and `exec`) to
    /// enter the cgroup, so that it is inside from its first instruction on.
    pub fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }

    /// Moves the process `pid` (and the children it starts from now on)
    /// into the cgroup.
    pub fn add(&self, pid: i32) {
        let _ = self.0.write_at(pid.to_string().as_bytes(), 0);
    }
}

/// One bot's cgroup. Dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
    procs: Procs,
    /// `cgroup.procs` again, for reading (pread from 0 regenerates it).
    members: File,
    kill: File,
    cpu: File,
    /// The bot's share of the CPU where it is not the v2 cgroup's own
    /// `cpu.weight`: a cgroup of its own in the v1 `cpu` hierarchy.
    share: Option<CpuShare>,
}

impl Cgroup {
    /// A fresh cgroup for one bot process, or `None` where cgroups are not
    /// available.
    pub fn create() -> Option<Cgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let root = root()?;
        if let Some(cg) = POOL.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Some(cg);
        }
        let dir = root.join(format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        let _ = fs::remove_dir(&dir); // a leftover of an earlier process with our pid
        fs::create_dir(&dir).ok()?;
        let open = |name: &str, write: bool| open_in(&dir, name, write);
        let files = (|| {
            Ok::<_, io::Error>((
                Procs::open(&dir)?,
                open("cgroup.procs", false)?,
                open("cgroup.kill", true)?,
                open("cpu.stat", false)?,
            ))
        })();
        match files {
            Ok((procs, members, kill, cpu)) => {
                // Every bot the same weight, whatever its number of
                // processes, threads or sessions: its cgroup is one entity
                // to the scheduler (and a process in a cgroup below the
                // root has no autogroup of its own).
                let weighted = fs::write(dir.join("cpu.weight"), b"100").is_ok();
                let share = if weighted { None } else { CpuShare::create() };
                Some(Cgroup {
                    dir,
                    procs,
                    members,
                    kill,
                    cpu,
                    share,
                })
            }
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

    /// The way into the bot's v1 `cpu` cgroup, where it has one (a bot
    /// joins it as it joins [`Cgroup::procs`]).
    pub fn share(&self) -> Option<&Procs> {
        self.share.as_ref().map(|s| &s.procs)
    }

    /// Whether the bot has a CPU share equal to every other bot's (a v2
    /// `cpu.weight` or a v1 `cpu.shares`).
    pub fn has_cpu_share(&self) -> bool {
        self.share.is_some() || self.dir.join("cpu.weight").exists()
    }

    /// SIGKILLs every process in the cgroup.
    pub fn kill(&self) {
        let _ = self.kill.write_at(b"1", 0);
    }

    /// CPU time used by every process that has been in the cgroup (read
    /// twice a move: one `pread`, no allocation).
    pub fn cpu_time(&self) -> Option<Duration> {
        let mut buf = [0u8; 512];
        let n = self.cpu.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        let usec = text
            .lines()
            .find_map(|l| l.strip_prefix("usage_usec "))?
            .trim()
            .parse()
            .ok()?;
        Some(Duration::from_micros(usec))
    }

    /// The pids in the cgroup now.
    pub fn pids(&self) -> Vec<i32> {
        let mut buf = vec![0u8; 4096];
        let mut len = 0;
        // One read for the usual few pids; more only for a full buffer.
        loop {
            match self.members.read_at(&mut buf[len..], len as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => len += n,
            }
            if len < buf.len() {
                break;
            }
            buf.resize(2 * len, 0);
        }
        String::from_utf8_lossy(&buf[..len])
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

/// Emptied cgroups, for the next bots: making and removing a cgroup directory
/// for every bot costs more than the game of an instant bot.
static POOL: std::sync::Mutex<Vec<Cgroup>> = std::sync::Mutex::new(Vec::new());

/// Empties `cg` (killing what is left) and keeps it for the next bot, or
/// removes it if it will not empty.
pub fn release(cg: Cgroup) {
    cg.kill();
    wait_empty(&cg.dir, Duration::from_secs(1));
    if populated(&cg.dir) {
        let _ = fs::remove_dir(&cg.dir);
        std::mem::forget(cg);
        return;
    }
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if pool.len() < 64 {
        pool.push(cg);
    } else {
        drop(pool);
        let _ = fs::remove_dir(&cg.dir);
        if let Some(share) = &cg.share {
            remove_v1(&share.dir);
        }
    }
}

// ---------------------------------------------------------------------------
// CPU shares in the v1 `cpu` hierarchy (where the v2 cpu controller does not
// reach arena's cgroups, as on hybrid systems).

/// This process's directory of bot cpu cgroups in the v1 `cpu` hierarchy,
/// made at the first call; `None` where there is none or it is not ours to
/// write.
fn share_root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = share_root_of(std::process::id())?;
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
        if !dir.join("cpu.shares").exists() {
            let _ = fs::remove_dir(&dir);
            return None;
        }
        // All the bots together are one entity beside the machine's other
        // tasks: weigh them as one task per CPU (up to that many bots think
        // at once), what they weighed in autogroups of their own before.
        let _ = fs::write(
            dir.join("cpu.shares"),
            (1024 * cpus()).min(262_144).to_string(),
        );
        Some(dir)
    })
    .as_deref()
}

/// Where the v1 bot cpu cgroups of the arena process `pid` live (beside
/// arena's own cpu cgroup), for the keeper's cleanup after a killed referee.
pub fn share_root_of(pid: u32) -> Option<PathBuf> {
    if std::env::var_os("ARENA_CGROUPS").is_some_and(|v| v == "off") {
        return None;
    }
    let me = procfs::process::Process::myself().ok()?;
    let path = me
        .cgroups()
        .ok()?
        .into_iter()
        .find(|c| c.hierarchy != 0 && c.controllers.iter().any(|c| c == "cpu"))?
        .pathname;
    let mount = me
        .mountinfo()
        .ok()?
        .into_iter()
        .find(|m| m.fs_type == "cgroup" && m.super_options.contains_key("cpu"))?
        .mount_point;
    Some(
        mount
            .join(path.trim_start_matches('/'))
            .join(format!("arena-{pid}")),
    )
}

/// One bot's v1 cpu cgroup: the same `cpu.shares` as every other bot's.
/// It goes with its [`Cgroup`] (pooled with it: emptied when it is).
#[derive(Debug)]
struct CpuShare {
    dir: PathBuf,
    procs: Procs,
}

/// What every bot's v1 cgroup gets (the kernel's default, written so that
/// no other default can change it).
const SHARES: &[u8] = b"1024";

impl CpuShare {
    fn create() -> Option<CpuShare> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = share_root()?.join(format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        let _ = fs::remove_dir(&dir); // a leftover of an earlier process with our pid
        fs::create_dir(&dir).ok()?;
        let made = (|| {
            fs::write(dir.join("cpu.shares"), SHARES)?;
            Procs::open(&dir)
        })();
        match made {
            Ok(procs) => Some(CpuShare { dir, procs }),
            Err(_) => {
                let _ = fs::remove_dir(&dir);
                None
            }
        }
    }
}

/// `rmdir` of a v1 cgroup, retried while its last processes finish dying.
fn remove_v1(dir: &Path) {
    let start = Instant::now();
    while fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(nix::libc::EBUSY))
        && start.elapsed() < Duration::from_secs(1)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Removes the v1 cpu cgroups under `dir` and `dir` (their processes are
/// gone: the v2 cgroups' kill came first).
pub fn remove_share_tree(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_v1(&e.path());
            }
        }
    }
    remove_v1(dir);
}

extern "C" fn remove_root_at_exit() {
    remove_root();
}

/// Removes this process's cgroups: at exit (also from `atexit`, for a
/// process that never calls [`super::keeper::finish`], a test binary).
pub fn remove_root() {
    if let Some(root) = root() {
        POOL.lock().unwrap_or_else(|e| e.into_inner()).clear();
        kill_tree(root);
        if let Some(shares) = share_root() {
            remove_share_tree(shares);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bot cgroup has the same CPU share where the machine has a cpu
    /// controller arena may use (as root here: the v1 `cpu` hierarchy of a
    /// hybrid system), and a bot process that joins it is in it.
    #[test]
    fn bot_cgroups_get_the_same_cpu_share() {
        let Some(cg) = Cgroup::create() else {
            eprintln!("SKIPPED: no bot cgroups here");
            return;
        };
        let v1 = share_root_of(std::process::id()).is_some_and(|d| d.join("cpu.shares").exists());
        let v2 = cg.dir.join("cpu.weight").exists();
        if !(v1 || v2) {
            eprintln!("SKIPPED: no cpu controller for arena's cgroups");
            return;
        }
        assert!(cg.has_cpu_share());
        if let Some(share) = &cg.share {
            let shares = fs::read_to_string(share.dir.join("cpu.shares")).unwrap();
            assert_eq!(shares.trim().as_bytes(), SHARES);
            let mut child = std::process::Command::new("sleep")
                .arg("5")
                .spawn()
                .unwrap();
            share.procs.add(child.id() as i32);
            let inside = fs::read_to_string(format!("/proc/{}/cgroup", child.id())).unwrap();
            let _ = child.kill();
            let _ = child.wait();
            let name = share.dir.file_name().unwrap().to_str().unwrap();
            assert!(
                inside
                    .lines()
                    .any(|l| l.contains(":cpu") && l.ends_with(&format!("/{name}"))),
                "{inside}"
            );
        } else {
            let weight = fs::read_to_string(cg.dir.join("cpu.weight")).unwrap();
            assert_eq!(weight.trim(), "100");
        }
        release(cg);
    }
}
