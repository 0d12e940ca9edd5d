//! The four binaries over the wire: `ready`, whole games of both games in
//! one process with legal moves only, `info` lines, unknown lines ignored,
//! and a prompt exit on `quit`.

mod common;

use std::time::Duration;

use arena_core::games::dakon::Dakon;
use arena_core::games::latrunculi::Latrunculi;
use arena_core::games::Game;
use common::referee::{play_over_wire, BotProcess};

const FIXED: &str = "go time=- opptime=- inc=0 movetime=-";

fn session(path: &str, args: &[&str]) {
    let mut bot = BotProcess::spawn(path, args);
    bot.send("arena 1");
    let ready = bot.recv(Duration::from_secs(5));
    assert!(ready.starts_with("ready"), "got `{ready}`");
    bot.send("hello there, an unknown line");
    let dakon = Dakon::from_params(&[]).unwrap();
    let latrunculi = Latrunculi::from_params(&[]).unwrap();
    let g = play_over_wire(&mut bot, &dakon, 0, 17, FIXED, 0, usize::MAX);
    assert!(g.finished && g.bot_moves > 0);
    assert!(g.infos > 0, "no info lines");
    let g = play_over_wire(&mut bot, &latrunculi, 1, 18, FIXED, 0, usize::MAX);
    assert!(g.finished && g.bot_moves > 0);
    // A third game in the same process, with other parameters.
    let small =
        Dakon::from_params(&[("holes".into(), "5".into()), ("seeds".into(), "4".into())]).unwrap();
    let g = play_over_wire(&mut bot, &small, 1, 19, FIXED, 0, usize::MAX);
    assert!(g.finished);
    bot.quit();
}

#[test]
fn random_binary_plays_both_games() {
    session(env!("CARGO_BIN_EXE_arena-random"), &["--seed", "1"]);
}

#[test]
fn greedy_binary_plays_both_games() {
    session(env!("CARGO_BIN_EXE_arena-greedy"), &["--seed", "2"]);
}

#[test]
fn alphabeta_binary_plays_both_games() {
    session(
        env!("CARGO_BIN_EXE_arena-alphabeta"),
        &["--seed", "3", "--depth", "2"],
    );
}

#[test]
fn mcts_binary_plays_both_games() {
    session(
        env!("CARGO_BIN_EXE_arena-mcts"),
        &["--seed", "4", "--playouts", "50"],
    );
}

/// Same seeds, same fixed limit: the same moves over the wire.
#[test]
fn binaries_replay_with_the_same_seed() {
    let moves = |seed: &str| {
        let mut bot = BotProcess::spawn(
            env!("CARGO_BIN_EXE_arena-mcts"),
            &["--seed", seed, "--playouts", "40"],
        );
        bot.send("arena 1");
        bot.recv(Duration::from_secs(5));
        bot.send(
            "newgame dakon seat=0 seed=99 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000",
        );
        let mut out = Vec::new();
        let game = Dakon::from_params(&[]).unwrap();
        let mut state = game.initial_state();
        let mut legal = Vec::new();
        // The bot plays both sides for 30 plies (and says it noticed).
        for _ in 0..30 {
            game.legal_moves(&state, &mut legal);
            if legal.is_empty() {
                break;
            }
            let texts: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
            bot.send(&format!("position {state}"));
            bot.send(&format!("legal {}", texts.join(" ")));
            let (mv, _, _) = bot.go(FIXED, Duration::from_secs(10));
            let m = game.parse_move(&mv).unwrap();
            bot.send(&format!("played {} {mv}", game.to_move(&state)));
            game.apply(&mut state, &m);
            out.push(mv);
        }
        let stderr = bot.quit();
        assert!(
            stderr.contains("[bot] asked to move for seat 1 but playing seat 0"),
            "{stderr}"
        );
        out
    };
    assert_eq!(moves("5"), moves("5"));
}

/// `--help` and bad flags.
#[test]
fn flags_are_checked() {
    use std::process::Command;
    let st = Command::new(env!("CARGO_BIN_EXE_arena-alphabeta"))
        .args(["--playouts", "5"])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&st.stderr).contains("usage"));
    let st = Command::new(env!("CARGO_BIN_EXE_arena-mcts"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0));
}

/// Without a game it knows, a bot still answers `go` with a legal move.
#[test]
fn unknown_game_still_answers() {
    let mut bot = BotProcess::spawn(env!("CARGO_BIN_EXE_arena-greedy"), &[]);
    bot.send("arena 1");
    bot.recv(Duration::from_secs(5));
    bot.send("newgame chess seat=0 seed=1");
    bot.send("position whatever");
    bot.send("legal e2e4 d2d4");
    let (mv, _, _) = bot.go(FIXED, Duration::from_secs(5));
    assert_eq!(mv, "e2e4");
    let stderr = bot.quit();
    assert!(
        stderr.contains("unknown game `chess`; will play the first legal move"),
        "{stderr}"
    );
}
