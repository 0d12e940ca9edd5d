//! The game itself: the record being built, the opening, the clocks, the
//! verdict on each move, `gameover` to both bots.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use super::adjudicate::{self, Adjudicator};
use super::clock::SeatClock;
use super::seat::{self, Info, Misstep};
use super::GameSetup;
use crate::process::{Bot, BotFailure, BotSpec};
use arena_core::games::{AnyState, Seat};
use arena_core::protocol::{self, Budget};
use arena_core::record::{GameRecord, GameResult, MoveRecord, Reason, SeatRecord};

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// A game in progress: the record being built.
pub(super) struct Table {
    pub(super) record: GameRecord,
    started: Instant,
    feed: Option<super::MoveFeed>,
}

impl Table {
    pub(super) fn new(setup: &GameSetup, seats: [SeatRecord; 2], initial_state: String) -> Self {
        let game = &setup.game;
        Table {
            record: GameRecord {
                index: setup.index,
                round: setup.round,
                pair: setup.pair,
                game: game.name().to_string(),
                params: game.params().into_iter().collect::<BTreeMap<_, _>>(),
                seed: setup.seed,
                seats,
                opening_plies: 0,
                final_state: initial_state.clone(),
                initial_state,
                moves: Vec::new(),
                scores: [0, 0],
                result: GameResult::Draw,
                reason: Reason::Normal,
                detail: None,
                offender: None,
                clock: setup.time.clock,
                duration_ms: 0,
            },
            started: Instant::now(),
            feed: setup.feed.clone(),
        }
    }

    /// Records a move, telling the setup's feed first.
    pub(super) fn push(&mut self, m: MoveRecord) {
        if let Some(feed) = &self.feed {
            (feed.0)(&m);
        }
        self.record.moves.push(m);
    }

    /// Plays the opening's move `mv` on `state` and records it (the
    /// referee's move: no time, no info); the seat it was played for.
    ///
    /// # Panics
    /// If it is illegal (a caller bug: see [`GameSetup::check_opening`]).
    pub(super) fn opening_move(&mut self, state: &mut Box<dyn AnyState>, mv: &str) -> Seat {
        let seat = state.to_move();
        let effects = match state.play(mv) {
            Ok(effects) => effects,
            Err(e) => panic!("illegal opening move `{mv}`: {e}"),
        };
        self.push(MoveRecord {
            seat,
            mv: mv.to_string(),
            ms: 0.0,
            cpu_ms: None,
            info: Vec::new(),
            search: Default::default(),
            state: state.to_string(),
            effects,
        });
        self.record.opening_plies += 1;
        seat
    }

    pub(super) fn forfeit(&mut self, offender: Seat, failure: BotFailure) {
        self.record.result = GameResult::win_for(1 - offender);
        self.record.reason = failure.reason;
        self.record.offender = Some(offender);
        self.record.detail = Some(failure.detail);
    }

    pub(super) fn finish(mut self) -> GameRecord {
        self.record.duration_ms = ms(self.started.elapsed());
        self.record
    }
}

/// `ready`: the bot's `ready` text, `None` for a bot that did not start.
pub(super) fn seat_record(
    spec: &BotSpec,
    log: Option<&Path>,
    budget: Budget,
    ready: Option<&str>,
) -> SeatRecord {
    SeatRecord {
        name: spec.name.clone(),
        command: spec.command.clone(),
        log: log.map(|p| p.display().to_string()),
        budget,
        ready: ready.map(str::to_string),
        transcript: None,
    }
}

/// Plays one game between two running bots (`bots[0]` takes seat 0) and
/// returns its record. Bots that misbehave lose the game; they are then
/// marked failed ([`Bot::failure`]) and must not be used again.
///
/// # Panics
/// If an opening move is illegal (a caller bug: check with
/// [`GameSetup::check_opening`]).
pub async fn play_game(setup: &GameSetup, bots: [&mut Bot; 2]) -> GameRecord {
    let [b0, b1] = bots;
    let mut bots = [b0, b1];
    let seats = [0, 1].map(|s| {
        let path = setup.log_path(s, &bots[s].spec.name);
        if bots[s].log_path() != path.as_deref() {
            bots[s].set_log(path.as_deref());
        }
        let ready = Some(bots[s].ready_text.as_str());
        seat_record(&bots[s].spec, bots[s].log_path(), setup.budgets[s], ready)
    });
    let mut state = setup.game.initial_state();
    let mut table = Table::new(setup, seats, state.to_string());
    play(setup, &mut bots, &mut state, &mut table).await;
    // Both bots stay frozen from here until their next game needs them (its
    // first `go`): `gameover` waits in the pipe. A kept bot parked between
    // its games takes no CPU from the games in progress; a bot that is
    // stopped is thawed to read `quit` ([`Bot::shutdown`]).
    for bot in bots.iter_mut() {
        bot.set_frozen(true);
    }
    table.record.final_state = state.to_string();
    send_gameover(&mut bots, &table.record).await;
    table.finish()
}

