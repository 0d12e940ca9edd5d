//! The referee as the [`Player`] of a tournament: a game's setup from its
//! job (seed, random opening, logs), the bots of its seats (fresh, or kept
//! per lane), the record made relative to the run directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::config::Config;
use super::runner::{Player, PlayerError};
use super::schedule::GameJob;
use crate::process::{BotSpec, Limits, ResolvedSandbox};
use crate::referee::{self, Adjudication, BotSlot, GameSetup, TimeControl};
use crate::store;
use arena_core::games::AnyGame;
use arena_core::protocol::Budget;
use arena_core::record::GameRecord;

/// Plays scheduled games with the referee, the random opening drawn from the
/// game seed. A bot gets a fresh process for every game, unless it is kept
/// (`keep_bots`): then each lane keeps its process from one game to its next
/// game on that lane (`newgame` again), and starts a new one only after the
/// bot failed or lost by misbehaving.
pub struct RefereePlayer {
    /// The game, with its parameters.
    pub game: Arc<dyn AnyGame>,
    /// In config order (a job's `seats` index this).
    pub bots: Vec<Arc<BotSpec>>,
    /// The bots' commands as written in the config, for the records (the
    /// specs may hold resolved paths).
    pub commands: Vec<Vec<String>>,
    /// Per bot, in config order: whether its process is kept across games.
    pub keep: Vec<bool>,
    /// The clock of every bot without one of its own.
    pub time: TimeControl,
    /// Per bot, in config order: its own time control (time odds), if any
    /// (a bot past the end has none: a match gives none).
    pub times: Vec<Option<TimeControl>>,
    /// Whether the bot not on move keeps running.
    pub ponder: bool,
    /// What the bot processes may take and how long they are waited for.
    pub limits: Limits,
    /// Random plies each game opens with, drawn from its seed (without a
    /// suite).
    pub opening_plies: u32,
    /// The opening suite whose lines the jobs name (`GameJob::opening`).
    pub openings: Option<Arc<crate::settings::SuiteSpec>>,
    /// Per bot, in config order: what it is asked to search.
    pub budgets: Vec<Budget>,
    /// When the bots' agreed scores end a game (`[adjudication]`'s
    /// `resign` and `draw`).
    pub adjudication: Adjudication,
    /// The run directory: bots' stderr logs go to `logs/` in it, and records
    /// name them relative to it.
    pub run_dir: PathBuf,
    /// The kept bots between their games: `KeptBots::default()`.
    pub kept: KeptBots,
    /// Told each move of every game as it is made (`GameSetup::feed`).
    pub feed: Option<crate::referee::MoveFeed>,
}

impl RefereePlayer {
    /// The player of `config`'s tournament into `run_dir`, each bot under
    /// its resolved sandbox (`sandboxes`, in config order: see
    /// [`Config::sandboxes`]).
    pub fn for_config(
        config: &Config,
        sandboxes: &[ResolvedSandbox],
        run_dir: &Path,
    ) -> RefereePlayer {
        let game = arena_core::games::new_game(&config.game, &config.params)
            .expect("validated when the config was loaded");
        RefereePlayer {
            game: Arc::from(game),
            bots: config
                .bots
                .iter()
                .zip(sandboxes)
                .map(|(b, &sandbox)| {
                    Arc::new(BotSpec {
                        name: b.name.clone(),
                        command: resolved_command(&b.command, &b.cwd),
                        cwd: Some(b.cwd.clone()),
                        env: b.env.clone().into_iter().collect(),
                        resources: b.limits.resources().expect("validated with the config"),
                        sandbox,
                        build: None,
                        interpreters: b.interpreters.clone(),
                    })
                })
                .collect(),
            commands: config.bots.iter().map(|b| b.command.clone()).collect(),
            keep: config.bots.iter().map(|b| b.keep).collect(),
            time: config.time_control,
            times: config.bots.iter().map(|b| b.time_control).collect(),
            ponder: config.ponder,
            limits: Limits {
                // A sandboxed bot whose program directory holds the run
                // directory (reports/ in a checkout) must not see it.
                hide: vec![std::path::absolute(run_dir).unwrap_or_else(|_| run_dir.to_path_buf())],
                bot_dirs: config.bots.iter().map(|b| b.cwd.clone()).collect(),
                transcript: config.transcript,
                ..Limits::default()
            },
            opening_plies: config.random_opening_plies,
            openings: config.openings.clone().map(Arc::new),
            budgets: config.bots.iter().map(|b| b.budget).collect(),
            adjudication: config.adjudication,
            run_dir: run_dir.to_path_buf(),
            kept: Default::default(),
            feed: None,
        }
    }
}

