//! The machine's live processes, for tests that check no bot is left behind.
#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

/// Probes until `done` holds or `within` has passed, and returns the last
/// probe. `/proc` lags the processes it shows: `Command::spawn` returns while
/// the child's exec is still in flight, and until it ends the child's
/// environment and command line read empty.
pub fn settle<T>(within: Duration, mut probe: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let start = Instant::now();
    loop {
        let seen = probe();
        if done(&seen) || start.elapsed() >= within {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live processes (zombies excluded) whose command line (NULs as spaces)
/// holds `needle`: their pids and command lines.
pub fn with_cmdline(needle: &str) -> Vec<(i32, String)> {
    scan(|pid, dir| {
        let cmd = std::fs::read(dir.join("cmdline")).ok()?;
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        cmd.contains(needle).then_some((pid, cmd))
    })
}

/// Pids of live processes whose environment holds `entry` (`KEY=VALUE`).
pub fn with_env(entry: &str) -> Vec<i32> {
    scan(|pid, dir| {
        let env = std::fs::read(dir.join("environ")).ok()?;
        env.split(|&b| b == 0)
            .any(|kv| kv == entry.as_bytes())
            .then_some(pid)
    })
}

fn scan<T>(keep: impl Fn(i32, &Path) -> Option<T>) -> Vec<T> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let dir = entry.path();
        if let Some(t) = keep(pid, &dir) {
            if !gone(&dir) {
                found.push(t);
            }
        }
    }
    found
}

/// A zombie, dead, or no longer there.
fn gone(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            state.starts_with('Z') || state.starts_with('X')
        })
        .unwrap_or(true)
}
