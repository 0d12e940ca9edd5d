//! The writer of a run's records: the journal at once, `games.*` as the
//! completed prefix of the schedule grows.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::files::{append_whole, open_append, sync_dir, write_atomic};
use super::records::{csv_bytes, record_line, GamesWriter, Records, Tail};
use super::{io_err, StoreError, GAMES_CSV, GAMES_JSONL, JOURNAL};
use arena_core::record::GameRecord;

/// What a run directory holds for `--resume`, checked against the run's
/// schedule (`run/resume.rs`).
#[derive(Debug, Default)]
pub struct Resumed {
    /// How many games of the run's schedule `games.jsonl` holds, in order
    /// (the records stay on disk: [`Writer::open`] reads them again).
    pub prefix: usize,
    /// The journal's games that are not in `games.jsonl`, by index.
    pub journal: BTreeMap<u64, GameRecord>,
}

// The writer of a run's records.

/// The order of a run's games in `games.*`, and what may shorten it: the
/// [`Writer`] asks, the run decides (`run/stop.rs`: the stop rules of
/// `arena match --sprt` and a gauntlet's `sprt`). `()` never stops.
pub trait Plan: Send {
    /// Game `r`, the next of the schedule, joined `games.*`: what it ends.
    fn joined(&mut self, r: &GameRecord) -> Cut;
    /// Whether game `index` is still to be written: false once a [`Cut::Some`]
    /// ended its part of the schedule (it then stays in the journal only).
    fn wants(&self, index: u64) -> bool;
}

/// What a game that joined `games.*` ended ([`Plan::joined`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Nothing: the schedule goes on.
    Nothing,
    /// The run: no game after this one is written.
    Run,
    /// Some later games: those the plan no longer [`wants`](Plan::wants).
    Some,
}

impl Plan for () {
    fn joined(&mut self, _: &GameRecord) -> Cut {
        Cut::Nothing
    }
    fn wants(&self, _: u64) -> bool {
        true
    }
}

/// Appends finished games: to the journal at once, to `games.*` as the
/// completed prefix of the schedule grows.
pub struct Writer<P: Plan = ()> {
    dir: PathBuf,
    journal: File,
    jsonl: File,
    csv: File,
    plan: Order<P>,
    finished: usize,
    /// Records keep the state of every this-many plies (1: every ply).
    every: usize,
}

/// What of the schedule is in `games.*`, what is still to come, and the
/// plan that may shorten it.
struct Order<P> {
    /// This run's game indices in schedule order (less what a cut ended).
    order: Vec<u64>,
    /// How many of `order` are in `games.*`.
    next: usize,
    /// Finished games not yet in `games.*`.
    pending: BTreeMap<u64, GameRecord>,
    plan: P,
    /// Whether a [`Cut::Run`] ended the run.
    ended: bool,
}

impl<P: Plan> Order<P> {
    /// Game `r`, the next of the schedule, joins `games.*`: the plan sees
    /// it, and what it ends is taken out of what is still to come.
    fn decide(&mut self, r: &GameRecord) {
        self.next += 1;
        match self.plan.joined(r) {
            Cut::Nothing => {}
            Cut::Run => {
                self.order.truncate(self.next);
                self.pending.clear();
                self.ended = true;
            }
            Cut::Some => {
                let plan = &self.plan;
                let later = self.order.split_off(self.next);
                self.order
                    .extend(later.into_iter().filter(|i| plan.wants(*i)));
                self.pending.retain(|i, _| plan.wants(*i));
            }
        }
    }
}

