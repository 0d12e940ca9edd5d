//! `arena tournament` and `arena merge` end to end: the real binary, real bot
//! processes (the Python reference bot and arena's built-in first-legal bot),
//! small Dakon games.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/procs.rs"]
mod procs;
#[path = "common/runs.rs"]
mod runs;
use runs::*;

fn unique_tag(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

/// The survivor checks below would pass vacuously if the scan saw nothing.
#[test]
fn the_survivor_scan_sees_a_tagged_process_until_it_is_reaped() {
    let entry = format!("ARENA_TEST_TAG={}", unique_tag("scan"));
    let mut child = Command::new("sleep")
        .arg("30")
        .env("ARENA_TEST_TAG", unique_tag("scan"))
        .spawn()
        .unwrap();
    let seen = procs::settle(
        Duration::from_secs(10),
        || procs::with_env(&entry),
        |pids| !pids.is_empty(),
    );
    assert_eq!(seen, vec![child.id() as i32]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(procs::with_env(&entry), Vec::<i32>::new());
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
    // One standings table, by Bradley-Terry rating.
    assert!(
        out1.contains("95% interval") && out1.contains("LOS vs next"),
        "{out1}"
    );
    assert_eq!(out1.matches("  # bot").count(), 1, "{out1}");
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
    let left = procs::settle(
        Duration::from_secs(10),
        || procs::with_env(&format!("ARENA_TEST_TAG={tag}")),
        Vec::is_empty,
    );
    let shown: Vec<String> = left
        .iter()
        .map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            format!(
                "{pid}: {} [{}]",
                String::from_utf8_lossy(&cmd).replace('\0', " "),
                stat.trim()
            )
        })
        .collect();
    assert!(
        left.is_empty(),
        "bot processes survived the killed run: {shown:#?}"
    );

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
    for f in ["ratings.csv", "crosstable.csv", "los.csv"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(whole.join(f)).unwrap(),
            "{f}"
        );
    }
    assert!(!journal.exists());
    assert!(procs::with_env(&format!("ARENA_TEST_TAG={tag}")).is_empty());
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
    // One answer per set of games: the unsharded run, the merge of the
    // shards and `arena ratings` on the merge write the same ratings files.
    let recomputed = tmp.path().join("recomputed");
    ok(&arena(&[
        "ratings",
        merged.to_str().unwrap(),
        "--out",
        recomputed.to_str().unwrap(),
    ]));
    for f in ["ratings.csv", "crosstable.csv", "los.csv"] {
        let want = std::fs::read(whole.join(f)).unwrap();
        assert_eq!(std::fs::read(merged.join(f)).unwrap(), want, "{f}");
        assert_eq!(std::fs::read(recomputed.join(f)).unwrap(), want, "{f}");
    }
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
            "must be from 1 to 10000000 (got 0)",
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
    let left = procs::settle(
        Duration::from_secs(3),
        || procs::with_env(&format!("ARENA_TEST_TAG={tag}")),
        Vec::is_empty,
    );
    assert!(left.is_empty(), "bots survived Ctrl-C: {left:?}");
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

/// A config whose bots append a line to `<dir>/<name>.starts` each time
/// their process starts (a `sh` wrapper that then execs the bot), so a test
/// can count process starts.
fn counted_config(dir: &std::path::Path, head: &str, bots: &[(&str, Vec<String>)]) -> PathBuf {
    let mut text = format!(
        "game = \"dakon\"\nseed = 5\n{head}\n[params]\nholes = 3\n\
         [time_control]\nmovetime_ms = 2000\nmargin_ms = 1000\n"
    );
    for (name, command) in bots {
        let starts = dir.join(format!("{name}.starts"));
        let mut argv = vec![
            "sh".to_string(),
            "-c".to_string(),
            format!("echo started >> '{}'; exec \"$0\" \"$@\"", starts.display()),
        ];
        argv.extend(command.iter().cloned());
        // Unsandboxed: the wrapper writes beside the config, which a
        // sandboxed bot sees read-only.
        text.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\ncommand = {}\nsandbox = \"none\"\n",
            serde_json::to_string(&argv).unwrap()
        ));
    }
    let path = dir.join("counted.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The start of each bot that a run makes before its first game, to see
/// that it answers `ready` (fail fast).
const START_CHECK: usize = 1;

/// How many times bot `name` was started since the last call (which resets the count).
fn starts(dir: &std::path::Path, name: &str) -> usize {
    let path = dir.join(format!("{name}.starts"));
    let n = std::fs::read_to_string(&path)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&path);
    n
}

