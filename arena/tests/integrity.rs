//! Results nobody can forge, bounded inputs and safe display, end to end
//! with the real binary and real bots: `arena match` treats its `--out` as
//! a run directory (refused when it holds a run, `--overwrite`, `--resume`,
//! private modes), plays games concurrently with the same results as one at
//! a time (SPRT included), configs and `--games` are bounded, and text from
//! bots reaches the terminal escaped.
//!
//! The forged-record, duplicate and manifest-less `--overwrite` cases are
//! unit tests of `tournament.rs` (they need a hand-made journal).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// `NAME=python3 testbot.py ARGS` for `--bot`.
fn testbot(name: &str, args: &str) -> String {
    let script = format!("{}/../bots/test/testbot.py", env!("CARGO_MANIFEST_DIR"));
    format!("{name}={} {script} {args}", python())
}

fn first_bot(name: &str) -> String {
    format!("{name}={ARENA} bot-first")
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-integrity-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `arena match` on small Dakon boards between `bots`, into `out`.
fn play_match(out: &Path, bots: [&str; 2], extra: &[&str]) -> Output {
    let mut args = vec![
        "match",
        "--game",
        "dakon",
        "--param",
        "holes=4",
        "--movetime",
        "5000",
        "--out",
    ];
    args.push(out.to_str().unwrap());
    for b in &bots {
        args.extend(["--bot", b]);
    }
    args.extend_from_slice(extra);
    arena(&args)
}

/// games.jsonl without what differs between two runs of the same games:
/// timings, and the run directory in the logs' paths.
fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut r: Value = serde_json::from_str(l).unwrap();
            r.as_object_mut().unwrap().remove("duration_ms");
            for m in r["moves"].as_array_mut().unwrap() {
                let m = m.as_object_mut().unwrap();
                m.remove("ms");
                m.remove("cpu_ms");
            }
            for s in r["seats"].as_array_mut().unwrap() {
                if let Some(log) = s["log"].as_str() {
                    s["log"] = Path::new(log).file_name().unwrap().to_str().unwrap().into();
                }
            }
            r
        })
        .collect()
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

