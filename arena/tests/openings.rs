//! Opening suites end to end: `arena openings` writes them, tournaments and
//! matches play them in pairs, and resume and merge refuse a record whose
//! opening is not the schedule's. The real binary, the built-in
//! first-legal bot (deterministic: its games depend only on the opening),
//! Dakon with 4 holes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "common/runs.rs"]
mod runs;
use runs::*;

const GAME: [&str; 4] = ["--game", "dakon", "--param", "holes=4"];

fn dakon4() -> Box<dyn arena_core::games::AnyGame> {
    arena_core::games::new_game("dakon", &[("holes".into(), "4".into())]).unwrap()
}

/// The openings of a suite file (comments and blank lines dropped).
fn suite_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split('#').next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn make_suite(dir: &Path, count: &str) -> PathBuf {
    let out = dir.join("suite.txt");
    let mut args = vec!["openings"];
    args.extend(GAME);
    args.extend([
        "--count",
        count,
        "--plies",
        "2-5",
        "--balanced",
        "--depth",
        "4",
        "--margin",
        "2",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = ok(&arena(&args));
    assert!(stdout.contains(&format!("kept {count}")), "{stdout}");
    assert!(stdout.contains("reference values of the"), "{stdout}");
    out
}

fn opening_of(r: &serde_json::Value) -> String {
    let n = r["opening_plies"].as_u64().unwrap() as usize;
    r["moves"].as_array().unwrap()[..n]
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_suite_written_by_arena_openings_reads_back_legal_and_distinct() {
    let tmp = tempfile::tempdir().unwrap();
    let file = make_suite(tmp.path(), "12");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("# made by: arena openings --game dakon --param holes=4 --count 12"),
        "{text}"
    );
    assert!(text.contains("alpha-beta to depth 4"), "{text}");
    let lines = suite_lines(&file);
    assert_eq!(lines.len(), 12);
    let game = dakon4();
    let mut positions = BTreeSet::new();
    for l in &lines {
        let mut state = game.initial_state();
        let moves: Vec<&str> = l.split(' ').collect();
        assert!((2..=5).contains(&moves.len()), "{l}");
        for mv in moves {
            state.play(mv).unwrap_or_else(|e| panic!("{l}: {e}"));
        }
        assert!(state.outcome().is_none(), "{l}");
        // Balanced as the header says: depth 4 within 2 seeds.
        assert!(state.reference_value(4).abs() <= 2, "{l}");
        assert!(positions.insert(state.to_string()), "{l}: a position twice");
    }
    // The same command makes the same file (seeded).
    let again = tmp.path().join("again");
    std::fs::create_dir(&again).unwrap();
    let file2 = make_suite(&again, "12");
    assert_eq!(suite_lines(&file2), lines);

    // Asking for more openings than exist fails and writes nothing.
    let none = tmp.path().join("none.txt");
    let mut args = vec!["openings"];
    args.extend(GAME);
    args.extend([
        "--count",
        "1000",
        "--plies",
        "1",
        "--max-candidates",
        "3000",
        "--out",
        none.to_str().unwrap(),
    ]);
    let out = arena(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("found only"));
    assert!(!none.exists());
}

/// A match config (two instances of the first-legal bot) on a suite.
fn match_args<'a>(out: &'a Path, games: &'a str, openings: &'a [&'a str]) -> Vec<&'a str> {
    let mut args = vec!["match"];
    args.extend(GAME);
    args.extend([
        "--bot",
        concat!("a=", env!("CARGO_BIN_EXE_arena"), " bot-first"),
        "--bot",
        concat!("b=", env!("CARGO_BIN_EXE_arena"), " bot-first"),
        "--games",
        games,
        "--sandbox",
        "none",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend_from_slice(openings);
    args
}

#[test]
fn a_bad_suite_line_is_refused_with_file_and_line_before_any_game() {
    let tmp = tempfile::tempdir().unwrap();
    let good = suite_lines(&make_suite(tmp.path(), "3"));
    let bad = tmp.path().join("bad.txt");
    let text = format!(
        "# two good lines, then one that is not\n{}\n{}\n{} 9\n",
        good[0], good[1], good[2]
    );
    std::fs::write(&bad, text).unwrap();
    let out = tmp.path().join("m");
    let o = arena(&match_args(
        &out,
        "2",
        &["--openings", bad.to_str().unwrap()],
    ));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let ply = good[2].split(' ').count() + 1;
    assert!(
        err.contains(&format!("bad.txt:4: move {ply} `9` is not legal")),
        "{err}"
    );
    assert!(!out.join("games.jsonl").exists());

    // The control: the good lines alone are a suite.
    std::fs::write(&bad, format!("{}\n{}\n", good[0], good[1])).unwrap();
    ok(&arena(&match_args(
        &out,
        "2",
        &["--openings", bad.to_str().unwrap()],
    )));

    // A tournament config names the file and the line too.
    std::fs::write(&bad, format!("{}\n\n{} # again\n", good[0], good[0])).unwrap();
    let config = tmp.path().join("t.toml");
    std::fs::write(
        &config,
        format!(
            r#"game = "dakon"
seed = 1
games = 2
openings = {{ file = "bad.txt" }}
[params]
holes = 4
[time_control]
movetime_ms = 1000
[[bots]]
name = "a"
command = ["{a}", "bot-first"]
sandbox = "none"
[[bots]]
name = "b"
command = ["{a}", "bot-first"]
sandbox = "none"
"#,
            a = ARENA
        ),
    )
    .unwrap();
    let o = arena(&["tournament", config.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("openings.file: bad.txt:3: leads to the same position as line 1"),
        "{err}"
    );
}

#[test]
fn a_match_plays_each_opening_of_the_suite_as_a_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let file = make_suite(tmp.path(), "6");
    let lines = suite_lines(&file);
    let out = tmp.path().join("m");
    let stdout = ok(&arena(&match_args(
        &out,
        "12",
        &["--openings", file.to_str().unwrap()],
    )));
    assert!(
        stdout.contains("distinct: 6 openings, 12 of 12 games, 6 of 6 pairs"),
        "{stdout}"
    );
    let records = records_without_timing(&out);
    assert_eq!(records.len(), 12);
    let mut used = BTreeSet::new();
    for pair in records.chunks(2) {
        let o = opening_of(&pair[0]);
        assert_eq!(o, opening_of(&pair[1]), "both seats play the opening");
        assert!(lines.contains(&o), "{o} is a line of the suite");
        used.insert(o);
    }
    assert_eq!(used.len(), 6, "drawn without replacement: every line once");
    // The manifest keeps the suite; no warning while it suffices.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["config"]["openings"]["lines"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    assert!(manifest.get("warnings").is_none(), "{manifest}");

    // More pairs than openings: said before the first game and kept.
    let more = tmp.path().join("more");
    let o = arena(&match_args(
        &more,
        "14",
        &["--openings", file.to_str().unwrap()],
    ));
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the schedule has 7 pairs of games but the opening suite"),
        "{err}"
    );
    let manifest = std::fs::read_to_string(more.join("tournament.json")).unwrap();
    assert!(manifest.contains("holds 6 openings"), "{manifest}");

    // --openings none: every game from the initial position.
    let none = tmp.path().join("none");
    let o = arena(&match_args(&none, "4", &["--openings", "none"]));
    let stdout = ok(&o);
    // Two deterministic bots from one position: one pair played twice,
    // counted and warned about.
    assert!(
        stdout.contains("distinct: 1 openings, 2 of 4 games, 1 of 2 pairs"),
        "{stdout}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("only 1 of 2 pairs of games are distinct"),
        "{err}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(none.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["distinct"]["distinct_pairs"], 1);
    assert!(records_without_timing(&none)
        .iter()
        .all(|r| r["opening_plies"] == 0));
    // By default, a variant without a shipped suite plays 4 random plies.
    let default = tmp.path().join("default");
    ok(&arena(&match_args(&default, "4", &[])));
    assert!(records_without_timing(&default)
        .iter()
        .all(|r| r["opening_plies"] == 4));
}

/// A tournament config of two first-legal bots on `openings`.
fn suite_config(dir: &Path, openings: &str) -> PathBuf {
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        format!(
            r#"game = "dakon"
seed = 3
games = 6
openings = {openings}
[params]
holes = 4
[time_control]
movetime_ms = 2000
[[bots]]
name = "a"
command = ["{a}", "bot-first"]
sandbox = "none"
[[bots]]
name = "b"
command = ["{a}", "bot-first"]
sandbox = "none"
[[bots]]
name = "c"
command = ["{a}", "bot-first"]
sandbox = "none"
"#,
            a = ARENA
        ),
    )
    .unwrap();
    config
}

/// Replaces the first move of record `index` in `dir`'s games.jsonl by
/// another legal first move.
fn tamper_opening(dir: &Path, index: usize) {
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut r: serde_json::Value = serde_json::from_str(&lines[index]).unwrap();
    let first = r["moves"][0]["move"].as_str().unwrap().to_string();
    let other = if first == "4" { "5" } else { "4" };
    r["moves"][0]["move"] = other.into();
    lines[index] = serde_json::to_string(&r).unwrap();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_opening_is_part_of_the_schedule_through_resume_shards_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let file = make_suite(tmp.path(), "12");
    let lines = suite_lines(&file);
    let config = suite_config(
        tmp.path(),
        r#"{ file = "suite.txt", order = "sequential" }"#,
    );
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);
    let records = records_without_timing(&whole);
    assert_eq!(records.len(), 18);
    // Sequential order: pair p opens with line p (a first pair of each
    // pairing in round 0, and so on).
    for r in &records {
        let pair = r["pair"].as_u64().unwrap() as usize;
        assert_eq!(opening_of(r), lines[pair], "pair {pair}");
    }

    // Shards merge into the whole run, openings included.
    let shards: Vec<PathBuf> = (1..=2).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        tournament(&config, dir, &["--shard", &format!("{}/2", k + 1)]);
    }
    let merged = tmp.path().join("merged");
    let merge = |out: &Path| {
        arena(&[
            "merge",
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    ok(&merge(&merged));
    assert_same_results(&whole, &merged);

    // A record whose opening is not the schedule's is refused by merge...
    tamper_opening(&shards[1], 0);
    let o = merge(&tmp.path().join("bad-merge"));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("games.jsonl:1: game") && err.contains(": opening is `"),
        "{err}"
    );
    // ... and by resume (the control: the same resume before the change).
    ok(&arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--resume",
        "--quiet",
    ]));
    tamper_opening(&whole, 2);
    let o = arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--resume",
        "--quiet",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("games.jsonl:3: game 2: opening is `"), "{err}");

    // Other openings are another config: resume refuses the run.
    let fresh = tmp.path().join("fresh");
    tournament(&config, &fresh, &[]);
    let shorter = lines[..11].join("\n") + "\n";
    std::fs::write(&file, shorter).unwrap();
    let o = arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        fresh.to_str().unwrap(),
        "--resume",
        "--quiet",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("config fingerprint"));
}

