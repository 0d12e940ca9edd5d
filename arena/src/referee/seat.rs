//! The conversation with one bot in one game: what the referee writes
//! (`newgame`, `played`, `position`/`legal`/`go` in one write, `gameover`)
//! and how it reads the answers (`info` kept, a `move` only after `go`, a
//! deadline). The referee ([`super::play_game`]), `arena check-bot` and
//! `arena play` against a bot all talk to bots through these functions, so
//! a bot meets the same protocol everywhere; each caller decides what a
//! [`Misstep`] costs and how to word it.

use std::time::Duration;

use tokio::time::Instant;

use crate::process::{Bot, BotFailure};
use arena_core::games::{AnyGame, Seat};
use arena_core::protocol::{self, FromBot, Go, ToBot, Verdict};
use arena_core::record::Reason;

/// Most `info` lines kept per move (the rest are counted, not kept).
pub const MAX_INFO_LINES: usize = 32;
/// Longest `info` text kept, in characters.
pub const MAX_INFO_CHARS: usize = 300;
/// Most bytes the kept `info` lines of one decision may take in a record,
/// counted as JSON writes them: a bot cannot make its records grow faster
/// than plain text would (a control character costs six bytes escaped,
/// `\u0001`, which is why such characters are replaced before counting).
pub const MAX_INFO_BYTES: usize = 16 << 10;
/// Most bytes a bot may write during one decision before it is a flood.
pub const MAX_DECISION_BYTES: u64 = 4 << 20;

/// What a bot did wrong in the conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misstep {
    /// A `move` when no `go` was waiting for one (the move, cut short).
    UnaskedMove(String),
    /// `ready` again.
    Ready,
    /// `readyok` when no `isready` was waiting for one.
    ReadyOk,
    /// No `move` by the deadline (a failure with reason `timeout`).
    NoAnswer(BotFailure),
    /// Anything else: a crash, a protocol violation, a flood, input not read.
    Failed(BotFailure),
}

impl Misstep {
    /// The forfeit it is in a game, in the referee's words.
    pub fn failure(self) -> BotFailure {
        match self {
            Misstep::UnaskedMove(mv) => BotFailure::new(
                Reason::Protocol,
                format!("`move {mv}` when no `go` was pending"),
            ),
            Misstep::Ready => BotFailure::new(Reason::Protocol, "unexpected `ready`"),
            Misstep::ReadyOk => {
                BotFailure::new(Reason::Protocol, "`readyok` when no `isready` was pending")
            }
            Misstep::NoAnswer(f) | Misstep::Failed(f) => f,
        }
    }
}

/// The `info` lines of one decision: the first [`MAX_INFO_LINES`] kept
/// (each cut to [`MAX_INFO_CHARS`], control characters replaced by U+FFFD,
/// all of them within [`MAX_INFO_BYTES`]), all of them counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// The lines kept.
    pub kept: Vec<String>,
    /// Lines received, kept or not.
    pub count: usize,
    /// What the kept lines cost in a record (JSON-escaped bytes).
    bytes: usize,
}

impl Info {
    fn add(&mut self, text: &str) {
        self.count += 1;
        if self.kept.len() >= MAX_INFO_LINES {
            return;
        }
        let line = protocol::plain_text(&protocol::truncate(text, MAX_INFO_CHARS));
        let cost = json_bytes(&line);
        // A line over the budget is dropped whole (and counted as dropped):
        // a cut one could end inside what the bot meant as one token.
        if self.bytes + cost <= MAX_INFO_BYTES {
            self.bytes += cost;
            self.kept.push(line);
        }
    }

    /// The kept lines, with a note of how many more there were.
    pub fn into_lines(mut self) -> Vec<String> {
        let dropped = self.count - self.kept.len();
        if dropped > 0 {
            self.kept
                .push(format!("[arena: {dropped} more info lines dropped]"));
        }
        self.kept
    }
}

/// Bytes `text` takes as a JSON string's contents (without the quotes).
fn json_bytes(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        })
        .sum()
}

/// Queues `newgame` for the bot in `seat`.
pub fn new_game(bot: &mut Bot, game: &dyn AnyGame, seat: Seat, seed: u64) {
    let params = game.params();
    bot.queue(&ToBot::NewGame {
        game: game.name().into(),
        seat,
        seed,
        params: params.into(),
    });
}

/// Queues `played`: `seat` moved `mv`.
pub fn played(bot: &mut Bot, seat: Seat, mv: &str) {
    bot.queue(&ToBot::Played {
        seat,
        mv: mv.into(),
    });
}

