//! The manifest, `tournament.json`, and what it lists.

use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::files::{read_bounded, sync_dir, write_atomic, ReadError};
use super::logs::is_log_name;
use super::{io_err, run_files, StoreError, MANIFEST, MAX_MANIFEST_BYTES};
use crate::display::escape;
use crate::settings::{FormatKind, Normalized, Shard};

/// How a run's games are rated (config `anchor` and `confidence`), kept in
/// its manifest so that `arena merge` rates shards as their config asks. Not
/// part of the fingerprint: the same games may be rated again another way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingSettings {
    /// Where the scale sits: the rating of `anchor_bot`, or of the pool's mean.
    pub anchor: f64,
    /// The bot whose rating is `anchor`; none: the pool's mean is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_bot: Option<String>,
    /// The level of every interval.
    pub confidence: f64,
}

/// Where a run stands, as its manifest says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Playing (or stopped before its end: `--resume` goes on).
    Running,
    /// `arena merge` writing the merged run; done again if it stopped.
    Merging,
    /// Every game is in `games.*` (or a stop rule ended the run).
    Complete,
}

impl Status {
    /// The word the manifest and messages use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Merging => "merging",
            Status::Complete => "complete",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `tournament.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The run's name (the config's `name`).
    pub name: String,
    /// Hash of the normalized config (seed included).
    pub fingerprint: String,
    /// The run's seed, part of what `--resume` and `arena merge` check.
    pub seed: u64,
    /// Games in the whole schedule.
    pub total_games: u64,
    /// `None` for an unsharded run or a merge.
    pub shard: Option<Shard>,
    /// Games this run plays (its shard's share).
    pub run_games: u64,
    /// Where the run stands.
    pub status: Status,
    /// The `arena` version that started the run.
    pub arena_version: String,
    /// What ends the run before its last game (`arena match --sprt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_rule: Option<String>,
    /// Why the run ended before its last game, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The names arena writes in the directory (`logs/` for the logs).
    #[serde(default = "run_files")]
    pub files: Vec<String>,
    /// The normalized config, kept so that `--resume` and `arena merge` need no
    /// config file.
    pub config: Normalized,
    /// What the run warned about at its start (bots without a sandbox, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Distinct openings, games and pairs of the finished run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<Distinct>,
    /// Each sitting's conditions (the first run, then each `--resume`):
    /// times, host, CPU, OS, arena's commit, the bots' program files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sittings: Vec<Sitting>,
    /// How the games are rated, when the config says ([`RatingSettings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingSettings>,
}

impl Manifest {
    /// The manifest of a run starting now (status `running`): `total` games in
    /// the schedule, `run_games` of them in this shard.
    pub fn new(config: &Normalized, total: u64, shard: Option<Shard>, run_games: u64) -> Self {
        Manifest {
            name: config.name.clone(),
            fingerprint: config.fingerprint(),
            seed: config.seed,
            total_games: total,
            shard,
            run_games,
            status: Status::Running,
            arena_version: env!("CARGO_PKG_VERSION").into(),
            stop_rule: None,
            stopped: None,
            files: run_files(),
            config: config.clone(),
            warnings: Vec::new(),
            distinct: None,
            sittings: Vec::new(),
            ratings: None,
        }
    }

    /// The manifest in `dir`, if there is one. A manifest that is not one
    /// (too big, not JSON, a schedule beyond [`crate::settings::MAX_GAMES`],
    /// a file list naming paths outside the directory) is refused.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, StoreError> {
        let path = dir.join(MANIFEST);
        let bad = |why: String| StoreError::NotAManifest {
            path: path.clone(),
            why,
        };
        let bytes = match read_bounded(&path, MAX_MANIFEST_BYTES) {
            Ok(b) => b,
            Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(ReadError::Io(e)) => return Err(io_err(&path)(e)),
            Err(e) => return Err(bad(e.to_string())),
        };
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let c = &m.config;
        let len = crate::settings::schedule_len(c.format, c.bots.len(), u64::from(c.games));
        if len > u128::from(crate::settings::MAX_GAMES) || len != u128::from(m.total_games) {
            return Err(bad(format!(
                "its config has {len} games, it says {}",
                m.total_games
            )));
        }
        let champion_ok = match c.format {
            FormatKind::Gauntlet => c
                .champion
                .as_ref()
                .is_some_and(|ch| c.bots.iter().any(|b| &b.name == ch)),
            FormatKind::Match => c.bots.len() == 2,
            FormatKind::RoundRobin => true,
        };
        if !champion_ok || c.bots.len() < 2 {
            return Err(bad("its config is not one arena writes".into()));
        }
        if let Some(f) = m.files.iter().find(|f| !plain_name(f)) {
            return Err(bad(format!(
                "file `{}` is not a name in the directory",
                escape(f)
            )));
        }
        Ok(Some(m))
    }

    /// Writes the manifest into `dir` atomically, so that a crash leaves the
    /// old one or the new.
    pub fn write(&self, dir: &Path) -> Result<(), StoreError> {
        let mut text = serde_json::to_string_pretty(self).expect("manifest serializes");
        text.push('\n');
        write_atomic(dir, MANIFEST, text.as_bytes())
    }

    /// `` `name` seed S [shard K/N] ``, for messages.
    pub fn describe(&self) -> String {
        match self.shard {
            Some(s) => format!("`{}` seed {} shard {s}", self.name, self.seed),
            None => format!("`{}` seed {}", self.name, self.seed),
        }
    }
}

