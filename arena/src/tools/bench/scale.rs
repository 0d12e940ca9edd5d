//! `arena bench --scale`: how the end of a run grows with its games. For
//! each size, a round robin of 5 instant bots (kept across games,
//! concurrency 2) is played as two shards, merged, reported and rated, each
//! step by a child `arena` process whose peak memory (its maximum resident
//! set, from `wait4`) is shown with its games per second and the sizes of
//! what it wrote. Figures are shown, never asserted.

use std::fmt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::Serialize;

use super::{BenchError, InstantBot};
use crate::report::html::REPLAY_DIR;
use crate::store;

/// Bots of the round robin (10 pairings).
const BOTS: usize = 5;

/// One step of one size.
#[derive(Clone, Debug, Serialize)]
pub struct StepFigures {
    /// `play shard 1/2`, `merge`, `report`, `ratings`.
    pub step: String,
    pub seconds: f64,
    pub games_per_second: f64,
    /// Maximum resident set of the `arena` process, MiB.
    pub peak_mib: f64,
}

/// Every step of one size, and what the merged run holds.
#[derive(Clone, Debug, Serialize)]
pub struct SizeFigures {
    pub games: u64,
    pub steps: Vec<StepFigures>,
    pub games_jsonl_bytes: u64,
    pub games_csv_bytes: u64,
    pub index_html_bytes: u64,
    pub replays_bytes: u64,
    pub replay_files: u64,
}

/// `arena bench --scale`'s figures.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleReport {
    /// The instant bot the runs play with.
    pub instant_bot: String,
    /// One entry per size run, smallest first.
    pub sizes: Vec<SizeFigures>,
}

/// The sizes run: 10^3, 10^4, ... up to `max`; just `max` (at least 20)
/// below 10^3 (a quick look, the test's).
pub fn sizes(max: u64) -> Vec<u64> {
    if max < 1000 {
        return vec![max.max(20)];
    }
    let mut v = vec![1000];
    while v.last().is_some_and(|&n| n * 10 <= max) {
        v.push(v.last().expect("one") * 10);
    }
    v
}

/// Runs every size in `sizes` in a temporary directory (removed after),
/// with `arena` as the referee and `bot` as every player.
pub fn scale_bench(
    arena: &Path,
    bot: &InstantBot,
    sizes: &[u64],
    mut say: impl FnMut(&str),
) -> Result<ScaleReport, BenchError> {
    let tmp = tempfile::tempdir().map_err(BenchError::TempDir)?;
    let mut out = Vec::new();
    for &games in sizes {
        say(&format!("scale: {games} games"));
        out.push(one_size(arena, bot, games, tmp.path())?);
    }
    Ok(ScaleReport {
        instant_bot: bot.description.clone(),
        sizes: out,
    })
}

fn one_size(
    arena: &Path,
    bot: &InstantBot,
    games: u64,
    tmp: &Path,
) -> Result<SizeFigures, BenchError> {
    let per_pairing = (games / (BOTS * (BOTS - 1) / 2) as u64).max(2);
    let total = per_pairing * (BOTS * (BOTS - 1) / 2) as u64;
    let dir = tmp.join(format!("scale-{games}"));
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let config = dir.join("scale.toml");
    std::fs::write(&config, config_text(bot, per_pairing)).map_err(io_err(&config))?;
    let shard = |k: u32| dir.join(crate::store::shard_dir_name(k, 2));
    let merged = dir.join("merged");
    let mut steps = Vec::new();
    for k in 1..=2 {
        let out = shard(k);
        let (secs, peak) = run_arena(
            arena,
            &[
                "tournament".as_ref(),
                config.as_os_str(),
                "--quiet".as_ref(),
                "--no-build".as_ref(),
                "--shard".as_ref(),
                format!("{k}/2").as_ref(),
                "--out".as_ref(),
                out.as_os_str(),
            ],
        )?;
        steps.push(step(&format!("play shard {k}/2"), secs, peak, total / 2));
    }
    let (secs, peak) = run_arena(
        arena,
        &[
            "merge".as_ref(),
            shard(1).as_os_str(),
            shard(2).as_os_str(),
            "--out".as_ref(),
            merged.as_os_str(),
        ],
    )?;
    steps.push(step("merge (+ report)", secs, peak, total));
    let (secs, peak) = run_arena(arena, &["report".as_ref(), merged.as_os_str()])?;
    steps.push(step("report", secs, peak, total));
    let (secs, peak) = run_arena(arena, &["ratings".as_ref(), merged.as_os_str()])?;
    steps.push(step("ratings", secs, peak, total));
    let size = |name: &str| std::fs::metadata(merged.join(name)).map_or(0, |m| m.len());
    let (replays_bytes, replay_files) = dir_size(&merged.join(REPLAY_DIR));
    let figures = SizeFigures {
        games: total,
        steps,
        games_jsonl_bytes: size(store::GAMES_JSONL),
        games_csv_bytes: size(store::GAMES_CSV),
        index_html_bytes: size(store::INDEX_HTML),
        replays_bytes,
        replay_files,
    };
    let _ = std::fs::remove_dir_all(&dir);
    Ok(figures)
}

