//! The memory limit (`memory_mb`): one thread sums the resident memory of
//! each watched bot's processes every few milliseconds (shared pages once:
//! [`memory_bytes`]) and kills a bot over its limit. Resident memory, not
//! address space: a JVM reserves gigabytes of addresses and touches a few
//! dozen megabytes, and an address-space
//! limit (`address_space_mb`, RLIMIT_AS) that lets a Java bot start at all
//! lets a C bot use all of it.
//!
//! Between two looks a bot can grow by what it touches in [`TICK`] (tens of
//! megabytes at most), so the limit holds within that margin. Memory no
//! process maps (a memfd, tmpfs files) is not resident memory of anyone:
//! only a memory cgroup ([`super::memcg`]) counts it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::members::{memory_bytes, Members};

/// How often resident memory is summed.
pub const TICK: Duration = Duration::from_millis(5);
/// How often a bot without a cgroup has its process group looked up in
/// /proc (a full scan; the members found are measured every tick).
const RESCAN: Duration = Duration::from_millis(250);

/// One bot under watch.
#[derive(Debug)]
pub struct Watch {
    members: Weak<Members>,
    limit: u64,
    tripped: AtomicBool,
    known: Mutex<(Vec<i32>, Option<Instant>)>,
}

impl Watch {
    /// Whether the watchdog killed the bot for its memory.
    pub fn tripped(&self) -> bool {
        self.tripped.load(Ordering::Acquire)
    }

    /// Looks once; returns false when the bot is gone (stop watching it).
    fn check(&self) -> bool {
        let Some(members) = self.members.upgrade() else {
            return false;
        };
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let stale = known.1.is_none_or(|t| t.elapsed() >= RESCAN);
        if members.has_cgroup() || stale {
            *known = (members.pids(), Some(Instant::now()));
        }
        let total = memory_bytes(&known.0);
        if total > self.limit && !self.tripped() {
            self.tripped.store(true, Ordering::Release);
            members.kill();
        }
        true
    }
}

static WATCHED: Mutex<Vec<Arc<Watch>>> = Mutex::new(Vec::new());

/// Watches `members` from now on (until they are dropped): over
/// `limit_bytes` of resident memory in all, they are killed.
pub fn watch(members: &Arc<Members>, limit_bytes: u64) -> Arc<Watch> {
    let w = Arc::new(Watch {
        members: Arc::downgrade(members),
        limit: limit_bytes,
        tripped: AtomicBool::new(false),
        known: Mutex::new((Vec::new(), None)),
    });
    WATCHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(w.clone());
    start();
    w
}

/// Starts the watching thread if it is not running; it stops when nothing
/// is left to watch.
fn start() {
    static RUNNING: AtomicBool = AtomicBool::new(false);
    if RUNNING.swap(true, Ordering::AcqRel) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("arena-memory".into())
        .spawn(|| loop {
            let list: Vec<Arc<Watch>> = WATCHED.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let gone: Vec<*const Watch> = list
                .iter()
                .filter(|w| !w.check())
                .map(Arc::as_ptr)
                .collect();
            let mut all = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            all.retain(|w| !gone.contains(&Arc::as_ptr(w)));
            if all.is_empty() {
                RUNNING.store(false, Ordering::Release);
                return;
            }
            drop(all);
            std::thread::sleep(TICK);
        });
    if spawned.is_err() {
        RUNNING.store(false, Ordering::Release);
    }
}
