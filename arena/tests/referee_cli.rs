//! `arena match` end to end: real bot processes (the Python test bot in
//! `bots/test/` and the built-in instant bot), real games, the records on
//! disk, every losing reason, determinism, and no bot left behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "common/procs.rs"]
mod procs;

fn arena() -> &'static str {
    env!("CARGO_BIN_EXE_arena")
}

fn python() -> &'static str {
    // The real interpreter: a pyenv shim on PATH takes ~0.7 s to start.
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

fn testbot_script() -> String {
    format!("{}/../bots/test/testbot.py", env!("CARGO_MANIFEST_DIR"))
}

/// `NAME=python3 testbot.py ARGS` for `--bot`.
fn testbot(name: &str, args: &str) -> String {
    format!("{name}={} {} {args}", python(), testbot_script())
}

fn first_bot(name: &str) -> String {
    format!("{name}={} bot-first", arena())
}

fn out_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str]) -> Output {
    Command::new(arena())
        .args(args)
        .output()
        .expect("run arena")
}

fn run_match(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["match", "--out", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(
        output.status.success(),
        "arena match failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    output
}

fn records(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("games.jsonl"))
        .expect("games.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}

fn csv_rows(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("games.csv")).expect("games.csv");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut rows = vec![header];
    for r in reader.records() {
        rows.push(r.unwrap().iter().map(String::from).collect());
    }
    rows
}

fn assert_finished_normally(r: &Value) {
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason == "normal" || reason == "adjudicated",
        "{reason}: {}",
        r["detail"]
    );
    let moves = r["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(
        r["final_state"],
        moves.last().unwrap()["state"],
        "final state is the state after the last move"
    );
    for (i, m) in moves.iter().enumerate() {
        assert!(m["move"].is_string() && m["state"].is_string(), "move {i}");
        assert!(m["ms"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn latrunculi_match_plays_to_the_end_and_writes_both_files() {
    let out = out_dir("latrunculi");
    let output = Command::new(arena())
        .args(["match", "--game", "latrunculi", "--param", "width=6"])
        .args(["--param", "height=5", "--param", "pieces=6"])
        .args(["--bot", &first_bot("first")])
        .args(["--bot", &testbot("rnd", "--mode random --seed 5")])
        .args(["--games", "2", "--movetime", "2000", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("game 1/2") && stdout.contains("game 2/2"),
        "{stdout}"
    );
    assert!(
        stdout.contains("first: ") && stdout.contains("(W-D-L)"),
        "{stdout}"
    );

    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["index"], i as u64);
        assert_eq!(r["pair"], 0);
        assert_eq!(r["game"], "latrunculi");
        assert_eq!(r["params"]["width"], "6");
        assert_eq!(
            r["params"]["quiet_plies"], "100",
            "defaults are recorded too"
        );
        assert_finished_normally(r);
        for seat in r["seats"].as_array().unwrap() {
            // The test bot writes to stderr, arena's first-legal bot does
            // not: no empty log file is made for it, and none is named.
            match seat["name"].as_str().unwrap() {
                "rnd" => {
                    // Relative to the run directory, as in a tournament.
                    let log = seat["log"].as_str().expect("a log path");
                    assert!(log.starts_with("logs/game"), "{log}");
                    let text = std::fs::read_to_string(out.join(log)).unwrap();
                    assert!(text.contains("testbot: "), "{log}: {text}");
                }
                _ => assert!(seat["log"].is_null(), "{seat}"),
            }
        }
    }
    assert_eq!(recs[0]["seed"], recs[1]["seed"], "a pair shares its seed");
    assert_eq!(recs[0]["seats"][0]["name"], "first");
    assert_eq!(recs[1]["seats"][0]["name"], "rnd", "seats alternate");
    assert_eq!(recs[1]["seats"][1]["command"][1], "bot-first");

    let rows = csv_rows(&out);
    let header = &rows[0];
    for col in [
        "index",
        "game",
        "seed",
        "seat0",
        "seat1",
        "result",
        "reason",
        "plies",
        "score0",
        "score1",
        "duration_ms",
    ] {
        assert!(
            header.iter().any(|h| h == col),
            "column {col} in {header:?}"
        );
    }
    assert_eq!(rows.len(), 3);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[2][col("seat0")], "rnd");
    assert_eq!(
        rows[1][col("plies")],
        recs[0]["moves"].as_array().unwrap().len().to_string()
    );
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&rows[1][col("result")].as_str()));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn dakon_match_plays_to_the_end() {
    let out = out_dir("dakon");
    run_match(
        &out,
        &[
            "--game",
            "dakon",
            "--param",
            "holes=5",
            "--bot",
            &testbot("py", "--mode random --seed 1"),
            "--bot",
            &first_bot("first"),
            "--games",
            "2",
            "--movetime",
            "2000",
        ],
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["game"], "dakon");
        assert_eq!(r["params"]["holes"], "5");
        assert_finished_normally(r);
        let scores = r["scores"].as_array().unwrap();
        let total: i64 = scores.iter().map(|s| s.as_i64().unwrap()).sum();
        assert_eq!(total, 2 * 5 * 5, "all seeds end in the stores");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// Plays one latrunculi game of `good` (seat 0) against a misbehaving test
/// bot (seat 1) and returns its record.
fn forfeit(tag: &str, mode: &str, extra: &[&str]) -> Value {
    let out = out_dir(tag);
    let mut args = vec![
        "--game",
        "latrunculi",
        "--param",
        "width=5",
        "--param",
        "height=5",
        "--param",
        "pieces=4",
        "--games",
        "1",
    ];
    args.extend_from_slice(extra);
    let good = first_bot("good");
    let bad = testbot("bad", mode);
    args.extend_from_slice(&["--bot", &good, "--bot", &bad]);
    run_match(&out, &args);
    let mut recs = records(&out);
    assert_eq!(recs.len(), 1);
    let rows = csv_rows(&out);
    let r = recs.pop().unwrap();
    let reason_col = rows[0].iter().position(|h| h == "reason").unwrap();
    assert_eq!(rows[1][reason_col], r["reason"].as_str().unwrap());
    let _ = std::fs::remove_dir_all(&out);
    r
}

fn assert_lost(r: &Value, reason: &str, detail_has: &str) {
    assert_eq!(r["reason"], reason, "{r}");
    assert_eq!(r["offender"], 1, "{r}");
    assert_eq!(r["result"], "1-0", "{r}");
    let detail = r["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains(detail_has),
        "detail {detail:?} lacks {detail_has:?}"
    );
}

#[test]
fn each_losing_reason_is_recorded() {
    static FAST: [&str; 4] = ["--movetime", "1000", "--startup-ms", "5000"];
    let fast: &'static [&str] = &FAST;
    let cases: Vec<(&str, &str, &'static [&str], &str, &str)> = vec![
        (
            "illegal",
            "--mode illegal --after 2",
            fast,
            "illegal",
            "illegal move",
        ),
        ("malformed", "--mode illegal", fast, "illegal", "z9"),
        (
            "timeout",
            "--mode timeout --after 1",
            fast,
            "timeout",
            "no move within 1000 ms",
        ),
        (
            "clock",
            "--mode slow --sleep-ms 150",
            &["--time", "400", "--inc", "0"],
            "timeout",
            "ms (+50 ms margin)",
        ),
        (
            "crash",
            "--mode crash --after 1",
            fast,
            "crash",
            "exited with code 3",
        ),
        (
            "garbage",
            "--mode garbage",
            fast,
            "protocol",
            "unknown message",
        ),
        (
            "early",
            "--mode double",
            fast,
            "protocol",
            "no `go` was pending",
        ),
        (
            "overlong",
            "--mode overlong",
            fast,
            "protocol",
            "longer than 65536",
        ),
        ("nonutf8", "--mode nonutf8", fast, "protocol", "UTF-8"),
        ("flood", "--mode flood", fast, "protocol", "flooded"),
    ];
    let handles: Vec<_> = cases
        .into_iter()
        .map(|(tag, mode, extra, reason, detail)| {
            std::thread::spawn(move || {
                let r = forfeit(tag, mode, extra);
                assert_lost(&r, reason, detail);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn info_lines_are_recorded_and_capped() {
    let r = forfeit("info", "--mode info", &["--movetime", "2000"]);
    // The bots' decisions: after the opening the referee played (a match
    // opens with the variant's suite by default).
    let opening = r["opening_plies"].as_u64().unwrap() as usize;
    let moves = &r["moves"].as_array().unwrap()[opening..];
    let by_bad: Vec<&Value> = moves.iter().filter(|m| m["seat"] == 1).collect();
    let info = by_bad[0]["info"].as_array().unwrap();
    assert_eq!(info.len(), 33, "32 kept + a note");
    assert_eq!(info[0], "thinking 0");
    assert_eq!(info[32], "[arena: 8 more info lines dropped]");
    assert!(moves
        .iter()
        .filter(|m| m["seat"] == 0)
        .all(|m| m.get("info").is_none()));
}

/// Fail fast: a bot that dies or hangs before `ready` stops the match before
/// its first game (exit 2), saying how it ended and what it wrote on stderr,
/// instead of playing every game as a forfeit. (In a library run, as
/// tests/hostile.rs plays them, each such game is a forfeit.)
#[test]
fn a_bot_that_does_not_start_stops_the_match_before_its_first_game() {
    for (tag, mode, extra, says) in [
        ("exits", "--mode exit-at-once", "5000", "exited with code 0"),
        (
            "hangs",
            "--mode hang-start",
            "500",
            "no `ready` within 500 ms",
        ),
        (
            "crashes",
            "--mode crash-start",
            "5000",
            "exited with code 1",
        ),
    ] {
        let out = out_dir(tag);
        let output = Command::new(arena())
            .args(["match", "--game", "dakon", "--bot", &first_bot("good")])
            .args(["--bot", &testbot("bad", mode), "--startup-ms", extra])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{tag}: {stderr}");
        assert!(stderr.contains("bot `bad` cannot start"), "{tag}: {stderr}");
        assert!(stderr.contains(says), "{tag}: {stderr}");
        assert!(
            !out.join("games.jsonl").exists(),
            "{tag}: no game was played"
        );
    }
}

#[test]
fn a_command_that_cannot_start_is_an_error_naming_it() {
    let out = out_dir("nostart");
    let output = Command::new(arena())
        .args(["match", "--game", "latrunculi", "--bot", &first_bot("a")])
        .args(["--bot", "b=/no/such/bot --flag", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/no/such/bot"), "{stderr}");
    assert!(!out.join("games.jsonl").exists(), "no game was played");
}

#[test]
fn bad_input_is_refused_before_any_game() {
    let a = first_bot("a");
    let b = first_bot("b");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--game", "chess", "--bot", &a, "--bot", &b],
            "unknown game",
        ),
        (
            vec![
                "--game",
                "latrunculi",
                "--param",
                "colour=red",
                "--bot",
                &a,
                "--bot",
                &b,
            ],
            "colour",
        ),
        (
            vec![
                "--game",
                "latrunculi",
                "--param",
                "width=99",
                "--bot",
                &a,
                "--bot",
                &b,
            ],
            "width",
        ),
        (vec!["--game", "latrunculi", "--bot", &a], "exactly two"),
        (
            vec!["--game", "latrunculi", "--bot", &a, "--bot", "nameonly"],
            "NAME=COMMAND",
        ),
        (
            vec!["--game", "latrunculi", "--bot", &a, "--bot", &a],
            "different names",
        ),
        // Checked by the settings funnel, as a config's keys are.
        (
            vec![
                "--game",
                "latrunculi",
                "--bot",
                &a,
                "--bot",
                &b,
                "--inc",
                "500",
            ],
            "--inc: needs --time",
        ),
        (
            vec![
                "--game",
                "latrunculi",
                "--bot",
                &a,
                "--bot",
                &b,
                "--ceiling-ms",
                "500",
            ],
            "--ceiling-ms: is the cpu clock's wall-time ceiling: it needs --clock cpu",
        ),
        (
            vec![
                "--game",
                "latrunculi",
                "--bot",
                &a,
                "--bot",
                "c=python3 no_such_bot_anywhere.py",
            ],
            "bot `c`: file `no_such_bot_anywhere.py` not found",
        ),
    ];
    for (args, message) in cases {
        let mut full = vec!["match", "--out", "/nonexistent/never-written"];
        full.extend(args);
        let output = run(&full);
        assert_eq!(output.status.code(), Some(2), "{full:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{full:?}: {stderr}");
    }
}

/// Moves and results of a games.jsonl, without the timing fields.
fn games_without_timing(out: &Path) -> Vec<Value> {
    records(out)
        .into_iter()
        .map(|mut r| {
            let obj = r.as_object_mut().unwrap();
            obj.remove("duration_ms");
            for seat in obj["seats"].as_array_mut().unwrap() {
                seat.as_object_mut().unwrap().remove("log");
            }
            for m in obj["moves"].as_array_mut().unwrap() {
                let m = m.as_object_mut().unwrap();
                m.remove("ms");
                m.remove("cpu_ms");
            }
            r
        })
        .collect()
}

#[test]
fn the_same_command_twice_gives_the_same_games() {
    let (one, two) = (out_dir("det1"), out_dir("det2"));
    let a = testbot("a", "--mode random --seed 11");
    let b = testbot("b", "--mode random --seed 12");
    for out in [&one, &two] {
        run_match(
            out,
            &[
                "--game",
                "latrunculi",
                "--param",
                "width=5",
                "--param",
                "height=5",
                "--param",
                "pieces=4",
                "--bot",
                &a,
                "--bot",
                &b,
                "--games",
                "3",
                "--seed",
                "99",
                "--movetime",
                "3000",
            ],
        );
    }
    let (g1, g2) = (games_without_timing(&one), games_without_timing(&two));
    assert_eq!(g1.len(), 3);
    assert_eq!(g1, g2);
    assert_ne!(
        g1[0]["moves"], g1[2]["moves"],
        "different seeds, different games"
    );
    for out in [one, two] {
        let _ = std::fs::remove_dir_all(out);
    }
}

#[test]
fn kept_bots_play_several_games_in_one_process() {
    let out = out_dir("keep");
    run_match(
        &out,
        &[
            "--game",
            "latrunculi",
            "--param",
            "width=5",
            "--param",
            "height=5",
            "--param",
            "pieces=4",
            "--bot",
            &first_bot("a"),
            "--bot",
            &testbot("b", "--mode random --seed 3"),
            "--games",
            "4",
            "--keep-bots",
        ],
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        assert_finished_normally(r);
    }
    // One process wrote every `newgame` it got to its stderr; with kept
    // bots each game's log holds only that game's `newgame`.
    let log = recs[3]["seats"][0]["log"].as_str().unwrap();
    let text = std::fs::read_to_string(out.join(log)).unwrap();
    assert_eq!(text.matches("newgame").count(), 1, "{text}");
    assert!(text.contains(&format!("seed={}", recs[3]["seed"])));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn no_bot_process_survives_forks_stubbornness_or_logs_floods() {
    let out = out_dir("cleanup");
    let marker = format!("marker{}", std::process::id());
    let fork = testbot("fork", &format!("--mode fork-hold --illegal-move {marker}"));
    let stubborn = testbot("stub", &format!("--mode stubborn --illegal-move {marker}"));
    run_match(
        &out,
        &[
            "--game",
            "latrunculi",
            "--bot",
            &fork,
            "--bot",
            &stubborn,
            "--games",
            "2",
        ],
    );
    let recs = records(&out);
    for r in &recs {
        assert_eq!(r["reason"], "crash", "{r}");
        let offender = r["offender"].as_u64().unwrap() as usize;
        assert_eq!(r["seats"][offender]["name"], "fork");
    }
    let left = procs::with_cmdline(&marker);
    assert!(left.is_empty(), "{left:?}");

    let spam = testbot("spam", "--mode stderr-spam");
    run_match(
        &out,
        &[
            "--game",
            "latrunculi",
            "--param",
            "width=5",
            "--param",
            "height=5",
            "--param",
            "pieces=2",
            "--bot",
            &spam,
            "--bot",
            &first_bot("f"),
            "--games",
            "1",
            "--movetime",
            "5000",
            "--overwrite",
        ],
    );
    let recs = records(&out);
    assert_finished_normally(&recs[0]);
    let log = recs[0]["seats"][0]["log"].as_str().unwrap();
    let size = std::fs::metadata(out.join(log)).unwrap().len();
    assert!(size <= (1 << 20) + 200, "log capped at 1 MiB, got {size}");
    assert!(size >= 1 << 20, "log kept up to the cap, got {size}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn interrupting_the_referee_kills_its_bots() {
    let out = out_dir("sigint");
    let marker = format!("sigint{}", std::process::id());
    let hang = testbot("hang", &format!("--mode timeout --illegal-move {marker}"));
    let hang2 = testbot("hang2", &format!("--mode timeout --illegal-move {marker}"));
    let child = Command::new(arena())
        .args([
            "match",
            "--game",
            "latrunculi",
            "--movetime",
            "60000",
            "--out",
        ])
        .arg(&out)
        .args(["--bot", &hang, "--bot", &hang2])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // Once the run has begun (its manifest is written after each bot was
    // started once, alone), both bots of the game.
    let up = procs::settle(
        Duration::from_secs(10),
        || {
            let begun = out.join("tournament.json").exists();
            procs::with_cmdline(&marker)
                .into_iter()
                .filter(|_| begun)
                .collect::<Vec<_>>()
        },
        |bots| bots.len() >= 2,
    );
    assert!(up.len() >= 2, "bots never started: {up:?}");
    std::thread::sleep(Duration::from_millis(200));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("arena match: interrupted") && stderr.contains("--resume"),
        "{stderr}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    let left = procs::settle(
        Duration::from_secs(2),
        || procs::with_cmdline(&marker),
        Vec::is_empty,
    );
    assert!(left.is_empty(), "bots left: {left:?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sprt_stops_the_match_when_it_decides_either_way() {
    // Every game of the illegal-move bot is a forfeit, so each pair is
    // 2-0 for the other bot: the test must accept H1 for it as the first
    // bot and H0 for it as the second, well before the game cap.
    for (first, second, verdict) in [
        (
            first_bot("sound"),
            testbot("faulty", "--mode illegal"),
            "H1 accepted",
        ),
        (
            testbot("faulty", "--mode illegal"),
            first_bot("sound"),
            "H0 accepted",
        ),
    ] {
        let dir = out_dir(&format!("sprt-{}", &verdict[..2]));
        let out = run(&[
            "match",
            "--game",
            "dakon",
            "--param",
            "holes=3",
            "--bot",
            &first,
            "--bot",
            &second,
            "--sprt",
            "elo0=0,elo1=200,alpha=0.05,beta=0.05",
            "--games",
            "400",
            "--movetime",
            "2000",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let last = stdout.lines().last().unwrap_or_default();
        assert!(last.starts_with("sprt elo0=0,elo1=200"), "{stdout}");
        assert!(last.ends_with(verdict), "{stdout}");
        let csv = std::fs::read_to_string(dir.join("games.csv")).unwrap();
        let games = csv.lines().count() - 1;
        assert!(
            games.is_multiple_of(2) && (2..400).contains(&games),
            "{games} games"
        );
        // The line counts the pairs that are evidence; a pair that repeats
        // an earlier one move for move (a forfeit after the same opening)
        // is played but counted once.
        let repeats: usize = last
            .split_once("(+")
            .map_or(0, |(_, r)| r.split(' ').next().unwrap().parse().unwrap());
        assert!(
            last.contains(&format!("games {} ", games - 2 * repeats)),
            "{last}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn sprt_needs_whole_pairs_and_valid_bounds() {
    for (extra, complaint) in [(["--games", "3"], "must be even"), (["--games", "4"], "")] {
        let dir = out_dir("sprt-bad");
        let sprt = if complaint.is_empty() {
            "elo0=5,elo1=zero"
        } else {
            "elo0=0,elo1=10"
        };
        let out = run(&[
            "match",
            "--game",
            "dakon",
            "--bot",
            &first_bot("a"),
            "--bot",
            &first_bot("b"),
            "--sprt",
            sprt,
            extra[0],
            extra[1],
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(if complaint.is_empty() {
                "elo1"
            } else {
                complaint
            }),
            "{stderr}"
        );
        assert!(!dir.join("games.csv").exists());
    }
}