/// A name directly in the directory (`logs/` for a directory): no path.
fn plain_name(f: &str) -> bool {
    let name = f.strip_suffix('/').unwrap_or(f);
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// Whether `dir` holds any name a run writes (other than the lock): a
/// directory with such files but no manifest is not arena's to write into.
pub fn holds_run_files(dir: &Path) -> Option<String> {
    run_files()
        .into_iter()
        .map(|f| f.trim_end_matches('/').to_string())
        .find(|f| fs::symlink_metadata(dir.join(f)).is_ok())
}

/// Removes what the run whose manifest is `m` wrote in `dir`: the files it
/// lists (the manifest last, so that an interrupted removal can be redone),
/// their temporary files, and in `logs/` the files named as arena names
/// logs (the directory too once empty). Nothing else is touched.
pub fn remove_run(dir: &Path, m: &Manifest) -> Result<(), StoreError> {
    let remove = |p: &Path| match fs::remove_file(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(p)(e)),
    };
    let mut files: Vec<&String> = m.files.iter().filter(|f| *f != MANIFEST).collect();
    if m.files.iter().any(|f| f == MANIFEST) {
        files.push(&m.files[m.files.iter().position(|f| f == MANIFEST).expect("found")]);
    }
    for f in files {
        if !plain_name(f) {
            continue;
        }
        if let Some(sub) = f.strip_suffix('/') {
            let logs = dir.join(sub);
            let entries = match fs::read_dir(&logs) {
                Ok(e) => e,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(&logs)(e)),
            };
            for entry in entries {
                let entry = entry.map_err(io_err(&logs))?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let ours = if sub == super::REPLAYS {
                    super::replay_block_of(&name).is_some()
                } else {
                    is_log_name(&name)
                };
                if ours {
                    remove(&entry.path())?;
                }
            }
            // Left in place if anything else is in it.
            let _ = fs::remove_dir(&logs);
        } else {
            remove(&dir.join(format!(".{f}.tmp")))?;
            remove(&dir.join(f))?;
        }
    }
    sync_dir(dir)
}

/// What a run's games hold, counted (by `run/distinct.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distinct {
    /// Different openings (the moves the referee played first; the initial
    /// position counts as one).
    pub openings: u64,
    /// Games counted.
    pub games: u64,
    /// Games that differ from every other in opening, seats or moves.
    pub distinct_games: u64,
    /// Pairs (games sharing a pair id; a single game of an odd `games` is a
    /// pair of one).
    pub pairs: u64,
    /// Pairs that differ from every other pair in a game of theirs.
    pub distinct_pairs: u64,
}

/// One sitting of a run: an invocation that played some of its games
/// (begun and ended by `run/conditions.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sitting {
    /// When it began (UTC, RFC 3339).
    pub started: String,
    /// When it ended (UTC, RFC 3339); none: it is going on, or was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// How it ended when not complete (`interrupted`, a bot that died...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The machine's hostname.
    pub host: String,
    /// The CPU model and how many CPUs arena may use.
    pub cpu: String,
    /// The OS and kernel release.
    pub os: String,
    /// The `arena` version of the sitting.
    pub arena_version: String,
    /// `git describe` of arena's source at build time ("unknown" outside a
    /// checkout).
    pub arena_commit: String,
    /// Per bot, the files its command names, hashed.
    pub bots: Vec<BotFiles>,
}

/// The program files of one bot's command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotFiles {
    /// The bot's name in the config.
    pub name: String,
    /// Its program files, hashed.
    pub files: Vec<FileHash>,
}

/// A file and its sha256 (hex), or why it could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    /// The file, as found on PATH or in the bot's working directory.
    pub path: String,
    /// Its sha256 (hex), or `unreadable: ...` when it could not be read.
    pub sha256: String,
}
