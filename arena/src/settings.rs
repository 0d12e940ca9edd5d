//! The resolved settings of a run: what a tournament config (or `arena
//! match`'s options) normalizes to, what a run's manifest keeps, and what
//! its fingerprint hashes. Data only: reading and checking a config is
//! `run/config.rs`'s, scheduling from these settings `run/schedule.rs`'s.
//!
//! Below the store and the run (both name it), above the referee and the
//! processes (whose time controls, limits and sandboxes it holds).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::process::{LimitSettings, Sandbox};
use crate::referee::{Adjudication, TimeControl};
use arena_core::protocol::Budget;

/// The tournament format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FormatKind {
    /// Every bot plays every other bot `games` times.
    #[default]
    RoundRobin,
    /// The `champion` plays every other bot `games` times; the others do not meet.
    Gauntlet,
    /// `arena match`: two bots, the first in seat 0 of even games (not for configs).
    Match,
}

impl fmt::Display for FormatKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormatKind::RoundRobin => "round-robin",
            FormatKind::Gauntlet => "gauntlet",
            FormatKind::Match => "match",
        })
    }
}

/// What identifies a tournament's results: everything that changes which
/// games are played or how (not concurrency, not where outputs go, not how
/// bots are built). Stored in each run's manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normalized {
    /// The tournament's name.
    pub name: String,
    /// The game's registry name.
    pub game: String,
    /// Game parameters, every one in the game's canonical order with defaults
    /// filled in, so that spelling them out or not gives the same fingerprint.
    pub params: Vec<(String, String)>,
    /// Round robin, gauntlet or match: which bots meet.
    pub format: FormatKind,
    /// A gauntlet's champion, by name.
    pub champion: Option<String>,
    /// A gauntlet's `sprt` ([`crate::run::config::Config::sprt`]): which games are played
    /// depends on it. Left out without one, so configs without it keep
    /// their fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
    /// Games per pairing.
    pub games: u32,
    /// The seed every game's seed derives from: the same seed, the same games.
    pub seed: u64,
    /// Random plies each pair opens with (0 with a suite, or none).
    pub random_opening_plies: u32,
    /// The opening suite and its lines (left out without one, so configs
    /// without a suite keep their fingerprint; with one, the fingerprint
    /// changes when any line, the order or the start does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<SuiteSpec>,
    /// Left out when off, so configs without it keep their fingerprint.
    #[serde(default, skip_serializing_if = "is_default")]
    pub ponder: bool,
    /// Score adjudication (`resign`, `draw`): left out when unset, so
    /// configs without it keep their fingerprint.
    #[serde(default, skip_serializing_if = "is_default")]
    pub adjudication: Adjudication,
    /// Each bot's clock, unless it has its own.
    pub time_control: TimeControl,
    /// The bots, in config order: a job's seats index this.
    pub bots: Vec<NormalizedBot>,
}

/// One bot as it bears on the results: its name, what runs and how (not how it
/// is built).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NormalizedBot {
    /// The bot's name in records and standings.
    pub name: String,
    /// The program and its arguments, as written in the config.
    pub command: Vec<String>,
    /// The working directory as written in the config, so that the same config
    /// moved elsewhere keeps its fingerprint.
    pub cwd: String,
    /// The environment variables the bot gets beside the few arena always
    /// sets (it inherits none of arena's).
    pub env: BTreeMap<String, String>,
    /// Left out when unset, so configs without limits keep their fingerprint.
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: LimitSettings,
    /// How the bot is isolated; left out when `auto`, so configs without it
    /// keep their fingerprint.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sandbox: Sandbox,
    /// `keep_bots`: a well-behaved bot plays the same with or without it,
    /// but a bot that carries state from game to game does not.
    #[serde(default, skip_serializing_if = "is_default")]
    pub keep: bool,
    /// Its search budget: other budgets, other games.
    #[serde(default, skip_serializing_if = "is_default")]
    pub budget: Budget,
    /// Its own time control (time odds); left out when it has none, so
    /// configs without one keep their fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Normalized {
    /// A stable 64-bit FNV-1a hash of the canonical JSON, as 16 hex digits.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_string(self).expect("config serializes");
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in json.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

/// The order in which a suite's openings are dealt to the pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// A permutation drawn from the run's seed; a fresh one each time the
    /// suite runs out.
    #[default]
    Random,
    /// Line after line from `start`, wrapping around.
    Sequential,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Random => "random",
            Order::Sequential => "sequential",
        })
    }
}

/// The suite a run plays, as its manifest keeps it: the openings themselves
/// (so that resume and merge rebuild the same schedule from the manifest
/// alone, and the config's fingerprint changes when a line does).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteSpec {
    /// Where the suite came from, as the config or command line named it
    /// (`builtin:NAME` for a shipped suite used by default).
    pub file: String,
    /// The order in which the openings are dealt to the pairs.
    pub order: Order,
    /// The first opening dealt, counting from 1 (in the dealing order).
    pub start: u32,
    /// Each opening's moves, space separated, in file order.
    pub lines: Vec<String>,
}

/// The most games one schedule may hold. A config (or `arena match
/// --games`) asking for more is refused before anything is allocated: each
/// scheduled game costs some 60 bytes in memory before it is played.
pub const MAX_GAMES: u64 = 10_000_000;

/// How many games a schedule of `format` has (wide enough for any config).
pub fn schedule_len(format: FormatKind, n_bots: usize, games: u64) -> u128 {
    let n = n_bots as u128;
    let pairings = match format {
        FormatKind::RoundRobin => n * n.saturating_sub(1) / 2,
        FormatKind::Gauntlet => n.saturating_sub(1),
        FormatKind::Match => 1,
    };
    pairings * u128::from(games)
}

/// `K/N`: the K-th of N shards (K counts from 1). A shard plays the games
/// whose pair id is `K-1` modulo `N`, so seat-swapped pairs stay together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub k: u64,
    /// How many shards.
    pub n: u64,
}

impl Shard {
    /// Which shard (1-based) of `n` plays pair `pair`.
    pub fn of_pair(&self, pair: u64) -> u64 {
        pair % self.n + 1
    }
}

/// `--shard` text that is not K/N with 1 <= K <= N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not K/N with 1 <= K <= N (e.g. 2/3)")]
pub struct ShardError(pub String);

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Self, ShardError> {
        let bad = || ShardError(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}
