//! `ladder.toml`: the ladder's game, time control, openings and limits.
//!
//! The keys a tournament config also has (`game`, `[params]`,
//! `[time_control]`, `clock`, `openings`, `[defaults.limits]`) mean the same and
//! are validated by the same code (`arena::run::config::game_section`);
//! the ladder's own tables are `[build]`, `[check]`,
//! `[uploads]`, `[matchmaking]`, `[leases]` and `[retention]`. Every error
//! is `file: key: reason`. Without a file the ladder plays Dakon at 100 ms
//! a move on its shipped openings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arena::process::LimitSettings;
use arena::run::config::{game_section, ConfigError, GameSection};
use arena_core::record::Clock;
use serde::Deserialize;

/// The ladder config, validated.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// Where it came from (`(built-in)` without a file).
    pub file: PathBuf,
    /// Game, parameters, time control, openings.
    pub game: GameSection,
    /// Seed of the openings' order and the games' seeds.
    pub seed: u64,
    /// `[defaults.limits]`: every bot's limits (the keys of a tournament's
    /// `[bots.limits]`), which its `arena-bot.toml` may lower, never raise.
    pub limits: LimitSettings,
    /// `[build]`.
    pub build: BuildLimits,
    /// `[check]`.
    pub check: CheckSettings,
    /// `[uploads]`.
    pub uploads: UploadLimits,
    /// `[matchmaking]`.
    pub matchmaking: Matchmaking,
    /// `[leases] seconds`: how long a lease lives without a heartbeat.
    pub lease_seconds: i64,
    /// `[leases] scale_to_playouts`: a remote worker's time control is
    /// scaled by this speed over its own (random playouts of the game per
    /// second, as its benchmark reports), fishtest's practice; `None`
    /// (the default): every worker plays the ladder's time control.
    pub scale_to_playouts: Option<f64>,
    /// `[retention] keep_records`: records kept for the newest this many
    /// games (results are always kept); `None`: all.
    pub keep_records: Option<i64>,
}

/// How a version's build is bounded (also sent to remote workers).
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct BuildLimits {
    /// Wall-clock seconds.
    pub seconds: u64,
    /// Resident memory of the build's processes, MB.
    pub memory_mb: u64,
    /// What it may add to its directory, MB.
    pub disk_mb: u64,
}

impl Default for BuildLimits {
    fn default() -> Self {
        BuildLimits {
            seconds: 300,
            memory_mb: 2048,
            disk_mb: 512,
        }
    }
}

/// How a version is checked (arena check-bot on the ladder's game).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CheckSettings {
    /// Full games against the checker's random mover.
    pub games: u64,
    /// Time per decision during the check, ms.
    pub movetime_ms: u64,
    /// Time to answer `ready`, ms.
    pub startup_ms: u64,
}

impl Default for CheckSettings {
    fn default() -> Self {
        CheckSettings {
            games: 2,
            movetime_ms: 1000,
            startup_ms: 10_000,
        }
    }
}

/// How an uploaded archive is bounded.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct UploadLimits {
    /// The request body (the archive as sent), bytes.
    pub max_compressed_bytes: u64,
    /// All files unpacked, bytes.
    pub max_unpacked_bytes: u64,
    /// Files and directories in it.
    pub max_files: u64,
    /// The longest path inside it, bytes.
    pub max_path: usize,
}

impl Default for UploadLimits {
    fn default() -> Self {
        UploadLimits {
            max_compressed_bytes: 8 << 20,
            max_unpacked_bytes: 64 << 20,
            max_files: 2000,
            max_path: 200,
        }
    }
}

/// The scheduler's knobs (the policy itself is `matchmaking.rs`'s).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Matchmaking {
    /// A version is provisional, and plays first, until it has this many games.
    pub provisional_games: u64,
    /// Games (queued or playing) one version may have at once.
    pub max_concurrent_per_bot: u32,
    /// Games the scheduler keeps queued ahead of the workers.
    pub queue: u64,
    /// Games per Glicko-2 rating period.
    pub period_games: u64,
}

