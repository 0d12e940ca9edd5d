//! Uids for bots that must not run as root: each bot gets one that no live
//! process holds, so that no bot shares a uid (and with it `/proc/PID/mem`,
//! signals and `RLIMIT_NPROC`) with another bot.
//!
//! Each arena process has a slice of [`BOT_UIDS`] of its own, chosen by its
//! pid (pid_max is at most 2^22, so referees running at once never share a
//! slice). Within its slice, a uid goes back to the pool when its bot is
//! dropped, but is handed out again only after a scan of `/proc` has found
//! no process under it: a bot's processes die a moment after it is killed,
//! and one that escaped would still hold it. One scan serves up to a whole
//! slice of allocations, so its cost (a few milliseconds) is paid at most
//! once per [`SLICE`] bots.

use std::collections::VecDeque;
use std::io;
use std::ops::Range;
use std::sync::Mutex;

/// The uids (and gids) bots run as: 2^30 uids from 2^31, far above any
/// account and below 2^32 - 1 (the kernel's "no uid").
pub const BOT_UIDS: Range<u32> = 0x8000_0000..0xC000_0000;

/// Uids per arena process: [`BOT_UIDS`] shared among 2^22 pids.
pub const SLICE: u32 = (BOT_UIDS.end - BOT_UIDS.start) >> 22;

/// A uid held by one bot; it returns to the pool when dropped.
#[derive(Debug)]
pub struct BotUid {
    uid: u32,
    pool: &'static Pool,
}

impl BotUid {
    /// The uid (also the gid the bot runs as).
    pub fn get(&self) -> u32 {
        self.uid
    }
}

impl Drop for BotUid {
    fn drop(&mut self) {
        self.pool.release(self.uid);
    }
}

/// A uid for the next bot, held until the returned value is dropped. An
/// error when every uid of this process's slice is held by a live bot or
/// process.
pub fn lease() -> io::Result<BotUid> {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let pid = std::process::id() & ((1 << 22) - 1);
        Pool::new(BOT_UIDS.start + pid * SLICE, SLICE)
    });
    let uid = pool.take(uids_in_use)?;
    Ok(BotUid { uid, pool })
}

/// The uids of a slice: free (verified by the last scan), or released and
/// waiting for a scan.
#[derive(Debug)]
pub struct Pool {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    free: VecDeque<u32>,
    released: Vec<u32>,
    scanned: bool,
}

impl Pool {
    /// The `len` uids from `start`, none verified yet.
    pub fn new(start: u32, len: u32) -> Pool {
        Pool {
            state: Mutex::new(State {
                free: VecDeque::new(),
                released: (start..start + len).collect(),
                scanned: false,
            }),
        }
    }

    /// The next uid that `in_use` (a scan of the system) did not find held.
    /// The scan runs only when no verified uid is left.
    pub fn take(&self, in_use: impl Fn() -> io::Result<Vec<u32>>) -> io::Result<u32> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.free.is_empty() || !s.scanned {
            let held = in_use()?;
            let released = std::mem::take(&mut s.released);
            let (busy, ok): (Vec<u32>, Vec<u32>) =
                released.into_iter().partition(|u| held.contains(u));
            let mut unverified: Vec<u32> = s.free.drain(..).collect();
            unverified.retain(|u| !held.contains(u));
            s.free.extend(unverified);
            s.free.extend(ok);
            s.released = busy;
            s.scanned = true;
        }
        s.free.pop_front().ok_or_else(|| {
            io::Error::other(format!(
                "no uid left for a bot: all {} of this arena process are held by live processes",
                s.released.len()
            ))
        })
    }

    /// `uid` is no longer its bot's: usable again once a scan finds it free.
    pub fn release(&self, uid: u32) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.released.push(uid);
    }
}

/// Every uid some process on the system runs under (real, effective, saved
/// or filesystem), from `/proc/PID/status`, which even a process that made
/// itself undumpable cannot hide (its `/proc/PID` directory would show root
/// as owner).
pub fn uids_in_use() -> io::Result<Vec<u32>> {
    let mut uids = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let name = entry.file_name();
        if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) {
            continue;
        }
        // A process gone since the listing has no status any more: not held.
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        if let Some(line) = status.lines().find_map(|l| l.strip_prefix("Uid:")) {
            uids.extend(
                line.split_whitespace()
                    .filter_map(|u| u.parse::<u32>().ok()),
            );
        }
    }
    uids.sort_unstable();
    uids.dedup();
    Ok(uids)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A held uid is never handed out again, however many bots come and go
    /// (the old `n & 0xfff` gave the 4,096th bot the first one's uid); a
    /// released one comes back (the probe: with a slice of 4 they do repeat,
    /// so a repeat of a held one would be seen); one that a process still
    /// holds is skipped until it is free.
    #[test]
    fn a_uid_is_never_handed_out_while_a_bot_or_process_holds_it() {
        let pool = Pool::new(1000, 4);
        let none = || Ok(Vec::new());
        let kept = pool.take(none).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..10_000 {
            let u = pool.take(none).unwrap();
            assert_ne!(u, kept);
            seen.insert(u);
            pool.release(u);
        }
        assert_eq!(seen.len(), 3, "released uids are used again: {seen:?}");

        // 1001 is released but a leftover process still runs under it.
        let pool = Pool::new(1000, 3);
        let taken: Vec<u32> = (0..3).map(|_| pool.take(none).unwrap()).collect();
        for &u in &taken {
            pool.release(u);
        }
        let lingering = || Ok(vec![1001]);
        for _ in 0..100 {
            let u = pool.take(lingering).unwrap();
            assert_ne!(u, 1001);
            pool.release(u);
        }
        // All held: an error, not a shared uid.
        let pool = Pool::new(1000, 2);
        let all = || Ok(vec![1000, 1001]);
        assert!(pool.take(all).is_err());
    }

    #[test]
    fn the_scan_sees_this_process_and_slices_fit_the_range() {
        let me = nix::unistd::getuid().as_raw();
        assert!(uids_in_use().unwrap().contains(&me));
        assert!(SLICE >= 256, "{SLICE}");
        assert!(BOT_UIDS.start + ((1 << 22) - 1) * SLICE + SLICE <= BOT_UIDS.end);
        assert!(BOT_UIDS.end < u32::MAX);
    }
}
