//! `arena show` and `arena play` as a person uses them: a drawn board,
//! listed moves, helpful messages on bad input. `arena play` gets its moves
//! piped into stdin.

mod common;

use common::arena;

use std::path::Path;

use arena_core::games::{new_game, PlayError};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn games_or_skip() -> Vec<&'static str> {
    let games = common::registered_games();
    if games.is_empty() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true but no rules engine is registered");
        }
        eprintln!("\n*** SKIPPED: no rules engine registered yet ***\n");
    }
    games
}

#[test]
fn play_draws_the_board_explains_bad_input_and_finishes_the_game() {
    for name in games_or_skip() {
        let game = new_game(name, &[]).unwrap();
        let record = common::random_game(game.as_ref(), 0, ["a", "b"], 7, 100_000);
        // A well-formed move that is not legal at the start.
        let start = game.initial_state();
        let illegal = ["0", "1", "a1-a2", "xa1", "a1-b1", "13", "a9"]
            .into_iter()
            .find(|mv| matches!(start.clone().play(mv), Err(PlayError::Illegal(..))))
            .expect("some candidate is a well-formed illegal move");
        let mut input = format!("\nthis is not a move\n{illegal}\nmoves\n");
        for m in &record.moves {
            input.push_str(&m.mv);
            input.push('\n');
        }
        let out = arena(&["play", "--game", name, "--human"], &input);
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: {}\n{stdout}",
            text(&out.stderr)
        );
        assert!(
            stdout.contains("`this is not a move` is not a move"),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("`{illegal}` is a move but not a legal one here")),
            "{stdout}"
        );
        assert!(stdout.contains("legal moves ("), "{stdout}");
        assert!(stdout.contains("seat 0 (human)> "), "{stdout}");
        assert!(
            stdout.contains(&format!("final state: {}", record.final_state)),
            "{name}: final state differs\n{stdout}"
        );
        assert!(stdout.contains("game over: "), "{stdout}");
        let board = arena::report::text::render_state(
            &record.game,
            &record.final_state,
            Some(["human", "human"]),
        );
        assert!(stdout.contains(&board), "{name}: final board not drawn");
    }
}

#[test]
fn play_reports_input_that_ends_before_the_game() {
    for name in games_or_skip() {
        let out = arena(&["play", "--game", name, "--human"], "");
        assert!(!out.status.success());
        assert!(text(&out.stdout).contains("input ended; game abandoned"));
        assert!(text(&out.stderr).contains("abandoned"));
    }
}

#[test]
fn play_refuses_what_it_cannot_do_with_a_reason() {
    let out = arena(&["play", "--game", "no-such-game", "--human"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown game `no-such-game`"));
    let out = arena(&["play", "--game", "dakon"], "");
    assert!(text(&out.stderr).contains("give --human"));
}

#[test]
fn show_draws_any_recorded_position() {
    let records = common::tournament_or_fixture(60);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("terminal_show");
    let _ = std::fs::remove_dir_all(&dir);
    common::write_jsonl(&dir, &records);
    let file = dir.join("games.jsonl");
    let file = file.to_str().unwrap();
    for r in &records {
        let k = r.index.to_string();
        let out = arena(&["show", file, "--index", &k, "--ply", "2"], "");
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(stdout.contains(&format!("after ply 2 of {}", r.moves.len())));
        assert!(stdout.contains(&arena::report::text::render_state(
            &r.game,
            &r.moves[1].state,
            Some([&r.seats[0].name, &r.seats[1].name])
        )));
        assert!(!stdout.contains("cannot draw"), "{stdout}");
        let out = arena(&["show", file, "--index", &k], "");
        let stdout = text(&out.stdout);
        assert!(stdout.contains(&format!("result {} ({})", r.result, r.reason)));
        assert!(stdout.contains(&format!("{:>4}. seat", r.moves.len())));
    }
    let out = arena(&["show", file, "--index", "999"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no game with index 999"));
    let out = arena(&["show", file, "--index", "0", "--ply", "100000"], "");
    assert!(text(&out.stderr).contains("--ply must be 0..="));
}

/// Plays the first legal move, or a fixed bad move when told to.
struct ScriptedBot {
    bad: Option<&'static str>,
    asked: usize,
    finished: bool,
}

impl arena::tools::play::MoveSource for ScriptedBot {
    fn choose(
        &mut self,
        _state: &str,
        legal: &[String],
        _history: &[(usize, String)],
    ) -> Result<String, arena::tools::play::SourceError> {
        self.asked += 1;
        Ok(self.bad.map_or_else(|| legal[0].clone(), String::from))
    }
    fn take_info(&mut self) -> Vec<String> {
        vec![format!("thought {} times", self.asked)]
    }
    fn finish(&mut self, _end: &arena::tools::play::PlayEnd, _history: &[(usize, String)]) {
        self.finished = true;
    }
}

#[test]
fn a_person_plays_a_move_source_and_a_bad_bot_move_forfeits() {
    use arena::tools::play::{play, PlayEnd};
    for name in games_or_skip() {
        let game = new_game(name, &[]).unwrap();
        // The person (seat 0) always plays the last legal move: work the
        // game out first with the same policy for both sides.
        let mut state = game.initial_state();
        let mut input = String::from("nonsense\n");
        while state.outcome().is_none() {
            let legal = state.legal_moves();
            let mv = if state.to_move() == 0 {
                input.push_str(legal.last().unwrap());
                input.push('\n');
                legal.last().unwrap().clone()
            } else {
                legal[0].clone()
            };
            state.play(&mv).unwrap();
            if input.len() > 1 << 20 {
                break;
            }
        }
        let mut bot = ScriptedBot {
            bad: None,
            asked: 0,
            finished: false,
        };
        let mut out = Vec::new();
        let end = play(
            game.as_ref(),
            ["person", "bot"],
            [None, Some(&mut bot)],
            &mut input.as_bytes(),
            &mut out,
        )
        .unwrap();
        let out = text(&out);
        if let Some(outcome) = state.outcome() {
            assert_eq!(end, PlayEnd::Finished(outcome), "{name}");
        }
        assert!(bot.asked > 0 && bot.finished);
        assert!(out.contains("seat 1 (bot) plays "), "{out}");
        assert!(out.contains("  info: thought 1 times"), "{out}");
        assert!(out.contains("`nonsense` is not a move"), "{out}");

        let mut bad = ScriptedBot {
            bad: Some("zz9"),
            asked: 0,
            finished: false,
        };
        let mut out = Vec::new();
        let end = play(
            game.as_ref(),
            ["bot", "person"],
            [Some(&mut bad), None],
            &mut "".as_bytes(),
            &mut out,
        )
        .unwrap();
        assert!(
            matches!(end, PlayEnd::Forfeit { seat: 0, .. }),
            "{name}: {end:?}"
        );
        assert!(text(&out).contains("seat 0 (bot) forfeits: sent `zz9`"));
    }
}
