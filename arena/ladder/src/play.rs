//! One ladder game, played exactly as a tournament plays one: by arena's
//! [`RefereePlayer`] (the referee, the sandbox, the limits, the clocks, the
//! stderr logs, the record), with a fresh process for each bot.
//!
//! Every misbehaviour of a bot (it cannot start, crashes, times out, breaks
//! the protocol) is a game result, a record with a forfeit, as in a
//! tournament; [`play`] fails only on what is not the bots' doing: an
//! opening that cannot be played, a log directory that cannot be made.
//!
//! Each game's stderr logs go to a directory of its own inside
//! [`PlaySettings::log_dir`] (`game-TIME-PID-N/logs/`, made when a bot first
//! writes to stderr, removed again if that left it empty); the record names
//! them relative to `log_dir`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena::process::{BotSpec, LimitSettings, Limits, ResolvedSandbox, Sandbox};
use arena::referee::{GameSetup, IllegalOpening, MoveFeed, TimeControl};
use arena::run::referee_player::{resolved_command, RefereePlayer};
use arena::run::runner::{Player, PlayerError};
use arena::run::schedule::GameJob;
use arena::settings::{Order, SuiteSpec};
use arena_core::games::AnyGame;
use arena_core::protocol::Budget;
use arena_core::record::GameRecord;

/// One side of a ladder game: a version of a bot, unpacked and built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contestant {
    /// Its name in the record (the bot's name, say `name@3` for a version).
    pub name: String,
    /// Its directory: the bot's working directory, what its sandbox shows.
    pub dir: PathBuf,
    /// Its `arena-bot.toml` command; a program path with a `/` is relative
    /// to `dir`.
    pub command: Vec<String>,
    /// Its `[limits]` (as read by `archive::read_manifest`, within the
    /// ladder's maxima).
    pub limits: LimitSettings,
}

/// How every game of the ladder is played.
#[derive(Clone)]
pub struct PlaySettings {
    /// The game with its parameters (`arena_core::games::new_game`).
    pub game: Arc<dyn AnyGame>,
    /// The time control and clock, as a tournament's `[time_control]`.
    pub time: TimeControl,
    /// Whether the bot not on move keeps running (a tournament's `ponder`).
    pub ponder: bool,
    /// `Bwrap` or `None`, resolved ([`PlaySettings::new`]).
    pub sandbox: ResolvedSandbox,
    /// The referee's own limits on every bot (start-up time, grace, stderr
    /// kept); [`play`] adds what the sandbox must hide and show.
    pub limits: Limits,
    /// Where each game's directory of stderr logs is made.
    pub log_dir: PathBuf,
    /// Directories a sandboxed bot's `#!` line may name an interpreter in,
    /// besides the system's (a tournament's `interpreters`).
    pub interpreters: Vec<PathBuf>,
    /// What each bot is asked to search in each `go` (none by default).
    pub budget: Budget,
}

impl std::fmt::Debug for PlaySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlaySettings")
            .field("game", &self.game.name())
            .field("params", &self.game.params())
            .field("time", &self.time)
            .field("sandbox", &self.sandbox)
            .field("log_dir", &self.log_dir)
            .finish_non_exhaustive()
    }
}

/// Why a game could not be played (never a bot's misbehaviour: that is a
/// record).
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The game or its parameters are unknown or invalid.
    #[error("game `{game}`: {reason}")]
    Game {
        /// The game's name.
        game: String,
        /// Why it cannot be made.
        reason: String,
    },
    /// The sandbox asked for cannot be set up here.
    #[error("the sandbox cannot be set up: {0}")]
    Sandbox(String),
    /// The opening cannot be played from the initial position.
    #[error(transparent)]
    Opening(#[from] IllegalOpening),
    /// The game's log directory could not be made.
    #[error("{}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A contestant's limits cannot be set (a zero: `read_manifest` refuses
    /// them, so only a caller's mistake).
    #[error("{bot}: {reason}")]
    Limits {
        /// The contestant.
        bot: String,
        /// Which limit.
        reason: String,
    },
    /// The referee's player failed (not a bot's doing).
    #[error(transparent)]
    Player(#[from] PlayerError),
}

impl PlaySettings {
    /// The settings of a ladder playing `game` with `params` (as a
    /// tournament config's `game` and `[params]`) under `time`, bots in
    /// `sandbox` (`Auto` becomes `Bwrap` where it works here, else `None`
    /// with the warning returned, which the server shows), logs under
    /// `log_dir`; the rest as in a tournament by default.
    pub fn new(
        game: &str,
        params: &[(String, String)],
        time: TimeControl,
        sandbox: Sandbox,
        log_dir: PathBuf,
    ) -> Result<(PlaySettings, Option<String>), PlayError> {
        let made = arena_core::games::new_game(game, params).map_err(|e| PlayError::Game {
            game: game.to_string(),
            reason: e.to_string(),
        })?;
        let (sandbox, warning) = arena::process::sandbox::resolve(sandbox)
            .map_err(|e| PlayError::Sandbox(e.to_string()))?;
        Ok((
            PlaySettings {
                game: Arc::from(made),
                time,
                ponder: false,
                sandbox,
                limits: Limits::default(),
                log_dir,
                interpreters: Vec::new(),
                budget: Budget::default(),
            },
            warning,
        ))
    }
}

/// A name for one game's log directory that no other game of this or an
/// earlier run of the server has: the time in nanoseconds, the process and
/// a count.
fn game_dir_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static GAMES: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = GAMES.fetch_add(1, Ordering::Relaxed);
    format!("game-{nanos:x}-{}-{n}", std::process::id())
}