/// Reads what the bot said since its last decision, without waiting, as
/// the referee does before each `go`: `info` lines go to `info` (they
/// belong to the coming move); a `move` or `ready` is a misstep. Output
/// from here to the coming move may be at most [`MAX_DECISION_BYTES`].
pub async fn between_decisions(bot: &mut Bot, info: &mut Info) -> Result<(), Misstep> {
    bot.set_output_budget(MAX_DECISION_BYTES);
    while let Some(msg) = bot.poll_message().await {
        match msg {
            Ok(FromBot::Info(text)) => info.add(&text),
            Ok(FromBot::Move(mv)) => {
                let mv = protocol::truncate(&mv, protocol::SHOW);
                return Err(misstep(bot, Misstep::UnaskedMove(mv)));
            }
            Ok(FromBot::Ready(_)) => return Err(misstep(bot, Misstep::Ready)),
            Ok(FromBot::ReadyOk) => return Err(misstep(bot, Misstep::ReadyOk)),
            Ok(FromBot::Empty) => {}
            Err(f) => return Err(Misstep::Failed(f)),
        }
    }
    Ok(())
}

/// Marks the bot failed for `m` and returns it.
fn misstep(bot: &mut Bot, m: Misstep) -> Misstep {
    bot.mark_failed(m.clone().failure());
    m
}

/// The untimed set-up of a game, for a bot whose `ready` asked for it
/// ([`protocol::announces_isready`]; nothing for any other bot): `isready`
/// after what was queued (`newgame`, the opening's moves), then reads up to
/// `readyok`, keeping `info` lines (they belong to its first move), within
/// the start-up limit. The bot runs meanwhile, on no clock, and is frozen
/// again once it is ready: its opponent's set-up and its first `go` find it
/// as a plain bot's.
pub async fn set_up(bot: &mut Bot, info: &mut Info) -> Result<(), Misstep> {
    if !protocol::announces_isready(&bot.ready_text) {
        return Ok(());
    }
    bot.queue(&ToBot::IsReady);
    bot.set_output_budget(MAX_DECISION_BYTES);
    bot.set_frozen(false);
    let limit = bot.startup_limit();
    let deadline = Instant::now() + limit;
    bot.flush_within(limit).await.map_err(Misstep::Failed)?;
    loop {
        match bot.read_message(Some(deadline)).await {
            Ok(FromBot::ReadyOk) => break,
            Ok(FromBot::Info(text)) => info.add(&text),
            Ok(FromBot::Empty) => {}
            Ok(FromBot::Move(mv)) => {
                let mv = protocol::truncate(&mv, protocol::SHOW);
                return Err(misstep(bot, Misstep::UnaskedMove(mv)));
            }
            Ok(FromBot::Ready(_)) => return Err(misstep(bot, Misstep::Ready)),
            Err(mut f) => {
                if f.reason == Reason::Timeout {
                    f.detail = format!(
                        "no `readyok` within {} ms of `isready` (the start-up limit)",
                        limit.as_millis()
                    );
                }
                return Err(Misstep::Failed(f));
            }
        }
    }
    bot.set_output_budget(u64::MAX);
    bot.set_frozen(true);
    Ok(())
}

/// A bot's answer to `go`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The move as the bot wrote it (not yet checked against the rules).
    pub mv: String,
    /// From the referee starting to write `position`/`legal`/`go` to the
    /// `move` read.
    pub used: Duration,
    /// CPU time all the bot's processes used meanwhile, where measured.
    pub cpu: Option<Duration>,
}

/// How long a bot may think before its waiting opponent is frozen: a move
/// that comes sooner (an instant bot's) costs no signals, and nothing the
/// waiting bot left running gets more than that of its opponent's time.
pub const FREEZE_AFTER: Duration = Duration::from_millis(1);

