//! What the bench reads of the machine: CPU times, the referee's memory
//! (/proc), cores, load, the date.

/// User plus system CPU time of the calling thread, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_THREAD).map_or(0.0, |u| {
        let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 * 1e-6;
        t(u.user_time()) + t(u.system_time())
    })
}

/// Kibibytes from a `/proc/self/status` line such as `VmHWM:  1234 kB`.
pub(super) fn status_kib(key: &str) -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Resets the peak resident set size (VmHWM) to the current one (Linux 4.0+).
pub(super) fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU seconds (user + system) of this process and of its reaped children.
pub fn process_cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN]
        .into_iter()
        .map(|who| {
            getrusage(who).map_or(0.0, |u| {
                let t =
                    |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 * 1e-6;
                t(u.user_time()) + t(u.system_time())
            })
        })
        .sum()
}

pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// 1, 5 and 15 minute load averages (zeros where /proc/loadavg is missing).
pub fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut it = text.split_whitespace().map(|w| w.parse().unwrap_or(0.0));
    [0; 3].map(|_| it.next().unwrap_or(0.0))
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil from days (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}