async fn play(
    setup: &GameSetup,
    bots: &mut [&mut Bot; 2],
    state: &mut Box<dyn AnyState>,
    table: &mut Table,
) {
    for (seat, bot) in bots.iter_mut().enumerate() {
        seat::new_game(bot, &*setup.game, seat, setup.seed);
    }
    // The opening: played by the referee, told to both bots.
    for mv in &setup.opening {
        let seat = table.opening_move(state, mv);
        for bot in bots.iter_mut() {
            seat::played(bot, seat, mv);
        }
    }
    for (seat, bot) in bots.iter_mut().enumerate() {
        if let Err(f) = bot.flush().await {
            return table.forfeit(seat, f);
        }
    }
    // Each bot's untimed set-up, if it asked for one, one after the other
    // (as they started): what it says meanwhile goes with its first move.
    let mut early = [Info::default(), Info::default()];
    for (seat, bot) in bots.iter_mut().enumerate() {
        if let Err(m) = seat::set_up(bot, &mut early[seat]).await {
            return table.forfeit(seat, m.failure());
        }
    }

    let mut clocks = [0, 1].map(|s| SeatClock::new(setup.time_of(s)));
    let mut state_text = state.to_string();
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    loop {
        if let Some(outcome) = state.outcome() {
            table.record.scores = outcome.scores;
            table.record.result = GameResult::from_winner(outcome.winner);
            if let Some(cause) = outcome.adjudicated {
                table.record.reason = Reason::Adjudicated;
                table.record.detail = Some(cause.to_string());
            }
            return;
        }
        let seat = state.to_move();
        let legal = state.legal_moves();
        assert!(
            !legal.is_empty(),
            "engine bug: no legal move in a position that is not over"
        );
        let [first, second] = &mut *bots;
        let (bot, waiting) = if seat == 0 {
            (&mut **first, &mut **second)
        } else {
            (&mut **second, &mut **first)
        };
        let waiting = (!setup.ponder).then_some(waiting);

        // Anything the bot said since its last decision belongs to this one.
        let mut info = std::mem::take(&mut early[seat]);
        if let Err(m) = seat::between_decisions(bot, &mut info).await {
            return table.forfeit(seat, m.failure());
        }
        let clock = &clocks[seat];
        let go = clock.go(&clocks[1 - seat], setup.budgets[seat]);
        let wait = clock.deadline();
        let decision =
            match seat::decide(bot, waiting, &state_text, &legal, go, wait, &mut info).await {
                Ok(d) => d,
                Err(Misstep::NoAnswer(mut f)) => {
                    f.detail = clock.no_answer();
                    return table.forfeit(seat, f);
                }
                Err(m) => return table.forfeit(seat, m.failure()),
            };
        if let Err(over) = clocks[seat].charge(decision.used, decision.cpu) {
            let f = BotFailure::new(Reason::Timeout, over.to_string());
            bot.mark_failed(f.clone());
            return table.forfeit(seat, f);
        }
        let mv = decision.mv;
        let effects = match state.play(&mv) {
            Ok(effects) => effects,
            Err(e) => {
                let f = BotFailure::new(
                    Reason::Illegal,
                    protocol::truncate(&e.to_string(), protocol::SHOW),
                );
                bot.mark_failed(f.clone());
                return table.forfeit(seat, f);
            }
        };
        state_text = state.to_string();
        // Both bots hear the move. The opponent hears it at once (in the
        // same write as its own `go` when it moves next); the mover's echo of
        // its own move waits for its next `go` or `gameover`, which saves a
        // write and a wake-up of a bot that learns nothing from it.
        let next = state.outcome().is_none().then(|| state.to_move());
        for (s, bot) in bots.iter_mut().enumerate() {
            seat::played(bot, seat, &mv);
            if s != seat && next.is_some() && next != Some(s) {
                if let Err(f) = bot.flush().await {
                    return table.forfeit(s, f);
                }
            }
        }
        let search = protocol::search_fields(&info.kept);
        let score = adjudicate::score_of(&search);
        table.push(MoveRecord {
            seat,
            mv,
            ms: round_ms(decision.used),
            cpu_ms: decision.cpu.map(round_ms),
            search,
            info: info.into_lines(),
            state: state_text.clone(),
            effects,
        });
        // The bots' agreed scores end a game the rules have not ended.
        if next.is_some() {
            if let Some(v) = adjudicator.add(seat, score, table.record.moves.len()) {
                table.record.result = v.result;
                // The material on the board when the bots agreed, as the
                // rules' own end counts it (seeds stored, pieces left).
                table.record.scores = state.material();
                table.record.reason = Reason::Adjudicated;
                table.record.detail = Some(v.detail);
                return;
            }
        }
    }
}

/// Milliseconds with three decimals (a microsecond).
fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1000.0
}

/// Tells both bots how the game ended (best effort: a bot that is gone or
/// does not read is not waited for).
async fn send_gameover(bots: &mut [&mut Bot; 2], record: &GameRecord) {
    for (seat, bot) in bots.iter_mut().enumerate() {
        seat::game_over(
            bot,
            seat,
            record.result.winner(),
            record.reason,
            record.scores,
            record.moves.len(),
        );
        let _ = bot.flush_within(Duration::from_millis(200)).await;
    }
}