fn random_bot(seed: &str) -> Vec<String> {
    let py = repo().join("bots/python/random_bot.py");
    vec![
        python().to_string(),
        py.display().to_string(),
        "--seed".into(),
        seed.into(),
    ]
}

#[test]
fn kept_bots_play_the_same_games_in_fewer_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = [
        ("a", random_bot("1")),
        ("b", random_bot("2")),
        ("first", vec![ARENA.to_string(), "bot-first".to_string()]),
    ];
    let fresh_config = counted_config(tmp.path(), "games = 4", &bots);
    let fresh = tmp.path().join("fresh");
    tournament(&fresh_config, &fresh, &["--concurrency", "2"]);
    // 3 pairings of 4 games: each bot plays 8 games, each in a new process.
    for (name, _) in &bots {
        assert_eq!(starts(tmp.path(), name), START_CHECK + 8, "{name}");
    }

    // The top-level default, overridden for one bot.
    let mut text = std::fs::read_to_string(&fresh_config)
        .unwrap()
        .replace("games = 4", "games = 4\nkeep_bots = true");
    text = text.replace(
        "name = \"first\"\n",
        "name = \"first\"\nkeep_bots = false\n",
    );
    let kept_config = tmp.path().join("kept.toml");
    std::fs::write(&kept_config, text).unwrap();
    let kept = tmp.path().join("kept");
    tournament(&kept_config, &kept, &["--concurrency", "2"]);
    // Every game still starts with `newgame` (the bots reseed on it): the
    // same games as with fresh processes.
    assert_same_results(&fresh, &kept);
    for name in ["a", "b"] {
        let n = starts(tmp.path(), name) - START_CHECK;
        assert!((1..=2).contains(&n), "{name}: {n} starts on 2 game threads");
    }
    assert_eq!(
        starts(tmp.path(), "first"),
        START_CHECK + 8,
        "keep_bots = false for it"
    );
    let manifest = std::fs::read_to_string(kept.join("tournament.json")).unwrap();
    assert!(manifest.contains("\"keep\": true"), "{manifest}");
}

#[test]
fn a_kept_bot_that_misbehaves_is_restarted() {
    let tmp = tempfile::tempdir().unwrap();
    let testbot = repo().join("bots/test/testbot.py");
    // `illegal --after 4`: fine for its process's first 4 decisions, then an
    // illegal move at every decision (the process itself stays up).
    let liar = vec![
        python().to_string(),
        testbot.display().to_string(),
        "--mode".into(),
        "illegal".into(),
        "--after".into(),
        "4".into(),
    ];
    let bots = [("a", random_bot("1")), ("liar", liar)];
    let config = counted_config(tmp.path(), "games = 8\nkeep_bots = true", &bots);
    let out = tmp.path().join("run");
    tournament(&config, &out, &["--concurrency", "1"]);
    let records = records_without_timing(&out);
    assert_eq!(records.len(), 8);
    let forfeits: Vec<bool> = records.iter().map(|r| r["reason"] == "illegal").collect();
    let lost = forfeits.iter().filter(|&&f| f).count();
    assert!(lost >= 1, "the liar never lied: {records:?}");
    // A new process after every forfeit but one in the last game.
    let restarts = lost - usize::from(forfeits[7]);
    assert!(restarts >= 1, "no restart to see: {forfeits:?}");
    assert_eq!(
        starts(tmp.path(), "liar"),
        START_CHECK + 1 + restarts,
        "{forfeits:?}"
    );
    assert_eq!(
        starts(tmp.path(), "a"),
        START_CHECK + 1,
        "the healthy bot is kept throughout"
    );
}

