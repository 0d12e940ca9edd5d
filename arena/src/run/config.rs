//! Tournament configs (`tournaments/<name>.toml`): parsing and validation.
//!
//! Everything a user can get wrong is checked here, before any game runs, and
//! reported as `file: key: reason` (e.g. `tournaments/x.toml: bots[2].command:
//! must be a non-empty list`). Paths in a config are relative to the config
//! file's directory: a bot's `cwd` (default: that directory), and its
//! `command[0]` when it contains a `/` (relative to the bot's `cwd`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::process::{LimitSettings, ResolvedSandbox, Sandbox};
use crate::rating::RatingOptions;
use crate::referee::{Adjudication, TimeControl};
use crate::run::settings as funnel;
pub use crate::run::settings::{executable_problem, resolve_executable};
use crate::settings::{FormatKind, Normalized, NormalizedBot};
use arena_core::protocol::Budget;
use arena_core::record::Clock;

/// The largest config file arena reads.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A user's mistake in a config: which file, which key, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {key}: {reason}", file.display())]
pub struct ConfigError {
    /// The config file.
    pub file: PathBuf,
    /// Dotted key path, e.g. `bots[2].command`; `(file)` for the file as a whole.
    pub key: String,
    /// What is wrong, in words for the user.
    pub reason: String,
}

/// The config file as written (after TOML parsing, before validation).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    name: Option<String>,
    game: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    #[serde(default)]
    adjudication: BTreeMap<String, toml::Value>,
    #[serde(default)]
    format: FormatKind,
    #[serde(default = "default_games")]
    games: u32,
    champion: Option<String>,
    /// A gauntlet's `sprt = { elo0, elo1, alpha, beta }`: one test per
    /// challenger (see [`sprt_of`]).
    sprt: Option<toml::Value>,
    seed: u64,
    concurrency: Option<usize>,
    /// The old spelling of `openings = { plies = K }`.
    random_opening_plies: Option<u32>,
    /// `"none"`, `{ plies = K }` or `{ file = "...", order = "random", start = 1 }`
    /// (see [`openings_choice`]); absent: the variant's default.
    openings: Option<toml::Value>,
    /// The default of every bot's `keep_bots`.
    #[serde(default)]
    keep_bots: bool,
    /// The default of every bot's `interpreters`.
    #[serde(default)]
    interpreters: Vec<PathBuf>,
    #[serde(default)]
    ponder: bool,
    /// `stop` (default): a bot that cannot start stops the run before its
    /// first game; `forfeit`: it loses its games instead.
    #[serde(default)]
    on_bot_failure: OnBotFailure,
    /// Compact records: the state after every this-many plies (and the last).
    record_states: Option<u32>,
    /// Keep each game's conversation with each bot in `logs/`.
    #[serde(default)]
    transcript: bool,
    time_control: RawTimeControl,
    /// `clock = "cpu"`: the same as `[time_control] clock`.
    clock: Option<Clock>,
    /// The ratings' scale: a number (the main group's mean), `"BOT"` or
    /// `"BOT=ELO"`, as `arena ratings --anchor`.
    anchor: Option<toml::Value>,
    /// The level of every interval of the ratings (default 0.95).
    confidence: Option<f64>,
    /// `[defaults]`: merged into every bot before this is read (see
    /// [`merge_defaults`]); here only so that it is not an unknown key.
    #[serde(default)]
    #[allow(dead_code)]
    defaults: Option<toml::Value>,
    bots: Vec<RawBot>,
}

/// The keys of `[defaults]`: what every bot inherits unless it sets its own
/// (the tables `env`, `limits` and `budget` key by key; the others whole).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read to check the table; the values reach the bots
struct RawDefaults {
    cwd: Option<String>,
    env: Option<BTreeMap<String, String>>,
    limits: Option<LimitSettings>,
    sandbox: Option<Sandbox>,
    keep_bots: Option<bool>,
    budget: Option<Budget>,
    interpreters: Option<Vec<PathBuf>>,
    time_control: Option<RawTimeControl>,
}

/// Bot tables `[defaults]` merges into key by key; any other key a bot
/// gives replaces the default whole.
const MERGED_TABLES: [&str; 3] = ["env", "limits", "budget"];

/// Gives every `[[bots]]` table the keys of `[defaults]` it does not set
/// itself (and of `env`, `limits`, `budget` the keys it does not set).
fn merge_defaults(table: &mut toml::Table) {
    let Some(toml::Value::Table(defaults)) = table.get("defaults").cloned() else {
        return;
    };
    let Some(toml::Value::Array(bots)) = table.get_mut("bots") else {
        return;
    };
    for bot in bots.iter_mut() {
        let toml::Value::Table(bot) = bot else {
            continue;
        };
        for (key, value) in &defaults {
            match (bot.get_mut(key), value) {
                (None, v) => {
                    bot.insert(key.clone(), v.clone());
                }
                (Some(toml::Value::Table(own)), toml::Value::Table(inherited))
                    if MERGED_TABLES.contains(&key.as_str()) =>
                {
                    for (k, v) in inherited {
                        own.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                (Some(_), _) => {}
            }
        }
    }
}

fn default_games() -> u32 {
    2
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimeControl {
    movetime_ms: Option<u64>,
    time_ms: Option<u64>,
    inc_ms: Option<u64>,
    /// `"60+0.6"`: the game clock and increment in seconds (instead of
    /// `time_ms` and `inc_ms`).
    tc: Option<toml::Value>,
    /// Seconds per move (instead of `movetime_ms`).
    st: Option<toml::Value>,
    #[serde(default = "default_margin")]
    margin_ms: u64,
    /// `wall` (default) or `cpu`.
    clock: Option<Clock>,
    /// The cpu clock's wall-time ceiling per decision.
    ceiling_ms: Option<u64>,
}

fn default_margin() -> u64 {
    50
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBot {
    name: String,
    command: Vec<String>,
    cwd: Option<String>,
    /// A command, or a table (`RawBuildTable`).
    build: Option<toml::Value>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    limits: LimitSettings,
    #[serde(default)]
    sandbox: Sandbox,
    keep_bots: Option<bool>,
    /// `budget = { nodes = N, playouts = N, depth = N }`, sent in `go`.
    #[serde(default)]
    budget: Budget,
    interpreters: Option<Vec<PathBuf>>,
    /// Its own time control (time odds), replacing `[time_control]` for it.
    time_control: Option<RawTimeControl>,
}

/// `build = { command = [...], sandbox = "none", ... }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuildTable {
    command: Vec<String>,
    sandbox: Option<Sandbox>,
    network: Option<bool>,
    seconds: Option<u64>,
    memory_mb: Option<u64>,
    disk_mb: Option<u64>,
}

/// A bot's `build`: its command and how it runs. Sandboxed (the default for
/// a sandboxed bot: a build is the bot author's code), it sees what its bot
/// sees plus its program directory, writable, within these limits; with
/// `sandbox = "none"` it is trusted and runs on the host as arena does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildConfig {
    /// The build command, run in the bot's working directory before the run.
    pub command: Vec<String>,
    /// Default: the bot's `sandbox`.
    pub sandbox: Sandbox,
    /// Whether a sandboxed build may use the network (default false).
    pub network: bool,
    /// How long it may run (default 600 s).
    pub seconds: u64,
    /// Resident memory of all its processes (default 4096 MB).
    pub memory_mb: u64,
    /// What it may add to its program directory, and the size of its /tmp
    /// (default 1024 MB).
    pub disk_mb: u64,
}

impl BuildConfig {
    const SECONDS: u64 = 600;
    const MEMORY_MB: u64 = 4096;
    const DISK_MB: u64 = 1024;
}

/// What a bot that cannot be started (or does not answer `ready`) costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnBotFailure {
    /// The run stops before its first game (exit 2), saying why.
    #[default]
    Stop,
    /// The run goes on and the bot loses its games (`crash`, `timeout`).
    Forfeit,
}

impl std::str::FromStr for OnBotFailure {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "stop" => Ok(OnBotFailure::Stop),
            "forfeit" => Ok(OnBotFailure::Forfeit),
            _ => Err(format!("`{s}` is neither stop nor forfeit")),
        }
    }
}

