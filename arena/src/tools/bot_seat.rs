//! A bot process as a [`MoveSource`] for `arena play --bot`: it hears the
//! game as in a match (`newgame`, `played`, `position`, `legal`, `go`,
//! through [`crate::referee::seat`]) and its answer is checked by the play
//! loop like any move.

use std::sync::Arc;
use std::time::Duration;

use crate::process::{Bot, BotFailure, BotSpec, Limits, StartError};
use crate::referee::seat::{self, Info};
use crate::tools::play::{MoveSource, PlayEnd, SourceError};
use arena_core::games::{AnyGame, Seat};
use arena_core::protocol::Go;
use arena_core::record::Reason;

/// A bot process that plays one seat of `arena play`, told the game's moves as
/// a referee would tell them.
pub struct BotSeat {
    runtime: tokio::runtime::Runtime,
    bot: Option<Bot>,
    seat: Seat,
    game: Arc<dyn AnyGame>,
    seed: u64,
    movetime: Duration,
    /// Moves of the history already told to the bot.
    told: usize,
    started: bool,
    info: Vec<String>,
}

/// Why the bot could not be started, or gave no move.
#[derive(Debug, thiserror::Error)]
pub enum BotSeatError {
    /// The bot's async runtime could not be started.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// The bot (by name) did not come to `ready`.
    #[error("bot {name}: {source}")]
    Start {
        /// The bot's name.
        name: String,
        /// What went wrong.
        source: StartError,
    },
    /// It failed earlier and was stopped.
    #[error("the bot has stopped")]
    Stopped,
    /// It failed to answer (crash, timeout, protocol violation).
    #[error(transparent)]
    Failed(BotFailure),
}

/// Overrun tolerated on the per-move limit, as in a match.
const MARGIN: Duration = Duration::from_millis(50);

impl BotSeat {
    /// Starts the bot (and waits for its `ready`).
    pub fn start(
        spec: BotSpec,
        seat: Seat,
        game: Arc<dyn AnyGame>,
        seed: u64,
        movetime: Duration,
    ) -> Result<BotSeat, BotSeatError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(BotSeatError::Runtime)?;
        let name = spec.name.clone();
        let bot = runtime
            .block_on(Bot::start(Arc::new(spec), &Limits::default(), None))
            .map_err(|source| BotSeatError::Start { name, source })?;
        Ok(BotSeat {
            runtime,
            bot: Some(bot),
            seat,
            game,
            seed,
            movetime,
            told: 0,
            started: false,
            info: Vec::new(),
        })
    }
}

impl MoveSource for BotSeat {
    fn choose(
        &mut self,
        state: &str,
        legal: &[String],
        history: &[(Seat, String)],
    ) -> Result<String, SourceError> {
        let Some(bot) = self.bot.as_mut() else {
            return Err(BotSeatError::Stopped.into());
        };
        let set_up = !self.started;
        if set_up {
            seat::new_game(bot, &*self.game, self.seat, self.seed);
            self.started = true;
        }
        for (seat, mv) in &history[self.told..] {
            seat::played(bot, *seat, mv);
        }
        self.told = history.len();
        let go = Go {
            time: None,
            opptime: None,
            inc: 0,
            movetime: Some(self.movetime.as_millis() as u64),
            budget: Default::default(),
        };
        let wait = self.movetime + MARGIN;
        let mut info = Info::default();
        let decision = self.runtime.block_on(async {
            if set_up {
                seat::set_up(bot, &mut info).await?;
            }
            seat::between_decisions(bot, &mut info).await?;
            seat::decide(bot, None, state, legal, go, Some(wait), &mut info).await
        });
        self.info.extend(info.into_lines());
        decision
            .map(|d| d.mv)
            .map_err(|m| BotSeatError::Failed(m.failure()).into())
    }

    fn take_info(&mut self) -> Vec<String> {
        std::mem::take(&mut self.info)
    }

    fn finish(&mut self, end: &PlayEnd, history: &[(Seat, String)]) {
        let Some(mut bot) = self.bot.take() else {
            return;
        };
        let over = match end {
            PlayEnd::Finished(o) => Some((o.winner, o.reason(), o.scores)),
            PlayEnd::Forfeit { seat, .. } => Some((Some(1 - seat), Reason::Illegal, [0, 0])),
            PlayEnd::Abandoned => None,
        };
        self.runtime.block_on(async {
            if let (true, Some((winner, reason, scores))) = (self.started, over) {
                seat::game_over(&mut bot, self.seat, winner, reason, scores, history.len());
                let _ = bot.flush_within(Duration::from_millis(200)).await;
            }
            bot.shutdown().await;
        });
    }
}

impl Drop for BotSeat {
    fn drop(&mut self) {
        if let Some(mut bot) = self.bot.take() {
            self.runtime.block_on(bot.shutdown());
        }
    }
}
