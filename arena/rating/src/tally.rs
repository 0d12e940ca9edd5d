//! Wins, draws and losses of one side: what the ratings, the SPRT and the
//! standings (`standings.rs`) count.

use super::stats::{self, Interval};
use arena_core::games::Seat;
use arena_core::record::GameRecord;

/// Wins, draws and losses from one side's point of view, and how many of
/// the losses were by forfeit (timeout, crash, illegal move, protocol).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Of the losses, forfeits (counted only from records, which say why).
    pub forfeits: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// A win is a point, a draw half of one.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Score in percent, `None` without games.
    pub fn score_pct(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| 100.0 * self.points() / n as f64)
    }

    /// Wilson 95% interval of the score, in percent (draws half a point).
    pub fn wilson_pct(&self) -> Option<Interval> {
        stats::wilson(self.points(), self.games() as f64, stats::Z95).map(|i| Interval {
            lo: 100.0 * i.lo,
            hi: 100.0 * i.hi,
        })
    }

    /// Counts a game worth `points` (1, 0.5 or 0).
    pub fn add_points(&mut self, points: f64) {
        if points == 1.0 {
            self.wins += 1;
        } else if points == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Counts the game of `r` for the bot in `seat`.
    pub fn add(&mut self, r: &GameRecord, seat: Seat) {
        self.add_points(r.result.points(seat));
        if r.forfeited_by(seat) {
            self.forfeits += 1;
        }
    }
}