/// One bot, validated. `cwd` is absolute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotConfig {
    /// The bot's name: what records, standings and ratings call it.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The working directory as written in the config (relative to the config's directory).
    pub cwd_as_written: String,
    /// The working directory, resolved.
    #[serde(skip)]
    pub cwd: PathBuf,
    /// Run once (in `cwd`) before the tournament.
    pub build: Option<BuildConfig>,
    /// Environment variables given to the bot.
    pub env: BTreeMap<String, String>,
    /// `[bots.limits]`: operating-system limits (none by default).
    pub limits: LimitSettings,
    /// `sandbox = "auto"` (the default), `"bwrap"` or `"none"`.
    pub sandbox: Sandbox,
    /// Whether its process is kept from one game to the next (`keep_bots`,
    /// per bot or the config's default).
    pub keep: bool,
    /// What it is asked to search in each `go` (equal-compute runs).
    pub budget: Budget,
    /// Where a `#!` line of its program directory's files may name an
    /// interpreter when sandboxed, besides the system directories
    /// (`interpreters`, per bot or the config's default; absolute). Where
    /// interpreters are on this machine, like PATH: not in the fingerprint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interpreters: Vec<PathBuf>,
    /// Its own time control, if it has one (`time_control` per bot or in
    /// `[defaults]`): time odds. `None`: the tournament's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// A gauntlet's `sprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }`
/// (`alpha` and `beta` default to 0.05) as [`crate::rating::SprtParams`]'s
/// text; an error names its key.
fn sprt_of(v: &toml::Value) -> Result<String, (String, String)> {
    let table = v.as_table().ok_or_else(|| {
        (
            "sprt".to_string(),
            "must be a table: sprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05 }"
                .to_string(),
        )
    })?;
    let mut parts = Vec::new();
    for (k, v) in table {
        let x = match v {
            toml::Value::Integer(i) => *i as f64,
            toml::Value::Float(f) => *f,
            _ => return Err((format!("sprt.{k}"), format!("must be a number, not {v}"))),
        };
        parts.push(format!("{k}={x}"));
    }
    let params: crate::rating::SprtParams = parts
        .join(",")
        .parse()
        .map_err(|e: crate::rating::sprt::SprtParamError| ("sprt".to_string(), e.to_string()))?;
    Ok(params.to_string())
}

/// A validated tournament config.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The file it came from.
    pub file: PathBuf,
    /// The tournament's name: its default run directory, `reports/<name>`.
    pub name: String,
    /// The game's registry name.
    pub game: String,
    /// Game parameters (from `params` and `adjudication`), every parameter in
    /// the game's canonical order with defaults filled in.
    pub params: Vec<(String, String)>,
    /// Round robin or gauntlet.
    pub format: FormatKind,
    /// Index into `bots` of the gauntlet's champion.
    pub champion: Option<usize>,
    /// A gauntlet's sequential test, one per challenger against the
    /// champion, as `elo0=..,elo1=..,alpha=..,beta=..`
    /// ([`crate::rating::SprtParams`]'s text).
    pub sprt: Option<String>,
    /// Games per pairing.
    pub games: u32,
    /// The seed every game's seed derives from: the same seed, the same games.
    pub seed: u64,
    /// Games at once; `--concurrency` overrides it, and without either the
    /// number of cores is used.
    pub concurrency: Option<usize>,
    /// Random plies each pair opens with (0 with a suite, or none).
    pub random_opening_plies: u32,
    /// The opening suite, read and checked (`openings`).
    pub openings: Option<crate::settings::SuiteSpec>,
    /// Whether the bot not on move keeps running (off: it is frozen).
    pub ponder: bool,
    /// `[adjudication]`'s `resign` and `draw`: when the bots' agreed
    /// scores end a game.
    pub adjudication: Adjudication,
    /// What a bot that cannot start costs: the run, before its first game
    /// (the default), or its games.
    pub on_bot_failure: OnBotFailure,
    /// Records keep the state after every this-many plies and the last (1:
    /// every ply). How records are written, not which games are played:
    /// not part of the fingerprint.
    pub record_states: u32,
    /// Each game's conversation with each bot, both ways, is kept in
    /// `logs/` (`transcript = true`, `--transcript`). What is kept, not what
    /// is played: not part of the fingerprint.
    pub transcript: bool,
    /// Each bot's clock.
    pub time_control: TimeControl,
    /// The bots, in the config's order: `champion` and the schedule index into
    /// it.
    pub bots: Vec<BotConfig>,
    /// `anchor`: where the ratings' scale sits, (rating, bot) as
    /// [`RatingOptions::parse_anchor`] gives it. How the games are rated,
    /// not which are played: not part of the fingerprint.
    pub anchor: (f64, Option<String>),
    /// `confidence`: the level of every interval of the ratings (0.95 by
    /// default). Not part of the fingerprint either.
    pub confidence: f64,
}

/// Takes `[adjudication]`'s `key` (`resign` or `draw`) out of `table`, if
/// given, read as a table of its rule's keys and checked.
fn adjudication_rule<R: serde::de::DeserializeOwned>(
    table: &mut BTreeMap<String, toml::Value>,
    key: &str,
    check: fn(&R) -> Result<(), String>,
) -> Result<Option<R>, String> {
    let Some(value) = table.remove(key) else {
        return Ok(None);
    };
    let keys = if key == "resign" {
        "movecount and score"
    } else {
        "movenumber (optional), movecount and score"
    };
    if !value.is_table() {
        return Err(format!(
            "must be a table of {keys}, e.g. {}",
            if key == "resign" {
                "{ movecount = 3, score = 600 }"
            } else {
                "{ movenumber = 30, movecount = 8, score = 10 }"
            }
        ));
    }
    let rule: R = value
        .try_into()
        .map_err(|e: toml::de::Error| format!("{} (its keys: {keys})", e.message().trim()))?;
    check(&rule)?;
    Ok(Some(rule))
}