fn step(name: &str, seconds: f64, peak_kib: u64, games: u64) -> StepFigures {
    StepFigures {
        step: name.into(),
        seconds,
        games_per_second: games as f64 / seconds.max(1e-9),
        peak_mib: peak_kib as f64 / 1024.0,
    }
}

/// The round robin: 5 copies of the instant bot, kept across games,
/// unsandboxed (the figures are arena's own), 2 games at once.
fn config_text(bot: &InstantBot, per_pairing: u64) -> String {
    let command = serde_json::to_string(&bot.command).expect("strings serialize");
    let mut text = format!(
        "name = \"scale\"\ngame = \"dakon\"\nseed = 1\nformat = \"round-robin\"\n\
         games = {per_pairing}\nkeep_bots = true\nconcurrency = 2\n\n\
         [time_control]\nmovetime_ms = 1000\n"
    );
    for b in 0..BOTS {
        text.push_str(&format!(
            "\n[[bots]]\nname = \"instant-{b}\"\ncommand = {command}\nsandbox = \"none\"\n"
        ));
    }
    text
}

/// Runs `arena ARGS` to its end; its wall time and peak resident set (KiB).
fn run_arena(arena: &Path, args: &[&std::ffi::OsStr]) -> Result<(f64, u64), BenchError> {
    let start = Instant::now();
    let child = Command::new(arena)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| BenchError::Spawn {
            program: arena.display().to_string(),
            source,
        })?;
    let pid = child.id();
    let mut stderr = child.stderr.expect("piped");
    let mut err_text = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut err_text).map_err(BenchError::ChildStderr)?;
    let (status, peak) = wait_with_peak(pid)?;
    let secs = start.elapsed().as_secs_f64();
    if status != 0 {
        return Err(BenchError::ChildFailed {
            args: args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            status,
            stderr: err_text.trim().to_string(),
        });
    }
    Ok((secs, peak))
}

/// Waits for child `pid` with `wait4`, which also returns the child's own
/// resource use: its exit status and maximum resident set in KiB. (The
/// process-wide RUSAGE_CHILDREN would give the largest of all children so
/// far, not this one's.)
fn wait_with_peak(pid: u32) -> Result<(i32, u64), BenchError> {
    use nix::libc;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data that wait4 fills; status is an int.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    if r < 0 {
        return Err(BenchError::Wait(std::io::Error::last_os_error()));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Ok((code, usage.ru_maxrss.max(0) as u64))
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Bytes and files under `dir` (one level).
fn dir_size(dir: &Path) -> (u64, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    entries
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .fold((0, 0), |(b, n), m| (b + m.len(), n + 1))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

impl fmt::Display for ScaleReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "scale (5 instant bots: {}; concurrency 2)",
            self.instant_bot
        )?;
        writeln!(
            f,
            "  {:>8}  {:<18} {:>9} {:>9} {:>10}",
            "games", "step", "seconds", "games/s", "peak MiB"
        )?;
        for s in &self.sizes {
            for st in &s.steps {
                writeln!(
                    f,
                    "  {:>8}  {:<18} {:>9.2} {:>9.0} {:>10.1}",
                    s.games, st.step, st.seconds, st.games_per_second, st.peak_mib
                )?;
            }
            writeln!(
                f,
                "  {:>8}  games.jsonl {} ({:.0} B/game), games.csv {}, index.html {}, replays/ {} in {} files",
                s.games,
                mib(s.games_jsonl_bytes),
                s.games_jsonl_bytes as f64 / s.games.max(1) as f64,
                mib(s.games_csv_bytes),
                mib(s.index_html_bytes),
                mib(s.replays_bytes),
                s.replay_files
            )?;
        }
        Ok(())
    }
}
