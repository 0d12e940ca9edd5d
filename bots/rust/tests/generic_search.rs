//! The searches, generic over `Game`, on toy games: correctness with bonus
//! moves (same player moving again), strength, determinism, the protocol loop.

mod common;

use arena_bots::algo::{Algorithm, Ctx};
use arena_bots::alphabeta::AlphaBeta;
use arena_bots::duel::{play_game, play_match};
use arena_bots::greedy::Greedy;
use arena_bots::limits::Clock;
use arena_bots::mcts::Mcts;
use arena_bots::protocol::{entry, run, Agent};
use arena_bots::random::RandomBot;
use arena_core::games::Game;
use common::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn choose<G: arena_bots::eval::Evaluate, A: Algorithm>(
    alg: &mut A,
    game: &G,
    s: &G::State,
    seed: u64,
) -> G::Move {
    let mut legal = Vec::new();
    game.legal_moves(s, &mut legal);
    let mut ctx = Ctx::new(ChaCha8Rng::seed_from_u64(seed), Clock::unlimited());
    alg.choose(game, s, &legal, &mut ctx)
}

/// Every reachable Nim position where the mover can win: a full-depth
/// alpha-beta finds a winning move, whatever chain of bonus moves it takes.
#[test]
fn alphabeta_solves_bonus_nim() {
    let game = BonusNim::small();
    let mut stack = vec![game.initial_state()];
    let mut seen = Vec::new();
    let mut checked = 0;
    let mut moves = Vec::new();
    while let Some(s) = stack.pop() {
        if seen.contains(&s) || game.outcome(&s).is_some() {
            continue;
        }
        seen.push(s.clone());
        let mut ab = AlphaBeta::new(Some(12));
        let mv = choose(&mut ab, &game, &s, checked);
        if nim_wins(&game, &s) {
            assert!(nim_move_wins(&game, &s, &mv), "{s}: {mv} does not win");
        }
        checked += 1;
        game.legal_moves(&s, &mut moves);
        for m in &moves {
            let mut c = s.clone();
            game.apply(&mut c, m);
            stack.push(c);
        }
    }
    assert!(checked > 30, "only {checked} positions");
}

/// MCTS with enough playouts finds the winning move in small Nim positions.
#[test]
fn mcts_finds_nim_wins() {
    let game = BonusNim::new(3, 5);
    let mut mcts = Mcts::new(Some(3000));
    mcts.playout_depth = Some(0);
    let mut rights = 0;
    let mut total = 0;
    for text in [
        "piles=2,3,4 turn=0 ply=0",
        "piles=0,3,4 turn=1 ply=1",
        "piles=1,0,2 turn=0 ply=2",
        "piles=0,2,5 turn=1 ply=3",
        "piles=3,0,3 turn=0 ply=4",
    ] {
        let s = game.parse_state(text).unwrap();
        if !nim_wins(&game, &s) {
            continue;
        }
        total += 1;
        let mv = choose(&mut mcts, &game, &s, 5);
        if nim_move_wins(&game, &s, &mv) {
            rights += 1;
        }
    }
    assert!(total >= 3);
    assert_eq!(rights, total, "MCTS missed a winning Nim move");
}

#[test]
fn tictactoe_strength() {
    let game = TicTacToe;
    let ab = play_match(&game, &mut AlphaBeta::new(Some(9)), &mut RandomBot, 40, 1);
    println!("tictactoe alphabeta(9) vs random: {ab}");
    assert_eq!(ab.losses, 0);
    assert!(ab.fraction() >= 0.8);
    let mc = play_match(&game, &mut Mcts::new(Some(400)), &mut RandomBot, 40, 2);
    println!("tictactoe mcts(400) vs random: {mc}");
    assert!(mc.fraction() >= 0.8);
    let gr = play_match(&game, &mut Greedy, &mut RandomBot, 40, 3);
    println!("tictactoe greedy vs random: {gr}");
    assert!(gr.fraction() >= 0.6);
    // Perfect play against perfect play draws.
    let d = play_match(
        &game,
        &mut AlphaBeta::new(Some(9)),
        &mut AlphaBeta::new(Some(9)),
        4,
        4,
    );
    assert_eq!(d.draws, 4);
}