impl Config {
    /// Reads and validates a config file. Bots' executables are checked only
    /// for bots without a `build` command (see [`Config::check_bots`]).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let err = |reason: String| ConfigError {
            file: path.to_path_buf(),
            key: "(file)".into(),
            reason,
        };
        let bytes =
            crate::store::read_bounded(path, MAX_CONFIG_BYTES).map_err(|e| err(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| err(format!("not UTF-8 text: {e}")))?;
        Self::parse(path, &text)
    }

    /// Parses and validates config text; `path` names the file in errors and
    /// anchors relative paths.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let err = |key: &str, reason: String| ConfigError {
            file: path.to_path_buf(),
            key: key.to_string(),
            reason,
        };
        let refused = |r: funnel::Refusal| err(&r.key, r.reason);
        let raw: RawConfig = parse_toml(text).map_err(|(key, reason)| err(&key, reason))?;
        let raw = match &raw.defaults {
            None => raw,
            Some(defaults) => {
                // Checked as written, then merged into each bot's table.
                from_value::<RawDefaults>(defaults.clone())
                    .map_err(|(key, reason)| err(&format!("defaults.{key}"), reason))?;
                let mut table: toml::Table =
                    toml::from_str(text).map_err(|e| err("(file)", toml_reason(&e, text)))?;
                merge_defaults(&mut table);
                from_value::<RawConfig>(toml::Value::Table(table)).map_err(|(key, reason)| {
                    err(&key, format!("{reason} (with what [defaults] gives it)"))
                })?
            }
        };
        let base = path
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    p
                }
            })
            .unwrap_or(Path::new("."));

        let name = match &raw.name {
            Some(n) => n.clone(),
            None => {
                // The user wrote no `name`: the file name gives one, made valid
                // (`spaces config.toml` names `reports/spaces-config/`), so that
                // no error blames a key the file does not hold.
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let derived = name_from_file_stem(&stem);
                if derived.is_empty() {
                    return Err(err(
                        "(file name)",
                        format!("the file name `{stem}` gives no report name (it needs a letter or digit): set `name = \"...\"` in the config"),
                    ));
                }
                derived
            }
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            || name.starts_with('.')
        {
            return Err(err(
                "name",
                format!("`{name}` must be non-empty and use only letters, digits, `-`, `_`, `.` (it names the report directory)"),
            ));
        }

        // Score adjudication: `resign` and `draw` in [adjudication] are
        // the referee's; its other keys are the engine's safeguards.
        let mut safeguards = raw.adjudication.clone();
        let adjudication = Adjudication {
            resign: adjudication_rule(&mut safeguards, "resign", crate::referee::ResignRule::check)
                .map_err(|why| err("adjudication.resign", why))?,
            draw: adjudication_rule(&mut safeguards, "draw", crate::referee::DrawRule::check)
                .map_err(|why| err("adjudication.draw", why))?,
        };

        // Game and parameters: the engine is the judge of what is valid.
        let mut params: Vec<(String, String)> = Vec::new();
        for (table, values) in [("params", &raw.params), ("adjudication", &safeguards)] {
            for (k, v) in values {
                let key = format!("{table}.{k}");
                let text = match v {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    toml::Value::Float(f) => f.to_string(),
                    _ => {
                        return Err(err(
                            &key,
                            "must be a string, integer, float or boolean".into(),
                        ))
                    }
                };
                if params.iter().any(|(p, _)| p == k) {
                    return Err(err(
                        &key,
                        "given in both [params] and [adjudication]".into(),
                    ));
                }
                params.push((k.clone(), text));
            }
        }
        let game = funnel::game(&raw.game, &params, "game", |key| {
            if raw.adjudication.contains_key(key) {
                format!("adjudication.{key}")
            } else {
                format!("params.{key}")
            }
        })
        .map_err(refused)?;
        let params = game.params();

        // Bots.
        if raw.bots.len() < 2 {
            return Err(err(
                "bots",
                format!(
                    "a tournament needs at least 2 bots, found {}",
                    raw.bots.len()
                ),
            ));
        }
        let mut bots = Vec::new();
        let mut names = funnel::BotNames::default();
        for (i, b) in raw.bots.iter().enumerate() {
            let key = |k: &str| format!("bots[{i}].{k}");
            names.add(&b.name, &key("name")).map_err(refused)?;
            if b.command.is_empty() || b.command[0].is_empty() {
                return Err(err(&key("command"), "must be a non-empty list".into()));
            }
            let build = match &b.build {
                None => None,
                Some(value) => Some(
                    build_config(value, b.sandbox)
                        .map_err(|(k, why)| err(&format!("{}{k}", key("build")), why))?,
                ),
            };
            let cwd_as_written = b.cwd.clone().unwrap_or_else(|| ".".into());
            let cwd =
                funnel::directory(&base.join(&cwd_as_written), &key("cwd")).map_err(refused)?;
            funnel::resources(&b.limits, &key("limits")).map_err(refused)?;
            bots.push(BotConfig {
                name: b.name.clone(),
                command: b.command.clone(),
                cwd_as_written,
                cwd,
                build,
                env: b.env.clone(),
                limits: b.limits.clone(),
                sandbox: b.sandbox,
                keep: b.keep_bots.unwrap_or(raw.keep_bots),
                budget: b.budget,
                interpreters: b.interpreters.clone().unwrap_or(raw.interpreters.clone()),
                time_control: None,
            });
            let interpreters = bots.last().map_or(&[][..], |b| &b.interpreters[..]);
            funnel::interpreters(interpreters, &key("interpreters")).map_err(refused)?;
        }

        // Format.
        if raw.format == FormatKind::Match {
            return Err(err(
                "format",
                "`match` is what `arena match` records; a config is round-robin or gauntlet".into(),
            ));
        }
        funnel::games(raw.format, bots.len(), u64::from(raw.games), "games").map_err(refused)?;
        let champion = match (raw.format, &raw.champion) {
            (FormatKind::Gauntlet, None) => return Err(err(
                "champion",
                "format = \"gauntlet\" needs `champion`, the name of the bot that plays all others"
                    .into(),
            )),
            (FormatKind::Gauntlet, Some(c)) => {
                Some(bots.iter().position(|b| &b.name == c).ok_or_else(|| {
                    err(
                        "champion",
                        format!(
                            "`{c}` is not a bot (bots: {})",
                            bots.iter()
                                .map(|b| b.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?)
            }
            (FormatKind::RoundRobin | FormatKind::Match, Some(_)) => {
                return Err(err(
                    "champion",
                    "only meaningful with format = \"gauntlet\"".into(),
                ))
            }
            (FormatKind::RoundRobin | FormatKind::Match, None) => None,
        };
        let sprt = match (&raw.sprt, raw.format) {
            (None, _) => None,
            (Some(v), FormatKind::Gauntlet) => Some(sprt_of(v).map_err(|(k, why)| err(&k, why))?),
            (Some(_), _) => {
                return Err(err(
                    "sprt",
                    "only with format = \"gauntlet\" (one test per challenger against the \
                     champion); for two bots, `arena match --sprt`"
                        .into(),
                ))
            }
        };
        if raw.concurrency == Some(0) {
            return Err(err("concurrency", "must be at least 1".into()));
        }
        let (choice, opening_key) = openings_choice(&raw, base).map_err(|(k, why)| err(&k, why))?;
        if choice != OpeningChoice::Default && choice != OpeningChoice::None && raw.games % 2 == 1 {
            return Err(err(
                "games",
                format!(
                    "must be even with {opening_key} (each opening is played twice, seats swapped); got {}",
                    raw.games
                ),
            ));
        }
        let openings = crate::run::openings::resolve(&choice, &*game)
            .map_err(|e| err(&opening_key, e.to_string()))?;
        let record_states = raw.record_states.unwrap_or(1);
        if record_states == 0 {
            return Err(err(
                "record_states",
                "must be at least 1 (1 keeps the state after every ply)".into(),
            ));
        }

        // Time control: the tournament's, and a bot's own.
        let time_control = time_control_of(&raw.time_control, "time_control", raw.clock)
            .map_err(|(key, reason)| err(&key, reason))?;
        for (i, b) in raw.bots.iter().enumerate() {
            let Some(own) = &b.time_control else { continue };
            let prefix = format!("bots[{i}].time_control");
            let tc = time_control_of(own, &prefix, Some(time_control.clock))
                .map_err(|(key, reason)| err(&key, reason))?;
            bots[i].time_control = Some(tc);
        }

        let anchor = anchor_of(raw.anchor.as_ref(), &bots).map_err(|why| err("anchor", why))?;
        let confidence = RatingOptions::check_confidence(
            raw.confidence.unwrap_or(RatingOptions::DEFAULT_CONFIDENCE),
        )
        .map_err(|why| err("confidence", why))?;

        let config = Config {
            file: path.to_path_buf(),
            name,
            game: raw.game,
            params,
            format: raw.format,
            champion,
            sprt,
            games: raw.games,
            seed: raw.seed,
            concurrency: raw.concurrency,
            random_opening_plies: openings.random_plies,
            openings: openings.suite,
            ponder: raw.ponder,
            adjudication,
            on_bot_failure: raw.on_bot_failure,
            record_states,
            transcript: raw.transcript,
            time_control,
            bots,
            anchor,
            confidence,
        };
        for i in 0..config.bots.len() {
            if config.bots[i].build.is_none() {
                config.check_bot(i)?;
            }
        }
        Ok(config)
    }

    /// The options the run's ratings are computed with: the defaults and
    /// the config's `anchor`.
    pub fn rating_options(&self) -> RatingOptions {
        RatingOptions {
            anchor: self.anchor.0,
            anchor_bot: self.anchor.1.clone(),
            confidence: self.confidence,
            ..RatingOptions::default()
        }
    }

    fn error(&self, key: String, reason: String) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            key,
            reason,
        }
    }

    /// Checks that bot `i`'s executable exists (a path relative to its `cwd`,
    /// or a name found on `PATH`), and that script arguments (ending in
    /// `.py`, `.js`, `.rb`, `.pl`, `.sh`, `.jar`) name existing files.
    pub fn check_bot(&self, i: usize) -> Result<(), ConfigError> {
        let bot = &self.bots[i];
        funnel::command(
            &bot.command,
            &bot.cwd,
            &bot.env,
            &format!("bots[{i}].command"),
        )
        .map_err(|r| self.error(r.key, r.reason))
    }

    /// Checks every bot's executable (after builds have run).
    pub fn check_bots(&self) -> Result<(), ConfigError> {
        (0..self.bots.len()).try_for_each(|i| self.check_bot(i))
    }

    /// The distinct builds, each with the bots that need it, in config order.
    pub fn builds(&self) -> Vec<(PathBuf, BuildConfig, Vec<usize>)> {
        let mut out: Vec<(PathBuf, BuildConfig, Vec<usize>)> = Vec::new();
        for (i, b) in self.bots.iter().enumerate() {
            if let Some(build) = &b.build {
                match out.iter_mut().find(|(d, c, _)| d == &b.cwd && c == build) {
                    Some(entry) => entry.2.push(i),
                    None => out.push((b.cwd.clone(), build.clone(), vec![i])),
                }
            }
        }
        out
    }

    /// Runs every distinct build once (output passed through to stderr),
    /// then checks all bots' executables. A sandboxed build does not see
    /// `hide` (the run directory) even inside its program directory.
    pub fn run_builds(&self, quiet: bool, hide: &[PathBuf]) -> Result<(), ConfigError> {
        for (cwd, build, users) in self.builds() {
            let key = format!("bots[{}].build", users[0]);
            let cmd = &build.command;
            let (sandbox, warning) = crate::process::sandbox::resolve(build.sandbox)
                .map_err(|e| self.error(format!("{key}.sandbox"), e.to_string()))?;
            if let Some(w) = warning {
                eprintln!("arena: warning: build `{}`: {w}", cmd.join(" "));
            }
            if !quiet {
                eprintln!(
                    "build: {} (in {}{})",
                    cmd.join(" "),
                    cwd.display(),
                    if sandbox.is_bwrap() {
                        ", sandboxed"
                    } else {
                        ""
                    }
                );
            }
            if sandbox.is_bwrap() {
                // A sandboxed build writes its program directory: a bot that
                // runs from it, or from a directory in or around it, would
                // run what a stranger's build left there.
                let shared = self.bots.iter().enumerate().find(|(i, b)| {
                    !users.contains(i) && (b.cwd.starts_with(&cwd) || cwd.starts_with(&b.cwd))
                });
                if let Some((_, other)) = shared {
                    return Err(self.error(
                        key,
                        format!(
                            "a sandboxed build writes its program directory {}, and bot `{}` runs \
                             from {}: give each bot a directory of its own (or mark the build \
                             trusted with sandbox = \"none\")",
                            cwd.display(),
                            other.name,
                            other.cwd.display()
                        ),
                    ));
                }
                let bot = &self.bots[users[0]];
                let job = crate::process::build::BuildJob {
                    command: cmd.clone(),
                    dir: cwd.clone(),
                    env: bot.env.clone().into_iter().collect(),
                    network: build.network,
                    time: std::time::Duration::from_secs(build.seconds),
                    memory_bytes: build.memory_mb << 20,
                    dir_growth_bytes: build.disk_mb << 20,
                    tmp_bytes: build.disk_mb << 20,
                    hide: hide.to_vec(),
                };
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| self.error(key.clone(), format!("cannot start: {e}")))?;
                runtime
                    .block_on(crate::process::build::run(&job, !quiet))
                    .map_err(|e| {
                        self.error(key.clone(), format!("sandboxed `{}`: {e}", cmd.join(" ")))
                    })?;
                continue;
            }
            let mut command = std::process::Command::new(&cmd[0]);
            command
                .args(&cmd[1..])
                .current_dir(&cwd)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::from(
                    std::io::stderr()
                        .as_fd()
                        .try_clone_to_owned()
                        .expect("stderr can be duplicated"),
                ));
            if quiet {
                command
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
            }
            let status = command.status().map_err(|e| {
                self.error(key.clone(), format!("cannot run `{}`: {e}", cmd.join(" ")))
            })?;
            if !status.success() {
                return Err(self.error(key, format!("`{}` failed ({status})", cmd.join(" "))));
            }
        }
        self.check_bots()
    }

    /// What each bot's `sandbox` setting means on this machine (`bwrap`
    /// or `none`), and the warnings to give: `auto` without a working
    /// bubblewrap falls back to none; `bwrap` without one is an error.
    pub fn sandboxes(&self) -> Result<(Vec<ResolvedSandbox>, Vec<String>), ConfigError> {
        funnel::sandboxes(
            self.bots
                .iter()
                .enumerate()
                .map(|(i, b)| (format!("bots[{i}].sandbox"), b.sandbox)),
        )
        .map_err(|r| self.error(r.key, r.reason))
    }

    /// The part of the config that identifies its results.
    pub fn normalized(&self) -> Normalized {
        Normalized {
            name: self.name.clone(),
            game: self.game.clone(),
            params: self.params.clone(),
            format: self.format,
            champion: self.champion.map(|c| self.bots[c].name.clone()),
            sprt: self.sprt.clone(),
            games: self.games,
            seed: self.seed,
            random_opening_plies: self.random_opening_plies,
            openings: self.openings.clone(),
            ponder: self.ponder,
            adjudication: self.adjudication,
            time_control: self.time_control,
            bots: self
                .bots
                .iter()
                .map(|b| NormalizedBot {
                    name: b.name.clone(),
                    command: b.command.clone(),
                    cwd: b.cwd_as_written.clone(),
                    env: b.env.clone(),
                    limits: b.limits.clone(),
                    sandbox: b.sandbox,
                    keep: b.keep,
                    budget: b.budget,
                    time_control: b.time_control,
                })
                .collect(),
        }
    }
}

