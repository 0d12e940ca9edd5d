//! Time management as behaviour, not stopwatch readings (a timed assertion
//! fails on a loaded machine, so there are none here): the budget a `go`
//! line gives, and that a time-managed search answers with a legal move once
//! its deadline has passed, however deep it could still go. The real-time
//! evidence (two matches at once at 100 ms per move, no game lost on time,
//! the slowest answers) is `bots/check-all.sh`.

mod common;

use std::time::{Duration, Instant};

use arena_bots::algo::{Algorithm, Ctx};
use arena_bots::alphabeta::AlphaBeta;
use arena_bots::eval::Evaluate;
use arena_bots::limits::{Budget, Clock, Go};
use arena_bots::mcts::Mcts;
use arena_core::games::dakon::Dakon;
use arena_core::games::latrunculi::Latrunculi;
use arena_core::games::Game;
use common::referee::{play_over_wire, BotProcess};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn go(text: &str) -> Go {
    Go::parse_fields(text)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn the_budget_follows_the_go_fields() {
    // movetime only: aim at 40%, stop even a fixed search at 75%.
    let g = go("time=- opptime=- inc=0 movetime=100");
    assert_eq!((g.soft_budget(), g.hard_budget()), (ms(40), Some(ms(75))));
    // A game clock: a thirtieth of it plus half the increment...
    let g = go("time=30000 opptime=30000 inc=600 movetime=-");
    assert_eq!(g.soft_budget(), ms(1000 + 300));
    assert_eq!(g.hard_budget(), Some(ms(7500 + 450)));
    // ... never more than a quarter of what is left.
    let g = go("time=200 opptime=9000 inc=5000 movetime=-");
    assert_eq!(g.soft_budget(), ms(50));
    // Both limits: the smaller wins.
    let g = go("time=3000 opptime=3000 inc=0 movetime=1000");
    assert_eq!(g.soft_budget(), ms(100));
    let g = go("time=60000 opptime=60000 inc=0 movetime=100");
    assert_eq!(g.soft_budget(), ms(40));
    // Nothing limited: a default budget, no emergency stop.
    let g = go("time=- opptime=- inc=0 movetime=-");
    assert_eq!(g.soft_budget(), ms(arena_bots::limits::DEFAULT_BUDGET_MS));
    assert_eq!(g.hard_budget(), None);
    // Never a zero budget, and unknown fields are ignored.
    let g = go("time=- opptime=- inc=0 movetime=1 future=7");
    assert_eq!((g.soft_budget(), g.hard_budget()), (ms(1), Some(ms(1))));
}

/// A clock whose soft and hard deadlines have both passed.
fn expired() -> Clock {
    let now = Instant::now();
    let start = now.checked_sub(ms(500)).unwrap_or(now);
    Clock {
        start,
        soft: Some(start),
        hard: Some(start),
    }
}

fn answers_in_time<G: Evaluate>(game: &G, state: &G::State, alg: &mut impl Algorithm) {
    let mut legal = Vec::new();
    game.legal_moves(state, &mut legal);
    assert!(!legal.is_empty());
    let mut ctx = Ctx::new(ChaCha8Rng::seed_from_u64(3), expired());
    let mv = alg.choose(game, state, &legal, &mut ctx);
    assert!(
        legal.contains(&mv),
        "{}: `{mv}` is not legal in `{state}`",
        G::NAME
    );
}

fn positions() -> (
    Dakon,
    <Dakon as Game>::State,
    Latrunculi,
    Vec<<Latrunculi as Game>::State>,
) {
    let dakon = Dakon::from_params(&[]).unwrap();
    let d = dakon.initial_state();
    let lat = Latrunculi::from_params(&[]).unwrap();
    let l = vec![
        lat.initial_state(),
        lat.parse_state(
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
        )
        .unwrap(),
    ];
    (dakon, d, lat, l)
}

#[test]
fn time_managed_searches_answer_once_the_deadline_has_passed() {
    let (dakon, d, lat, l) = positions();
    answers_in_time(&dakon, &d, &mut AlphaBeta::new(None));
    answers_in_time(&dakon, &d, &mut Mcts::new(None));
    for s in &l {
        answers_in_time(&lat, s, &mut AlphaBeta::new(None));
        answers_in_time(&lat, s, &mut Mcts::new(None));
    }
}

#[test]
fn fixed_searches_stop_at_the_emergency_limit() {
    // Depths and playout counts that would take far too long to finish: the
    // hard deadline (already passed) must stop them with a legal move.
    let (dakon, d, lat, l) = positions();
    answers_in_time(&dakon, &d, &mut AlphaBeta::new(Some(60)));
    answers_in_time(&dakon, &d, &mut Mcts::new(Some(u32::MAX)));
    for s in &l {
        answers_in_time(&lat, s, &mut AlphaBeta::new(Some(60)));
        answers_in_time(&lat, s, &mut Mcts::new(Some(u32::MAX)));
    }
}

/// Over the wire, with a 1 ms movetime: every answer is a legal move (the
/// test referee checks legality; its 10 s wait only guards against a hang).
fn wire(path: &str) {
    let mut bot = BotProcess::spawn(path, &["--seed", "9"]);
    bot.send("arena 1");
    bot.recv(Duration::from_secs(10));
    let go = "go time=- opptime=- inc=0 movetime=1";
    let dakon = Dakon::from_params(&[]).unwrap();
    let lat = Latrunculi::from_params(&[]).unwrap();
    let a = play_over_wire(&mut bot, &dakon, 0, 1, go, 0, 16);
    let b = play_over_wire(&mut bot, &lat, 1, 2, go, 0, 60);
    // A nearly spent game clock: still a move, every time.
    let c = play_over_wire(
        &mut bot,
        &lat,
        0,
        3,
        "go time=5 opptime=3000 inc=0 movetime=-",
        0,
        40,
    );
    bot.quit();
    assert!(a.bot_moves > 0 && b.bot_moves > 0 && c.bot_moves > 0);
}

#[test]
fn alphabeta_answers_a_tiny_movetime_with_legal_moves() {
    wire(env!("CARGO_BIN_EXE_arena-alphabeta"));
}

#[test]
fn mcts_answers_a_tiny_movetime_with_legal_moves() {
    wire(env!("CARGO_BIN_EXE_arena-mcts"));
}
