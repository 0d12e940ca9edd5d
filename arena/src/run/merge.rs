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
    pub dir: PathBuf,
    pub games: usize,
    pub standings: Standings,
    /// A gauntlet's `sprt`: each challenger's test, replayed.
    pub sprt: Vec<super::runner::PairingTest>,
    /// How the shards' config asks for the games to be rated (the first
    /// shard's manifest).
    pub ratings: Option<crate::store::RatingSettings>,
}

/// Combines the outputs of shard runs (or any runs of the same config and
/// seed that together hold every game once) into one report in `out`.
pub fn merge(dirs: &[PathBuf], out: Option<&Path>) -> Result<MergeSummary, TournamentError> {
    let refuse = |m: String| Err(TournamentError::Refused(m));
    if dirs.is_empty() {
        return refuse("merge needs at least one run directory".into());
    }
    let mut manifests = Vec::new();
    for d in dirs {
        match Manifest::read(d)? {
            Some(m) => manifests.push(m),
            None if !d.exists() => {
                return refuse(format!(
                    "{} does not exist: its run (shard) never started",
                    d.display()
                ))
            }
            None => {
                return refuse(format!(
                    "{} holds no {MANIFEST}: not a tournament run",
                    d.display()
                ))
            }
        }
    }
    let first = &manifests[0];
    for (d, m) in dirs.iter().zip(&manifests).skip(1) {
        if m.fingerprint != first.fingerprint {
            return refuse(format!(
                "{} is {} (config fingerprint {}) but {} is {} (config fingerprint {}): not the same config and seed",
                d.display(),
                m.describe(),
                m.fingerprint,
                dirs[0].display(),
                first.describe(),
                first.fingerprint
            ));
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
            let n = n.len();
            return refuse(format!(
                "{} ({}) is not finished: {n} of {} games; finish it with `arena tournament ... --resume{}`",
                d.display(),
                m.describe(),
                m.run_games,
                m.shard.map(|s| format!(" --shard {s}")).unwrap_or_default()
            ));
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
                    return refuse(format!(
                        "{at}: game {} comes after its pairing's sprt test decided: not a game of this run",
                        record.index
                    ));
                }
                replay.add(&record, super::stop::pairing_of(job));
            }
            let slot = &mut found[record.index as usize];
            if let Some(other) = *slot {
                return refuse(format!(
                    "game {} is in both {} and {at}",
                    record.index,
                    at_of(other)
                ));
            }
            // arena writes games.jsonl in schedule order; the merge below
            // relies on it.
            if prev.is_some_and(|p| p > record.index) {
                return refuse(format!(
                    "{at}: game {} comes after game {}: {} is not in schedule order, so arena did not write it",
                    record.index,
                    prev.unwrap_or_default(),
                    path.display()
                ));
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
        return refuse(format!(
            "game{} {}{more} missing{hint}: {} of {} games found",
            if missing.len() == 1 { "" } else { "s" },
            shown.join(", "),
            count,
            jobs.len()
        ));
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new("reports").join(&first.name));
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
        Ok(Some(m)) => Err(TournamentError::Refused(format!(
            "{} already holds a run ({}); merge into another --out",
            out.display(),
            m.describe()
        ))),
        Ok(None) => match store::holds_run_files(&out) {
            Some(f) => Err(TournamentError::Refused(format!(
                "{} holds {f} but no {MANIFEST}: not a run arena wrote; merge into another --out",
                out.display()
            ))),
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