use std::os::fd::AsFd;

use crate::run::openings::OpeningChoice;
use crate::settings::Order;

/// What `openings` (or its old spelling `random_opening_plies`) asks for,
/// and the key to name in errors. A suite's `file` is relative to `base`,
/// the config's directory.
/// Reads `anchor`: a number, or `"BOT"` / `"BOT=ELO"` naming one of `bots`.
fn anchor_of(
    value: Option<&toml::Value>,
    bots: &[BotConfig],
) -> Result<(f64, Option<String>), String> {
    let parsed = match value {
        None => return Ok((RatingOptions::DEFAULT_ANCHOR, None)),
        Some(toml::Value::Integer(x)) => (*x as f64, None),
        Some(toml::Value::Float(x)) if x.is_finite() => (*x, None),
        Some(toml::Value::String(text)) => RatingOptions::parse_anchor(text)?,
        Some(other) => {
            return Err(format!(
                "expected a rating, \"BOT\" or \"BOT=ELO\", got {other}"
            ))
        }
    };
    if let Some(bot) = parsed
        .1
        .as_ref()
        .filter(|b| !bots.iter().any(|x| &x.name == *b))
    {
        return Err(format!(
            "`{bot}` is not a bot (bots: {})",
            bots.iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(parsed)
}

fn openings_choice(
    raw: &RawConfig,
    base: &Path,
) -> Result<(OpeningChoice, String), (String, String)> {
    openings_value_choice(raw.openings.as_ref(), raw.random_opening_plies, base)
}

/// [`openings_choice`] on the two keys themselves (the ladder has no
/// `RawConfig`).
fn openings_value_choice(
    openings: Option<&toml::Value>,
    random_opening_plies: Option<u32>,
    base: &Path,
) -> Result<(OpeningChoice, String), (String, String)> {
    let plies = |k: i64, key: &str| -> Result<OpeningChoice, (String, String)> {
        match u32::try_from(k) {
            Ok(0) => Ok(OpeningChoice::None),
            Ok(k) if k <= 200 => Ok(OpeningChoice::Plies(k)),
            _ => Err((key.to_string(), format!("must be from 0 to 200; got {k}"))),
        }
    };
    let value = match (openings, random_opening_plies) {
        (Some(_), Some(_)) => {
            return Err((
                "random_opening_plies".into(),
                "give the openings once: `openings = { plies = K }` (random_opening_plies is its old spelling), not both".into(),
            ))
        }
        (None, Some(k)) => {
            return Ok((plies(i64::from(k), "random_opening_plies")?, "random_opening_plies".into()))
        }
        (None, None) => return Ok((OpeningChoice::Default, "openings".into())),
        (Some(v), None) => v,
    };
    let usage = "must be \"none\", \"default\", { plies = K } or { file = \"PATH\", order = \"random\" | \"sequential\", start = N }";
    let key = |k: &str| format!("openings.{k}");
    match value {
        toml::Value::String(s) if s == "none" => Ok((OpeningChoice::None, "openings".into())),
        toml::Value::String(s) if s == "default" => Ok((OpeningChoice::Default, "openings".into())),
        toml::Value::Table(t) => {
            if let Some(bad) = t
                .keys()
                .find(|k| !["file", "order", "start", "plies"].contains(&k.as_str()))
            {
                return Err((key(bad), format!("unknown key; openings {usage}")));
            }
            match (t.get("file"), t.get("plies")) {
                (Some(_), Some(_)) => {
                    Err(("openings".into(), "give `file` or `plies`, not both".into()))
                }
                (None, None) => Err(("openings".into(), usage.into())),
                (None, Some(p)) => {
                    if t.len() > 1 {
                        return Err((
                            "openings".into(),
                            "`order` and `start` go with `file`".into(),
                        ));
                    }
                    match p {
                        toml::Value::Integer(k) => Ok((plies(*k, &key("plies"))?, key("plies"))),
                        _ => Err((key("plies"), "must be an integer from 0 to 200".into())),
                    }
                }
                (Some(f), None) => {
                    let toml::Value::String(written) = f else {
                        return Err((
                            key("file"),
                            "must be a path (relative to the config file)".into(),
                        ));
                    };
                    let order = match t.get("order") {
                        None => Order::Random,
                        Some(toml::Value::String(o)) if o == "random" => Order::Random,
                        Some(toml::Value::String(o)) if o == "sequential" => Order::Sequential,
                        Some(_) => {
                            return Err((
                                key("order"),
                                "must be \"random\" or \"sequential\"".into(),
                            ))
                        }
                    };
                    let start = match t.get("start") {
                        None => 1,
                        Some(toml::Value::Integer(n)) if *n >= 1 && *n <= i64::from(u32::MAX) => {
                            *n as u32
                        }
                        Some(_) => {
                            return Err((
                                key("start"),
                                "must be an integer from 1 (the first opening)".into(),
                            ))
                        }
                    };
                    Ok((
                        OpeningChoice::File {
                            path: base.join(written),
                            written: written.clone(),
                            order,
                            start,
                        },
                        key("file"),
                    ))
                }
            }
        }
        _ => Err(("openings".into(), usage.into())),
    }
}

/// What a ladder config (`arena serve --config ladder.toml`) shares with a
/// tournament config, validated by the same code: the game with its
/// `[params]`, `[time_control]` (and the top-level `clock`) and `openings`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSection {
    /// The game's registry name.
    pub game: String,
    /// Every parameter, in the game's canonical order, defaults filled in.
    pub params: Vec<(String, String)>,
    /// Each bot's clock.
    pub time_control: TimeControl,
    /// Random plies each pair opens with (0 with a suite, or none).
    pub random_opening_plies: u32,
    /// The opening suite, read and checked.
    pub openings: Option<crate::settings::SuiteSpec>,
}

/// Validates the tournament keys a ladder config uses (see [`GameSection`]);
/// errors are `file: key: reason` with the tournament's keys. `file`'s
/// directory anchors an openings file.
pub fn game_section(
    file: &Path,
    game: &str,
    params: &BTreeMap<String, toml::Value>,
    time_control: toml::Value,
    clock: Option<Clock>,
    openings: Option<&toml::Value>,
) -> Result<GameSection, ConfigError> {
    let err = |key: &str, reason: String| ConfigError {
        file: file.to_path_buf(),
        key: key.to_string(),
        reason,
    };
    let mut texts = Vec::new();
    for (k, v) in params {
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::Float(f) => f.to_string(),
            _ => {
                return Err(err(
                    &format!("params.{k}"),
                    "must be a string, integer, float or boolean".into(),
                ))
            }
        };
        texts.push((k.clone(), text));
    }
    let engine = funnel::game(game, &texts, "game", |key| format!("params.{key}"))
        .map_err(|r| err(&r.key, r.reason))?;
    let raw_tc: RawTimeControl = from_value(time_control)
        .map_err(|(key, reason)| err(&format!("time_control.{key}"), reason))?;
    let time_control = time_control_of(&raw_tc, "time_control", clock)
        .map_err(|(key, reason)| err(&key, reason))?;
    let base = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (choice, opening_key) =
        openings_value_choice(openings, None, base).map_err(|(k, why)| err(&k, why))?;
    let resolved = crate::run::openings::resolve(&choice, &*engine)
        .map_err(|e| err(&opening_key, e.to_string()))?;
    Ok(GameSection {
        game: game.to_string(),
        params: engine.params(),
        time_control,
        random_opening_plies: resolved.random_plies,
        openings: resolved.suite,
    })
}

/// Why a time written in seconds (`--tc`, `--st`, `tc`, `st`) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeTextError {
    /// Not a number of seconds.
    #[error("`{0}` is not a number of seconds (e.g. 60, 0.5 or 1:30)")]
    NotSeconds(String),
    /// Finer than a millisecond.
    #[error("`{0}`: times are whole milliseconds (at most 3 decimals)")]
    TooPrecise(String),
    /// More than the clock can hold.
    #[error("`{0}` is too long a time")]
    TooLong(String),
    #[error(
        "`{0}`: moves per period (`40/60`) are not supported; give SECONDS+INCREMENT, e.g. 60+0.6"
    )]
    /// A `moves/seconds` time control, which the clock does not have.
    MovesPerPeriod(String),
    /// A zero game clock.
    #[error("`{0}`: the game clock must be positive")]
    NoClock(String),
    /// A zero time per move.
    #[error("`{0}`: the time per move must be positive")]
    NoMoveTime(String),
}

