//! `arena match`: N games between two bots with alternating seats, seeds
//! drawn from the match seed. A match is a small schedule
//! ([`crate::run::schedule::match_schedule`]) played by the tournament's machinery: the
//! same run directory (manifest, journal, `--resume`, `--overwrite`), the
//! same concurrent game threads, records in schedule order whatever
//! finishes first. A sequential test sees the games in schedule order too,
//! so a match ends on the same game at any concurrency.

use std::path::PathBuf;
use std::sync::Arc;

use crate::process::{BotSpec, Limits};
use crate::rating::Tally;
use crate::rating::{Sprt, SprtParams, SprtStatus};
use crate::referee::{self, Adjudication, TimeControl};
use crate::run::referee_player::RefereePlayer;
use crate::run::{self, Hooks, ProgressMode, RunOptions, TournamentError};
use crate::settings::{FormatKind, Normalized, NormalizedBot};
use arena_core::games::AnyGame;
use arena_core::protocol::Budget;
use arena_core::record::GameRecord;

pub use crate::run::schedule::game_seeds;

/// A match as asked for on the command line.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game, with its parameters.
    pub game: Arc<dyn AnyGame>,
    /// The two bots, in `--bot` order; the first sits in seat 0 of even games.
    pub bots: [Arc<BotSpec>; 2],
    /// Games to play (the cap with `sprt`).
    pub games: u64,
    /// The seed every game's seed derives from: the same seed, the same match.
    pub seed: u64,
    /// Both bots' clock.
    pub time: TimeControl,
    /// Whether the bot not on move keeps running.
    pub ponder: bool,
    /// What the bot processes may take and how long they are waited for.
    pub limits: Limits,
    /// Keep each bot's process from game to game (`newgame` again) instead of
    /// starting it afresh.
    pub keep_bots: bool,
    /// The run directory.
    pub out: PathBuf,
    /// Stop as soon as this test of the first bot against the second
    /// decides (`games` is then a cap).
    pub sprt: Option<SprtParams>,
    /// What each pair opens with (`Default::default()`: the initial
    /// position; `arena match` resolves `--openings`, by default the
    /// variant's shipped suite).
    pub openings: crate::run::openings::Resolved,
    /// What both bots are asked to search in each `go` (`--nodes`,
    /// `--playouts`, `--depth`).
    pub budget: Budget,
    /// When the bots' agreed scores end a game (`--resign`, `--draw`).
    pub adjudication: Adjudication,
}

/// How to run a match: as [`RunOptions`] for a tournament.
#[derive(Clone, Debug)]
pub struct MatchRun {
    /// Games played at once.
    pub concurrency: usize,
    /// Finish the match in `out`: play only its missing games.
    pub resume: bool,
    /// Replace the run in `out`.
    pub overwrite: bool,
    /// Pin each concurrent game to a CPU of its own.
    pub affinity: bool,
    /// Said at the start and kept in the manifest (no sandbox, say).
    pub warnings: Vec<String>,
    /// Records keep the state of every this-many plies (1: every ply).
    pub record_states: usize,
    /// As [`RunOptions::dead_bot_stop`].
    pub dead_bot_stop: Option<u32>,
}

impl Default for MatchRun {
    fn default() -> Self {
        MatchRun {
            concurrency: 1,
            resume: false,
            overwrite: false,
            affinity: false,
            warnings: Vec::new(),
            record_states: 1,
            // A library run plays on: its bots lose what they cannot play.
            dead_bot_stop: None,
        }
    }
}

/// Why a match did not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A number of games out of range: nothing was played or written.
    #[error("--games must be from 1 to {max} (got {got})")]
    Games {
        /// The most a match plays.
        max: u64,
        /// What was asked for.
        got: u64,
    },
    /// A bot command that cannot be started at all: nothing was played or
    /// written.
    #[error(transparent)]
    Command(#[from] referee::CommandError),
    /// The run directory was refused, a disk error, an interruption.
    #[error(transparent)]
    Run(#[from] TournamentError),
}

/// How a match went: the two bots' tallies, in `--bot` order, and the
/// sequential test when one was asked for.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// Each bot's wins, draws and losses, in `--bot` order.
    pub tally: [Tally; 2],
    /// The sequential test, when `--sprt` asked for one.
    pub sprt: Option<Sprt>,
    /// Games in the finished match.
    pub games: usize,
    /// Of which played by this invocation (the rest were resumed).
    pub played_now: usize,
    /// Distinct openings, games and pairs of the match.
    pub distinct: crate::store::Distinct,
}

/// The first bot's points in the games of a match, fed to the sequential
/// test pair by pair (games `2k` and `2k+1`), in schedule order.
#[derive(Clone, Debug)]
struct PairTest {
    sprt: Sprt,
    /// The first game of the pair being played: the first bot's points and
    /// the game's key.
    first: (f64, u64),
    /// The pairs so far, by their games' keys: a pair that exactly repeats
    /// one of them is no new evidence.
    seen: std::collections::HashSet<[u64; 2]>,
}

impl PairTest {
    fn new(sprt: Sprt) -> PairTest {
        PairTest {
            sprt,
            first: (0.0, 0),
            seen: Default::default(),
        }
    }

