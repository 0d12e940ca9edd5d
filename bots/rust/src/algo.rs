//! What every bot implements: pick one move in a position.

use rand_chacha::ChaCha8Rng;

use crate::eval::Evaluate;
use crate::limits::Clock;
pub use arena_core::protocol::Budget;

/// Everything a decision may use besides the position.
pub struct Ctx {
    /// The bot's random source for this game, seeded from the bot's
    /// `--seed`, the game's seed and the seat.
    pub rng: ChaCha8Rng,
    /// When the search must stop.
    pub clock: Clock,
    /// What the referee asked this decision to search (`nodes=`,
    /// `playouts=`, `depth=` in `go`): it overrides the bot's own fixed
    /// limit, so that two bots compared at equal compute search the same
    /// whatever their command lines say.
    pub budget: Budget,
    /// `info` lines to send before the move (without the `info ` prefix).
    pub info: Vec<String>,
}

impl Ctx {
    /// A context with the game's RNG and the decision's clock, no budget from
    /// the referee and no `info` yet.
    pub fn new(rng: ChaCha8Rng, clock: Clock) -> Ctx {
        Ctx {
            rng,
            clock,
            budget: Budget::default(),
            info: Vec::new(),
        }
    }
}

/// A move-choosing algorithm, generic over the game.
pub trait Algorithm {
    /// A one-line description for the `ready` answer (name and settings).
    fn describe(&self) -> String;

    /// Whether the algorithm runs to a fixed limit (`--depth`, `--playouts`)
    /// rather than managing the clock.
    fn fixed_limit(&self) -> bool {
        true
    }

    /// Picks one of `legal` (never empty) in `state`, whose side to move is
    /// `game.to_move(state)`.
    fn choose<G: Evaluate>(
        &mut self,
        game: &G,
        state: &G::State,
        legal: &[G::Move],
        ctx: &mut Ctx,
    ) -> G::Move;
}

/// Mixes seeds (SplitMix64 finaliser): the bot's seed, the game's seed and
/// the seat give one well-spread RNG seed.
pub fn mix_seed(parts: &[u64]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for &p in parts {
        h ^= p;
        h = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = z ^ (z >> 31);
    }
    h
}