/// Seconds as engine testers write them (`60`, `0.6`, `1:30` for minutes
/// and seconds), in whole milliseconds.
pub fn seconds_to_ms(text: &str) -> Result<u64, TimeTextError> {
    let bad = || TimeTextError::NotSeconds(text.to_string());
    let (minutes, seconds) = match text.split_once(':') {
        Some((m, s)) if !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()) => {
            (m.parse::<u64>().map_err(|_| bad())?, s)
        }
        Some(_) => return Err(bad()),
        None => (0, text),
    };
    let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits(whole) || !digits(fraction) {
        return Err(bad());
    }
    let fraction = fraction.trim_end_matches('0');
    if fraction.len() > 3 {
        return Err(TimeTextError::TooPrecise(text.to_string()));
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let milli: u64 = format!("{fraction:0<3}").parse().map_err(|_| bad())?;
    minutes
        .checked_mul(60)
        .and_then(|s| s.checked_add(whole))
        .and_then(|s| s.checked_mul(1000))
        .and_then(|ms| ms.checked_add(milli))
        .ok_or_else(|| TimeTextError::TooLong(text.to_string()))
}

/// `key=value` text that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected key=value, got `{0}`")]
pub struct ParamTextError(pub String);

/// Parses `key=value` command-line text into a game parameter.
pub fn parse_param(text: &str) -> Result<(String, String), ParamTextError> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(ParamTextError(text.to_string())),
    }
}

/// A game clock as `SECONDS+INCREMENT` (`60+0.6`; `1:30+1`; `60` for no
/// increment), as cutechess-cli's and fastchess's `tc=`: (time, increment)
/// in ms. Moves per period (`40/60`) are not supported.
pub fn parse_tc(text: &str) -> Result<(u64, u64), TimeTextError> {
    if text.contains('/') {
        return Err(TimeTextError::MovesPerPeriod(text.to_string()));
    }
    let (time, inc) = match text.split_once('+') {
        Some((t, i)) => (seconds_to_ms(t)?, seconds_to_ms(i)?),
        None => (seconds_to_ms(text)?, 0),
    };
    if time == 0 {
        return Err(TimeTextError::NoClock(text.to_string()));
    }
    Ok((time, inc))
}

