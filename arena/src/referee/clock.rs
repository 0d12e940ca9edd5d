//! A seat's clock through one game: the limit of each decision (its move
//! time, what is left of its game clock, or the smaller of both), how long
//! the referee waits for it, what the decision is charged (wall time, or
//! on the `cpu` clock the CPU time of the bot's processes), the overrun
//! that loses on time, and the increment after each move.
//!
//! The arithmetic of [`TimeControl`]'s numbers lives here, apart from the
//! conversation with the bot (`seat.rs`) and the game's loop (`game.rs`).

use std::fmt;
use std::time::Duration;

use super::TimeControl;
use arena_core::protocol::{Budget, Go};
use arena_core::record::Clock;

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// One seat's clock: its time control and what is left of its game clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatClock {
    tc: TimeControl,
    /// What is left of the game clock; `None` without one (move time only,
    /// or no limit at all).
    left: Option<Duration>,
}

/// A decision charged more than its limit and margin: the game is lost on
/// time. Its text is the record's detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overrun {
    /// What the decision was charged.
    pub used: Duration,
    /// What the decision was allowed: the move time, what was left of the
    /// game clock, or the smaller of both.
    pub limit: Duration,
    /// The grace on top of the limit (pipes, scheduling).
    pub margin: Duration,
    /// Whether `used` is CPU time (the `cpu` clock, where it was measured).
    pub cpu: bool,
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move took {:.1} ms{}, limit {} ms (+{} ms margin)",
            self.used.as_secs_f64() * 1e3,
            if self.cpu { " of CPU" } else { "" },
            ms(self.limit),
            ms(self.margin)
        )
    }
}

impl SeatClock {
    /// A clock at the start of a game under `tc`.
    pub fn new(tc: TimeControl) -> SeatClock {
        SeatClock {
            tc,
            left: tc.time_ms.map(Duration::from_millis),
        }
    }

    /// What is left of the game clock (`None` without one).
    pub fn left(&self) -> Option<Duration> {
        self.left
    }

    fn margin(&self) -> Duration {
        Duration::from_millis(self.tc.margin_ms)
    }

    /// The limit of the next decision: the move time, what is left of the
    /// game clock, or the smaller of both; `None`: no limit.
    pub fn limit(&self) -> Option<Duration> {
        let movetime = self.tc.movetime_ms.map(Duration::from_millis);
        match (movetime, self.left) {
            (Some(m), Some(c)) => Some(m.min(c)),
            (m, c) => m.or(c),
        }
    }

    /// How long the referee waits for the next decision: its limit and
    /// margin on the wall clock; on the CPU clock, the wall-clock ceiling
    /// (`ceiling_ms`, else 5 times the limit plus 1 s: a bot that sleeps or
    /// blocks uses no CPU). `None`: for ever.
    pub fn deadline(&self) -> Option<Duration> {
        let limit = self.limit()?;
        Some(match self.tc.clock {
            Clock::Wall => limit + self.margin(),
            Clock::Cpu => self
                .tc
                .ceiling_ms
                .map_or_else(|| limit * 5 + Duration::from_secs(1), Duration::from_millis),
        })
    }

    /// The record's detail when no decision came by the [`deadline`](Self::deadline).
    pub fn no_answer(&self) -> String {
        let limit = self.limit().map_or(0, ms);
        match self.tc.clock {
            Clock::Wall => format!(
                "no move within {limit} ms (+{} ms margin)",
                ms(self.margin())
            ),
            Clock::Cpu => format!(
                "no move within {} ms of wall time (the cpu clock's ceiling for a limit of {limit} ms)",
                self.deadline().map_or(0, ms)
            ),
        }
    }

    /// Charges a decision that took `wall` (and `cpu`, where measured):
    /// the wall time, or on the CPU clock the CPU time (wall time where
    /// none could be measured). Within the limit and margin, it comes off
    /// the game clock and the increment goes on; beyond them, the
    /// [`Overrun`] that loses the game (the clock is left as it was).
    pub fn charge(&mut self, wall: Duration, cpu: Option<Duration>) -> Result<(), Overrun> {
        let (used, of_cpu) = match (self.tc.clock, cpu) {
            (Clock::Cpu, Some(cpu)) => (cpu, true),
            _ => (wall, false),
        };
        if let Some(limit) = self.limit() {
            if used > limit + self.margin() {
                return Err(Overrun {
                    used,
                    limit,
                    margin: self.margin(),
                    cpu: of_cpu,
                });
            }
        }
        let inc = Duration::from_millis(self.tc.inc_ms);
        if let Some(left) = self.left.as_mut() {
            *left = left.saturating_sub(used) + inc;
        }
        Ok(())
    }

