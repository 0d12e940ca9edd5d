//! `arena tournament` and `arena merge` end to end: the real binary, real bot
//! processes (the Python reference bot and arena's built-in first-legal bot),
//! small Dakon games.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The Python interpreter itself: `python3` may be a slow launcher (pyenv's
/// shim costs ~0.3 s a start), and bots start twice per game.
fn python() -> &'static str {
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
fn write_config(dir: &Path, name: &str, games: u32, tag: &str) -> PathBuf {
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

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "arena failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn tournament(config: &Path, out: &Path, extra: &[&str]) -> String {
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
fn records_without_timing(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("duration_ms");
            for mv in o["moves"].as_array_mut().unwrap() {
                mv.as_object_mut().unwrap().remove("ms");
            }
            v
        })
        .collect()
}

/// games.csv without the duration_ms column.
fn csv_without_timing(dir: &Path) -> Vec<String> {
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

fn assert_same_results(a: &Path, b: &Path) {
    let (ra, rb) = (records_without_timing(a), records_without_timing(b));
    assert!(!ra.is_empty());
    assert_eq!(ra.len(), rb.len(), "{} vs {}", a.display(), b.display());
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(x, y, "{} vs {}", a.display(), b.display());
    }
    assert_eq!(csv_without_timing(a), csv_without_timing(b));
}

/// Pids of live processes whose environment holds `ARENA_TEST_TAG=tag`.
fn tagged_processes(tag: &str) -> Vec<u32> {
    let needle = format!("ARENA_TEST_TAG={tag}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true);
        if !zombie && env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

fn unique_tag(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

#[test]
fn results_are_identical_at_concurrency_1_and_2() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "det", 4, &unique_tag("det"));
    let one = tmp.path().join("c1");
    let two = tmp.path().join("c2");
    let out1 = tournament(&config, &one, &["--concurrency", "1"]);
    tournament(&config, &two, &["--concurrency", "2"]);
    assert_same_results(&one, &two);
    // 3 bots, 3 pairings, 4 games each.
    assert_eq!(records_without_timing(&one).len(), 12);
    for (i, r) in records_without_timing(&one).iter().enumerate() {
        assert_eq!(r["index"], i as u64);
        assert_eq!(r["opening_plies"], 1);
    }
    assert!(out1.contains("W-D-L"), "{out1}");
    assert!(
        out1.contains(&format!("reports: {}", one.display())),
        "{out1}"
    );
    assert!(!one.join("journal.jsonl").exists());

    // --seed overrides the config's seed: another schedule. --overwrite
    // replaces a finished run in place.
    let other = tmp.path().join("seed");
    tournament(&config, &other, &["--seed", "100"]);
    assert_ne!(records_without_timing(&one), records_without_timing(&other));
    tournament(&config, &other, &["--overwrite", "--concurrency", "2"]);
    assert_same_results(&one, &other);
}

#[test]
fn resume_after_sigkill_plays_only_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let tag = unique_tag("resume");
    let config = write_config(tmp.path(), "res", 16, &tag);
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);
    let total = records_without_timing(&whole).len();
    assert_eq!(total, 48);

    let out = tmp.path().join("killed");
    let mut child = Command::new(ARENA)
        .args(["tournament", config.to_str().unwrap(), "--out"])
        .arg(&out)
        .args(["--concurrency", "2", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let journal = out.join("journal.jsonl");
    let start = Instant::now();
    loop {
        let n = std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= 6 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run never journaled 6 games"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    let saved = std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(saved < total, "the kill came too late to test anything");

    // Bots run in their own process groups: with arena gone they see their
    // input close and exit. None may be left behind.
    let start = Instant::now();
    while !tagged_processes(&tag).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "bot processes survived the killed run: {:?}",
            tagged_processes(&tag)
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Without --resume the directory is not overwritten.
    let refused = arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("--resume"), "{err}");

    let stdout = tournament(&config, &out, &["--concurrency", "2", "--resume"]);
    assert!(stdout.contains("played now, the rest resumed"), "{stdout}");
    assert_same_results(&whole, &out);
    assert!(!journal.exists());
    assert!(tagged_processes(&tag).is_empty());
}

#[test]
fn shards_run_as_separate_processes_merge_into_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "shard", 4, &unique_tag("shard"));
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);

    let shards: Vec<PathBuf> = (1..=3).map(|k| tmp.path().join(format!("s{k}"))).collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            Command::new(ARENA)
                .args(["tournament", config.to_str().unwrap(), "--out"])
                .arg(dir)
                .args(["--concurrency", "1", "--quiet", "--shard"])
                .arg(format!("{}/3", i + 1))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        ok(&c.wait_with_output().unwrap());
    }
    let sizes: Vec<usize> = shards
        .iter()
        .map(|d| records_without_timing(d).len())
        .collect();
    assert_eq!(sizes.iter().sum::<usize>(), 12, "{sizes:?}");
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");

    // A missing shard is named.
    let partial = arena(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        tmp.path().join("partial").to_str().unwrap(),
    ]);
    assert!(!partial.status.success());
    let err = String::from_utf8_lossy(&partial.stderr);
    assert!(err.contains("missing (shard 3/3?)"), "{err}");

    let merged = tmp.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap()]);
    let stdout = ok(&arena(&args));
    assert!(stdout.contains("merged 12 games from 3 runs"), "{stdout}");
    assert_same_results(&whole, &merged);
    // The merged report keeps the bots' logs its records point to.
    for r in records_without_timing(&merged) {
        for seat in r["seats"].as_array().unwrap() {
            if let Some(log) = seat["log"].as_str() {
                assert!(merged.join(log).is_file(), "{log} missing from the merge");
            }
        }
    }

    // Runs of another seed do not merge with these.
    let other = tmp.path().join("other");
    tournament(&config, &other, &["--seed", "5", "--shard", "3/3"]);
    let mixed = arena(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        other.to_str().unwrap(),
        "--out",
        tmp.path().join("mixed").to_str().unwrap(),
    ]);
    assert!(!mixed.status.success());
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("not the same config and seed"));
}

