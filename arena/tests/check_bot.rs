//! `arena check-bot` end to end: the non-Rust reference bots pass (exit 0),
//! and each kind of misbehaviour of `bots/test/testbot.py` fails (exit 1)
//! with the right words. The Rust reference bots are checked by
//! `bots/check-all.sh` (CI runs it after the tests), at the real 100 ms.
//!
//! No timed assertions: passing bots get 2 s per move here, so a loaded
//! machine cannot turn a pass into a fail; only bots that never answer are
//! expected to time out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn arena() -> &'static str {
    env!("CARGO_BIN_EXE_arena")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> &'static str {
    // The real interpreter: a pyenv shim on PATH takes ~0.7 s to start.
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `arena check-bot --game GAME OPTIONS -- COMMAND...`.
fn check_bot(game: &str, options: &[&str], command: &[&str]) -> (i32, String) {
    let mut args = vec!["check-bot", "--game", game, "--games", "1"];
    args.extend_from_slice(options);
    args.push("--");
    args.extend_from_slice(command);
    let out: Output = Command::new(arena())
        .args(&args)
        .current_dir(root())
        // Some shells export it; it would hide a Python bot that forgets to
        // flush, and the referee's environment may not have it.
        .env_remove("PYTHONUNBUFFERED")
        .output()
        .expect("run arena");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn assert_passes(game: &str, command: &[&str]) {
    let (code, text) = check_bot(game, &["--movetime", "2000"], command);
    assert_eq!(code, 0, "{command:?} on {game} should pass:\n{text}");
    assert!(text.contains("result: PASS"), "{text}");
    assert!(!text.contains("\nFAIL"), "{text}");
}

/// testbot.py in `mode` (plus extra arguments) must fail with `words`.
fn assert_fails(game: &str, options: &[&str], mode: &[&str], words: &str) {
    let script = "bots/test/testbot.py";
    let mut command = vec![python(), script, "--mode"];
    command.extend_from_slice(mode);
    let (code, text) = check_bot(game, options, &command);
    assert_eq!(code, 1, "mode {mode:?} on {game} should fail:\n{text}");
    assert!(text.contains("result: FAIL"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("FAIL") && l.contains(words)),
        "mode {mode:?}: expected a FAIL line with `{words}`:\n{text}"
    );
}

#[test]
fn python_bots_pass_both_games() {
    for game in ["dakon", "latrunculi"] {
        assert_passes(
            game,
            &[python(), "bots/python/random_bot.py", "--seed", "1"],
        );
        assert_passes(
            game,
            &[python(), "bots/python/dakon_greedy.py", "--seed", "1"],
        );
    }
}

#[test]
fn c_bot_passes_both_games() {
    if !have("make") || !have("cc") {
        eprintln!("skipped: no make or cc");
        return;
    }
    let made = Command::new("make")
        .args(["-s", "-C", "bots/c"])
        .current_dir(root())
        .status()
        .expect("make");
    assert!(made.success(), "make -C bots/c failed");
    for game in ["dakon", "latrunculi"] {
        assert_passes(game, &["bots/c/build/first_legal", "--seed", "1"]);
        // The C kit's example (bots/c/arena.h, arena.c).
        assert_passes(game, &["bots/c/build/random_bot", "--seed", "1"]);
    }
}

#[test]
fn cpp_kit_bot_passes_both_games() {
    if !have("make") || !have("g++") {
        eprintln!("skipped: no make or g++");
        return;
    }
    let made = Command::new("make")
        .args(["-s", "-C", "bots/cpp"])
        .current_dir(root())
        .status()
        .expect("make");
    assert!(made.success(), "make -C bots/cpp failed");
    for game in ["dakon", "latrunculi"] {
        assert_passes(game, &["bots/cpp/build/random_bot", "--seed", "1"]);
    }
}

#[test]
fn js_bot_passes_both_games() {
    if !have("node") {
        eprintln!("skipped: no node");
        return;
    }
    for game in ["dakon", "latrunculi"] {
        assert_passes(game, &["node", "bots/js/random_bot.js", "--seed", "1"]);
        // The JavaScript kit's example (bots/js/arena.js).
        assert_passes(game, &["node", "bots/js/example_bot.js", "--seed", "1"]);
    }
}

#[test]
fn the_built_in_bot_passes() {
    assert_passes("latrunculi", &[arena(), "bot-first"]);
}

#[test]
fn an_illegal_move_fails_with_the_position_and_the_legal_moves() {
    let slow = ["--movetime", "2000"];
    assert_fails("dakon", &slow, &["illegal"], "illegal move `z9`");
    // A move that was legal earlier: `--after 3` plays well three times.
    let (code, text) = check_bot(
        "dakon",
        &slow,
        &[
            python(),
            "bots/test/testbot.py",
            "--mode",
            "illegal",
            "--after",
            "3",
        ],
    );
    assert_eq!(code, 1, "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("FAIL") && l.contains("illegal move"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("not in the legal list"), "{line}");
    assert!(line.contains("in position `pits="), "{line}");
    assert!(line.contains("(legal: "), "{line}");
}

#[test]
fn a_crash_fails() {
    assert_fails(
        "latrunculi",
        &["--movetime", "2000"],
        &["crash"],
        "crashed: exited with code 3",
    );
}

#[test]
fn stdout_noise_fails() {
    let slow = ["--movetime", "2000"];
    assert_fails("dakon", &slow, &["garbage"], "stdout noise");
    assert_fails("dakon", &slow, &["banner"], "stdout noise before `ready`");
    assert_fails("dakon", &slow, &["double"], "unasked `move");
}

#[test]
fn no_ready_fails() {
    let quick = ["--startup-ms", "1000"];
    assert_fails(
        "dakon",
        &quick,
        &["hang-start"],
        "no `ready` within 1000 ms",
    );
    // Output that is never flushed: `ready` only comes at exit.
    assert_fails("dakon", &quick, &["unflushed"], "flush stdout");
    assert_fails("dakon", &quick, &["exit-at-once"], "crashed before `ready`");
}

#[test]
fn a_bot_that_never_moves_fails_on_time() {
    assert_fails(
        "latrunculi",
        &["--movetime", "200"],
        &["timeout"],
        "no `move` within",
    );
}

#[test]
fn a_bot_that_ignores_quit_is_warned_about() {
    let (code, text) = check_bot(
        "dakon",
        &["--movetime", "2000"],
        &[python(), "bots/test/testbot.py", "--mode", "stubborn"],
    );
    assert_eq!(code, 0, "lingering does not forfeit a game:\n{text}");
    assert!(text.contains("WARN quit: still running"), "{text}");
}

#[test]
fn a_command_that_cannot_start_is_a_usage_error() {
    let (code, text) = check_bot("dakon", &[], &["./no-such-bot-here"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("cannot start bot command: executable `./no-such-bot-here` not found"),
        "{text}"
    );
    // Not "not found" for what is there but cannot run.
    let (code, text) = check_bot("dakon", &[], &["./bots"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("is a directory, not a program"), "{text}");
    let (code, text) = check_bot("chess", &[], &[python()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("unknown game `chess`"), "{text}");
}

#[test]
fn a_bot_that_dies_shows_how_its_stderr_ended() {
    // The interpreter cannot open the script: its complaint says why.
    let (code, text) = check_bot("dakon", &[], &[python(), "no_such_bot.py"]);
    assert_eq!(code, 1, "{text}");
    let fail = text
        .lines()
        .position(|l| l.starts_with("FAIL crashed before `ready`"))
        .unwrap_or_else(|| panic!("{text}"));
    let after: Vec<&str> = text.lines().skip(fail + 1).collect();
    assert_eq!(after[0].trim(), "its stderr ended with:", "{text}");
    assert!(
        after[1].starts_with("     | ") && after[1].contains("no_such_bot.py"),
        "{text}"
    );
    assert!(after[1].contains("No such file"), "{text}");

    // Mid-game: the test bot logs each `go` to stderr, then exits.
    let (code, text) = check_bot(
        "latrunculi",
        &["--movetime", "2000"],
        &[python(), "bots/test/testbot.py", "--mode", "crash"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("its stderr ended with:"), "{text}");
    assert!(text.contains("     | testbot: go time=-"), "{text}");
    // A bot that writes nothing to stderr gets no such section.
    let (_, text) = check_bot(
        "dakon",
        &[],
        &[python(), "bots/test/testbot.py", "--mode", "exit-at-once"],
    );
    assert!(text.contains("FAIL crashed before `ready`"), "{text}");
    assert!(!text.contains("its stderr ended with"), "{text}");
}