    /// The clock fields of this seat's `go` against `opponent`'s clock, with
    /// this seat's search `budget`.
    pub fn go(&self, opponent: &SeatClock, budget: Budget) -> Go {
        Go {
            time: self.left.map(ms),
            opptime: opponent.left.map(ms),
            inc: self.tc.inc_ms,
            movetime: self.tc.movetime_ms,
            budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(movetime: Option<u64>, time: Option<u64>, inc: u64, clock: Clock) -> TimeControl {
        TimeControl {
            movetime_ms: movetime,
            time_ms: time,
            inc_ms: inc,
            margin_ms: 50,
            clock,
            ceiling_ms: None,
        }
    }

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_move_time_limits_each_decision_and_the_margin_is_tolerated() {
        let mut c = SeatClock::new(tc(Some(100), None, 0, Clock::Wall));
        assert_eq!(c.limit(), Some(MS(100)));
        assert_eq!(c.deadline(), Some(MS(150)));
        assert_eq!(c.left(), None);
        // Exactly the limit and margin is in time; a millisecond more is not.
        assert_eq!(c.charge(MS(150), None), Ok(()));
        let over = c.charge(MS(151), None).unwrap_err();
        assert_eq!(
            over.to_string(),
            "move took 151.0 ms, limit 100 ms (+50 ms margin)"
        );
        assert_eq!(c.no_answer(), "no move within 100 ms (+50 ms margin)");
    }

    #[test]
    fn a_game_clock_runs_down_and_gains_the_increment() {
        let mut a = SeatClock::new(tc(None, Some(1000), 10, Clock::Wall));
        let b = a;
        assert_eq!(a.limit(), Some(MS(1000)));
        a.charge(MS(300), None).unwrap();
        assert_eq!(a.left(), Some(MS(710)));
        assert_eq!(a.limit(), Some(MS(710)));
        // Within the margin past what is left: the clock stops at zero,
        // then the increment.
        a.charge(MS(740), None).unwrap();
        assert_eq!(a.left(), Some(MS(10)));
        let go = a.go(&b, Budget::default());
        assert_eq!(
            (go.time, go.opptime, go.inc, go.movetime),
            (Some(10), Some(1000), 10, None)
        );
        // An overrun leaves the clock as it was.
        assert!(a.charge(MS(61), None).is_err());
        assert_eq!(a.left(), Some(MS(10)));
    }

    #[test]
    fn the_smaller_of_move_time_and_game_clock_limits_a_decision() {
        let mut c = SeatClock::new(tc(Some(500), Some(800), 0, Clock::Wall));
        assert_eq!(c.limit(), Some(MS(500)));
        c.charge(MS(450), None).unwrap();
        assert_eq!(c.limit(), Some(MS(350)));
        let go = c.go(&c, Budget::default());
        assert_eq!((go.time, go.movetime), (Some(350), Some(500)));
    }

    #[test]
    fn the_cpu_clock_charges_cpu_time_and_waits_up_to_its_ceiling() {
        let mut c = SeatClock::new(tc(Some(100), None, 0, Clock::Cpu));
        assert_eq!(c.deadline(), Some(MS(1500)));
        // A bot that slept: a long wall time, little CPU.
        assert_eq!(c.charge(MS(900), Some(MS(20))), Ok(()));
        let over = c.charge(MS(200), Some(MS(170))).unwrap_err();
        assert_eq!(
            over.to_string(),
            "move took 170.0 ms of CPU, limit 100 ms (+50 ms margin)"
        );
        // Where no CPU time was measured, the wall time is charged.
        let over = c.charge(MS(151), None).unwrap_err();
        assert!(!over.cpu);
        assert_eq!(
            c.no_answer(),
            "no move within 1500 ms of wall time (the cpu clock's ceiling for a limit of 100 ms)"
        );
        let ceiling = TimeControl {
            ceiling_ms: Some(400),
            ..tc(Some(100), None, 0, Clock::Cpu)
        };
        assert_eq!(SeatClock::new(ceiling).deadline(), Some(MS(400)));
    }

    #[test]
    fn without_a_limit_nothing_is_an_overrun() {
        let mut c = SeatClock::new(tc(None, None, 0, Clock::Wall));
        assert_eq!((c.limit(), c.deadline()), (None, None));
        assert_eq!(c.charge(Duration::from_secs(3600), None), Ok(()));
        assert_eq!(c.left(), None);
    }
}
