//! A third game goes through every command with nothing but its module and
//! one registry line: arena-core's Nim (its test-only game) in a match
//! between two bots, `check-bot`, `show`, `play` and the HTML report, whose
//! replay viewer has no drawer for it and says so.

mod common;

use std::path::Path;
use std::process::Command;

use common::arena;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The repository root, where `bots/` is.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn nim_plays_through_match_show_and_the_report() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("third_game_match");
    let _ = std::fs::remove_dir_all(&dir);
    let first = format!("first={} bot-first", env!("CARGO_BIN_EXE_arena"));
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(root())
        .args(["match", "--game", "nim", "--param", "piles=2", "--param"])
        .args(["bonus=true", "--bot", &first, "--bot"])
        .arg("random=python3 bots/test/testbot.py --mode random --seed 3")
        .args(["--games", "4", "--movetime", "2000", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(
        stdout.contains("4 games of nim (piles=2 stones=7 take=2 bonus=true max_plies=1000)"),
        "{stdout}"
    );
    let records = arena::store::read_games_file(&dir.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 4);
    for r in &records {
        assert_eq!(r.game, "nim");
        assert_eq!(r.reason, arena_core::record::Reason::Normal, "{r:?}");
        assert_eq!(r.final_state.split(' ').next(), Some("piles=0,0"));
    }

    // The terminal draws its piles with Nim's own drawer.
    let games = dir.join("games.jsonl");
    let out = arena(
        &[
            "show",
            games.to_str().unwrap(),
            "--index",
            "1",
            "--ply",
            "1",
        ],
        "",
    );
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        shown.contains("  a: ") && shown.contains("  b: "),
        "{shown}"
    );
    assert!(!shown.contains("cannot draw"), "{shown}");

    // The report lists the games; its replay viewer has no drawer for Nim
    // and says so instead of drawing another game's board.
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains(r#""game":"nim""#), "no nim game in the page");
    assert!(!html.contains(r#""drawer":"nim""#));
    assert!(html.contains("no drawer for this game"));
}

#[test]
fn check_bot_runs_nims_own_positions() {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "check-bot",
            "--game",
            "nim",
            "--games",
            "2",
            "--movetime",
            "2000",
        ])
        .args(["--", env!("CARGO_BIN_EXE_arena"), "bot-first"])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for line in [
        "PASS game 1 of 2",
        "PASS position right after a bonus move (seat 0 moves again at ply 1)",
        "PASS position given as a state (seat 1 to move)",
        "result: PASS",
    ] {
        assert!(stdout.contains(line), "no `{line}` in:\n{stdout}");
    }
}

#[test]
fn people_play_nim_at_the_terminal() {
    let out = arena(
        &["play", "--game", "nim", "--param", "stones=3", "--human"],
        "a3\na2\na1\n",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(
        stdout.contains("`a3` is a move but not a legal one here"),
        "{stdout}"
    );
    assert!(
        stdout.contains("game over: seat 1 (human) wins"),
        "{stdout}"
    );
}
