//! Random playouts over any [`Game`]: the engines' throughput benchmark and a
//! driver for property tests. Pure apart from the caller's clock.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::games::{Game, Outcome};

/// Plays one game from `state` with uniformly random legal moves, reusing
/// `buf` for move lists. Returns the number of moves made and the outcome.
pub fn random_playout<G: Game>(
    game: &G,
    state: &mut G::State,
    rng: &mut impl Rng,
    buf: &mut Vec<G::Move>,
) -> (u64, Outcome) {
    let mut moves = 0;
    loop {
        game.legal_moves(state, buf);
        if buf.is_empty() {
            let outcome = game
                .outcome(state)
                .expect("a state with no legal move is terminal");
            return (moves, outcome);
        }
        let mv = &buf[rng.random_range(0..buf.len())];
        game.apply(state, mv);
        moves += 1;
    }
}

/// Totals from [`playouts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutTotals {
    /// Games played.
    pub games: u64,
    /// Moves made in them.
    pub moves: u64,
    /// Games won by seat 0 and by seat 1.
    pub wins: [u64; 2],
    /// Games drawn.
    pub draws: u64,
}

/// Plays `games` random games from the initial state, seeded.
pub fn playouts<G: Game>(game: &G, games: u64, seed: u64) -> PlayoutTotals {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut buf = Vec::new();
    let mut totals = PlayoutTotals::default();
    for _ in 0..games {
        let mut state = game.initial_state();
        let (moves, outcome) = random_playout(game, &mut state, &mut rng, &mut buf);
        totals.games += 1;
        totals.moves += moves;
        match outcome.winner {
            Some(seat) => totals.wins[seat] += 1,
            None => totals.draws += 1,
        }
    }
    totals
}

/// Random-playout throughput measured over about `seconds` of wall time on
/// one thread (the benchmark behind `arena bench` and `cargo bench`).
#[derive(Clone, Copy, Debug)]
pub struct Throughput {
    /// What was played.
    pub totals: PlayoutTotals,
    /// Wall time it took.
    pub seconds: f64,
}

impl Throughput {
    /// Moves per wall second.
    pub fn moves_per_sec(&self) -> f64 {
        self.totals.moves as f64 / self.seconds
    }
    /// Games per wall second.
    pub fn games_per_sec(&self) -> f64 {
        self.totals.games as f64 / self.seconds
    }
}

impl std::fmt::Display for Throughput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2} M moves/s, {:.0} games/s ({} games, {:.1} moves/game, {:.2} s)",
            self.moves_per_sec() / 1e6,
            self.games_per_sec(),
            self.totals.games,
            self.totals.moves as f64 / self.totals.games.max(1) as f64,
            self.seconds
        )
    }
}

/// Plays seeded random games of `game` in growing batches for about
/// `seconds` of wall time.
pub fn throughput<G: Game>(game: &G, seconds: f64, seed: u64) -> Throughput {
    let start = std::time::Instant::now();
    let mut totals = PlayoutTotals::default();
    let mut batch = 64;
    let mut round = 0;
    while start.elapsed().as_secs_f64() < seconds {
        let t = playouts(game, batch, seed.wrapping_add(round));
        totals.games += t.games;
        totals.moves += t.moves;
        totals.draws += t.draws;
        totals.wins[0] += t.wins[0];
        totals.wins[1] += t.wins[1];
        round += 1;
        batch = (batch * 2).min(1 << 14);
    }
    Throughput {
        totals,
        seconds: start.elapsed().as_secs_f64(),
    }
}