/// Records read through arena's one reader, timing left out.
fn stored_without_timing(file: &std::path::Path) -> Vec<arena_core::record::GameRecord> {
    arena::store::read_games_file(file)
        .unwrap()
        .into_iter()
        .map(|mut r| {
            r.duration_ms = 0;
            for m in &mut r.moves {
                m.ms = 0.0;
                m.cpu_ms = None;
            }
            r
        })
        .collect()
}

#[test]
fn compact_records_read_as_whole_ones_by_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let tag = unique_tag("compact");
    // The same config twice (same name, so the same fingerprint): whole
    // records, and states every 3 plies.
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let whole_cfg = write_config(&a, "same", 4, &tag);
    let text = std::fs::read_to_string(&whole_cfg)
        .unwrap()
        .replace("games = 4\n", "games = 4\nrecord_states = 3\n");
    let compact_cfg = b.join("same.toml");
    std::fs::write(&compact_cfg, text).unwrap();

    let whole = tmp.path().join("whole");
    let compact = tmp.path().join("compact");
    tournament(&whole_cfg, &whole, &[]);
    tournament(&compact_cfg, &compact, &[]);
    let size = |d: &std::path::Path| std::fs::metadata(d.join("games.jsonl")).unwrap().len();
    assert!(
        size(&compact) * 4 < size(&whole) * 3,
        "{} vs {}",
        size(&compact),
        size(&whole)
    );
    let raw = records_without_timing(&compact);
    let moves: Vec<&serde_json::Value> = raw
        .iter()
        .flat_map(|r| r["moves"].as_array().unwrap())
        .collect();
    assert!(moves.iter().any(|m| m.get("state").is_none()));
    // Every record's last move keeps its state.
    for r in &raw {
        let last = r["moves"].as_array().unwrap().last().unwrap();
        assert!(last.get("state").is_some(), "{r}");
    }
    let expected = stored_without_timing(&whole.join("games.jsonl"));
    assert_eq!(
        stored_without_timing(&compact.join("games.jsonl")),
        expected
    );

    // arena show draws the same position from either.
    let show = |d: &std::path::Path| {
        ok(&arena(&[
            "show",
            d.to_str().unwrap(),
            "--index",
            "5",
            "--ply",
            "4",
        ]))
        .lines()
        .filter(|l| !l.contains(" ms"))
        .collect::<Vec<_>>()
        .join("\n")
    };
    assert_eq!(show(&compact), show(&whole));

    // A shard with compact records and one with whole records merge into
    // one run (a file of both kinds) that reads as the whole run.
    let (s1, s2) = (tmp.path().join("s1"), tmp.path().join("s2"));
    tournament(&compact_cfg, &s1, &["--shard", "1/2"]);
    tournament(&whole_cfg, &s2, &["--shard", "2/2"]);
    let merged = tmp.path().join("merged");
    ok(&arena(&[
        "merge",
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]));
    assert_eq!(stored_without_timing(&merged.join("games.jsonl")), expected);
    assert!(merged.join("replays").join("block-00000.js").is_file());

    // record_states = 0 is refused, naming the key.
    let bad = tmp.path().join("bad.toml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&compact_cfg)
            .unwrap()
            .replace("record_states = 3", "record_states = 0"),
    )
    .unwrap();
    let out = arena(&["tournament", bad.to_str().unwrap(), "--quiet"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("record_states"), "{err}");
}