impl<P: Plan> Writer<P> {
    /// Rewrites the files from what `resumed` found (dropping any torn
    /// line; `games.jsonl`'s records are read again, one at a time) and
    /// opens them for appending. `order`: the run's game indices in
    /// schedule order. The games of the prefix, and the journal's that
    /// extend it, go through `plan` and are shown to `seen`, in order: they
    /// end what they ended when they were played.
    /// Records are written with the state of every `record_states`-th ply
    /// ([`record_line`]; 1: every ply); those already in `games.jsonl` are
    /// copied as they are.
    pub fn open(
        dir: &Path,
        order: Vec<u64>,
        resumed: Resumed,
        plan: P,
        record_states: usize,
        seen: &mut dyn FnMut(&GameRecord),
    ) -> Result<Writer<P>, StoreError> {
        let every = record_states.max(1);
        let mut plan = Order {
            order,
            next: 0,
            pending: resumed.journal,
            plan,
            ended: false,
        };
        let mut out = GamesWriter::create(dir)?;
        let mut old = Records::open(&dir.join(GAMES_JSONL), Tail::Torn, true)?;
        while plan.next < resumed.prefix && !plan.ended {
            let Some(line) = old.next() else { break };
            let r = line?.record;
            plan.decide(&r);
            out.push(&r, old.raw())?;
            seen(&r);
        }
        drop(old);
        while !plan.ended {
            let Some(r) = plan
                .order
                .get(plan.next)
                .and_then(|i| plan.pending.remove(i))
            else {
                break;
            };
            plan.decide(&r);
            out.push(&r, &record_line(&r, every))?;
            seen(&r);
        }
        out.finish()?;
        let journal: Vec<u8> = plan
            .pending
            .values()
            .flat_map(|r| record_line(r, every))
            .collect();
        write_atomic(dir, JOURNAL, &journal)?;
        Ok(Writer {
            dir: dir.to_path_buf(),
            journal: open_append(&dir.join(JOURNAL))?,
            jsonl: open_append(&dir.join(GAMES_JSONL))?,
            csv: open_append(&dir.join(GAMES_CSV))?,
            finished: plan.next + plan.pending.len(),
            plan,
            every,
        })
    }

    /// Finished games not yet in `games.*` (from the journal, on resume).
    pub fn pending(&self) -> impl Iterator<Item = &GameRecord> {
        self.plan.pending.values()
    }

    /// Games finished (in the journal or in `games.*`).
    pub fn finished(&self) -> usize {
        self.finished
    }

    /// Games in `games.*`.
    pub fn written(&self) -> usize {
        self.plan.next
    }

    /// Whether the plan ended the run ([`Cut::Run`]).
    pub fn ended(&self) -> bool {
        self.plan.ended
    }

    /// The plan, as the games written so far left it.
    pub fn plan(&self) -> &P {
        &self.plan.plan
    }

    /// The indices still to play (none once the run ended; none the plan
    /// no longer wants).
    pub fn missing(&self) -> Vec<u64> {
        self.plan.order[self.plan.next..]
            .iter()
            .filter(|i| !self.plan.pending.contains_key(i))
            .copied()
            .collect()
    }

    /// Journals `batch` (one fsync), then appends the grown prefix to
    /// `games.*` and returns it. After the plan ended the run, games are
    /// ignored; a game it no longer wants (one that was playing when its
    /// part of the schedule ended) stays in the journal only.
    pub fn accept(&mut self, batch: Vec<GameRecord>) -> Result<Vec<GameRecord>, StoreError> {
        if self.plan.ended {
            return Ok(Vec::new());
        }
        let jp = self.dir.join(JOURNAL);
        let lines: Vec<u8> = batch
            .iter()
            .flat_map(|r| record_line(r, self.every))
            .collect();
        self.journal.write_all(&lines).map_err(io_err(&jp))?;
        self.journal.sync_data().map_err(io_err(&jp))?;
        for rec in batch {
            if self.plan.plan.wants(rec.index) {
                self.finished += 1;
                self.plan.pending.insert(rec.index, rec);
            }
        }
        let mut lines = Vec::new();
        let mut ready = Vec::new();
        while let Some(r) = self
            .plan
            .order
            .get(self.plan.next)
            .and_then(|i| self.plan.pending.remove(i))
        {
            lines.extend(record_line(&r, self.every));
            self.plan.decide(&r);
            ready.push(r);
            if self.plan.ended {
                break;
            }
        }
        if !ready.is_empty() {
            let csv = csv_bytes(&ready.iter().collect::<Vec<_>>(), false);
            append_whole(&mut self.jsonl, &lines, &self.dir.join(GAMES_JSONL))?;
            append_whole(&mut self.csv, &csv, &self.dir.join(GAMES_CSV))?;
        }
        Ok(ready)
    }

    /// Every game is in `games.*`: the journal has served its purpose.
    pub fn complete(self) -> Result<(), StoreError> {
        assert!(
            self.plan.next == self.plan.order.len() && self.plan.pending.is_empty(),
            "complete() with {} of {} games written",
            self.plan.next,
            self.plan.order.len()
        );
        let p = self.dir.join(JOURNAL);
        fs::remove_file(&p).map_err(io_err(&p))?;
        sync_dir(&self.dir)
    }
}
