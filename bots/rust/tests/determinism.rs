//! Same seed and fixed limit, same game: tournaments of these bots replay
//! exactly. Different seeds vary the play.

use arena_bots::alphabeta::AlphaBeta;
use arena_bots::duel::play_game;
use arena_bots::eval::Evaluate;
use arena_bots::greedy::Greedy;
use arena_bots::mcts::Mcts;
use arena_bots::random::RandomBot;
use arena_core::games::dakon::Dakon;
use arena_core::games::latrunculi::Latrunculi;
use arena_core::games::Game;

fn replays<G: Evaluate>(game: &G) {
    for (seat, seed) in [(0, 11), (1, 12)] {
        let a = play_game(
            game,
            &mut AlphaBeta::new(Some(3)),
            &mut Mcts::new(Some(60)),
            seat,
            (5, 6),
            seed,
        );
        let b = play_game(
            game,
            &mut AlphaBeta::new(Some(3)),
            &mut Mcts::new(Some(60)),
            seat,
            (5, 6),
            seed,
        );
        assert_eq!(a.moves, b.moves, "{}: alphabeta vs mcts", G::NAME);
        assert_eq!(a.outcome, b.outcome);
        let a = play_game(game, &mut Greedy, &mut RandomBot, seat, (5, 6), seed);
        let b = play_game(game, &mut Greedy, &mut RandomBot, seat, (5, 6), seed);
        assert_eq!(a.moves, b.moves, "{}: greedy vs random", G::NAME);
    }
    // The bot seed matters (random tie-breaks, playouts, random moves)...
    let a = play_game(game, &mut Mcts::new(Some(60)), &mut RandomBot, 0, (1, 2), 7);
    let b = play_game(game, &mut Mcts::new(Some(60)), &mut RandomBot, 0, (3, 4), 7);
    assert_ne!(a.moves, b.moves, "{}: seeds should vary play", G::NAME);
    // ...and so does the game seed.
    let a = play_game(game, &mut RandomBot, &mut RandomBot, 0, (1, 2), 7);
    let b = play_game(game, &mut RandomBot, &mut RandomBot, 0, (1, 2), 8);
    assert_ne!(a.moves, b.moves, "{}: game seeds should vary play", G::NAME);
}

#[test]
fn dakon_same_seed_same_game() {
    replays(&Dakon::from_params(&[]).unwrap());
}

#[test]
fn latrunculi_same_seed_same_game() {
    replays(&Latrunculi::from_params(&[]).unwrap());
}