#[test]
fn a_match_out_directory_is_a_run_directory() {
    let dir = scratch("rundir");
    let out = dir.join("m");
    let (a, b) = (first_bot("a"), testbot("b", "--mode random --seed 3"));
    let bots = [a.as_str(), b.as_str()];
    let first = play_match(&out, bots, &["--games", "4", "--quiet"]);
    assert!(first.status.success(), "{}", text(&first));

    // Everything in it is private: the directory, its logs, every file.
    assert_eq!(mode(&out), 0o700);
    assert_eq!(mode(&out.join("logs")), 0o700);
    for f in [
        "games.jsonl",
        "games.csv",
        "tournament.json",
        "ratings.csv",
        "crosstable.csv",
        "los.csv",
        "index.html",
        ".arena.lock",
    ] {
        assert_eq!(mode(&out.join(f)), 0o600, "{f}");
    }
    let before = std::fs::read(out.join("games.jsonl")).unwrap();

    // A second match into it is refused (exit 1) and changes nothing.
    let again = play_match(&out, bots, &["--games", "2", "--quiet"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(
        text(&again).contains("already holds a run"),
        "{}",
        text(&again)
    );
    assert_eq!(std::fs::read(out.join("games.jsonl")).unwrap(), before);

    // --overwrite replaces it.
    let over = play_match(&out, bots, &["--games", "2", "--quiet", "--overwrite"]);
    assert!(over.status.success(), "{}", text(&over));
    assert_eq!(records(&out).len(), 2);

    // --games 0 and more games than a run may hold are mistakes (exit 2).
    for games in ["0", "10000001"] {
        let bad = play_match(&dir.join("bad"), bots, &["--games", games]);
        assert_eq!(bad.status.code(), Some(2), "{games}: {}", text(&bad));
        assert!(
            text(&bad).contains("--games must be from 1 to 10000000"),
            "{}",
            text(&bad)
        );
    }
    assert!(!dir.join("bad").exists(), "nothing written for a mistake");

    // A directory that holds files arena did not write there is refused,
    // and keeps no lock file of the refused run.
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(foreign.join("logs")).unwrap();
    std::fs::write(foreign.join("games.csv"), "mine").unwrap();
    for flag in ["--overwrite", "--resume", "--quiet"] {
        let refused = play_match(&foreign, bots, &["--games", "2", flag]);
        assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
        assert!(
            text(&refused).contains("no tournament.json"),
            "{}",
            text(&refused)
        );
    }
    assert!(!foreign.join(".arena.lock").exists());
    assert_eq!(
        std::fs::read_to_string(foreign.join("games.csv")).unwrap(),
        "mine"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn concurrency_1_and_2_give_the_same_games_sprt_included() {
    let dir = scratch("concurrency");
    let rnd = testbot("rnd", "--mode random --seed 11");
    let first = first_bot("first");
    let mut runs = Vec::new();
    for c in ["1", "2"] {
        let out = dir.join(format!("plain{c}"));
        let o = play_match(&out, [&rnd, &first], &["--games", "8", "--concurrency", c]);
        assert!(o.status.success(), "{}", text(&o));
        runs.push(records(&out));
    }
    assert_eq!(runs[0].len(), 8);
    assert_eq!(runs[0], runs[1]);

    // The illegal-move bot loses every game: the test accepts H0 after a
    // few pairs, on the same game at either concurrency.
    let bad = testbot("bad", "--mode illegal");
    let mut runs = Vec::new();
    for c in ["1", "2"] {
        let out = dir.join(format!("sprt{c}"));
        let o = play_match(
            &out,
            [&bad, &first],
            &[
                "--games",
                "400",
                "--sprt",
                "elo0=0,elo1=200",
                "--concurrency",
                c,
            ],
        );
        assert!(o.status.success(), "{}", text(&o));
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(stdout.contains("H0"), "{stdout}");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
                .unwrap();
        assert!(
            manifest["stopped"].as_str().unwrap().contains("H0"),
            "{manifest}"
        );
        runs.push(records(&out));
    }
    assert!(
        runs[0].len() < 400 && runs[0].len() % 2 == 0,
        "{}",
        runs[0].len()
    );
    assert_eq!(runs[0], runs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_match_resumes_and_ends_as_an_uninterrupted_one() {
    let dir = scratch("resume");
    let slow = testbot("slow", "--mode slow --sleep-ms 40");
    let first = first_bot("first");
    let whole = dir.join("whole");
    let o = play_match(
        &whole,
        [&slow, &first],
        &["--games", "6", "--concurrency", "1"],
    );
    assert!(o.status.success(), "{}", text(&o));

    let part = dir.join("part");
    let child = Command::new(ARENA)
        .args([
            "match",
            "--game",
            "dakon",
            "--param",
            "holes=4",
            "--movetime",
            "5000",
        ])
        .args([
            "--bot",
            &slow,
            "--bot",
            &first,
            "--games",
            "6",
            "--concurrency",
            "1",
        ])
        .arg("--out")
        .arg(&part)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once two games are on disk (generous: a loaded machine).
    let start = Instant::now();
    let saved = || {
        std::fs::read_to_string(part.join("games.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while saved() < 2 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Four games of some 20 moves at 40 ms each were still to come.
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    assert!(saved() < 6);
    let again = play_match(&part, [&slow, &first], &["--games", "6", "--resume"]);
    assert!(again.status.success(), "{}", text(&again));
    let played = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(played.contains("played now"), "{played}");
    assert_eq!(records(&part), records(&whole));
    assert!(!part.join("journal.jsonl").exists());

    // --resume with another match is refused, naming both.
    let other = play_match(&part, [&slow, &first], &["--games", "8", "--resume"]);
    assert_eq!(other.status.code(), Some(1), "{}", text(&other));
    assert!(text(&other).contains("cannot resume"), "{}", text(&other));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A config for `arena tournament` with these bot names.
fn config_text(names: [&str; 2], games: &str) -> String {
    format!(
        r#"game = "dakon"
seed = 1
games = {games}
[time_control]
movetime_ms = 100
[[bots]]
name = "{}"
command = ["{ARENA}", "bot-first"]
[[bots]]
name = "{}"
command = ["{ARENA}", "bot-first"]
"#,
        names[0], names[1]
    )
}

fn tournament(config: &Path, out: &Path) -> Output {
    arena(&[
        "tournament",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ])
}

#[test]
fn configs_are_bounded_and_names_must_be_plain() {
    let dir = scratch("bounds");
    let out = dir.join("out");
    let expect = |config: &Path, words: &[&str]| {
        let o = tournament(config, &out);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        for w in words {
            assert!(stderr.contains(w), "no `{w}` in: {stderr}");
        }
        assert!(
            !stderr.contains('\u{1b}') && !stderr.contains('\u{202e}'),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing written for {}", config.display());
    };

    // Bigger than 1 MiB: refused before parsing.
    let big = dir.join("big.toml");
    let mut body = config_text(["a", "b"], "2");
    body.push_str(&format!("# {}\n", "x".repeat(1 << 20)));
    std::fs::write(&big, body).unwrap();
    expect(
        &big,
        &["big.toml: (file):", "is too big (at most 1048576 bytes)"],
    );

    // A device and a FIFO are refused without being read (reading either
    // would never end).
    expect(
        Path::new("/dev/zero"),
        &["/dev/zero: (file):", "(it is a device)"],
    );
    let fifo = dir.join("fifo.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    expect(&fifo, &["fifo.toml: (file):", "(it is a FIFO)"]);

    // More games than one run may hold: refused before the schedule is built.
    let huge = dir.join("huge.toml");
    std::fs::write(&huge, config_text(["a", "b"], "4294967295")).unwrap();
    expect(
        &huge,
        &["huge.toml: games:", "4294967295 games", "at most 10000000"],
    );

    // Names that would drive a terminal: an escape, a bidi override.
    for (tag, name, shown) in [
        ("esc", "e\\u001b[2Jvil", "\\x1b"),
        ("rlo", "abc\\u202Efed", "\\u{202e}"),
    ] {
        let c = dir.join(format!("{tag}.toml"));
        std::fs::write(&c, config_text(["ok", name], "2")).unwrap();
        expect(&c, &["bots[1].name:", shown]);
    }
    for name in ["e\u{1b}[2Jvil", "abc\u{202e}fed"] {
        let bot = format!("{name}={ARENA} bot-first");
        let o = play_match(&out, [&first_bot("a"), &bot], &[]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let t = text(&o);
        assert!(t.contains("--bot: bot name"), "{t}");
        assert!(!t.contains('\u{1b}') && !t.contains('\u{202e}'), "{t}");
    }
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bot whose `ready` text and `info` lines hold terminal escapes (and a
/// BEL): it plays the first legal move.
const ESCAPING_BOT: &str = r#"while read -r line; do
  case "$line" in
    arena*) printf 'ready esc\033]0;pwned\007\n';;
    legal*) set -- $line; m=$2;;
    go*) printf 'info \033[2Jcleared\nmove %s\n' "$m";;
    quit*) exit 0;;
  esac
done"#;

#[test]
fn text_from_bots_reaches_the_terminal_escaped() {
    let dir = scratch("escape");
    // An illegal move with an escape in it: the forfeit's detail quotes it.
    let out = dir.join("m");
    let bad = testbot("bad", "--mode illegal --illegal-move \u{1b}[2Jx");
    let o = play_match(&out, [&bad, &first_bot("f")], &["--games", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(stdout.contains("\\x1b[2Jx"), "{stdout}");
    assert!(!stdout.contains('\u{1b}'), "raw escape in: {stdout:?}");
    let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert!(
        records.contains("\\u001b[2Jx"),
        "the record keeps the text as sent"
    );

    let shown = arena(&["show", out.join("games.jsonl").to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    assert!(
        shown.contains("\\x1b[2Jx") && !shown.contains('\u{1b}'),
        "{shown:?}"
    );

    // check-bot quotes the bot's ready text, whose control characters were
    // replaced when it was read (as in info lines: nothing to escape).
    let script = dir.join("esc.sh");
    std::fs::write(&script, ESCAPING_BOT).unwrap();
    let script = script.to_str().unwrap();
    let o = arena(&[
        "check-bot",
        "--game",
        "dakon",
        "--games",
        "1",
        "--movetime",
        "2000",
        "--",
        "/bin/sh",
        script,
    ]);
    let t = text(&o);
    assert!(t.contains("ready esc\u{fffd}]0;pwned\u{fffd}"), "{t}");
    assert!(!t.contains('\u{1b}') && !t.contains('\u{7}'), "{t:?}");

    // `arena play` shows the bot's info lines.
    let bot = format!("esc=/bin/sh {script}");
    let o = arena(&[
        "play", "--game", "dakon", "--human", "--seat", "1", "--bot", &bot,
    ]);
    let t = text(&o);
    assert!(t.contains("info: \u{fffd}[2Jcleared"), "{t}");
    assert!(!t.contains('\u{1b}'), "{t:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