/// Two deterministic bots under an SPRT (issue 25.3): with the default
/// openings (Dakon's shipped suite) every pair is distinct and each moves
/// the test; with `--openings none` every pair repeats the first, the run
/// warns, and the test and the ratings count the repeats once.
#[test]
fn an_sprt_match_of_deterministic_bots_counts_a_repeated_pair_once() {
    let tmp = tempfile::tempdir().unwrap();
    let sprt_match = |out: &Path, openings: &[&str]| {
        let mut args = vec![
            "match",
            "--game",
            "dakon",
            "--bot",
            concat!("a=", env!("CARGO_BIN_EXE_arena"), " bot-first"),
            "--bot",
            concat!("b=", env!("CARGO_BIN_EXE_arena"), " bot-first"),
            "--sprt",
            "elo0=0,elo1=50",
            "--games",
            "20",
            "--sandbox",
            "none",
            "--quiet",
            "--out",
        ];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(openings);
        arena(&args)
    };
    let suite = tmp.path().join("suite");
    let o = sprt_match(&suite, &[]);
    let stdout = ok(&o);
    let games = records_without_timing(&suite).len();
    let pairs = games / 2;
    assert!(
        stdout.contains(&format!(
            "distinct: {pairs} openings, {games} of {games} games, {pairs} of {pairs} pairs"
        )),
        "{stdout}"
    );
    let last = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("sprt "))
        .unwrap();
    assert!(
        last.contains(&format!("pairs {pairs} games {games} ")),
        "{last}"
    );
    assert!(!last.contains("repeated"), "{last}");

    let none = tmp.path().join("none");
    let o = sprt_match(&none, &["--openings", "none"]);
    let stdout = ok(&o);
    assert!(
        stdout.contains("distinct: 1 openings, 2 of 20 games, 1 of 10 pairs"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("only 1 of 10 pairs of games are distinct"));
    let last = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("sprt "))
        .unwrap();
    assert!(
        last.contains("pairs 1 games 2 (+9 repeated pairs, counted once) W-D-L")
            && last.ends_with("continue"),
        "{last}"
    );
    assert!(
        stdout.contains("20 games rated (18 of them in pairs that repeat an earlier pair move for move: counted once)"),
        "{stdout}"
    );
}
