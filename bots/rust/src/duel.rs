//! In-process games between two algorithms through the `Game` trait, with no
//! processes and no clock: the strength and determinism tests use this.

use arena_core::games::{Outcome, Seat};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::algo::{mix_seed, Algorithm, Ctx};
use crate::eval::{result_for, Evaluate};
use crate::limits::Clock;

/// One finished game: the outcome and the moves in notation.
#[derive(Clone, Debug)]
pub struct Played {
    /// How the game ended.
    pub outcome: Outcome,
    /// Every move, in notation, in the order played.
    pub moves: Vec<String>,
}

/// Plays one game from the initial state; `a` sits in `a_seat`. Each side's
/// RNG is seeded as the protocol loop would (from its own `bot_seed`, the
/// game's `seed` and its seat), so a duel replays a wire game exactly.
pub fn play_game<G: Evaluate, A: Algorithm, B: Algorithm>(
    game: &G,
    a: &mut A,
    b: &mut B,
    a_seat: Seat,
    seeds: (u64, u64),
    seed: u64,
) -> Played {
    let seat_seed = |bot: u64, seat: Seat| mix_seed(&[bot, seed, seat as u64]);
    let mut rng_a = ChaCha8Rng::seed_from_u64(seat_seed(seeds.0, a_seat));
    let mut rng_b = ChaCha8Rng::seed_from_u64(seat_seed(seeds.1, 1 - a_seat));
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    let mut moves = Vec::new();
    loop {
        game.legal_moves(&state, &mut legal);
        if legal.is_empty() {
            let outcome = game
                .outcome(&state)
                .expect("a state with no legal move is over");
            return Played { outcome, moves };
        }
        let mover = game.to_move(&state);
        let mv = if mover == a_seat {
            let mut ctx = Ctx::new(rng_a.clone(), Clock::unlimited());
            let mv = a.choose(game, &state, &legal, &mut ctx);
            rng_a = ctx.rng;
            mv
        } else {
            let mut ctx = Ctx::new(rng_b.clone(), Clock::unlimited());
            let mv = b.choose(game, &state, &legal, &mut ctx);
            rng_b = ctx.rng;
            mv
        };
        debug_assert!(legal.contains(&mv), "bot chose an illegal move");
        moves.push(mv.to_string());
        game.apply(&mut state, &mv);
    }
}

/// `a`'s results over a match.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Games played.
    pub games: u32,
    /// Games `a` won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games `a` lost.
    pub losses: u32,
}

impl Score {
    /// Wins plus half the draws, as a fraction of the games.
    pub fn fraction(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.1}% (+{} ={} -{} of {})",
            100.0 * self.fraction(),
            self.wins,
            self.draws,
            self.losses,
            self.games
        )
    }
}

/// Plays `games` games, `a` taking seat 0 in even games and seat 1 in odd
/// ones, game `i` seeded with `mix_seed([seed, i])`.
pub fn play_match<G: Evaluate, A: Algorithm, B: Algorithm>(
    game: &G,
    a: &mut A,
    b: &mut B,
    games: u32,
    seed: u64,
) -> Score {
    let mut score = Score::default();
    for i in 0..games {
        let a_seat = (i % 2) as Seat;
        let game_seed = mix_seed(&[seed, i as u64]);
        let played = play_game(game, a, b, a_seat, (seed, seed ^ 1), game_seed);
        score.games += 1;
        match result_for(&played.outcome, a_seat) {
            r if r > 0.75 => score.wins += 1,
            r if r < 0.25 => score.losses += 1,
            _ => score.draws += 1,
        }
    }
    score
}
