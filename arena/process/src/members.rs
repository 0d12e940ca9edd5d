//! All the processes of one bot, as one thing to freeze, thaw, kill and
//! measure: its cgroup where there is one ([`Cgroup`]), otherwise its
//! process group (every bot leads a session and group of its own; a
//! process that leaves the group escapes freezing and measuring, not death:
//! see [`super::keeper`]).

use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::cgroup::Cgroup;
use super::memcg::MemoryCgroup;

/// All the processes of one bot: its cgroup where there is one, otherwise its
/// process group.
#[derive(Debug)]
pub struct Members {
    /// The process arena started: session and process-group leader.
    leader: i32,
    cgroup: Option<Cgroup>,
    /// Whether `leader` is bubblewrap rather than the bot itself.
    sandboxed: bool,
    /// Dropped after `cgroup` has killed what was in it.
    memcg: Option<MemoryCgroup>,
}

impl Members {
    /// The members of the bot whose session leader is `leader` (bubblewrap when
    /// `sandboxed`), in `cgroup` if it has one; `memcg` holds its memory limit.
    pub fn new(
        leader: i32,
        cgroup: Option<Cgroup>,
        sandboxed: bool,
        memcg: Option<MemoryCgroup>,
    ) -> Self {
        Members {
            leader,
            cgroup,
            sandboxed,
            memcg,
        }
    }

    /// Whether the kernel killed the bot for its memory (where a memory
    /// cgroup holds its limit).
    pub fn over_memory(&self) -> bool {
        self.memcg.as_ref().is_some_and(MemoryCgroup::oom_killed)
    }

    /// Stops every process of the bot (`true`) or lets them run again.
    ///
    /// With a cgroup, each process in it gets SIGSTOP (SIGCONT), looked up
    /// again until no new one appears (a stopped process cannot fork): that
    /// catches processes that left the bot's process group, and costs about
    /// what one signal to the group costs for the usual one-process bot. The
    /// cgroup freezer would do the same, but made a tournament of instant
    /// bots 70% slower here.
    pub fn set_frozen(&self, frozen: bool) {
        let sig = if frozen {
            Signal::SIGSTOP
        } else {
            Signal::SIGCONT
        };
        let Some(cg) = &self.cgroup else {
            let _ = killpg(Pid::from_raw(self.leader), sig);
            return;
        };
        let mut done: Vec<i32> = Vec::new();
        for _ in 0..100 {
            let pids: Vec<i32> = cg
                .pids()
                .into_iter()
                .filter(|p| !done.contains(p))
                .collect();
            if pids.is_empty() {
                return;
            }
            for &pid in &pids {
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), sig);
            }
            if !frozen {
                return;
            }
            done.extend(pids);
        }
    }

    /// Whether killing the bot now may leave orphans for arena to kill and
    /// reap ([`super::keeper::nudge`]): never for a sandboxed bot (all its
    /// processes die with its PID namespace); with a cgroup, only when
    /// something besides the bot's own process is in it; without one, it
    /// cannot be known.
    pub fn may_leave_orphans(&self) -> bool {
        match (&self.cgroup, self.sandboxed) {
            (_, true) => false,
            (Some(cg), false) => cg.pids().iter().any(|&p| p != self.leader),
            (None, false) => true,
        }
    }

    /// SIGKILLs every process of the bot.
    pub fn kill(&self) {
        if let Some(cg) = &self.cgroup {
            cg.kill();
        }
        let _ = killpg(Pid::from_raw(self.leader), Signal::SIGKILL);
    }

    /// Asks the bot to stop (SIGTERM), the polite step of a shutdown. A
    /// sandboxed bot's leader is bubblewrap, which would die of it and take
    /// the bot with it at once: there, the bot's own processes get it.
    pub fn terminate(&self) {
        if !self.sandboxed {
            let _ = killpg(Pid::from_raw(self.leader), Signal::SIGTERM);
            return;
        }
        for pid in self.pids().into_iter().filter(|&p| p != self.leader) {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
    }

    /// CPU time the bot's processes have used so far: all of them with a
    /// cgroup; without one, the bot's own process (its threads, and children
    /// it has waited for); unknown for a sandboxed bot without a cgroup.
    pub fn cpu_time(&self) -> Option<Duration> {
        if let Some(cg) = &self.cgroup {
            return cg.cpu_time();
        }
        if self.sandboxed {
            return None;
        }
        let clock = nix::time::clock_getcpuclockid(Pid::from_raw(self.leader)).ok()?;
        let t = nix::time::clock_gettime(clock).ok()?;
        Some(Duration::from(t))
    }

    /// The bot's processes now: its cgroup's, or its process group's (a
    /// scan of /proc).
    pub fn pids(&self) -> Vec<i32> {
        match &self.cgroup {
            Some(cg) => cg.pids(),
            None => group_members(self.leader),
        }
    }

    /// Whether the bot has a cgroup of its own: then a process that leaves its
    /// group cannot escape freezing and measuring.
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }
}

impl Drop for Members {
    fn drop(&mut self) {
        if let Some(cg) = self.cgroup.take() {
            super::cgroup::release(cg);
        }
    }
}

/// Pids whose process group is `pgid`.
fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(all) = procfs::process::all_processes() else {
        return vec![pgid];
    };
    all.flatten()
        .filter_map(|p| p.stat().ok())
        .filter(|s| s.pgrp == pgid)
        .map(|s| s.pid)
        .collect()
}

/// The memory `pids` use together, in bytes: the resident memory of a lone
/// process; for several, the sum of their proportional set sizes (PSS), in
/// which a page shared by a forked child counts once, not once per process.
pub fn memory_bytes(pids: &[i32]) -> u64 {
    let process = |pid| procfs::process::Process::new(pid).ok();
    if let [pid] = pids {
        return process(*pid)
            .and_then(|p| p.statm().ok())
            .map_or(0, |m| m.resident * procfs::page_size());
    }
    pids.iter()
        .filter_map(|&pid| process(pid)?.smaps_rollup().ok())
        .filter_map(|r| {
            r.memory_map_rollup
                .0
                .first()?
                .extension
                .map
                .get("Pss")
                .copied()
        })
        .sum()
}
