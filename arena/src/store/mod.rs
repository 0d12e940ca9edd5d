//! The run directory (`reports/<name>/`, a shard's directory, `arena match
//! --out`): what is in it, who may write it, and the one reader and writer
//! of its records.
//!
//! Only arena writes a run directory: it is created (or made) mode 0700 and
//! owned by the user running arena, its files are created 0600 without
//! following symbolic links, and its manifest lists every name arena writes
//! there, so that `--overwrite` removes exactly those. Files in it:
//! - `tournament.json`: the [`Manifest`] (config fingerprint, seed, shard,
//!   status, the files, the normalized config) that `--resume` and `arena
//!   merge` check;
//! - `journal.jsonl`: every finished game that is not yet in `games.jsonl`,
//!   one JSON line each, appended and fsynced as soon as the game ends (a
//!   torn last line after a crash is discarded on resume); removed once the
//!   run is complete;
//! - `games.jsonl`, `games.csv`: the finished games in schedule order; they
//!   grow by the completed prefix of the schedule and are fsynced as they grow;
//! - `logs/`: the bots' stderr, one file per game and seat;
//! - the report files (`ratings.csv`, `crosstable.csv`, `los.csv`,
//!   `index.html`, and `replays/`, the replay blocks the page loads);
//! - `.arena.lock`, held (flock) by the process running in the directory.
//!
//! This module is also the one reader of the files people hand to arena
//! (`games.jsonl` and `games.csv` for `show`, `report` and `ratings`, a
//! `ratings.csv` for `report`): every file of a run is read and written
//! here.
//!
//! In parts, each importing nothing above the store (it stores what it is
//! given; `arena/tests/layers.rs` checks):
//! - `files`: private directories, files created 0600, atomic writes,
//!   bounded reads of what users hand to arena;
//! - `records`: the one reader of records and games files (`games.jsonl`,
//!   a results CSV, `ratings.csv`) and the writer of `games.*`;
//! - `journal`: the writer of a run's records (journal first, `games.*` as
//!   the schedule's completed prefix grows), in an order and with stops a
//!   [`Plan`] of the run gives it;
//! - `manifest`: `tournament.json` and what it lists (`--overwrite`);
//! - `logs`: the bots' stderr logs of a run;
//! - `lock`: the lock of a run directory.
//!
//! What a run checks against its records (resume, merge) and what may stop
//! it early are the run's (`run/resume.rs`, `run/stop.rs`).

mod files;
mod journal;
mod lock;
mod logs;
mod manifest;
mod records;

pub use files::*;
pub use journal::*;
pub use lock::*;
pub use logs::*;
pub use manifest::*;
pub use records::*;

use std::io;
use std::path::{Path, PathBuf};

/// The run's manifest ([`Manifest`]): what `--resume`, `--overwrite` and `arena
/// merge` check first.
pub const MANIFEST: &str = "tournament.json";
/// Finished games not yet in `games.jsonl`, fsynced one by one so that a crash
/// loses none.
pub const JOURNAL: &str = "journal.jsonl";
/// The run's finished games as full records, in schedule order.
pub const GAMES_JSONL: &str = "games.jsonl";
/// The same games as CSV rows, for spreadsheets and other tools.
pub const GAMES_CSV: &str = "games.csv";
/// The bots' stderr logs.
pub const LOGS: &str = "logs";
/// The ratings (`arena ratings`, the end of a run).
pub const RATINGS: &str = "ratings.csv";
/// Head-to-head results of every pair.
pub const CROSSTABLE: &str = "crosstable.csv";
/// Likelihood of superiority of every bot over every other.
pub const LOS: &str = "los.csv";
/// A gauntlet's sequential tests, one per challenger (config `sprt`).
pub const SPRT_CSV: &str = "sprt.csv";
/// The HTML report.
pub const INDEX_HTML: &str = "index.html";
/// Held (flock) by the process running in a directory.
pub const LOCK: &str = ".arena.lock";
/// Where runs go unless told (`--out`): `reports/NAME`, relative to where
/// arena runs.
pub const REPORTS: &str = "reports";

/// The directory of the run named `name` unless told: `reports/NAME`.
pub fn default_run_dir(name: &str) -> PathBuf {
    Path::new(REPORTS).join(name)
}

/// The name of shard `k` of `n` in its run's directory, `shard-K-of-N`
/// (`k` may be a placeholder: `K`, or a script's variable).
pub fn shard_dir_name(k: impl std::fmt::Display, n: u64) -> String {
    format!("shard-{k}-of-{n}")
}

/// The report's replay blocks (`replays/block-NNNNN.js`, which
/// `report/html.rs` writes): named here with every other name of a run
/// directory, so that `--overwrite` knows them.
pub const REPLAYS: &str = "replays";

/// The name of replay block `block` in [`REPLAYS`].
pub fn replay_block(block: u64) -> String {
    format!("block-{block:05}.js")
}

/// The block number in `name`, if it is a name [`replay_block`] gives.
pub fn replay_block_of(name: &str) -> Option<u64> {
    let n = name.strip_prefix("block-")?.strip_suffix(".js")?;
    (n.len() >= 5 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The largest manifest arena reads (it holds a normalized config, itself
/// from a config of at most 1 MiB).
pub const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// Every name arena writes in a run directory (`logs/`: the directory of
/// stderr logs; `replays/`: the report's replay blocks). Recorded in each manifest; `--overwrite` removes these and
/// nothing else.
pub fn run_files() -> Vec<String> {
    [
        MANIFEST,
        JOURNAL,
        GAMES_JSONL,
        GAMES_CSV,
        RATINGS,
        CROSSTABLE,
        LOS,
        SPRT_CSV,
        INDEX_HTML,
        "logs/",
        "replays/",
    ]
    .map(String::from)
    .to_vec()
}

/// Why the store refused a run directory or a file, or could not read or write
/// one.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// A symbolic link where arena would make or use a directory of a run.
    #[error("{} is a symbolic link; arena writes only into directories it made", path.display())]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// Something other than a directory where a run's directory should be.
    #[error("{} is not a directory", path.display())]
    NotADirectory {
        /// What is there instead.
        path: PathBuf,
    },
    /// A directory of another user: its owner could forge results into it.
    #[error("{} belongs to uid {owner}, not to uid {me} running arena: whoever owns it could change the results; choose another --out (or chown it)", path.display())]
    NotOurs {
        /// The directory.
        path: PathBuf,
        /// Its owner's uid.
        owner: u32,
        /// The uid running arena.
        me: u32,
    },
    /// A file arena reads that is not a regular file, or too big.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        source: ReadError,
    },
    /// Another process holds the directory's lock.
    #[error("another arena is running in {} (it holds {}); wait for it to finish or stop it first", dir.display(), lock.display())]
    Locked {
        /// The run directory.
        dir: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// A `tournament.json` that is not a manifest arena writes.
    #[error("{}: not a run manifest ({why})", path.display())]
    NotAManifest {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A `ratings.csv` that does not parse.
    #[error("{}: {message}", path.display())]
    BadRatings {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A line of a games file that is not a game record.
    #[error("{}:{line}: not a game record: {message}", path.display())]
    BadRecord {
        /// The games file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// Wraps an I/O error on `path` as [`StoreError::Io`], for `map_err`.
pub fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}
