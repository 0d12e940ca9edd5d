//! The command line as a new user meets it: the time-control shorthands of
//! `arena match`.

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

fn testbot(name: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/test/testbot.py");
    format!("{name}=python3 {}", script.display())
}

/// Everything the bots wrote to stderr in a match's `logs/`.
fn logs(out: &Path) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(out.join("logs")).unwrap() {
        all.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    all
}

/// A short Dakon match into `out` with `extra` options.
fn dakon_match(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "match",
        "--game",
        "dakon",
        "--param",
        "holes=3",
        "--games",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    let bot = testbot("t");
    let first = format!("f={ARENA} bot-first");
    args.extend(["--bot", &bot, "--bot", &first]);
    args.extend_from_slice(extra);
    run(&args)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn match_time_shorthands_reach_the_bots_in_ms() {
    let dir = tmp();
    let out = dir.path().join("tc");
    let o = dakon_match(&out, &["--tc", "60+0.6", "--st", "0.2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The test bot logs every `go` it gets; it moves first.
    let log = logs(&out);
    assert!(
        log.contains("go time=60000 opptime=60000 inc=600 movetime=200"),
        "{log}"
    );

    let out = dir.path().join("clock");
    let o = dakon_match(&out, &["--tc", "1:30"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = logs(&out);
    assert!(
        log.contains("go time=90000 opptime=90000 inc=0 movetime=-"),
        "{log}"
    );
}

#[test]
fn match_time_shorthands_refuse_the_ms_flags_beside_them() {
    let dir = tmp();
    let out = dir.path().join("never");
    for (extra, message) in [
        (&["--tc", "60+0.6", "--time", "60000"][..], "'--time <MS>'"),
        (&["--tc", "60+0.6", "--inc", "600"][..], "'--inc <MS>'"),
        (
            &["--st", "0.2", "--movetime", "200"][..],
            "'--movetime <MS>'",
        ),
        (&["--tc", "40/60+0.6"][..], "moves per period"),
        (&["--st", "0.0001"][..], "whole milliseconds"),
        (&["--tc", "+1"][..], "not a number of seconds"),
    ] {
        let o = dakon_match(&out, extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let err = text(&o.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
    }
    assert!(!out.exists(), "nothing is played");
}
