//! What the tests of `arena tournament` and `arena slurm` share: a small
//! deterministic tournament config, running the binary, and comparing two
//! runs' results without their timing fields. Included with `#[path]`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const ARENA: &str = env!("CARGO_BIN_EXE_arena");

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The Python interpreter itself: `python3` may be a slow launcher (pyenv's
/// shim costs ~0.3 s a start), and bots start twice per game.
pub fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    })
}

/// A config in `dir` with three deterministic bots (two seeded Python
/// random bots and the built-in first-legal bot) on Dakon with 3 holes.
/// `tag` is put in the bots' environment so that a test can find them.
pub fn write_config(dir: &Path, name: &str, games: u32, tag: &str) -> PathBuf {
    let py = repo().join("bots/python/random_bot.py");
    let text = format!(
        r#"
game = "dakon"
seed = 99
games = {games}
random_opening_plies = 1

[params]
holes = 3

[time_control]
movetime_ms = 2000
margin_ms = 1000

[[bots]]
name = "random-a"
command = ["{python}", "{py}", "--seed", "1"]
env = {{ ARENA_TEST_TAG = "{tag}" }}

[[bots]]
name = "random-b"
command = ["{python}", "{py}", "--seed", "2"]
env = {{ ARENA_TEST_TAG = "{tag}" }}

[[bots]]
name = "first"
command = ["{ARENA}", "bot-first"]
env = {{ ARENA_TEST_TAG = "{tag}" }}
"#,
        py = py.display(),
        python = python(),
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

pub fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

pub fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "arena failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

pub fn tournament(config: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "tournament",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    ok(&arena(&args))
}

/// games.jsonl without timing fields (duration_ms, each move's ms).
pub fn records_without_timing(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("duration_ms");
            for mv in o["moves"].as_array_mut().unwrap() {
                let mv = mv.as_object_mut().unwrap();
                mv.remove("ms");
                mv.remove("cpu_ms");
            }
            v
        })
        .collect()
}

/// games.csv without the duration_ms column.
pub fn csv_without_timing(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "duration_ms").unwrap();
    text.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(col);
            f.join(",")
        })
        .collect()
}

pub fn assert_same_results(a: &Path, b: &Path) {
    let (ra, rb) = (records_without_timing(a), records_without_timing(b));
    assert!(!ra.is_empty());
    assert_eq!(ra.len(), rb.len(), "{} vs {}", a.display(), b.display());
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(x, y, "{} vs {}", a.display(), b.display());
    }
    assert_eq!(csv_without_timing(a), csv_without_timing(b));
}