/// Plays one game: `seat0` moves first from the position after `opening`
/// (moves in protocol notation, played by the referee), both bots told
/// `seed`. The record's `index`, `round` and `pair` are 0: the caller
/// sets them to the ladder's ids.
pub async fn play(
    settings: &PlaySettings,
    seat0: &Contestant,
    seat1: &Contestant,
    opening: &[String],
    seed: u64,
) -> Result<GameRecord, PlayError> {
    play_fed(settings, seat0, seat1, opening, seed, None).await
}

/// [`play`], telling `feed` each move as it is made (the live pages).
pub async fn play_fed(
    settings: &PlaySettings,
    seat0: &Contestant,
    seat1: &Contestant,
    opening: &[String],
    seed: u64,
    feed: Option<MoveFeed>,
) -> Result<GameRecord, PlayError> {
    let check = GameSetup {
        game: settings.game.clone(),
        index: 0,
        round: 0,
        pair: 0,
        seed,
        opening: opening.to_vec(),
        time: settings.time,
        seat_time: [None, None],
        ponder: settings.ponder,
        budgets: [settings.budget; 2],
        log_dir: None,
        // Ladder games are played to their end: strangers' bots' scores are
        // not trusted to end a game (ladder.toml has no `[adjudication]`).
        adjudication: Default::default(),
        feed: None,
    };
    check.check_opening()?;
    let seats = [seat0, seat1];
    let mut resources = Vec::new();
    for c in seats {
        resources.push(c.limits.resources().map_err(|e| PlayError::Limits {
            bot: c.name.clone(),
            reason: e.to_string(),
        })?);
    }

    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PlayError::Io { path, source }
    };
    std::fs::create_dir_all(&settings.log_dir).map_err(io(&settings.log_dir))?;
    let log_root = std::path::absolute(&settings.log_dir).map_err(io(&settings.log_dir))?;
    // A directory of its own, so that games played at once never share a
    // log file. It is named, not made: the log sink makes it when a bot
    // first writes to stderr (most games of a ladder have no log, and
    // making and removing a directory per game was a tenth of the server's
    // CPU with instant bots). Kept when a log is in it: the record names it.
    let game_dir = log_root.join(game_dir_name());

    let player = RefereePlayer {
        game: settings.game.clone(),
        bots: seats
            .iter()
            .zip(resources)
            .map(|(c, resources)| {
                Arc::new(BotSpec {
                    name: c.name.clone(),
                    command: resolved_command(&c.command, &c.dir),
                    cwd: Some(c.dir.clone()),
                    env: Vec::new(),
                    resources,
                    sandbox: settings.sandbox,
                    build: None,
                    interpreters: settings.interpreters.clone(),
                })
            })
            .collect(),
        commands: seats.iter().map(|c| c.command.clone()).collect(),
        keep: vec![false, false],
        time: settings.time,
        times: Vec::new(),
        ponder: settings.ponder,
        adjudication: Default::default(),
        limits: Limits {
            // The logs must not be seen by a bot whose directory holds them.
            hide: vec![log_root.clone()],
            bot_dirs: seats.iter().map(|c| c.dir.clone()).collect(),
            ..settings.limits.clone()
        },
        // The opening as a suite of one line, which the job names.
        opening_plies: 0,
        openings: (!opening.is_empty()).then(|| {
            Arc::new(SuiteSpec {
                file: "ladder".into(),
                order: Order::Sequential,
                start: 1,
                lines: vec![opening.join(" ")],
            })
        }),
        budgets: vec![settings.budget; 2],
        run_dir: game_dir.clone(),
        kept: Default::default(),
        feed,
    };
    let job = GameJob {
        index: 0,
        round: 0,
        pair: 0,
        seed,
        seats: [0, 1],
        opening: (!opening.is_empty()).then_some(0),
    };
    let played = player.play(job, 0).await;
    player.finish_lane(0).await;
    // Absent unless a bot wrote to stderr; removed if that left it empty.
    let _ = std::fs::remove_dir(game_dir.join(arena::store::LOGS));
    let _ = std::fs::remove_dir(&game_dir);
    let mut rec = played?;
    // The record names its logs relative to `log_dir`, not the game's own
    // directory.
    let sub = game_dir.strip_prefix(&log_root).unwrap_or(&game_dir);
    for s in &mut rec.seats {
        for file in [&mut s.log, &mut s.transcript].into_iter().flatten() {
            *file = sub.join(file.as_str()).display().to_string();
        }
    }
    Ok(rec)
}
