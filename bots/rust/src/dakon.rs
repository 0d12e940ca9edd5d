//! Dakon's evaluation: seeds in the stores, plus smaller terms for seeds
//! still in each row and for pits that would earn a bonus move.

use arena_core::games::dakon::{Dakon, DakonState};
use arena_core::games::Seat;

use crate::eval::Evaluate;

/// Weights, per seed or per pit.
const STORE: i32 = 100;
/// Seeds in a row usually end in that row's owner's store (the sweep at the
/// end, the move-limit adjudication) but can still be captured.
const ROW: i32 = 25;
/// A pit holding exactly the seeds to reach its owner's store.
const BONUS_PIT: i32 = 20;

/// One player's side of the ledger.
fn side_value(s: &DakonState, seat: Seat) -> i32 {
    let n = s.holes();
    let mut bonus = 0;
    for k in 0..n {
        // Player 0 owns pits n..2n-1 and sows upwards; pit n+k is n-k steps
        // from store 0. Player 1 owns 0..n-1 and sows downwards; pit k is k+1
        // steps from store 1.
        let (pit, dist) = if seat == 0 {
            (n + k, n - k)
        } else {
            (k, k + 1)
        };
        if s.pit(pit) as usize == dist {
            bonus += 1;
        }
    }
    STORE * s.store(seat) as i32 + ROW * s.side(seat) as i32 + BONUS_PIT * bonus
}

impl Evaluate for Dakon {
    fn evaluate(&self, s: &DakonState, seat: Seat) -> i32 {
        side_value(s, seat) - side_value(s, 1 - seat)
    }

    /// A lead of 4 seeds in the stores reads as a 73% win chance.
    fn eval_scale(&self) -> f64 {
        400.0
    }
}