/// A limit per move in seconds (`0.2`), in ms.
pub fn parse_st(text: &str) -> Result<u64, TimeTextError> {
    match seconds_to_ms(text)? {
        0 => Err(TimeTextError::NoMoveTime(text.to_string())),
        ms => Ok(ms),
    }
}

/// A bot's `build` as written (a command list, or a table with `command`
/// and how to run it) for a bot whose sandbox is `bot_sandbox`; an error is
/// (key suffix, reason).
fn build_config(
    value: &toml::Value,
    bot_sandbox: Sandbox,
) -> Result<BuildConfig, (String, String)> {
    let table: RawBuildTable = match value {
        toml::Value::Array(_) => RawBuildTable {
            command: value
                .clone()
                .try_into()
                .map_err(|_| (String::new(), "must be a list of strings".to_string()))?,
            sandbox: None,
            network: None,
            seconds: None,
            memory_mb: None,
            disk_mb: None,
        },
        toml::Value::Table(_) => value
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| (String::new(), e.message().trim().to_string()))?,
        _ => {
            return Err((
                String::new(),
                "must be a list (the command) or a table with `command`".into(),
            ))
        }
    };
    if table.command.is_empty() || table.command[0].is_empty() {
        return Err((".command".into(), "must be a non-empty list".into()));
    }
    for (k, v) in [
        ("seconds", table.seconds),
        ("memory_mb", table.memory_mb),
        ("disk_mb", table.disk_mb),
    ] {
        if v == Some(0) {
            return Err((format!(".{k}"), "must be at least 1".into()));
        }
    }
    Ok(BuildConfig {
        command: table.command,
        sandbox: table.sandbox.unwrap_or(bot_sandbox),
        network: table.network.unwrap_or(false),
        seconds: table.seconds.unwrap_or(BuildConfig::SECONDS),
        memory_mb: table.memory_mb.unwrap_or(BuildConfig::MEMORY_MB),
        disk_mb: table.disk_mb.unwrap_or(BuildConfig::DISK_MB),
    })
}

/// The report name a config file's name gives when the config sets none:
/// every run of characters other than ASCII letters, digits, `-`, `_` and `.`
/// becomes one `-`, and leading and trailing `-` and `.` go (a name may not
/// start with `.`). Empty when nothing is left.
fn name_from_file_stem(stem: &str) -> String {
    let mut name = String::new();
    let mut replaced = false;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() || "-_.".contains(c) {
            name.push(c);
            replaced = false;
        } else if !replaced {
            name.push('-');
            replaced = true;
        }
    }
    name.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// Deserializes TOML, turning errors into (key path, reason).
fn parse_toml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, (String, String)> {
    let de = toml::Deserializer::parse(text)
        .map_err(|e| ("(file)".to_string(), toml_reason(&e, text)))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let key = if path == "." || path.is_empty() {
            "(file)".to_string()
        } else {
            path
        };
        (key, toml_reason(&inner, text))
    })
}

/// A `[time_control]` table (`prefix` names it in errors) validated;
/// `clock_key`, the clock given outside it (the top-level `clock` key, or a
/// bot's tournament's), must agree with its `clock` and is the default.
fn time_control_of(
    raw: &RawTimeControl,
    prefix: &str,
    clock_key: Option<Clock>,
) -> Result<TimeControl, (String, String)> {
    let err = |key: &str, reason: String| (key.to_string(), reason);
    let mut tc = raw.clone();
    let text_of = |key: &str, v: &toml::Value| match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        _ => Err(err(key, "must be a string or a number of seconds".into())),
    };
    if let Some(v) = &tc.tc {
        let key = &format!("{prefix}.tc");
        if tc.time_ms.is_some() || tc.inc_ms.is_some() {
            return Err(err(
                key,
                "give the game clock once: tc, or time_ms with inc_ms, not both".into(),
            ));
        }
        let (time, inc) = parse_tc(&text_of(key, v)?).map_err(|e| err(key, e.to_string()))?;
        (tc.time_ms, tc.inc_ms) = (Some(time), Some(inc));
    }
    if let Some(v) = &tc.st {
        let key = &format!("{prefix}.st");
        if tc.movetime_ms.is_some() {
            return Err(err(
                key,
                "give the limit per move once: st or movetime_ms, not both".into(),
            ));
        }
        let ms = parse_st(&text_of(key, v)?).map_err(|e| err(key, e.to_string()))?;
        tc.movetime_ms = Some(ms);
    }
    let key = |k: &str| format!("{prefix}.{k}");
    let keys = funnel::TimeKeys {
        whole: prefix.to_string(),
        movetime: key("movetime_ms"),
        time: key("time_ms"),
        inc: key("inc_ms"),
        clock: key("clock"),
        ceiling: key("ceiling_ms"),
        cpu: "clock = \"cpu\"".into(),
        missing: "set movetime_ms (or st, in seconds), or time_ms with optional inc_ms \
                  (or tc = \"SECONDS+INCREMENT\"), or both"
            .into(),
    };
    let input = funnel::TimeInput {
        movetime_ms: tc.movetime_ms,
        time_ms: tc.time_ms,
        inc_ms: tc.inc_ms,
        margin_ms: tc.margin_ms,
        clock: tc.clock,
        ceiling_ms: tc.ceiling_ms,
    };
    funnel::time_control(&input, clock_key, &keys).map_err(|r| (r.key, r.reason))
}

/// Deserializes a TOML value (no text, so no line numbers), turning errors
/// into (key path, reason).
fn from_value<T: serde::de::DeserializeOwned>(value: toml::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        (path, e.into_inner().message().trim().to_string())
    })
}

