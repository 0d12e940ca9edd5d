//! Threads that run games: one per concurrent game, each with its own
//! single-threaded tokio runtime.

use std::io;

/// One thread per concurrent game, each with its own single-threaded tokio
/// runtime: a game's referee, its bots' pipes and its timers stay on one
/// thread. On one work-stealing runtime a game's pipe wake-ups hopped between
/// workers, and at concurrency 1 the idle worker was woken for nothing; with
/// lanes a tournament of instant bots plays more games per second at
/// concurrency 2 (docs/performance.md). Tasks spawned on a lane run only
/// there; the lane's runtime, and whatever it still holds, is dropped on its
/// own thread when the lanes are dropped.
pub struct Lanes {
    lanes: Vec<(tokio::runtime::Handle, tokio::sync::oneshot::Sender<()>)>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Lanes {
    /// Starts `n` lanes (threads), each idle until a task is spawned on it.
    /// With `pin`, lane `i` and every bot it starts run on the `i`-th CPU
    /// this process may use (modulo their number), as fastchess's
    /// `-use-affinity`: concurrent games do not share cores while there are
    /// enough of them.
    pub fn start(n: usize, pin: bool) -> io::Result<Lanes> {
        let mut lanes = Lanes {
            lanes: Vec::with_capacity(n),
            threads: Vec::with_capacity(n),
        };
        let cpus = if pin { usable_cpus()? } else { Vec::new() };
        for i in 0..n {
            let cpu = (!cpus.is_empty()).then(|| cpus[i % cpus.len()]);
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let handle = rt.handle().clone();
            let thread = std::thread::Builder::new()
                .name(format!("arena-game-{i}"))
                .spawn(move || {
                    if let Some(cpu) = cpu {
                        // Inherited by the bots this thread starts.
                        let mut set = nix::sched::CpuSet::new();
                        if set.set(cpu).is_ok() {
                            let _ =
                                nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set);
                        }
                    }
                    // Tasks spawned on `handle` run while this blocks; what
                    // is left when the lanes are dropped is dropped with `rt`.
                    let _ = rt.block_on(stopped);
                })?;
            lanes.lanes.push((handle, stop));
            lanes.threads.push(thread);
        }
        Ok(lanes)
    }

    /// How many lanes there are.
    pub fn count(&self) -> usize {
        self.lanes.len()
    }

    /// Where to spawn a task that must run on lane `lane`.
    pub fn handle(&self, lane: usize) -> &tokio::runtime::Handle {
        &self.lanes[lane].0
    }

    /// Runs `task(lane)` on every lane at once and waits for them all: for
    /// what must happen on a lane's own runtime, such as stopping the bot
    /// processes a lane kept across its games.
    pub async fn on_each<F, Fut>(&self, task: F)
    where
        F: Fn(usize) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let running: Vec<_> = (0..self.count())
            .map(|lane| self.handle(lane).spawn(task(lane)))
            .collect();
        for r in running {
            // A panic in the task is the task's; the other lanes still finish.
            let _ = r.await;
        }
    }
}

/// The CPUs this process may run on.
fn usable_cpus() -> io::Result<Vec<usize>> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))?;
    Ok((0..nix::sched::CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect())
}

impl Drop for Lanes {
    fn drop(&mut self) {
        self.lanes.clear(); // drops the senders: each block_on returns
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