#[test]
fn same_seed_same_game() {
    let game = BonusNim::big();
    for seed in [1, 2, 3] {
        let a = play_game(
            &game,
            &mut Mcts::new(Some(200)),
            &mut RandomBot,
            0,
            (seed, 9),
            77,
        );
        let b = play_game(
            &game,
            &mut Mcts::new(Some(200)),
            &mut RandomBot,
            0,
            (seed, 9),
            77,
        );
        assert_eq!(a.moves, b.moves);
        let a = play_game(
            &game,
            &mut AlphaBeta::new(Some(4)),
            &mut Greedy,
            1,
            (seed, 9),
            78,
        );
        let b = play_game(
            &game,
            &mut AlphaBeta::new(Some(4)),
            &mut Greedy,
            1,
            (seed, 9),
            78,
        );
        assert_eq!(a.moves, b.moves);
    }
    // Different seeds vary the random side's play.
    let a = play_game(&game, &mut RandomBot, &mut RandomBot, 0, (1, 2), 5);
    let b = play_game(&game, &mut RandomBot, &mut RandomBot, 0, (3, 4), 5);
    assert_ne!(a.moves, b.moves);
}

/// The time-managed searches respect a short budget.
#[test]
fn time_managed_moves_are_quick() {
    use arena_bots::limits::Go;
    use std::time::{Duration, Instant};
    let game = BonusNim::big();
    let s = game.initial_state();
    let mut legal = Vec::new();
    game.legal_moves(&s, &mut legal);
    let go = Go::parse_fields("time=- opptime=- inc=0 movetime=100");
    for which in 0..2 {
        let start = Instant::now();
        let mut ctx = Ctx::new(ChaCha8Rng::seed_from_u64(1), Clock::from_go(&go, start));
        if which == 0 {
            AlphaBeta::new(None).choose(&game, &s, &legal, &mut ctx);
        } else {
            Mcts::new(None).choose(&game, &s, &legal, &mut ctx);
        }
        let took = start.elapsed();
        println!("{which}: {took:?} {:?}", ctx.info.last());
        // 40 ms aimed at; the rest is slack for a loaded machine.
        assert!(took < Duration::from_millis(100), "took {took:?}");
        assert!(!ctx.info.is_empty());
    }
}

/// A scripted session through the protocol loop, in process.
#[test]
fn protocol_session_in_process() {
    let script = "arena 1\r\n\
        newgame tictactoe seat=1 seed=42\n\
        played 0 4\n\
        position board=....X.... turn=1\n\
        legal 0 1 2 3 5 6 7 8\n\
        go time=- opptime=- inc=0 movetime=100\n\
        bogus line\n\
        gameover loss resign\n\
        newgame nim seat=0 seed=1 piles=4 stones=6 take=3 bonus=true max_plies=1000\n\
        position piles=3,4,5,6 turn=0 ply=0\n\
        legal a1 a2 a3 b1 b2 b3 c1 c2 c3 d1 d2 d3\n\
        go time=5000 opptime=5000 inc=0 movetime=-\n\
        quit\n\
        arena 1\n";
    let bot = Agent {
        alg: AlphaBeta::new(Some(3)),
        seed: 7,
        games: vec![entry::<TicTacToe, _>(), entry::<BonusNim, _>()],
    };
    let mut out = Vec::new();
    run(bot, script.as_bytes(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ready "), "{out}");
    let moves: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("move "))
        .collect();
    assert_eq!(moves.len(), 2, "{out}");
    assert!(["0", "1", "2", "3", "5", "6", "7", "8"].contains(&moves[0]));
    assert!(BonusNim::big().parse_move(moves[1]).is_ok());
    assert!(lines.iter().any(|l| l.starts_with("info depth")), "{out}");
    // Nothing after quit.
    assert_eq!(lines.iter().filter(|l| l.starts_with("ready")).count(), 1);
}
