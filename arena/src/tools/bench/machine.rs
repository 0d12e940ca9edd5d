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

/// This process's resident set size and its peak (VmRSS, VmHWM), in KiB.
pub(super) fn resident_kib() -> Option<(f64, f64)> {
    let status = procfs::process::Process::myself().ok()?.status().ok()?;
    Some((status.vmrss? as f64, status.vmhwm? as f64))
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

/// CPUs this process may use (`available_parallelism`: its affinity mask
/// and cgroup quota, not the machine's count), 1 if unknown.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// 1, 5 and 15 minute load averages (zeros where /proc/loadavg is missing).
pub fn load_average() -> [f64; 3] {
    use procfs::Current as _;
    procfs::LoadAverage::current().map_or([0.0; 3], |l| [l.one, l.five, l.fifteen].map(f64::from))
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub use crate::run::conditions::now_utc as utc_now;
