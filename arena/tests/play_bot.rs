//! `arena play --human --bot`: a person (input piped into stdin) against a
//! bot process, which hears the game through the protocol.

mod common;

use arena_core::games::new_game;
use common::arena;
use std::process::{Command, Stdio};

#[test]
fn a_person_plays_a_bot_to_the_end_in_either_seat() {
    let first = format!("first={} bot-first", env!("CARGO_BIN_EXE_arena"));
    for (game_name, human) in [("dakon", 0), ("latrunculi", 1)] {
        let game = new_game(game_name, &[]).unwrap();
        // The bot plays the first legal move; the person the last one.
        let mut state = game.initial_state();
        let mut input = String::from("not-a-move\n");
        while state.outcome().is_none() {
            let legal = state.legal_moves();
            let mv = if state.to_move() == human {
                let mv = legal.last().unwrap().clone();
                input.push_str(&mv);
                input.push('\n');
                mv
            } else {
                legal[0].clone()
            };
            state.play(&mv).unwrap();
        }
        let seat = human.to_string();
        let out = arena(
            &[
                "play", "--game", game_name, "--human", "--seat", &seat, "--bot", &first,
            ],
            &input,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{game_name}: {}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(&format!("seat {} (first) plays ", 1 - human)));
        assert!(stdout.contains("`not-a-move` is not a move"));
        assert!(
            stdout.contains(&format!("final state: {state}")),
            "{game_name}: {stdout}"
        );
    }
}

#[test]
fn a_bot_that_sends_an_illegal_move_forfeits() {
    let bot = "bad=python3 bots/test/testbot.py --mode illegal";
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(root)
        .args([
            "play", "--game", "dakon", "--human", "--seat", "1", "--bot", bot,
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("seat 0 (bad) forfeits: sent `"), "{stdout}");
}

#[test]
fn a_bot_that_cannot_start_is_a_clear_error() {
    let out = arena(
        &[
            "play",
            "--game",
            "dakon",
            "--human",
            "--bot",
            "ghost=/no/such/bot",
        ],
        "",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("arena play: bot ghost:"), "{stderr}");
}
