//! The pipe floor: a line each way to a child that echoes, the cost the
//! referee's own cost per move is compared with.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::{BenchError, BenchOptions, CProgram, PipeFloor};

/// The child of the pipe floor (`arena bench-echo`), as `pingpong.c child`:
/// answers `go` with `move 3`, exits on `quit` or end of input.
pub fn echo_child() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        // `go` answers in the guard; only a failed write leaves the loop.
        match line.trim_end_matches('\n') {
            "go" if out
                .write_all(b"move 3\n")
                .and_then(|_| out.flush())
                .is_err() =>
            {
                return
            }
            "quit" => return,
            _ => {}
        }
    }
}

struct Echo {
    child: std::process::Child,
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
    line: String,
}

impl Echo {
    fn start(arena: &Path) -> Result<Echo, BenchError> {
        let mut child = Command::new(arena)
            .arg("bench-echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|source| BenchError::EchoStart {
                arena: arena.to_path_buf(),
                source,
            })?;
        let to = child.stdin.take().expect("piped");
        let from = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Echo {
            child,
            to,
            from,
            line: String::new(),
        })
    }

    /// One `go` -> `move 3` exchange: a write of 3 bytes, reads until the line.
    fn round_trip(&mut self) -> Result<(), BenchError> {
        self.to.write_all(b"go\n").map_err(BenchError::Echo)?;
        self.line.clear();
        self.from
            .read_line(&mut self.line)
            .map_err(BenchError::Echo)?;
        if self.line != "move 3\n" {
            return Err(BenchError::EchoAnswer(self.line.clone()));
        }
        Ok(())
    }

    fn quit(mut self) {
        let _ = self.to.write_all(b"quit\n");
        drop(self.to);
        let _ = self.child.wait();
    }
}

/// Mean, p50 and p99 µs of `n` round trips after a warm-up (as `pingpong rt`).
pub fn round_trips(arena: &Path, n: u64) -> Result<(f64, f64, f64), BenchError> {
    let mut echo = Echo::start(arena)?;
    for _ in 0..(n / 10).min(1000) {
        echo.round_trip()?;
    }
    let mut lat = Vec::with_capacity(n as usize);
    let t0 = Instant::now();
    for _ in 0..n {
        let a = Instant::now();
        echo.round_trip()?;
        lat.push(a.elapsed().as_secs_f64() * 1e6);
    }
    let mean = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    echo.quit();
    lat.sort_by(f64::total_cmp);
    let at = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];
    Ok((mean, at(0.5), at(0.99)))
}

/// ms per session: start the echo child, one round trip, `quit`, wait (as
/// `pingpong session`).
pub fn sessions(arena: &Path, n: u64) -> Result<f64, BenchError> {
    let t0 = Instant::now();
    for _ in 0..n {
        let mut echo = Echo::start(arena)?;
        echo.round_trip()?;
        echo.quit();
    }
    Ok(t0.elapsed().as_secs_f64() * 1e3 / n as f64)
}

/// The number after `mean=` in the output of `pingpong MODE N`.
fn pingpong_mean(bin: &Path, mode: &str, n: u64, unit: &str) -> Option<f64> {
    let out = Command::new(bin)
        .args([mode, &n.to_string()])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mean = text.split("mean=").nth(1)?;
    mean.split(unit).next()?.trim().parse().ok()
}

/// The pipe floor: the Rust measurement, and the C one when asked for.
pub fn pipe_floor(opts: &BenchOptions) -> Result<PipeFloor, BenchError> {
    let n = opts.rt_count();
    let sessions_n = if opts.quick { 20 } else { 500 };
    let c = opts
        .pingpong
        .as_deref()
        .map(|src| CProgram::build(src, "pingpong"))
        .transpose()
        .map_err(|e| BenchError::Pingpong(Box::new(e)))?;
    let c = c.as_ref().map(|p| p.exe.as_path());
    // The C figure first and last around the Rust one would be fairer on a
    // drifting load; once each, interleaved, keeps the run short.
    let c_rt_us = c.and_then(|b| pingpong_mean(b, "rt", n, "us"));
    let (rt_us, rt_p50_us, rt_p99_us) = round_trips(&opts.arena, n)?;
    let session_ms = sessions(&opts.arena, sessions_n)?;
    let c_session_ms = c.and_then(|b| pingpong_mean(b, "session", sessions_n, "ms"));
    Ok(PipeFloor {
        round_trips: n,
        rt_us,
        rt_p50_us,
        rt_p99_us,
        c_rt_us,
        session_ms,
        c_session_ms,
    })
}