/// Fail fast: a bot that cannot start (here, an interpreter given a
/// mistyped script name) stops the tournament before its first game, with
/// exit code 2, its command, how it ended and the end of its stderr;
/// nothing is played or written. The same config with the bot fixed runs
/// (the control: the check refuses only what does not start).
#[test]
fn a_bot_that_cannot_start_stops_the_run_before_its_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "failfast", 2, &unique_tag("failfast"));
    let text = std::fs::read_to_string(&config).unwrap();
    let broken = text.replacen(
        r#"command = ["{ARENA}", "bot-first"]"#.replace("{ARENA}", ARENA).as_str(),
        r#"command = ["/bin/sh", "-c", "echo 'lua5.4: cannot open lua_bott.lua' >&2; exit 1"]"#,
        1,
    );
    assert_ne!(broken, text, "the config names the first-legal bot");
    std::fs::write(&config, &broken).unwrap();
    let out = dir.path().join("run");
    let o = arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("bot `first` cannot start"), "{err}");
    assert!(err.contains("exited with code 1"), "{err}");
    assert!(err.contains("cannot open lua_bott.lua"), "{err}");
    assert!(!out.join("games.jsonl").exists(), "no game was played");
    std::fs::write(&config, &text).unwrap();
    tournament(&config, &out, &[]);
    assert!(out.join("games.jsonl").exists());
}

