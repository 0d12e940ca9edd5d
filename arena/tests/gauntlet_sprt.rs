//! A gauntlet's `sprt`: one sequential test per challenger against the
//! champion, each pairing stopping on its own, the same after a kill and
//! `--resume`. Real bot processes (the Python reference bots), small Dakon
//! games.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/runs.rs"]
mod runs;
use runs::*;

/// A champion (random, seed 1), an equal challenger (random, seed 2) and a
/// strong one (greedy), 30 games per pairing. The bounds -150/+150 put the
/// equal challenger (0 Elo) half way between the hypotheses, where its
/// test wanders for long; the strong one (some +400) passes H1 in a few
/// pairs. The games are seeded and the bots deterministic, so each run of
/// this config plays the same games.
fn write_gauntlet(dir: &Path, extra: &str) -> PathBuf {
    let bots = repo().join("bots/python");
    let text = format!(
        r#"
name = "gsprt"
game = "dakon"
seed = 3
format = "gauntlet"
champion = "champ"
games = 30
random_opening_plies = 4
sprt = {{ elo0 = -150, elo1 = 150 }}
{extra}

[params]
holes = 7

[time_control]
movetime_ms = 2000
margin_ms = 1000

[[bots]]
name = "champ"
command = ["{py}", "{random}", "--seed", "1"]

[[bots]]
name = "equal"
command = ["{py}", "{random}", "--seed", "2"]

[[bots]]
name = "strong"
command = ["{py}", "{greedy}"]
"#,
        py = python(),
        random = bots.join("random_bot.py").display(),
        greedy = bots.join("dakon_greedy.py").display(),
    );
    let path = dir.join("gsprt.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Games of `challenger` in the run's games.csv.
fn games_of(dir: &Path, challenger: &str) -> usize {
    let rows = read_csv(&dir.join("games.csv"));
    rows.iter()
        .filter(|r| r[3] == challenger || r[4] == challenger)
        .count()
}

#[test]
fn each_challenger_stops_on_its_own_and_resume_gives_the_same_result() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_gauntlet(tmp.path(), "");
    let whole = tmp.path().join("whole");
    let stdout = tournament(&config, &whole, &["--concurrency", "2"]);

    // sprt.csv: one row per challenger, in bot order.
    let rows = read_csv(&whole.join("sprt.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (equal, strong) = (&rows[0], &rows[1]);
    assert_eq!(equal[..3], ["equal", "champ", "continue"]);
    assert_eq!(strong[..3], ["strong", "champ", "H1"]);
    let llr = |r: &[String]| r[3].parse::<f64>().unwrap();
    let upper: f64 = strong[5].parse().unwrap();
    assert!(llr(strong) >= upper, "{strong:?}");
    assert!(llr(equal).abs() < upper, "{equal:?}");
    // The strong challenger's test decided early: its pairing's other
    // games were skipped, the equal one's all played.
    let strong_games: usize = strong[6].parse().unwrap();
    assert!(
        strong_games < 30 && strong_games.is_multiple_of(2),
        "{strong:?}"
    );
    assert_eq!(equal[6], "30");
    assert_eq!(games_of(&whole, "strong"), strong_games);
    assert_eq!(games_of(&whole, "equal"), 30);
    assert_eq!(records_without_timing(&whole).len(), 30 + strong_games);
    assert!(
        stdout.contains("sprt strong vs champ: pairs ") && stdout.contains("H1 accepted"),
        "{stdout}"
    );
    assert!(
        stdout.contains("sprt equal vs champ: pairs 15 games 30"),
        "{stdout}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["stop_rule"],
        "sprt elo0=-150,elo1=150,alpha=0.05,beta=0.05 per challenger against champ"
    );

    // Killed after a few games (before the strong test decides), then
    // resumed at another concurrency: the same games, the same verdicts.
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
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 4 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no 4 games journaled"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    assert!(!out.join("sprt.csv").exists(), "the kill came too late");
    let stdout = tournament(&config, &out, &["--concurrency", "1", "--resume"]);
    assert!(stdout.contains("the rest resumed"), "{stdout}");
    assert_same_results(&whole, &out);
    assert_eq!(
        std::fs::read(out.join("sprt.csv")).unwrap(),
        std::fs::read(whole.join("sprt.csv")).unwrap()
    );
    assert!(!journal.exists());
}

#[test]
fn sprt_config_errors_name_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "format = \"round-robin\"",
            "sprt: only with format = \"gauntlet\"",
        ),
        ("sprt = { elo0 = 0 }", "sprt: SPRT needs `elo1`"),
        (
            "sprt = { elo0 = 0, elo1 = \"x\" }",
            "sprt.elo1: must be a number",
        ),
        (
            "sprt = { elo0 = 0, elo1 = 5, gamma = 1 }",
            "unknown SPRT key `gamma`",
        ),
        ("sprt = 3", "sprt: must be a table"),
    ];
    for (extra, want) in cases {
        let config = write_gauntlet(tmp.path(), "");
        let text = std::fs::read_to_string(&config).unwrap();
        let text = if extra.starts_with("format") {
            text.replace("format = \"gauntlet\"\nchampion = \"champ\"", extra)
        } else {
            text.replace("sprt = { elo0 = -150, elo1 = 150 }", extra)
        };
        std::fs::write(&config, text).unwrap();
        let out = arena(&[
            "tournament",
            config.to_str().unwrap(),
            "--out",
            tmp.path().join("never").to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{extra}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{extra}: {err}");
        assert!(err.contains("gsprt.toml"), "{extra}: {err}");
    }
    assert!(!tmp.path().join("never").exists());
}

/// With `sprt`, a shard plays whole pairings (every n-th challenger): each
/// test reads the games the whole run's reads, and the merge of the
/// shards is the whole run, `sprt.csv` included.
#[test]
fn shards_play_whole_pairings_and_merge_into_the_whole_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_gauntlet(tmp.path(), "");
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);
    let mut parts = Vec::new();
    for k in 1..=2 {
        let dir = tmp.path().join(format!("shard{k}"));
        tournament(&config, &dir, &["--shard", &format!("{k}/2")]);
        parts.push(dir);
    }
    // Each shard holds one challenger's pairing, all of it.
    let rows: Vec<Vec<Vec<String>>> = parts
        .iter()
        .map(|d| read_csv(&d.join("sprt.csv")))
        .collect();
    assert_eq!(games_of(&parts[0], "equal"), 30);
    assert_eq!(games_of(&parts[0], "strong"), 0);
    assert_eq!(games_of(&parts[1], "equal"), 0);
    assert_eq!(rows[1][1][..3], ["strong", "champ", "H1"]);
    let merged = tmp.path().join("merged");
    let out = arena(&[
        "merge",
        parts[0].to_str().unwrap(),
        parts[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let stdout = ok(&out);
    assert!(
        stdout.contains("sprt strong vs champ: pairs ") && stdout.contains("H1 accepted"),
        "{stdout}"
    );
    assert_same_results(&whole, &merged);
    for f in ["sprt.csv", "ratings.csv"] {
        assert_eq!(
            std::fs::read_to_string(merged.join(f)).unwrap(),
            std::fs::read_to_string(whole.join(f)).unwrap(),
            "{f}"
        );
    }
}