/// A bot's command as it is started in `cwd`: a program path with a `/` in
/// it is relative to `cwd`, made absolute (how a relative program path
/// combines with a child's cwd is platform-specific). Public for the ladder,
/// which starts its bots as a tournament does.
pub fn resolved_command(command: &[String], cwd: &Path) -> Vec<String> {
    let mut command = command.to_vec();
    if command.first().is_some_and(|c| c.contains('/')) {
        command[0] = cwd.join(&command[0]).display().to_string();
    }
    command
}

/// The running processes of kept bots, by lane and bot (config order). A lane
/// plays one game at a time, so a (lane, bot) entry is never wanted twice at
/// once; its process lives on that lane's runtime.
#[derive(Debug, Default)]
pub struct KeptBots(std::sync::Mutex<BTreeMap<(usize, usize), BotSlot>>);

impl KeptBots {
    fn take(&self, lane: usize, bot: usize) -> Option<BotSlot> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(lane, bot))
    }

    fn put(&self, lane: usize, bot: usize, mut player: BotSlot) {
        // Parked, it takes no CPU from the lane's other games.
        player.park();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((lane, bot), player);
    }

    fn take_lane(&self, lane: usize) -> Vec<BotSlot> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<(usize, usize)> = map.keys().filter(|k| k.0 == lane).copied().collect();
        keys.into_iter().filter_map(|k| map.remove(&k)).collect()
    }
}

impl Player for RefereePlayer {
    async fn play(&self, job: GameJob, lane: usize) -> Result<GameRecord, PlayerError> {
        let setup = GameSetup {
            game: self.game.clone(),
            index: job.index,
            round: job.round,
            pair: job.pair,
            seed: job.seed,
            opening: super::openings::moves_for(
                self.openings.as_deref(),
                self.opening_plies,
                &*self.game,
                &job,
            ),
            time: self.time,
            seat_time: job.seats.map(|b| self.times.get(b).copied().flatten()),
            ponder: self.ponder,
            budgets: job.seats.map(|b| self.budgets[b]),
            adjudication: self.adjudication,
            log_dir: Some(self.run_dir.join(store::LOGS)),
            feed: self.feed.clone(),
        };
        let keep = job.seats.map(|b| self.keep[b]);
        let [mut p0, mut p1] = job.seats.map(|b| {
            self.kept
                .take(lane, b)
                .unwrap_or_else(|| BotSlot::new(self.bots[b].clone()))
        });
        let mut rec =
            referee::run_game(&setup, [&mut p0, &mut p1], keep[0] || keep[1], &self.limits).await;
        // run_game keeps both bots or neither: stop the one that is not kept.
        if keep[0] != keep[1] {
            let fresh = if keep[0] { &mut p1 } else { &mut p0 };
            fresh.release().await;
        }
        for (seat, (&bot, player)) in job.seats.iter().zip([p0, p1]).enumerate() {
            if keep[seat] && player.bot().is_some() {
                self.kept.put(lane, bot, player);
            }
            let s = &mut rec.seats[seat];
            s.command = self.commands[bot].clone();
            if s.log.is_none() && keep[seat] != keep[1 - seat] {
                // Stopped after run_game looked for its log: it may have
                // written its first stderr bytes while stopping.
                s.log = setup
                    .log_path(seat, &self.bots[bot].name)
                    .filter(|p| p.exists())
                    .map(|p| p.display().to_string());
            }
            for file in [&mut s.log, &mut s.transcript].into_iter().flatten() {
                if let Ok(rel) = Path::new(file.as_str()).strip_prefix(&self.run_dir) {
                    *file = rel.display().to_string();
                }
            }
        }
        Ok(rec)
    }

    async fn finish_lane(&self, lane: usize) {
        let mut stopping = tokio::task::JoinSet::new();
        for mut player in self.kept.take_lane(lane) {
            stopping.spawn(async move { player.release().await });
        }
        while stopping.join_next().await.is_some() {}
    }
}