#[test]
fn config_errors_name_file_and_key_and_play_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(write_config(tmp.path(), "good", 2, "cfg")).unwrap();
    let first_command = good
        .lines()
        .find(|l| l.starts_with("command = "))
        .unwrap()
        .to_string();
    let cases = [
        (
            "unknown",
            good.replace("seed = 99", "seed = 99\nrounds = 3"),
            "rounds",
            "unknown field",
        ),
        (
            "missing",
            good.replacen(&format!("\"{}\", ", python()), "\"./no-such-bot\", ", 1),
            "bots[0].command",
            "`./no-such-bot` not found",
        ),
        (
            "script",
            good.replace("random_bot.py", "no_such_bot.py"),
            "bots[0].command",
            "no_such_bot.py",
        ),
        (
            "holes",
            good.replace("holes = 3", "holes = 99"),
            "params.holes",
            "holes",
        ),
        (
            "empty",
            good.replacen(&first_command, "command = []", 1),
            "bots[0].command",
            "must be a non-empty list",
        ),
        (
            "games",
            good.replace("games = 2", "games = 0"),
            "games",
            "at least 1",
        ),
        (
            "tc",
            good.replace("movetime_ms = 2000", "inc_ms = 5"),
            "time_control",
            "set movetime_ms",
        ),
    ];
    for (name, text, key, reason) in cases {
        let path = tmp.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        let out_dir = tmp.path().join(format!("out-{name}"));
        let out = arena(&[
            "tournament",
            path.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let prefix = format!("{}: {key}", path.display());
        assert!(
            err.contains(&prefix),
            "{name}: expected `{prefix}` in: {err}"
        );
        assert!(
            err.contains(reason),
            "{name}: expected `{reason}` in: {err}"
        );
        assert!(!out_dir.exists(), "{name}: nothing may run or be written");
    }
    let missing = tmp.path().join("absent.toml");
    let out = arena(&["tournament", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("absent.toml") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_resume_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let tag = unique_tag("sigint");
    let config = write_config(tmp.path(), "int", 8, &tag);
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);

    let out = tmp.path().join("int");
    let child = Command::new(ARENA)
        .args(["tournament", config.to_str().unwrap(), "--out"])
        .arg(&out)
        .args(["--concurrency", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::read_to_string(out.join("journal.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < 3
    {
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        // The run finished before the signal arrived: nothing left to test.
        return;
    }
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("--resume"),
        "{err}"
    );
    // The bots of the games in flight were killed, not left behind.
    let start = Instant::now();
    while !tagged_processes(&tag).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "bots survived Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    tournament(&config, &out, &["--resume"]);
    assert_same_results(&whole, &out);
}

#[test]
fn a_gauntlet_pits_the_champion_against_every_other_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "game = \"dakon\"\nseed = 4\nformat = \"gauntlet\"\nchampion = \"b\"\ngames = 2\n\
         [params]\nholes = 3\n[time_control]\nmovetime_ms = 2000\n",
    );
    for name in ["a", "b", "c", "d"] {
        text.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n"
        ));
    }
    let config = tmp.path().join("g.toml");
    std::fs::write(&config, text).unwrap();
    let out = tmp.path().join("g");
    let stdout = tournament(&config, &out, &[]);
    let records = records_without_timing(&out);
    assert_eq!(records.len(), 6);
    for r in &records {
        let seats: Vec<&str> = r["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert!(seats.contains(&"b"), "{seats:?}");
    }
    assert!(stdout.contains("b "), "{stdout}");
}