    /// Adds game `r`; after the second game of a pair, the test's status.
    fn add(&mut self, r: &GameRecord) -> Option<SprtStatus> {
        // The first bot sits in seat 0 of even games.
        let points = r.result.points((r.index % 2) as usize);
        let key = crate::run::distinct::game_key(r);
        if r.index.is_multiple_of(2) {
            self.first = (points, key);
            None
        } else if self.seen.insert([self.first.1, key]) {
            Some(self.sprt.record_pair(self.first.0, points))
        } else {
            Some(self.sprt.record_repeat())
        }
    }
}

/// The match as a run config: what its manifest holds and its fingerprint
/// covers.
pub fn normalized(config: &MatchConfig) -> Normalized {
    Normalized {
        name: "match".into(),
        game: config.game.name().into(),
        params: config.game.params(),
        format: FormatKind::Match,
        champion: None,
        sprt: None,
        games: u32::try_from(config.games).unwrap_or(u32::MAX),
        seed: config.seed,
        random_opening_plies: config.openings.random_plies,
        openings: config.openings.suite.clone(),
        ponder: config.ponder,
        adjudication: config.adjudication,
        time_control: config.time,
        bots: config
            .bots
            .iter()
            .map(|b| NormalizedBot {
                name: b.name.clone(),
                command: b.command.clone(),
                cwd: b
                    .cwd
                    .as_ref()
                    .map_or_else(|| ".".into(), |c| c.display().to_string()),
                env: b.env.iter().cloned().collect(),
                limits: Default::default(),
                // The sandbox the bots run under, as the manifest has
                // always kept it for a match.
                sandbox: b.sandbox.into(),
                keep: false,
                budget: config.budget,
                time_control: None,
            })
            .collect(),
    }
}

/// Plays the match one game at a time into a fresh `out`; `each` sees every
/// record, in order, as it is written, with the sequential test after it
/// when one runs and a pair just ended.
pub async fn run_match(
    config: &MatchConfig,
    each: impl FnMut(&GameRecord, &[Tally; 2], Option<&Sprt>) + Send,
) -> Result<MatchSummary, MatchError> {
    run_match_with(config, &MatchRun::default(), each).await
}

/// Plays (or resumes) the match as `run` says. `each` sees every game this
/// invocation played, in schedule order, once it is written, with the
/// tallies so far and, after the second game of a pair, the sequential test.
/// Fails before any game on a bot command that cannot be started at all,
/// and on a run directory that is refused.
pub async fn run_match_with(
    config: &MatchConfig,
    run: &MatchRun,
    mut each: impl FnMut(&GameRecord, &[Tally; 2], Option<&Sprt>) + Send,
) -> Result<MatchSummary, MatchError> {
    if config.games == 0 || config.games > crate::settings::MAX_GAMES {
        return Err(MatchError::Games {
            max: crate::settings::MAX_GAMES,
            got: config.games,
        });
    }
    for spec in &config.bots {
        referee::check_spawn(spec, &config.limits).await?;
    }
    // The tournament's player, the bots in `--bot` order (a job's seats
    // index them).
    let player = Arc::new(RefereePlayer {
        game: config.game.clone(),
        bots: config.bots.to_vec(),
        commands: config.bots.iter().map(|b| b.command.clone()).collect(),
        keep: vec![config.keep_bots; 2],
        time: config.time,
        times: Vec::new(),
        ponder: config.ponder,
        limits: config.limits.clone(),
        opening_plies: config.openings.random_plies,
        openings: config.openings.suite.clone().map(Arc::new),
        budgets: vec![config.budget; 2],
        adjudication: config.adjudication,
        run_dir: config.out.clone(),
        kept: Default::default(),
        feed: None,
    });
    let opts = RunOptions {
        out: config.out.clone(),
        concurrency: run.concurrency.max(1),
        resume: run.resume,
        overwrite: run.overwrite,
        shard: None,
        progress: ProgressMode::Quiet,
        affinity: run.affinity,
        warnings: run.warnings.clone(),
        record_states: run.record_states,
        dead_bot_stop: run.dead_bot_stop,
        programs: super::conditions::bot_files(&config.bots),
        ratings: None,
    };
    let test = config.sprt.map(|p| PairTest::new(Sprt::new(p)));
    let stop = test.clone().map(|mut rule| {
        let text = format!("sprt {}", rule.sprt.params());
        let rule: super::stop::StopRule = Box::new(move |r: &GameRecord| match rule.add(r) {
            Some(SprtStatus::Continue) | None => None,
            Some(status) => Some(super::stop::Stop::Run(format!(
                "sprt {}: {status} after {} games",
                rule.sprt.params(),
                r.index + 1
            ))),
        });
        (text, rule)
    });
    // The observer keeps its own copy of the test: fed the same games in the
    // same order, it is where the stop rule is.
    let mut tally = [Tally::default(); 2];
    let mut test = test;
    let mut observe = |r: &GameRecord, resumed: bool| {
        for seat in 0..2 {
            let bot = if r.index.is_multiple_of(2) {
                seat
            } else {
                1 - seat
            };
            tally[bot].add(r, seat);
        }
        let after_pair = test.as_mut().and_then(|t| t.add(r)).is_some();
        if !resumed {
            let sprt = test.as_ref().filter(|_| after_pair).map(|t| &t.sprt);
            each(r, &tally, sprt);
        }
    };
    let hooks = Hooks {
        stop,
        each: Some(&mut observe),
    };
    let normalized = normalized(config);
    let summary = run::run_with(&normalized, player, &opts, hooks).await?;
    Ok(MatchSummary {
        tally,
        sprt: test.map(|t| t.sprt),
        games: summary.games,
        played_now: summary.played_now,
        distinct: summary.distinct,
    })
}
