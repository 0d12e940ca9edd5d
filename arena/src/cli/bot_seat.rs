//! A bot process as a [`MoveSource`] for `arena play --bot`: it hears the
//! game as in a match (`newgame`, `played`, `position`, `legal`, `go`) and
//! its answer is checked by the play loop like any move.

use std::sync::Arc;
use std::time::Duration;

use arena::play::{MoveSource, PlayEnd};
use arena::process::{Bot, BotSpec, Limits};
use arena_core::games::{AnyGame, Seat};
use arena_core::protocol::{FromBot, Go, ToBot, Verdict};
use arena_core::record::Reason;

pub struct BotSeat {
    runtime: tokio::runtime::Runtime,
    bot: Option<Bot>,
    seat: Seat,
    game: &'static str,
    params: Vec<(String, String)>,
    seed: u64,
    movetime: Duration,
    /// Moves of the history already told to the bot.
    told: usize,
    started: bool,
    info: Vec<String>,
}

/// Overrun tolerated on the per-move limit, as in a match.
const MARGIN: Duration = Duration::from_millis(50);

impl BotSeat {
    /// Starts the bot (and waits for its `ready`).
    pub fn start(
        spec: BotSpec,
        seat: Seat,
        game: &dyn AnyGame,
        seed: u64,
        movetime: Duration,
    ) -> Result<BotSeat, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        let name = spec.name.clone();
        let bot = runtime
            .block_on(Bot::start(Arc::new(spec), &Limits::default(), None))
            .map_err(|e| format!("bot {name}: {e}"))?;
        Ok(BotSeat {
            runtime,
            bot: Some(bot),
            seat,
            game: game.name().into(),
            params: game.params(),
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
    ) -> Result<String, String> {
        let Some(bot) = self.bot.as_mut() else {
            return Err("the bot has stopped".into());
        };
        if !self.started {
            bot.queue(&ToBot::NewGame {
                game: self.game.into(),
                seat: self.seat,
                seed: self.seed,
                params: self.params.as_slice().into(),
            });
            self.started = true;
        }
        for (seat, mv) in &history[self.told..] {
            bot.queue(&ToBot::Played {
                seat: *seat,
                mv: mv.into(),
            });
        }
        self.told = history.len();
        bot.queue(&ToBot::Position(state.into()));
        bot.queue(&ToBot::Legal(legal.into()));
        bot.queue(&ToBot::Go(Go {
            time: None,
            opptime: None,
            inc: 0,
            movetime: Some(self.movetime.as_millis() as u64),
        }));
        let info = &mut self.info;
        let limit = self.movetime + MARGIN;
        self.runtime.block_on(async {
            bot.flush().await.map_err(|f| f.to_string())?;
            let deadline = tokio::time::Instant::now() + limit;
            loop {
                match bot.read_message(Some(deadline)).await {
                    Ok(FromBot::Move(mv)) => return Ok(mv),
                    Ok(FromBot::Info(text)) => info.push(text),
                    Ok(FromBot::Empty) => {}
                    Ok(FromBot::Ready(_)) => return Err("unexpected `ready`".to_string()),
                    Err(f) => return Err(f.to_string()),
                }
            }
        })
    }

    fn take_info(&mut self) -> Vec<String> {
        std::mem::take(&mut self.info)
    }

    fn finish(&mut self, end: &PlayEnd) {
        let Some(mut bot) = self.bot.take() else {
            return;
        };
        let (verdict, reason) = match end {
            PlayEnd::Finished(o) => (
                match o.winner {
                    None => Verdict::Draw,
                    Some(s) if s == self.seat => Verdict::Win,
                    Some(_) => Verdict::Loss,
                },
                if o.adjudicated.is_some() {
                    Reason::Adjudicated
                } else {
                    Reason::Normal
                },
            ),
            PlayEnd::Forfeit { seat, .. } if *seat == self.seat => (Verdict::Loss, Reason::Illegal),
            PlayEnd::Forfeit { .. } => (Verdict::Win, Reason::Illegal),
            PlayEnd::Abandoned => (Verdict::Draw, Reason::Adjudicated),
        };
        self.runtime.block_on(async {
            if self.started && !matches!(end, PlayEnd::Abandoned) {
                bot.queue(&ToBot::GameOver {
                    verdict,
                    reason,
                    extra: Vec::new().into(),
                });
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