/// A bot that starts (it passes the check before the first game) but dies
/// on every `newgame` stops the run after 3 of its games in a row, exit 1,
/// saying so; the games played are kept, and once the bot is fixed
/// `--resume` plays the rest. The control: `on_bot_failure = "forfeit"`
/// plays the whole schedule with its games lost.
#[test]
fn a_bot_that_dies_in_its_first_three_games_stops_the_run_and_resume_continues() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "dying", 4, &unique_tag("dying"));
    let fixed = dir.path().join("fixed");
    let text = std::fs::read_to_string(&config).unwrap();
    // Answers `ready`, then exits on `newgame`, until the file `fixed` exists.
    let dying = format!(
        r#"command = ["/bin/sh", "-c", "[ -e '{}' ] && exec '{ARENA}' bot-first; read l; echo ready dying; read l; echo 'model.bin: no such file' >&2; exit 1"]
sandbox = "none""#,
        fixed.display()
    );
    let broken = text.replacen(
        r#"command = ["{ARENA}", "bot-first"]"#.replace("{ARENA}", ARENA).as_str(),
        &dying,
        1,
    );
    assert_ne!(broken, text);
    std::fs::write(&config, &broken).unwrap();
    let out = dir.path().join("run");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "tournament",
            config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend(extra);
        arena(&args)
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("bot `first` died before its first move in 3 games in a row"),
        "{err}"
    );
    assert!(err.contains("exited with code 1"), "{err}");
    assert!(
        err.contains("--resume") && err.contains("on_bot_failure"),
        "{err}"
    );
    assert!(err.contains("its stderr: "), "{err}");
    let manifest = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(manifest.contains("\"status\": \"running\""), "{manifest}");

    std::fs::write(&fixed, "").unwrap();
    let o = run(&["--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = records_without_timing(&out);
    assert_eq!(records.len(), 12);
    let dead = records.iter().filter(|r| r["reason"] == "crash").count();
    assert!((3..12).contains(&dead), "{dead} crashes");

    // The control: forfeits all the way.
    std::fs::remove_file(&fixed).unwrap();
    let forfeit = broken.replacen("games = 4", "games = 4\non_bot_failure = \"forfeit\"", 1);
    std::fs::write(&config, forfeit).unwrap();
    let o = run(&["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = records_without_timing(&out);
    assert_eq!(records.iter().filter(|r| r["reason"] == "crash").count(), 8);
}

/// `[defaults]` reaches every bot and a bot's own keys win (`budget` merged
/// key by key, `time_control` whole): the `go` lines the bots log show the
/// time control and budget each got, time odds included. A key `[defaults]`
/// does not know is refused, naming it.
#[test]
fn defaults_and_per_bot_time_controls_reach_the_bots_go_fields() {
    let dir = tempfile::tempdir().unwrap();
    let testbot = repo().join("bots/test/testbot.py");
    let text = format!(
        r#"game = "dakon"
seed = 3
games = 2
openings = "none"
[params]
holes = 3
[time_control]
movetime_ms = 2000

[defaults]
time_control = {{ time_ms = 30000, inc_ms = 100 }}
budget = {{ nodes = 500 }}

[[bots]]
name = "a"
command = ["{py}", "{bot}"]

[[bots]]
name = "b"
command = ["{py}", "{bot}"]
time_control = {{ movetime_ms = 700 }}
budget = {{ depth = 3 }}
"#,
        py = python(),
        bot = testbot.display()
    );
    let config = dir.path().join("defaults.toml");
    std::fs::write(&config, &text).unwrap();
    let out = dir.path().join("run");
    tournament(&config, &out, &[]);
    let first_go = |seat: usize, name: &str| -> String {
        let log =
            std::fs::read_to_string(out.join(format!("logs/game00000-seat{seat}-{name}.log")))
                .unwrap();
        let go = log
            .lines()
            .find_map(|l| l.strip_prefix("testbot: go "))
            .unwrap()
            .to_string();
        go
    };
    // Game 0: a in seat 0 moves first; b's first go comes after a's move.
    let a = first_go(0, "a");
    assert_eq!(a, "time=30000 opptime=- inc=100 movetime=- nodes=500");
    let b = first_go(1, "b");
    assert!(
        b.starts_with("time=- opptime=") && b.ends_with(" inc=0 movetime=700 nodes=500 depth=3"),
        "{b}"
    );
    let manifest = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(manifest.contains("\"time_control\""), "{manifest}");

    for (bad, key) in [
        ("name = \"x\"", "defaults.name"),
        ("memory_mb = 5", "defaults.memory_mb"),
    ] {
        std::fs::write(
            &config,
            text.replace("[defaults]\n", &format!("[defaults]\n{bad}\n")),
        )
        .unwrap();
        let o = arena(&[
            "tournament",
            config.to_str().unwrap(),
            "--out",
            dir.path().join("bad").to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(key), "{key}: {err}");
    }
}

/// A config's `anchor` and `confidence` reach `arena merge`: the merged
/// shards are rated as the unsharded run is (the manifest keeps them).
#[test]
fn a_merge_rates_as_the_shards_config_asks() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = write_config(tmp.path(), "plain", 2, &unique_tag("rated"));
    let text = std::fs::read_to_string(&plain).unwrap().replace(
        "seed = 99",
        "seed = 99\nanchor = \"first=2000\"\nconfidence = 0.9",
    );
    let config = tmp.path().join("rated.toml");
    std::fs::write(&config, text).unwrap();
    let whole = tmp.path().join("whole");
    tournament(&config, &whole, &["--concurrency", "2"]);
    let shards: Vec<PathBuf> = (1..=2).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (i, dir) in shards.iter().enumerate() {
        tournament(&config, dir, &["--shard", &format!("{}/2", i + 1)]);
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap()]);
    ok(&arena(&args));
    for f in ["ratings.csv", "crosstable.csv", "los.csv"] {
        let want = std::fs::read(whole.join(f)).unwrap();
        assert_eq!(std::fs::read(merged.join(f)).unwrap(), want, "{f}");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["confidence"], 0.9, "{summary}");
    let ratings = std::fs::read_to_string(merged.join("ratings.csv")).unwrap();
    let header: Vec<&str> = ratings.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "bt_elo").unwrap();
    let first = ratings
        .lines()
        .find(|l| l.starts_with("first,"))
        .unwrap()
        .split(',')
        .nth(col)
        .unwrap();
    assert_eq!(first.parse::<f64>().unwrap(), 2000.0, "{ratings}");
}
