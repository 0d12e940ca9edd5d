//! What ends a run, or one of its pairings, before its last game: the stop
//! rules (`arena match --sprt` in `matchplay.rs`, a gauntlet's `sprt` in
//! `runner.rs`) and the run's [`RunPlan`], which the store's journal writer
//! asks as each game joins `games.*` in schedule order.

use std::collections::HashMap;

use super::schedule::GameJob;
use crate::store::{Cut, Plan};
use arena_core::record::GameRecord;

/// Decides, game by game in schedule order, whether a run, or the pairing
/// of the game, is over before its last game (`arena match --sprt`, a
/// gauntlet's `sprt`): `None` plays on.
pub type StopRule = Box<dyn FnMut(&GameRecord) -> Option<Stop> + Send>;

/// What a [`StopRule`] ended, and why (the text goes to the manifest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run ends after this game.
    Run(String),
    /// The pairing of this game (its two bots) ends after it: its games
    /// later in the schedule are skipped, the others play on.
    Pairing(String),
}

/// The two bots of a game, whichever seat: what [`Stop::Pairing`] ends.
pub fn pairing_of(job: &GameJob) -> [usize; 2] {
    let [a, b] = job.seats;
    [a.min(b), a.max(b)]
}

/// A run's stop rule and what it ended, as the journal writer's [`Plan`].
pub struct RunPlan {
    /// Each game's pairing ([`pairing_of`]), by index.
    pairings: HashMap<u64, [usize; 2]>,
    stop: Option<StopRule>,
    /// Why the run ended early, once the stop rule said so.
    stopped: Option<String>,
    /// The pairings a [`Stop::Pairing`] ended, and why, in the order they
    /// ended.
    closed: Vec<([usize; 2], String)>,
}

impl RunPlan {
    /// The plan of the run playing `jobs`, ended early only by `stop`.
    pub fn new(jobs: &[GameJob], stop: Option<StopRule>) -> RunPlan {
        RunPlan {
            pairings: jobs.iter().map(|j| (j.index, pairing_of(j))).collect(),
            stop,
            stopped: None,
            closed: Vec::new(),
        }
    }

    /// Why the run ended early, if the stop rule ended it.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// The pairings the stop rule ended (their later games skipped), with
    /// why, in the order they ended.
    pub fn closed(&self) -> &[([usize; 2], String)] {
        &self.closed
    }
}

impl Plan for RunPlan {
    fn joined(&mut self, r: &GameRecord) -> Cut {
        match self.stop.as_mut().and_then(|s| s(r)) {
            None => Cut::Nothing,
            Some(Stop::Run(why)) => {
                self.stopped = Some(why);
                Cut::Run
            }
            Some(Stop::Pairing(why)) => {
                let Some(&pairing) = self.pairings.get(&r.index) else {
                    return Cut::Nothing;
                };
                self.closed.push((pairing, why));
                Cut::Some
            }
        }
    }

    fn wants(&self, index: u64) -> bool {
        let pairing = self.pairings.get(&index);
        !self.closed.iter().any(|(p, _)| Some(p) == pairing)
    }
}
