//! `arena merge`: the runs of a config's shards made into the one run they
//! are parts of, every record checked against the schedule.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::runner::{jobs_for, Sharding, SprtReplay, TournamentError};
use super::schedule::GameJob;
use crate::standings::Standings;
use crate::store::{self, Manifest, RunLock, Status, GAMES_JSONL, JOURNAL, MANIFEST};
use arena_core::record::GameRecord;

/// What `arena merge` reports.
#[derive(Clone, Debug)]
pub struct MergeSummary {
    /// The merged run's directory.
    pub dir: PathBuf,
    /// Games in the merged run: the whole schedule.
    pub games: usize,
    /// Points, games and results per bot over every shard's games.
    pub standings: Standings,
    /// A gauntlet's `sprt`: each challenger's test, replayed.
    pub sprt: Vec<super::runner::PairingTest>,
    /// How the shards' config asks for the games to be rated (the first
    /// shard's manifest).
    pub ratings: Option<crate::store::RatingSettings>,
}

/// Why runs were not merged: each says what was refused.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No run directory was given.
    #[error("merge needs at least one run directory")]
    NoRuns,
    /// A run directory that does not exist.
    #[error("{} does not exist: its run (shard) never started", dir.display())]
    NeverStarted {
        /// The directory.
        dir: PathBuf,
    },
    /// A directory that exists but holds no manifest.
    #[error("{} holds no {MANIFEST}: not a tournament run", dir.display())]
    NoManifest {
        /// The directory.
        dir: PathBuf,
    },
    /// Two runs of different configs or seeds.
    #[error("{} is {run} (config fingerprint {fingerprint}) but {} is {first_run} (config fingerprint {first_fingerprint}): not the same config and seed", dir.display(), first_dir.display())]
    NotOneRun {
        /// The run that differs.
        dir: PathBuf,
        /// What it is (its name and seed).
        run: String,
        /// Its config fingerprint.
        fingerprint: String,
        /// The first run, which the others are compared with.
        first_dir: PathBuf,
        /// What it is.
        first_run: String,
        /// Its config fingerprint.
        first_fingerprint: String,
    },
    /// A run still running (`resume`: the flags that finish it).
    #[error("{} ({run}) is not finished: {found} of {games} games; finish it with `arena tournament ... --resume{resume}`", dir.display())]
    Unfinished {
        /// The unfinished run's directory.
        dir: PathBuf,
        /// What it is.
        run: String,
        /// Games it holds so far.
        found: usize,
        /// Games it should hold.
        games: u64,
        /// The `--shard` flag that finishes it, if it is a shard.
        resume: String,
    },
    /// A game its pairing's sprt test had already ended.
    #[error(
        "{at}: game {index} comes after its pairing's sprt test decided: not a game of this run"
    )]
    AfterDecision {
        /// The record's place (file and line).
        at: String,
        /// Its game's index.
        index: u64,
    },
    /// A game found in two runs.
    #[error("game {index} is in both {first} and {second}")]
    Twice {
        /// The game's index.
        index: u64,
        /// Where it was found first (file and line).
        first: String,
        /// Where it was found again.
        second: String,
    },
    /// A run's games file not in schedule order.
    #[error("{at}: game {index} comes after game {prev}: {} is not in schedule order, so arena did not write it", path.display())]
    OutOfOrder {
        /// The record's place (file and line).
        at: String,
        /// Its game's index.
        index: u64,
        /// The index of the record before it.
        prev: u64,
        /// The games file.
        path: PathBuf,
    },
    /// Games none of the runs holds (`games`: "game 3" or "games 1, 2 and 5
    /// more"; `hint`: the shards that should hold them).
    #[error("{games} missing{hint}: {found} of {total} games found")]
    Missing {
        /// Which games: "game 3" or "games 1, 2 and 5 more".
        games: String,
        /// The shards that should hold them, if known.
        hint: String,
        /// Games found.
        found: usize,
        /// Games in the schedule.
        total: usize,
    },
    /// The output directory already holds a run.
    #[error("{} already holds a run ({run}); merge into another --out", dir.display())]
    OutHoldsRun {
        /// The output directory.
        dir: PathBuf,
        /// The run it holds.
        run: String,
    },
    /// The output directory holds a run's files but no manifest.
    #[error("{} holds {file} but no {MANIFEST}: not a run arena wrote; merge into another --out", dir.display())]
    OutNotARun {
        /// The output directory.
        dir: PathBuf,
        /// A file of a run found in it.
        file: String,
    },
}