/// The message of a TOML error, with its line number when known.
fn toml_reason(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("{msg} (line {line})")
        }
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
game = "nim"
seed = 7
games = 4
random_opening_plies = 1
[params]
stones = 9
[adjudication]
max_plies = 50
[time_control]
movetime_ms = 20
[[bots]]
name = "a"
command = ["sh", "-c", "true"]
[[bots]]
name = "b"
command = ["/bin/sh"]
env = { X = "1" }
"#;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("tournaments/t.toml"), text)
    }

    fn parse_err(text: &str) -> ConfigError {
        let e = parse(text).expect_err("config must be refused");
        assert_eq!(e.file, Path::new("tournaments/t.toml"));
        e
    }

    // The tests run from the crate directory; `tournaments/` need not exist
    // there, so bots' cwd must be given relative to something real.
    fn good() -> String {
        GOOD.replace("[[bots]]\n", "[[bots]]\ncwd = \"/tmp\"\n")
    }

    /// `resign` and `draw` in [adjudication] are the referee's rules, the
    /// other keys the engine's; set, they are in the fingerprint, unset the
    /// fingerprint is the one configs had before them.
    #[test]
    fn score_adjudication_is_read_from_the_adjudication_table() {
        let plain = parse(&good()).unwrap();
        assert_eq!(plain.adjudication, Adjudication::default());
        let text = good().replace(
            "max_plies = 50\n",
            "max_plies = 50\nresign = { movecount = 3, score = 600 }\n\
             draw = { movenumber = 30, movecount = 8, score = 10 }\n",
        );
        let c = parse(&text).unwrap();
        assert_eq!(
            c.adjudication.resign,
            Some(crate::referee::ResignRule {
                movecount: 3,
                score: 600
            })
        );
        assert_eq!(
            c.adjudication.draw,
            Some(crate::referee::DrawRule {
                movenumber: 30,
                movecount: 8,
                score: 10
            })
        );
        assert_eq!(c.params, plain.params, "not game parameters");
        assert_ne!(
            c.normalized().fingerprint(),
            plain.normalized().fingerprint()
        );
        let json = serde_json::to_string(&plain.normalized()).unwrap();
        assert!(!json.contains("adjudication"), "{json}");
        for (rule, why) in [
            ("resign = 600", "must be a table of movecount and score"),
            ("resign = { movecount = 3 }", "missing field `score`"),
            (
                "resign = { movecount = 3, score = 600, twosided = true }",
                "unknown field `twosided`",
            ),
            (
                "resign = { movecount = 0, score = 600 }",
                "movecount must be at least 1",
            ),
            (
                "draw = { movecount = 0, score = 10 }",
                "movecount must be at least 1",
            ),
            ("draw = { moves = 8, score = 10 }", "unknown field `moves`"),
        ] {
            let e = parse_err(&good().replace("max_plies = 50\n", &format!("{rule}\n")));
            let key = format!("adjudication.{}", &rule[..rule.find(' ').unwrap()]);
            assert_eq!(e.key, key, "{rule}: {e}");
            assert!(e.reason.contains(why), "{rule}: {e}");
        }
    }

    #[test]
    fn a_good_config_is_validated_and_normalized() {
        let c = parse(&good()).unwrap();
        assert_eq!(c.name, "t");
        // Every parameter of the game, defaults filled in, in its order.
        assert_eq!(
            c.params,
            vec![
                ("piles".into(), "1".into()),
                ("stones".into(), "9".into()),
                ("take".into(), "2".into()),
                ("bonus".into(), "false".into()),
                ("max_plies".into(), "50".into())
            ]
        );
        assert_eq!(c.games, 4);
        assert_eq!(c.bots[1].env.get("X").map(String::as_str), Some("1"));
        assert_eq!(c.time_control.margin_ms, 50);
        let n = c.normalized();
        assert_eq!(
            n.fingerprint(),
            parse(&good()).unwrap().normalized().fingerprint()
        );
        let other = parse(&good().replace("seed = 7", "seed = 8")).unwrap();
        assert_ne!(n.fingerprint(), other.normalized().fingerprint());
        let conc = parse(&good().replace("seed = 7", "seed = 7\nconcurrency = 3")).unwrap();
        assert_eq!(
            n.fingerprint(),
            conc.normalized().fingerprint(),
            "concurrency does not change results"
        );
    }

    #[test]
    fn a_file_name_that_is_no_valid_name_gives_one() {
        let named = |file: &str, text: &str| Config::parse(Path::new(file), text);
        let c = named("t/spaces config.toml", &good()).expect("derived name");
        assert_eq!(c.name, "spaces-config");
        let c = named("t/ Übung  (2).toml", &good()).expect("derived name");
        assert_eq!(c.name, "bung-2");
        let c = named("t/.hidden.toml", &good()).expect("derived name");
        assert_eq!(c.name, "hidden");
        // Nothing usable left: the file name is named as the problem.
        let e = named("t/(((.toml", &good()).expect_err("no name");
        assert_eq!(e.key, "(file name)", "{e}");
        assert!(e.reason.contains("set `name ="), "{e}");
        // A name the user wrote is still checked as written, not repaired.
        let e = named(
            "t/spaces config.toml",
            &format!("name = \"a b\"\n{}", good()),
        )
        .expect_err("bad name");
        assert_eq!(e.key, "name", "{e}");
    }

    #[test]
    fn the_anchor_sets_the_ratings_scale() {
        let c = parse(&good()).unwrap();
        assert_eq!(c.rating_options(), RatingOptions::default());
        let c = parse(&good().replace("seed = 7", "seed = 7\nanchor = \"b=1800\"")).unwrap();
        let o = c.rating_options();
        assert_eq!((o.anchor, o.anchor_bot.as_deref()), (1800.0, Some("b")));
        let c = parse(&good().replace("seed = 7", "seed = 7\nanchor = \"a\"")).unwrap();
        assert_eq!(c.anchor, (1500.0, Some("a".into())));
        let c = parse(&good().replace("seed = 7", "seed = 7\nanchor = 2000")).unwrap();
        assert_eq!(c.anchor, (2000.0, None));
        let c = parse(&good().replace("seed = 7", "seed = 7\nconfidence = 0.99")).unwrap();
        assert_eq!(c.rating_options().confidence, 0.99);
        // Not part of what identifies the games.
        assert_eq!(
            c.normalized().fingerprint(),
            parse(&good()).unwrap().normalized().fingerprint()
        );
    }

    #[test]
    fn unknown_keys_name_their_path() {
        let e = parse_err(&good().replace("seed = 7", "seed = 7\ncolour = \"red\""));
        assert_eq!(e.key, "colour", "{e}");
        let e = parse_err(&good().replace("name = \"b\"", "name = \"b\"\nargs = []"));
        assert_eq!(e.key, "bots[1].args", "{e}");
        assert!(
            e.to_string()
                .starts_with("tournaments/t.toml: bots[1].args: "),
            "{e}"
        );
        let e = parse_err(&good().replace("movetime_ms = 20", "movetime = 20"));
        assert_eq!(e.key, "time_control.movetime", "{e}");
    }

    #[test]
    fn bad_values_name_their_key_and_reason() {
        let cases = [
            ("game = \"nim\"", "game = \"chess\"", "game", "unknown game"),
            (
                "stones = 9",
                "stones = 9999",
                "params.stones",
                "not a valid value",
            ),
            (
                "stones = 9",
                "stone = 9",
                "params.stone",
                "unknown parameter",
            ),
            (
                "max_plies = 50",
                "max_plies = 0",
                "adjudication.max_plies",
                "not a valid value",
            ),
            (
                "games = 4",
                "games = 0",
                "games",
                "must be from 1 to 10000000 (got 0)",
            ),
            ("games = 4", "games = 3", "games", "must be even"),
            ("games = 4", "games = \"four\"", "games", "invalid type"),
            (
                "movetime_ms = 20",
                "movetime_ms = 20\ninc_ms = 20",
                "time_control.inc_ms",
                "needs time_ms",
            ),
            (
                "movetime_ms = 20",
                "margin_ms = 20",
                "time_control",
                "set movetime_ms",
            ),
            (
                "command = [\"/bin/sh\"]",
                "command = []",
                "bots[1].command",
                "non-empty list",
            ),
            ("name = \"b\"", "name = \"a\"", "bots[1].name", "unique"),
            (
                "seed = 7",
                "seed = 7\nformat = \"swiss\"",
                "format",
                "unknown variant",
            ),
            (
                "seed = 7",
                "seed = 7\nformat = \"gauntlet\"",
                "champion",
                "needs `champion`",
            ),
            (
                "seed = 7",
                "seed = 7\nformat = \"gauntlet\"\nchampion = \"z\"",
                "champion",
                "not a bot",
            ),
            (
                "seed = 7",
                "seed = 7\nconcurrency = 0",
                "concurrency",
                "at least 1",
            ),
            (
                "seed = 7",
                "seed = 7\nanchor = \"z=1800\"",
                "anchor",
                "`z` is not a bot (bots: a, b)",
            ),
            (
                "seed = 7",
                "seed = 7\nanchor = \"a=high\"",
                "anchor",
                "`high` after `=` is not a finite rating",
            ),
            (
                "seed = 7",
                "seed = 7\nanchor = true",
                "anchor",
                "expected a rating",
            ),
            (
                "seed = 7",
                "seed = 7\nconfidence = 95",
                "confidence",
                "95 is not a level between 0.5 and 1 (e.g. 0.95)",
            ),
        ];
        for (from, to, key, reason) in cases {
            let text = good().replace(from, to);
            assert_ne!(text, good(), "{from}");
            let e = parse_err(&text);
            assert_eq!(e.key, key, "{to}: {e}");
            assert!(e.reason.contains(reason), "{to}: {e}");
        }
        let e = parse_err(&good().replace("seed = 7\n", ""));
        assert!(e.reason.contains("missing field `seed`"), "{e}");
    }

    #[test]
    fn missing_executables_and_scripts_are_named() {
        let e = parse_err(&good().replace("/bin/sh", "./no-such-bot"));
        assert_eq!(e.key, "bots[1].command");
        assert!(e.reason.contains("`./no-such-bot` not found"), "{e}");
        let e = parse_err(&good().replace("\"/bin/sh\"", "\"no-such-interpreter\""));
        assert!(e.reason.contains("not on PATH"), "{e}");
        let e = parse_err(&good().replace("\"/bin/sh\"", "\"/bin/sh\", \"missing.py\""));
        assert!(e.reason.contains("file `missing.py` not found"), "{e}");
        let e = parse_err(&good().replace("cwd = \"/tmp\"", "cwd = \"/no/such/dir\""));
        assert_eq!(e.key, "bots[0].cwd");
        assert!(e.reason.contains("/no/such/dir does not exist"), "{e}");
        // A bot that is built first is checked after its build, not before.
        let c = parse(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"./not-yet-built\"]\nbuild = { command = [\"true\"], sandbox = \"none\" }",
        ))
        .unwrap();
        let e = c.run_builds(true, &[]).unwrap_err();
        assert_eq!(e.key, "bots[1].command");
        let e = parse(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nbuild = { command = [\"false\"], sandbox = \"none\" }",
        ))
        .unwrap()
        .run_builds(true, &[])
        .unwrap_err();
        assert_eq!(e.key, "bots[1].build");
        assert!(e.reason.contains("failed"), "{e}");
        // The table's keys are checked like the rest.
        let e = parse_err(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nbuild = { command = [\"make\"], netwrk = true }",
        ));
        assert_eq!(e.key, "bots[1].build");
        assert!(e.reason.contains("netwrk"), "{e}");
        let e = parse_err(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nbuild = { command = [\"make\"], seconds = 0 }",
        ));
        assert_eq!(e.key, "bots[1].build.seconds");
        // A build is sandboxed like its bot unless it says otherwise.
        let c = parse(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nsandbox = \"bwrap\"\nbuild = [\"make\"]",
        ))
        .unwrap();
        // It writes its program directory, which the other bot runs from:
        // refused before anything runs (the build would rewrite that bot).
        // (Without bubblewrap, `sandbox = "bwrap"` is refused first.)
        let e = c.run_builds(true, &[]).unwrap_err();
        if crate::process::sandbox::usable().is_ok() {
            assert_eq!(e.key, "bots[1].build");
            assert!(
                e.reason.contains("give each bot a directory of its own"),
                "{e}"
            );
        } else {
            assert_eq!(e.key, "bots[1].build.sandbox");
        }
        let b = c.bots[1].build.as_ref().unwrap();
        assert_eq!(
            (b.sandbox, b.network, b.seconds),
            (Sandbox::Bwrap, false, 600)
        );
        // A budget reaches the bot and the fingerprint; a typo is refused.
        let plain = parse(&good()).unwrap();
        let c = parse(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nbudget = { playouts = 2000 }",
        ))
        .unwrap();
        assert_eq!(c.bots[1].budget.playouts, Some(2000));
        assert_ne!(
            c.normalized().fingerprint(),
            plain.normalized().fingerprint()
        );
        let e = parse_err(&good().replace(
            "command = [\"/bin/sh\"]",
            "command = [\"/bin/sh\"]\nbudget = { playout = 2000 }",
        ));
        assert!(e.key.starts_with("bots[1].budget"), "{e}");
    }

    #[test]
    fn time_shorthands_read_seconds_exactly() {
        assert_eq!(parse_tc("60+0.6"), Ok((60_000, 600)));
        assert_eq!(parse_tc("1:30+1"), Ok((90_000, 1000)));
        assert_eq!(parse_tc("10"), Ok((10_000, 0)));
        assert_eq!(parse_tc("0.5+0.005"), Ok((500, 5)));
        assert_eq!(parse_st("0.2"), Ok(200));
        assert_eq!(parse_st(".25"), Ok(250));
        assert_eq!(parse_st("1.500"), Ok(1500));
        for bad in [
            "", "+1", "60+", "-1", "1e3", "abc", "1:", ":30", "1.2.3", "0x10",
        ] {
            assert!(parse_tc(bad).is_err(), "{bad}");
        }
        assert!(parse_st("0.0005")
            .unwrap_err()
            .to_string()
            .contains("whole milliseconds"));
        assert!(parse_st("0").unwrap_err().to_string().contains("positive"));
        assert!(parse_tc("0+1")
            .unwrap_err()
            .to_string()
            .contains("positive"));
        assert!(parse_tc("40/60+0.6")
            .unwrap_err()
            .to_string()
            .contains("moves per period"));
    }

    #[test]
    fn time_control_shorthands_equal_the_ms_keys() {
        let ms =
            parse(&good().replace("movetime_ms = 20", "time_ms = 60000\ninc_ms = 600")).unwrap();
        let tc = parse(&good().replace("movetime_ms = 20", "tc = \"60+0.6\"")).unwrap();
        assert_eq!(tc.time_control, ms.time_control);
        assert_eq!(tc.normalized().fingerprint(), ms.normalized().fingerprint());
        for st in ["st = 0.02", "st = \"0.02\""] {
            let c = parse(&good().replace("movetime_ms = 20", st)).unwrap();
            assert_eq!(c.time_control, parse(&good()).unwrap().time_control, "{st}");
        }
        let c = parse(&good().replace("movetime_ms = 20", "st = 1\ntc = 30")).unwrap();
        assert_eq!(
            (
                c.time_control.movetime_ms,
                c.time_control.time_ms,
                c.time_control.inc_ms
            ),
            (Some(1000), Some(30_000), 0)
        );
        let cases = [
            ("movetime_ms = 20\nst = 0.5", "time_control.st", "not both"),
            (
                "movetime_ms = 20\ntc = \"60+1\"\ntime_ms = 5",
                "time_control.tc",
                "not both",
            ),
            (
                "movetime_ms = 20\ntc = \"60+1\"\ninc_ms = 5",
                "time_control.tc",
                "not both",
            ),
            (
                "tc = \"60+x\"",
                "time_control.tc",
                "not a number of seconds",
            ),
            (
                "tc = true",
                "time_control.tc",
                "must be a string or a number",
            ),
            ("st = 0", "time_control.st", "positive"),
        ];
        for (to, key, reason) in cases {
            let e = parse_err(&good().replace("movetime_ms = 20", to));
            assert_eq!(e.key, key, "{to}: {e}");
            assert!(e.reason.contains(reason), "{to}: {e}");
        }
    }

    #[test]
    fn commands_and_cwds_that_cannot_work_say_why() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let script = dir.path().join("bot.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let with = |command: &str, cwd: &str| {
            let text = good()
                .replacen("cwd = \"/tmp\"", &format!("cwd = \"{cwd}\""), 2)
                .replace("command = [\"/bin/sh\"]", &format!("command = [{command}]"));
            parse_err(&text)
        };
        let e = with("\"./bot.sh\"", &d);
        assert_eq!(e.key, "bots[1].command");
        assert!(e.reason.contains("bot.sh` is not executable"), "{e}");
        assert!(e.reason.contains("chmod +x"), "{e}");
        let e = with(&format!("\"{}\"", script.display()), "/tmp");
        assert!(e.reason.contains("is not executable"), "{e}");
        let e = with("\"./sub\"", &d);
        assert!(
            e.reason.contains("sub` is a directory, not a program"),
            "{e}"
        );
        // An absolute path is looked for nowhere but where it says.
        let e = with("\"/no/such/bot\"", "/tmp");
        assert_eq!(e.reason, "executable `/no/such/bot` not found", "{e}");
        let e = with("\"./gone\"", &d);
        assert!(
            e.reason.ends_with(&format!("not found (looked in {d})")),
            "{e}"
        );
        // A file where a directory belongs.
        let e = with("\"/bin/sh\"", &script.display().to_string());
        assert_eq!(e.key, "bots[0].cwd");
        assert!(
            e.reason.contains("bot.sh is a file, not a directory"),
            "{e}"
        );
    }

    #[test]
    fn syntax_errors_give_a_line() {
        let e = parse_err("game = \"nim\"\nseed = = 3\n");
        assert_eq!(e.key, "(file)");
        assert!(e.reason.contains("line 2"), "{e}");
    }
}
