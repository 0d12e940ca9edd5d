//! Strength on the real games, in process through the `Game` trait: each
//! matchup is 100 games, seats alternating, every game seeded differently.
//! Limits are tiny (test profile); the margins are still wide. Run with
//! `cargo test -p arena-bots --test strength -- --nocapture` to see scores.

use arena_bots::algo::Algorithm;
use arena_bots::alphabeta::AlphaBeta;
use arena_bots::duel::play_match;
use arena_bots::eval::Evaluate;
use arena_bots::greedy::Greedy;
use arena_bots::mcts::Mcts;
use arena_bots::random::RandomBot;
use arena_core::games::dakon::Dakon;
use arena_core::games::latrunculi::Latrunculi;
use arena_core::games::Game;

const GAMES: u32 = 100;

fn check<G: Evaluate, A: Algorithm, B: Algorithm>(
    game: &G,
    label: &str,
    a: &mut A,
    b: &mut B,
    games: u32,
    seed: u64,
    threshold: f64,
) {
    let score = play_match(game, a, b, games, seed);
    println!("{} {label}: {score}", G::NAME);
    assert!(
        score.fraction() >= threshold,
        "{} {label}: {score}, wanted at least {:.0}%",
        G::NAME,
        100.0 * threshold
    );
}

fn dakon() -> Dakon {
    Dakon::from_params(&[]).unwrap()
}

fn latrunculi() -> Latrunculi {
    Latrunculi::from_params(&[]).unwrap()
}

#[test]
fn dakon_alphabeta_beats_random() {
    let mut ab = AlphaBeta::new(Some(2));
    check(
        &dakon(),
        "alphabeta(depth 2) vs random",
        &mut ab,
        &mut RandomBot,
        GAMES,
        1,
        0.9,
    );
}

#[test]
fn dakon_mcts_beats_random() {
    let mut m = Mcts::new(Some(100));
    check(
        &dakon(),
        "mcts(100 playouts) vs random",
        &mut m,
        &mut RandomBot,
        GAMES,
        2,
        0.9,
    );
}

#[test]
fn dakon_greedy_beats_random() {
    check(
        &dakon(),
        "greedy vs random",
        &mut Greedy,
        &mut RandomBot,
        GAMES,
        3,
        0.7,
    );
}

#[test]
fn latrunculi_alphabeta_beats_random() {
    let mut ab = AlphaBeta::new(Some(2));
    check(
        &latrunculi(),
        "alphabeta(depth 2) vs random",
        &mut ab,
        &mut RandomBot,
        GAMES,
        4,
        0.9,
    );
}

#[test]
fn latrunculi_mcts_beats_random() {
    let mut m = Mcts::new(Some(64));
    check(
        &latrunculi(),
        "mcts(64 playouts) vs random",
        &mut m,
        &mut RandomBot,
        GAMES,
        5,
        0.9,
    );
}

#[test]
fn latrunculi_greedy_beats_random() {
    check(
        &latrunculi(),
        "greedy vs random",
        &mut Greedy,
        &mut RandomBot,
        GAMES,
        6,
        0.7,
    );
}

/// Searching deeper pays: alpha-beta against the one-ply greedy (fewer
/// games: these searches cost more).
#[test]
fn alphabeta_beats_greedy() {
    let mut ab = AlphaBeta::new(Some(4));
    check(
        &dakon(),
        "alphabeta(depth 4) vs greedy",
        &mut ab,
        &mut Greedy,
        40,
        7,
        0.6,
    );
    let mut ab = AlphaBeta::new(Some(2));
    check(
        &latrunculi(),
        "alphabeta(depth 2) vs greedy",
        &mut ab,
        &mut Greedy,
        20,
        8,
        0.6,
    );
}