impl Default for Matchmaking {
    fn default() -> Self {
        Matchmaking {
            provisional_games: 20,
            max_concurrent_per_bot: 4,
            queue: 16,
            period_games: 50,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    game: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    time_control: toml::Value,
    clock: Option<Clock>,
    openings: Option<toml::Value>,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    defaults: RawDefaults,
    #[serde(default)]
    build: BuildLimits,
    #[serde(default)]
    check: CheckSettings,
    #[serde(default)]
    uploads: UploadLimits,
    #[serde(default)]
    matchmaking: Matchmaking,
    #[serde(default)]
    leases: RawLeases,
    #[serde(default)]
    retention: RawRetention,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    #[serde(default)]
    limits: LimitSettings,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLeases {
    #[serde(default = "default_lease_seconds")]
    seconds: i64,
    #[serde(default)]
    scale_to_playouts: Option<f64>,
}

fn default_lease_seconds() -> i64 {
    60
}

impl Default for RawLeases {
    fn default() -> Self {
        RawLeases {
            seconds: default_lease_seconds(),
            scale_to_playouts: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRetention {
    keep_records: Option<i64>,
}

/// The config used without `--config`.
pub const DEFAULT_CONFIG: &str = r#"game = "dakon"
[time_control]
movetime_ms = 100
[defaults.limits]
memory_mb = 512
processes = 64
"#;

impl LadderConfig {
    /// Reads and validates `path`, or the built-in config for `None`.
    pub fn load(path: Option<&Path>) -> Result<LadderConfig, ConfigError> {
        match path {
            None => Self::parse(Path::new("(built-in ladder.toml)"), DEFAULT_CONFIG),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| ConfigError {
                    file: p.to_path_buf(),
                    key: "(file)".into(),
                    reason: e.to_string(),
                })?;
                Self::parse(p, &text)
            }
        }
    }

    /// Parses and validates config text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<LadderConfig, ConfigError> {
        let err = |key: &str, reason: String| ConfigError {
            file: path.to_path_buf(),
            key: key.to_string(),
            reason,
        };
        let de = toml::Deserializer::parse(text).map_err(|e| err("(file)", e.to_string()))?;
        let raw: Raw = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { "(file)".into() } else { key };
            err(&key, e.into_inner().message().trim().to_string())
        })?;
        let game = game_section(
            path,
            &raw.game,
            &raw.params,
            raw.time_control,
            raw.clock,
            raw.openings.as_ref(),
        )?;
        raw.defaults
            .limits
            .resources()
            .map_err(|e| err("defaults.limits", e.to_string()))?;
        for (key, value) in [
            ("build.seconds", raw.build.seconds),
            ("build.memory_mb", raw.build.memory_mb),
            ("build.disk_mb", raw.build.disk_mb),
            ("check.movetime_ms", raw.check.movetime_ms),
            ("check.startup_ms", raw.check.startup_ms),
            (
                "uploads.max_compressed_bytes",
                raw.uploads.max_compressed_bytes,
            ),
            ("uploads.max_unpacked_bytes", raw.uploads.max_unpacked_bytes),
            ("uploads.max_files", raw.uploads.max_files),
            ("uploads.max_path", raw.uploads.max_path as u64),
            (
                "matchmaking.max_concurrent_per_bot",
                u64::from(raw.matchmaking.max_concurrent_per_bot),
            ),
            ("matchmaking.queue", raw.matchmaking.queue),
            ("matchmaking.period_games", raw.matchmaking.period_games),
        ] {
            if value == 0 {
                return Err(err(key, "must be at least 1".into()));
            }
        }
        if raw.leases.seconds < 5 {
            return Err(err(
                "leases.seconds",
                format!(
                    "must be at least 5 (a heartbeat comes every third of it); got {}",
                    raw.leases.seconds
                ),
            ));
        }
        if let Some(p) = raw.leases.scale_to_playouts {
            if !(p.is_finite() && p > 0.0) {
                return Err(err(
                    "leases.scale_to_playouts",
                    format!("must be a positive number of playouts per second; got {p}"),
                ));
            }
        }
        if let Some(k) = raw.retention.keep_records {
            if k < 0 {
                return Err(err(
                    "retention.keep_records",
                    format!("must be 0 or more; got {k}"),
                ));
            }
        }
        Ok(LadderConfig {
            file: path.to_path_buf(),
            game,
            seed: raw.seed,
            limits: raw.defaults.limits,
            build: raw.build,
            check: raw.check,
            uploads: raw.uploads,
            matchmaking: raw.matchmaking,
            lease_seconds: raw.leases.seconds,
            scale_to_playouts: raw.leases.scale_to_playouts,
            keep_records: raw.retention.keep_records,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LadderConfig, String> {
        LadderConfig::parse(Path::new("ladder.toml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn the_built_in_config_is_valid() {
        let c = LadderConfig::load(None).unwrap();
        assert_eq!(c.game.game, "dakon");
        assert_eq!(c.game.time_control.movetime_ms, Some(100));
        assert!(c.game.openings.is_some(), "the shipped suite by default");
    }

    #[test]
    fn errors_name_file_key_and_reason() {
        let base = "game = \"dakon\"\n[time_control]\nmovetime_ms = 10\n";
        assert!(
            parse("game = \"chess\"\n[time_control]\nmovetime_ms = 10\n")
                .unwrap_err()
                .starts_with("ladder.toml: game: ")
        );
        let e = parse(&format!("{base}[uploads]\nmax_files = 0\n")).unwrap_err();
        assert_eq!(e, "ladder.toml: uploads.max_files: must be at least 1");
        let e = parse(&format!("{base}[matchmaking]\nbogus = 1\n")).unwrap_err();
        assert!(e.starts_with("ladder.toml: matchmaking"), "{e}");
        assert!(e.contains("unknown field `bogus`"), "{e}");
        let e = parse("game = \"dakon\"\n[time_control]\nmovetime_ms = 0\n").unwrap_err();
        assert_eq!(
            e,
            "ladder.toml: time_control.movetime_ms: must be at least 1"
        );
        let e = parse(&format!("{base}[defaults.limits]\nmemory_mb = 0\n")).unwrap_err();
        assert!(
            e.starts_with("ladder.toml: defaults.limits: memory_mb"),
            "{e}"
        );
        let e = parse(&format!("{base}[params]\npits = 99\n")).unwrap_err();
        assert!(e.starts_with("ladder.toml: params.pits: "), "{e}");
    }
}