/// One decision: `position`, `legal` and `go` in one write (after whatever
/// was queued), then reads up to the `move`, keeping `info` lines, for at
/// most `wait` from the start of the write (`None`: no limit), which is
/// also as long as the write may wait for the bot to read. `waiting`, the
/// opponent when it may not ponder, is frozen once the bot has thought for
/// [`FREEZE_AFTER`], and stays frozen until its own `go`.
pub async fn decide(
    bot: &mut Bot,
    waiting: Option<&mut Bot>,
    state: &str,
    legal: &[String],
    go: Go,
    wait: Option<Duration>,
    info: &mut Info,
) -> Result<Decision, Misstep> {
    bot.queue(&ToBot::Position(state.into()));
    bot.queue(&ToBot::Legal(legal.into()));
    bot.queue(&ToBot::Go(go));
    // The clock, wall and CPU, starts when the referee starts writing: a
    // write the bot holds up (a full pipe it does not read) is its own
    // thinking time, and it is thawed only now, so that nothing it does
    // before the write is off the clock. The CPU count starting here too
    // keeps a move's CPU time within its wall time.
    let go_at = Instant::now();
    let cpu_at_go = bot.cpu_time();
    bot.set_frozen(false);
    let deadline = wait.map(|w| go_at + w);
    // A write that stalls past the move's time (and margin) is a loss on
    // time, however much longer the general write stall limit is.
    let result = match wait {
        Some(w) if w < bot.write_stall() => bot.flush_within(w).await.map_err(|mut f| {
            if f.reason == Reason::Timeout {
                f.detail = format!(
                    "did not read its `go` within {} ms, its time for the move",
                    w.as_millis()
                );
            }
            f
        }),
        _ => bot.flush().await,
    };
    result.map_err(Misstep::Failed)?;
    let mut freeze_at = waiting.is_some().then(|| go_at + FREEZE_AFTER);
    let mut waiting = waiting;
    let (mv, answered_at) = loop {
        let message = tokio::select! {
            biased;
            m = bot.read_message(deadline) => m,
            _ = sleep_until_some(freeze_at) => {
                if let Some(w) = waiting.take() {
                    w.set_frozen(true);
                }
                freeze_at = None;
                continue;
            }
        };
        match message {
            Ok(FromBot::Move(mv)) => break (mv, Instant::now()),
            Ok(FromBot::Info(text)) => info.add(&text),
            Ok(FromBot::Empty) => {}
            Ok(FromBot::Ready(_)) => return Err(misstep(bot, Misstep::Ready)),
            Ok(FromBot::ReadyOk) => return Err(misstep(bot, Misstep::ReadyOk)),
            Err(f) if f.reason == Reason::Timeout => return Err(Misstep::NoAnswer(f)),
            Err(f) => return Err(Misstep::Failed(f)),
        }
    };
    bot.set_output_budget(u64::MAX);
    let cpu = bot
        .cpu_time()
        .zip(cpu_at_go)
        .map(|(now, then)| now.saturating_sub(then));
    Ok(Decision {
        mv,
        used: answered_at - go_at,
        cpu,
    })
}

/// Sleeps until `at`, or for ever when there is none.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Queues `gameover` for the bot in `seat` of a game that `winner` won
/// (`None`: a draw), ended for `reason`, with its scores and length.
pub fn game_over(
    bot: &mut Bot,
    seat: Seat,
    winner: Option<Seat>,
    reason: Reason,
    scores: [i32; 2],
    plies: usize,
) {
    let extra = [
        ("scores".to_string(), format!("{},{}", scores[0], scores[1])),
        ("plies".to_string(), plies.to_string()),
    ];
    bot.queue(&ToBot::GameOver {
        verdict: Verdict::for_seat(winner, seat),
        reason,
        extra: extra.to_vec().into(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `lines` cost in a record: JSON, as games.jsonl writes it.
    fn json_len(lines: &[String]) -> usize {
        serde_json::to_string(lines).unwrap().len()
    }

    /// 32 lines of 300 control characters per decision: written as sent,
    /// JSON spends six bytes on each (the probe: the bloat is real, more
    /// than five times plain text); kept, they are replaced and the whole
    /// decision stays within MAX_INFO_BYTES, counted as JSON writes it.
    #[test]
    fn info_costs_a_record_no_more_than_its_budget_whatever_it_holds() {
        let plain = vec!["x".repeat(MAX_INFO_CHARS); MAX_INFO_LINES];
        for hostile in ["\u{1}", "\"", "\u{1b}[2J", "\u{85}", "\\"] {
            let line = hostile.repeat(MAX_INFO_CHARS);
            let raw = vec![line.clone(); MAX_INFO_LINES];
            let mut info = Info::default();
            for _ in 0..MAX_INFO_LINES {
                info.add(&line);
            }
            assert_eq!(info.count, MAX_INFO_LINES);
            let kept = json_len(&info.kept);
            // Quotes and commas around each line come on top of the budget.
            assert!(
                kept <= MAX_INFO_BYTES + 3 * MAX_INFO_LINES,
                "{hostile:?}: {kept} bytes"
            );
            assert!(info.kept.iter().all(|l| !l.chars().any(char::is_control)));
            if hostile == "\u{1}" {
                assert!(json_len(&raw) > 5 * json_len(&plain), "the probe");
                assert!(info.kept[0].starts_with('\u{fffd}'));
            }
            let lines = info.into_lines();
            assert!(
                lines.last().unwrap().contains("more info lines dropped")
                    || lines.len() == MAX_INFO_LINES,
                "{lines:?}"
            );
        }
        // Plain text is kept whole, as before.
        let mut info = Info::default();
        for l in &plain {
            info.add(l);
        }
        assert_eq!(info.into_lines(), plain);
    }
}