/// Combines the outputs of shard runs (or any runs of the same config and
/// seed that together hold every game once) into one report in `out`.
pub fn merge(dirs: &[PathBuf], out: Option<&Path>) -> Result<MergeSummary, TournamentError> {
    let refuse = |e: MergeError| Err(TournamentError::from(e));
    if dirs.is_empty() {
        return refuse(MergeError::NoRuns);
    }
    let mut manifests = Vec::new();
    for d in dirs {
        match Manifest::read(d)? {
            Some(m) => manifests.push(m),
            None if !d.exists() => return refuse(MergeError::NeverStarted { dir: d.clone() }),
            None => return refuse(MergeError::NoManifest { dir: d.clone() }),
        }
    }
    let first = &manifests[0];
    for (d, m) in dirs.iter().zip(&manifests).skip(1) {
        if m.fingerprint != first.fingerprint {
            return refuse(MergeError::NotOneRun {
                dir: d.clone(),
                run: m.describe(),
                fingerprint: m.fingerprint.clone(),
                first_dir: dirs[0].clone(),
                first_run: first.describe(),
                first_fingerprint: first.fingerprint.clone(),
            });
        }
    }
    for (d, m) in dirs.iter().zip(&manifests) {
        if m.status != Status::Complete {
            let mut n = BTreeSet::new();
            for f in [GAMES_JSONL, JOURNAL] {
                for line in store::Records::open(&d.join(f), store::Tail::Torn, true)? {
                    n.insert(line?.record.index);
                }
            }
            return refuse(MergeError::Unfinished {
                dir: d.clone(),
                run: m.describe(),
                found: n.len(),
                games: m.run_games,
                resume: m.shard.map(|s| format!(" --shard {s}")).unwrap_or_default(),
            });
        }
    }
    // Every record must be the game the schedule has at its index, in the
    // shard its directory played; each game once. Records are read one at a
    // time; what is kept per game is where it was found (run and line).
    let jobs = jobs_for(&first.config);
    let sharding = Sharding::of(&first.config, &jobs);
    // A gauntlet's tests, fed each shard's games in order: with `sprt` a
    // pairing is played in one shard, so this sees each pairing's games
    // in schedule order, as the shard's own tests did.
    let mut replay = SprtReplay::of(&first.config)?;
    let mut found: Vec<Option<(u32, u32)>> = vec![None; jobs.len()];
    let mut count = 0usize;
    let at_of =
        |(d, line): (u32, u32)| store::place(&dirs[d as usize].join(GAMES_JSONL), line as usize);
    for (di, (d, m)) in dirs.iter().zip(&manifests).enumerate() {
        let path = d.join(GAMES_JSONL);
        let mut prev: Option<u64> = None;
        for line in store::Records::open(&path, store::Tail::Torn, true)? {
            let store::Line { line, record } = line?;
            let at = store::place(&path, line);
            let job = jobs
                .get(record.index as usize)
                .filter(|j| m.shard.is_none_or(|s| sharding.holds(s, j)));
            super::resume::check_record(&at, &record, job, &first.config)?;
            if let (Some(replay), Some(job)) = (replay.as_mut(), job) {
                if replay.skipped(job) {
                    return refuse(MergeError::AfterDecision {
                        at,
                        index: record.index,
                    });
                }
                replay.add(&record, super::stop::pairing_of(job));
            }
            let slot = &mut found[record.index as usize];
            if let Some(other) = *slot {
                return refuse(MergeError::Twice {
                    index: record.index,
                    first: at_of(other),
                    second: at,
                });
            }
            // arena writes games.jsonl in schedule order; the merge below
            // relies on it.
            if prev.is_some_and(|p| p > record.index) {
                return refuse(MergeError::OutOfOrder {
                    at,
                    index: record.index,
                    prev: prev.unwrap_or_default(),
                    path,
                });
            }
            prev = Some(record.index);
            *slot = Some((di as u32, line as u32));
            count += 1;
        }
    }
    let missing: Vec<&GameJob> = jobs
        .iter()
        .filter(|j| found[j.index as usize].is_none())
        .filter(|j| !replay.as_ref().is_some_and(|r| r.skipped(j)))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing
            .iter()
            .take(20)
            .map(|j| j.index.to_string())
            .collect();
        let more = if missing.len() > 20 {
            format!(" and {} more", missing.len() - 20)
        } else {
            String::new()
        };
        let n = manifests.iter().find_map(|m| m.shard.map(|s| s.n));
        let hint = match n {
            Some(n) => {
                let shards: BTreeSet<String> = missing
                    .iter()
                    .map(|j| sharding.shard_of(n, j))
                    .map(|k| format!("{k}/{n}"))
                    .collect();
                format!(
                    " (shard {}?)",
                    shards.into_iter().collect::<Vec<_>>().join(", ")
                )
            }
            None => String::new(),
        };
        return refuse(MergeError::Missing {
            games: format!(
                "game{} {}{more}",
                if missing.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ),
            hint,
            found: count,
            total: jobs.len(),
        });
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| store::default_run_dir(&first.name));
    let lock = RunLock::acquire(&out)?;
    let mut manifest = Manifest::new(&first.config, jobs.len() as u64, None, jobs.len() as u64);
    manifest.stop_rule = replay.as_ref().map(|r| r.text.clone());
    // The shards' sittings, in the order the shards were given.
    manifest.sittings = manifests.iter().flat_map(|m| m.sittings.clone()).collect();
    manifest.ratings = first.ratings.clone();
    // What the unsharded run would have warned about, as it would say it.
    let pairs = jobs.last().map_or(0, |j| j.pair + 1);
    manifest.warnings.extend(super::openings::reuse_warning(
        first.config.openings.as_ref(),
        pairs,
    ));
    let ready = match Manifest::read(&out) {
        // A merge of these runs that stopped half-way is done again.
        Ok(Some(m)) if m.status == Status::Merging && m.fingerprint == manifest.fingerprint => {
            store::remove_run(&out, &m).map_err(TournamentError::from)
        }
        Ok(Some(m)) => Err(TournamentError::from(MergeError::OutHoldsRun {
            dir: out.clone(),
            run: m.describe(),
        })),
        Ok(None) => match store::holds_run_files(&out) {
            Some(file) => Err(TournamentError::from(MergeError::OutNotARun {
                dir: out.clone(),
                file,
            })),
            None => Ok(()),
        },
        Err(e) => Err(e.into()),
    };
    if let Err(e) = ready {
        lock.refused();
        return Err(e);
    }
    // Written first, so that what follows is known to be arena's.
    manifest.status = Status::Merging;
    manifest.write(&out)?;
    drop(found);
    // Records name their bots' logs relative to their run directory: bring
    // the logs along (file names hold the game index, so they never clash).
    for d in dirs {
        store::copy_logs(&d.join(store::LOGS), &out)?;
    }
    // Each run's file is in schedule order: merging them in index order
    // writes the whole schedule, one record at a time, each line as written.
    let mut standings = Standings::new(first.config.bots.iter().map(|b| b.name.clone()));
    let mut readers: Vec<store::Records> = dirs
        .iter()
        .map(|d| store::Records::open(&d.join(GAMES_JSONL), store::Tail::Torn, true))
        .collect::<Result<_, _>>()?;
    let mut heads: Vec<Option<(GameRecord, Vec<u8>)>> = Vec::new();
    for r in &mut readers {
        heads.push(next_of(r)?);
    }
    let mut games = store::GamesWriter::create(&out)?;
    while let Some(i) = (0..heads.len())
        .filter(|&i| heads[i].is_some())
        .min_by_key(|&i| heads[i].as_ref().map(|h| h.0.index))
    {
        let (record, line) = heads[i].take().expect("a head");
        standings.add(&record);
        games.push(&record, &line)?;
        heads[i] = next_of(&mut readers[i])?;
    }
    let merged = games.count as usize;
    games.finish()?;
    let sprt = match replay {
        Some(replay) => replay.finish(&out)?,
        None => Vec::new(),
    };
    let distinct = crate::store::Distinct::of_dir(&out)?;
    manifest.warnings.extend(distinct.warning());
    manifest.distinct = Some(distinct);
    manifest.status = Status::Complete;
    manifest.write(&out)?;
    drop(lock);
    Ok(MergeSummary {
        dir: out,
        games: merged,
        standings,
        sprt,
        ratings: manifest.ratings,
    })
}

/// The next record of `r` and its line as written.
fn next_of(r: &mut store::Records) -> Result<Option<(GameRecord, Vec<u8>)>, TournamentError> {
    match r.next() {
        None => Ok(None),
        Some(line) => Ok(Some((line?.record, r.raw().to_vec()))),
    }
}
