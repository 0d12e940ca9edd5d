//! What a newcomer meets first, with real bot processes: a bot that
//! answers `ready` when checked but never again stops the run like a bot
//! that dies.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn run(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A bot that answers `ready` at its first start (arena's check before
/// the first game) and at every later start hangs without a word, until
/// `fixed` exists: then it plays the first legal move. It counts its starts
/// in a file a byte per start (arena may kill a start at once: a count
/// rewritten in place could be left empty).
fn flaky_bot(dir: &Path) -> String {
    let script = dir.join("flaky.py");
    let count = dir.join("starts");
    let fixed = dir.join("fixed");
    std::fs::write(
        &script,
        format!(
            r#"import os, sys, time
n = os.path.getsize({count:?}) if os.path.exists({count:?}) else 0
with open({count:?}, "a") as f:
    f.write("x")
if n >= 1 and not os.path.exists({fixed:?}):
    time.sleep(60)
first = ""
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "arena": print("ready flaky", flush=True)
    elif w and w[0] == "legal": first = w[1]
    elif w and w[0] == "go": print("move " + first, flush=True)
    elif w and w[0] == "quit": break
"#
        ),
    )
    .unwrap();
    // The real interpreter: a pyenv shim on PATH takes ~0.7 s to start.
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    format!("flaky={python} {}", script.display())
}

/// The start-up check passes, then the bot never says `ready` again: after
/// its third `timeout` before a move of its own the match stops (exit 1,
/// resumable, saying why) instead of forfeiting all 8 games; once fixed,
/// `--resume` plays the rest.
#[test]
fn a_bot_that_never_says_ready_in_three_games_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let bot = flaky_bot(dir.path());
    let out = dir.path().join("run");
    let first = format!("f={ARENA} bot-first");
    let args = [
        "match",
        "--game",
        "dakon",
        "--games",
        "8",
        "--concurrency",
        "1",
        "--startup-ms",
        "1000",
        // It counts its starts in a file of the test's.
        "--sandbox",
        "none",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        &bot,
        "--bot",
        &first,
    ];
    let o = run(&args);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}{stderr}", text(&o.stdout));
    for words in [
        "bot `flaky` died before its first move in 3 games in a row",
        "no `ready` within 1000 ms",
        "3 of 8 games are saved",
        "--resume",
    ] {
        assert!(stderr.contains(words), "{words}: {stderr}");
    }
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert!(
        csv.lines().skip(1).all(|l| l.contains(",timeout,")),
        "{csv}"
    );

    std::fs::write(dir.path().join("fixed"), "").unwrap();
    let mut resume = args.to_vec();
    resume.push("--resume");
    let o = run(&resume);
    let log = std::fs::read_dir(out.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(o.status.success(), "{}{log}", text(&o.stderr));
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 8, "{csv}");
}
