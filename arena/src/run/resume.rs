//! What `--resume` and `arena merge` check before they trust a run
//! directory's records: each record against the game the schedule has at
//! its index, and `games.jsonl` and the journal against each other.

use std::collections::BTreeMap;
use std::path::Path;

use super::schedule::GameJob;
use crate::display::escape;
use crate::settings::Normalized;
use crate::store::{
    first_difference, place, Line, Records, Resumed, StoreError, Tail, GAMES_JSONL, JOURNAL,
};
use arena_core::record::GameRecord;

/// Why a run directory's records were not trusted: each says what was
/// refused, and where (`file:line`).
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// A file the store refused or could not read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A record whose index is not a game of the run's schedule.
    #[error("{at}: index {index} is not a game of this run; the record was not written by it")]
    NotInSchedule {
        /// The record's place (`file:line`).
        at: String,
        /// The index it holds.
        index: u64,
    },
    /// A record that differs from its scheduled game in `field` (`got` and
    /// `want` escaped for terminals).
    #[error("{at}: game {index}: {field} is `{got}`, but the schedule of this config and seed says `{want}`; the record was not written by this run")]
    NotScheduled {
        /// The record's place (`file:line`).
        at: String,
        /// Its game's index.
        index: u64,
        /// The record's field that differs.
        field: &'static str,
        /// What the record has.
        got: String,
        /// What the schedule has.
        want: String,
    },
    /// A record whose opening is not the one the run deals its game.
    #[error("{at}: game {index}: {why}; the record was not written by this run")]
    WrongOpening {
        /// The record's place (`file:line`).
        at: String,
        /// Its game's index.
        index: u64,
        /// How its opening differs from the one dealt.
        why: String,
    },
    /// `games.jsonl` not in schedule order (`expected`: the game due there, or
    /// `none`).
    #[error("{at}: game {index} where the schedule has game {expected}: arena writes {GAMES_JSONL} in schedule order, so it did not write this file")]
    OutOfOrder {
        /// The record's place (`file:line`).
        at: String,
        /// Its game's index.
        index: u64,
        /// The game due there, or `none`.
        expected: String,
    },
    /// Two different records of one game (`field`: the first that differs).
    #[error("game {index}: {first} and {second} disagree ({field} differs): two different records of one game")]
    Disagree {
        /// The game's index.
        index: u64,
        /// Where the first record is (`file:line`).
        first: String,
        /// Where the second is.
        second: String,
        /// The first field that differs.
        field: String,
    },
    /// A file that changed while it was checked.
    #[error("{}: changed while read", path.display())]
    Changed {
        /// The file.
        path: std::path::PathBuf,
    },
}

/// Whether game `index` of the run (`jobs`, in index order) is finished in
/// what `done` found.
pub fn finished(done: &Resumed, jobs: &[GameJob], index: u64) -> bool {
    done.journal.contains_key(&index)
        || jobs
            .binary_search_by_key(&index, |j| j.index)
            .is_ok_and(|pos| pos < done.prefix)
}

/// A digest of a whole record, to tell whether two records of one game
/// agree without keeping either.
fn digest(r: &GameRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_vec(r)
        .expect("records serialize")
        .hash(&mut h);
    h.finish()
}

