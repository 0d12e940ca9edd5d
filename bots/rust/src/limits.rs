//! The `go` line and how much of the clock a decision may use.

use std::time::{Duration, Instant};

pub use arena_core::protocol::Go;

/// Per-move budget when the referee gives no limit at all.
pub const DEFAULT_BUDGET_MS: u64 = 1000;

/// How much of a `go`'s limits a decision may use.
pub trait Budget {
    /// The time a time-managed search aims to use: 40% of `movetime` (four
    /// bots may share two cores, and the referee's margin is small), and with
    /// a game clock `time/30 + inc/2`, never more than a quarter of `time`.
    fn soft_budget(&self) -> Duration;

    /// An emergency stop for fixed-limit searches (`--depth`, `--playouts`),
    /// which otherwise ignore the clock: 75% of `movetime`, or with a game
    /// clock `time/4 + inc*3/4` (at most 75% of `time`). `None`: no limit.
    fn hard_budget(&self) -> Option<Duration>;
}

impl Budget for Go {
    fn soft_budget(&self) -> Duration {
        let mut ms: Option<u64> = None;
        if let Some(mt) = self.movetime {
            ms = Some(mt * 2 / 5);
        }
        if let Some(t) = self.time {
            let clock = (t / 30 + self.inc / 2).min(t / 4);
            ms = Some(ms.map_or(clock, |m| m.min(clock)));
        }
        Duration::from_millis(ms.unwrap_or(DEFAULT_BUDGET_MS).max(1))
    }

    fn hard_budget(&self) -> Option<Duration> {
        let mut ms: Option<u64> = None;
        if let Some(mt) = self.movetime {
            ms = Some(mt * 3 / 4);
        }
        if let Some(t) = self.time {
            let clock = (t / 4 + self.inc * 3 / 4).min(t * 3 / 4);
            ms = Some(ms.map_or(clock, |m| m.min(clock)));
        }
        ms.map(|m| Duration::from_millis(m.max(1)))
    }
}

/// When a search must stop. `None` means never (fixed-limit play in tests).
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// When the `go` line was received: the budgets count from here.
    pub start: Instant,
    /// Where a time-managed search stops.
    pub soft: Option<Instant>,
    /// Where even a fixed-limit search stops.
    pub hard: Option<Instant>,
}

impl Clock {
    /// No time limit at all.
    pub fn unlimited() -> Clock {
        Clock {
            start: Instant::now(),
            soft: None,
            hard: None,
        }
    }

    /// Limits from a `go` line received at `start`.
    pub fn from_go(go: &Go, start: Instant) -> Clock {
        Clock {
            start,
            soft: Some(start + go.soft_budget()),
            hard: go.hard_budget().map(|d| start + d),
        }
    }

    /// The stop time for a search: `soft` when it manages time, `hard` when
    /// it runs to a fixed limit.
    pub fn stop(&self, fixed_limit: bool) -> Option<Instant> {
        if fixed_limit {
            self.hard
        } else {
            self.soft.or(self.hard)
        }
    }

    /// Milliseconds since `start`, for `info time`.
    pub fn elapsed_ms(&self) -> u128 {
        self.start.elapsed().as_millis()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_fields() {
        let go = Go::parse_fields("time=- opptime=5000 inc=20 movetime=100");
        assert_eq!(
            go,
            Go {
                time: None,
                opptime: Some(5000),
                inc: 20,
                movetime: Some(100),
                budget: Default::default(),
            }
        );
    }

    #[test]
    fn budgets_are_conservative() {
        let go = Go::parse_fields("time=- opptime=- inc=0 movetime=100");
        assert_eq!(go.soft_budget(), Duration::from_millis(40));
        assert_eq!(go.hard_budget(), Some(Duration::from_millis(75)));
        let go = Go::parse_fields("time=60000 opptime=60000 inc=1000 movetime=-");
        assert_eq!(go.soft_budget(), Duration::from_millis(2500));
        let go = Go::parse_fields("time=100 opptime=100 inc=0 movetime=-");
        assert_eq!(go.soft_budget(), Duration::from_millis(3));
        let go = Go::parse_fields("time=- opptime=- inc=0 movetime=-");
        assert_eq!(go.soft_budget(), Duration::from_millis(DEFAULT_BUDGET_MS));
        assert_eq!(go.hard_budget(), None);
    }
}
