//! Tournament throughput: games per second of a 1,000-game round robin
//! between instant bots (the C first-legal reference bot, built with make,
//! or arena's built-in first-legal bot if that fails; fresh processes for
//! every game, full journaling with fsync) at concurrency 1 and 2, and the
//! ratio. Run with:
//!
//!     cargo bench -p arena --bench tournament
//!
//! `ARENA_BENCH_GAMES=200` runs a smaller round robin (rounded to whole
//! pairs of the 5-bot schedule).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn main() {
    let games: u32 = std::env::var("ARENA_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let bots = 5; // 10 pairings
    let per_pairing = (games / 10).max(2) & !1;
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut text = format!(
        "game = \"dakon\"\nseed = 1\ngames = {per_pairing}\n\n[time_control]\nmovetime_ms = 1000\n"
    );
    let bot = instant_bot();
    for i in 0..bots {
        text.push_str(&format!(
            "\n[[bots]]\nname = \"first{i}\"\ncommand = {bot}\n"
        ));
    }
    let config = tmp.path().join("bench.toml");
    std::fs::write(&config, text).expect("config written");
    let total = per_pairing * 10;
    println!("round robin: {bots} instant bots ({bot}), {total} games of dakon (7 holes), fresh bot processes per game");

    // The machine is shared: run in the order 1, 2, 2, 1 so that a load
    // drifting during the benchmark weighs on both settings alike.
    let mut secs = [0.0f64; 2];
    for (i, concurrency) in [1, 2, 2, 1].into_iter().enumerate() {
        let out = tmp.path().join(format!("run{i}"));
        let s = run(&config, &out, concurrency, total);
        println!(
            "concurrency {concurrency}: {:.1} games/s ({total} games in {s:.2} s)",
            f64::from(total) / s
        );
        secs[concurrency - 1] += s;
    }
    let rates = secs.map(|s| 2.0 * f64::from(total) / s);
    println!(
        "mean: concurrency 1: {:.1} games/s, concurrency 2: {:.1} games/s, speed-up {:.2}x",
        rates[0],
        rates[1],
        rates[1] / rates[0]
    );
}

/// The bot command, as a TOML array.
fn instant_bot() -> String {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/c");
    let built = Command::new("make")
        .args(["-s", "-C"])
        .arg(&c)
        .status()
        .is_ok_and(|s| s.success());
    let exe = c.join("build/first_legal");
    if built && exe.is_file() {
        format!("[\"{}\"]", exe.canonicalize().unwrap().display())
    } else {
        format!("[\"{ARENA}\", \"bot-first\"]")
    }
}

/// Seconds for one tournament run.
fn run(config: &Path, out: &Path, concurrency: usize, total: u32) -> f64 {
    let start = Instant::now();
    let status = Command::new(ARENA)
        .arg("tournament")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--concurrency", &concurrency.to_string()])
        .stdout(Stdio::null())
        .status()
        .expect("arena runs");
    let secs = start.elapsed().as_secs_f64();
    assert!(status.success(), "the benchmark tournament failed");
    let lines = std::fs::read_to_string(out.join("games.jsonl"))
        .expect("games.jsonl")
        .lines()
        .count();
    assert_eq!(lines, total as usize);
    secs
}