/// Checks the records of `dir` (`games.jsonl`, then the journal) against
/// the schedule (`jobs`: this run's games, in index order) and the config,
/// reading one record at a time. `games.jsonl` must be the first games of
/// the schedule, in order (as arena writes it). A game found twice must be
/// the same record both times (the journal and `games.jsonl` overlap while
/// a run goes); two that disagree are an error naming both places. Kept in
/// memory: a digest and a line number per game of `games.jsonl`, and the
/// journal's other games.
pub fn check_resume(
    dir: &Path,
    jobs: &[GameJob],
    config: &Normalized,
) -> Result<Resumed, ResumeError> {
    let pos_of = |index: u64| jobs.binary_search_by_key(&index, |j| j.index).ok();
    let games = dir.join(GAMES_JSONL);
    let mut prefix: Vec<(u64, u32)> = Vec::new();
    for line in Records::open(&games, Tail::Torn, true)? {
        let Line { line, record } = line?;
        let at = place(&games, line);
        let pos = pos_of(record.index);
        check_record(&at, &record, pos.map(|p| &jobs[p]), config)?;
        if pos != Some(prefix.len()) {
            return Err(ResumeError::OutOfOrder {
                at,
                index: record.index,
                expected: jobs
                    .get(prefix.len())
                    .map_or_else(|| "none".to_string(), |j| j.index.to_string()),
            });
        }
        prefix.push((digest(&record), line as u32));
    }
    let path = dir.join(JOURNAL);
    let mut journal: BTreeMap<u64, (GameRecord, String)> = BTreeMap::new();
    for line in Records::open(&path, Tail::Torn, true)? {
        let Line { line, record } = line?;
        let at = place(&path, line);
        let pos = pos_of(record.index);
        check_record(&at, &record, pos.map(|p| &jobs[p]), config)?;
        let disagree = |other: &GameRecord, other_at: &str| {
            Err(ResumeError::Disagree {
                index: record.index,
                first: other_at.to_string(),
                second: at.clone(),
                field: first_difference(other, &record),
            })
        };
        match pos {
            Some(p) if p < prefix.len() => {
                let (d, gline) = prefix[p];
                if d != digest(&record) {
                    let other = Records::open(&games, Tail::Torn, true)?
                        .find_map(|l| l.ok().filter(|l| l.line == gline as usize))
                        .map(|l| l.record)
                        .ok_or_else(|| ResumeError::Changed {
                            path: games.clone(),
                        })?;
                    return disagree(&other, &place(&games, gline as usize));
                }
            }
            _ => match journal.get(&record.index) {
                Some((other, other_at)) if *other != record => return disagree(other, other_at),
                Some(_) => {}
                None => {
                    journal.insert(record.index, (record, at));
                }
            },
        }
    }
    Ok(Resumed {
        prefix: prefix.len(),
        journal: journal.into_iter().map(|(i, (r, _))| (i, r)).collect(),
    })
}

/// Checks `rec` (read at `at`) against the game the schedule has at its
/// index: index, round, pair, seed, game, parameters, both seats' bots and
/// the opening moves.
/// The error names the place and the first field that does not match.
pub fn check_record(
    at: &str,
    rec: &GameRecord,
    job: Option<&GameJob>,
    config: &Normalized,
) -> Result<(), ResumeError> {
    let Some(job) = job else {
        return Err(ResumeError::NotInSchedule {
            at: at.to_string(),
            index: rec.index,
        });
    };
    let name = |b: usize| config.bots[b].name.as_str();
    let params: BTreeMap<String, String> = config.params.iter().cloned().collect();
    let checks: [(&str, String, String); 8] = [
        ("round", rec.round.to_string(), job.round.to_string()),
        ("pair", rec.pair.to_string(), job.pair.to_string()),
        ("seed", rec.seed.to_string(), job.seed.to_string()),
        ("game", rec.game.clone(), config.game.clone()),
        (
            "params",
            format!("{:?}", rec.params),
            format!("{:?}", params),
        ),
        (
            "seats[0].name",
            rec.seats[0].name.clone(),
            name(job.seats[0]).to_string(),
        ),
        (
            "seats[1].name",
            rec.seats[1].name.clone(),
            name(job.seats[1]).to_string(),
        ),
        ("index", rec.index.to_string(), job.index.to_string()),
    ];
    for (field, got, want) in checks {
        if got != want {
            return Err(ResumeError::NotScheduled {
                at: at.to_string(),
                index: job.index,
                field,
                got: escape(&got).to_string(),
                want: escape(&want).to_string(),
            });
        }
    }
    if let Some(why) = super::openings::check_opening(rec, job, config) {
        return Err(ResumeError::WrongOpening {
            at: at.to_string(),
            index: job.index,
            why,
        });
    }
    Ok(())
}
