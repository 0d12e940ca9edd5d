//! One game between two bots: the referee sends `newgame`, the opening,
//! `position`/`legal`/`go` before each decision and `played` after each
//! move, runs the clocks, validates every move through [`AnyState::play`],
//! and turns whatever happens (including any bot misbehaviour) into a
//! [`GameRecord`]. It never returns an error because of a bot.
//!
//! [`play_game`] plays on two bots that are already running; [`run_game`]
//! also starts them (fresh for each game, or kept across games) and stops
//! them afterwards. Both are plain async functions: a tournament can run
//! many games at once on one runtime.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::bot::{Bot, BotFailure, BotSpec, Limits, StartError};
use crate::games::{AnyGame, AnyState, Seat};
use crate::protocol::{self, FromBot, Go, Ms, ToBot, Verdict};
use crate::record::{GameRecord, GameResult, MoveRecord, Reason, SeatRecord};

/// The clock rules of a game. With neither `movetime` nor `time` a bot may
/// think for ever (only sensible for trusted bots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Limit on each decision.
    pub movetime: Option<Duration>,
    /// Each side's game clock at the start.
    pub time: Option<Duration>,
    /// Added to the mover's game clock after each of its moves.
    pub inc: Duration,
    /// Tolerated overrun before a bot loses on time.
    pub margin: Duration,
    /// Whether the bot not on move keeps running (thinking on its
    /// opponent's time, cutechess's `ponder`). Off: it is frozen from
    /// [`FREEZE_AFTER`] into its opponent's turn until its next `go`, so that
    /// nothing it left running takes the CPU its opponent's clock is paying
    /// for.
    pub ponder: bool,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            movetime: Some(Duration::from_secs(1)),
            time: None,
            inc: Duration::ZERO,
            margin: Duration::from_millis(50),
            ponder: false,
        }
    }
}

/// Most `info` lines kept per move (the rest are counted, not kept).
pub const MAX_INFO_LINES: usize = 32;
/// Longest `info` text kept, in characters.
pub const MAX_INFO_CHARS: usize = 300;
/// Most bytes a bot may write during one decision before it is a flood.
pub const MAX_DECISION_BYTES: u64 = 4 << 20;

/// Everything needed to play one game, apart from the bots.
#[derive(Clone, Debug)]
pub struct GameSetup {
    pub game: Arc<dyn AnyGame>,
    /// Position in the schedule.
    pub index: u64,
    pub round: u64,
    pub pair: u64,
    /// Sent to both bots in `newgame` (for their own randomness).
    pub seed: u64,
    /// Moves the referee plays before the bots decide (a random opening,
    /// say). They must be legal: see [`GameSetup::check_opening`].
    pub opening: Vec<String>,
    pub time: TimeControl,
    /// Where the bots' stderr logs go (one file per bot per game); `None`
    /// discards them.
    pub log_dir: Option<PathBuf>,
}

impl GameSetup {
    /// Checks that the opening moves are legal, one after the other.
    pub fn check_opening(&self) -> Result<(), String> {
        let mut state = self.game.initial_state();
        for (i, mv) in self.opening.iter().enumerate() {
            if state.outcome().is_some() {
                return Err(format!("opening move {} `{mv}`: the game is over", i + 1));
            }
            state
                .play(mv)
                .map_err(|e| format!("opening move {} `{mv}`: {e}", i + 1))?;
        }
        Ok(())
    }

    /// The stderr log file of `seat`'s bot in this game.
    pub fn log_path(&self, seat: Seat, name: &str) -> Option<PathBuf> {
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.log_dir
            .as_ref()
            .map(|d| d.join(format!("game{:05}-seat{seat}-{clean}.log", self.index)))
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// A game in progress: the record being built.
struct Table<'a> {
    setup: &'a GameSetup,
    record: GameRecord,
    started: Instant,
}

impl<'a> Table<'a> {
    fn new(setup: &'a GameSetup, seats: [SeatRecord; 2], initial_state: String) -> Self {
        let game = &setup.game;
        Table {
            setup,
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
                duration_ms: 0,
            },
            started: Instant::now(),
        }
    }

    fn forfeit(&mut self, offender: Seat, failure: BotFailure) {
        self.record.result = GameResult::win_for(1 - offender);
        self.record.reason = failure.reason;
        self.record.offender = Some(offender);
        self.record.detail = Some(failure.detail);
    }

    fn finish(mut self) -> GameRecord {
        let _ = self.setup;
        self.record.duration_ms = ms(self.started.elapsed());
        self.record
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
        seat_record(&bots[s].spec, bots[s].log_path())
    });
    let mut state = setup.game.initial_state();
    let mut table = Table::new(setup, seats, state.to_string());
    play(setup, &mut bots, &mut state, &mut table).await;
    for bot in bots.iter_mut() {
        bot.set_frozen(false);
    }
    table.record.final_state = state.to_string();
    send_gameover(&mut bots, &table.record).await;
    table.finish()
}

fn seat_record(spec: &BotSpec, log: Option<&Path>) -> SeatRecord {
    SeatRecord {
        name: spec.name.clone(),
        command: spec.command.clone(),
        log: log.map(|p| p.display().to_string()),
    }
}

async fn play(
    setup: &GameSetup,
    bots: &mut [&mut Bot; 2],
    state: &mut Box<dyn AnyState>,
    table: &mut Table<'_>,
) {
    let game = &setup.game;
    let params = game.params();
    for (seat, bot) in bots.iter_mut().enumerate() {
        bot.queue(&ToBot::NewGame {
            game: game.name(),
            seat,
            seed: setup.seed,
            params: &params,
        });
    }
    // The opening: played by the referee, told to both bots.
    for mv in &setup.opening {
        let seat = state.to_move();
        let effects = match state.play(mv) {
            Ok(effects) => effects,
            Err(e) => panic!("illegal opening move `{mv}`: {e}"),
        };
        for bot in bots.iter_mut() {
            bot.queue(&ToBot::Played { seat, mv });
        }
        table.record.moves.push(MoveRecord {
            seat,
            mv: mv.clone(),
            ms: 0.0,
            cpu_ms: None,
            info: Vec::new(),
            state: state.to_string(),
            effects,
        });
        table.record.opening_plies += 1;
    }
    for (seat, bot) in bots.iter_mut().enumerate() {
        if let Err(f) = bot.flush().await {
            return table.forfeit(seat, f);
        }
    }

    let tc = setup.time;
    let mut clock = [tc.time; 2];
    let mut state_text = state.to_string();
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

        // Anything the bot said since its last decision: info is kept for
        // this move; a move nobody asked for is a protocol violation.
        let mut info = Vec::new();
        let mut dropped = 0usize;
        // Output since the last decision counts towards this one's budget.
        bot.set_output_budget(MAX_DECISION_BYTES);
        while let Some(msg) = bot.poll_message().await {
            match msg {
                Ok(FromBot::Info(text)) => keep_info(&mut info, &mut dropped, &text),
                Ok(FromBot::Move(mv)) => {
                    let f = BotFailure::new(
                        Reason::Protocol,
                        format!(
                            "`move {}` when no `go` was pending",
                            protocol::truncate(&mv, protocol::SHOW)
                        ),
                    );
                    bot.mark_failed(f.clone());
                    return table.forfeit(seat, f);
                }
                Ok(FromBot::Ready(_)) => {
                    let f = BotFailure::new(Reason::Protocol, "unexpected `ready`");
                    bot.mark_failed(f.clone());
                    return table.forfeit(seat, f);
                }
                Ok(FromBot::Empty) => {}
                Err(f) => return table.forfeit(seat, f),
            }
        }

        let limit = match (tc.movetime, clock[seat]) {
            (Some(m), Some(c)) => Some(m.min(c)),
            (m, c) => m.or(c),
        };
        bot.queue(&ToBot::Position(&state_text));
        bot.queue(&ToBot::Legal(&legal));
        bot.queue(&ToBot::Go(Go {
            time: Ms(clock[seat].map(ms)),
            opptime: Ms(clock[1 - seat].map(ms)),
            inc: ms(tc.inc),
            movetime: Ms(tc.movetime.map(ms)),
        }));
        bot.set_frozen(false);
        let cpu_at_go = bot.cpu_time();
        if let Err(f) = bot.flush().await {
            return table.forfeit(seat, f);
        }
        let go_at = Instant::now();
        let deadline = limit.map(|l| go_at + l + tc.margin);

        // The bot not on move is frozen once its opponent has thought for
        // FREEZE_AFTER: a move that comes sooner (an instant bot's) costs no
        // signals, and nothing the waiting bot left running gets more than
        // that of its opponent's time.
        let mut freeze_at = (!tc.ponder).then(|| go_at + FREEZE_AFTER);
        let (mv, answered_at) = loop {
            let message = tokio::select! {
                biased;
                m = bot.read_message(deadline) => m,
                _ = sleep_until_some(freeze_at) => {
                    waiting.set_frozen(true);
                    freeze_at = None;
                    continue;
                }
            };
            match message {
                Ok(FromBot::Move(mv)) => break (mv, Instant::now()),
                Ok(FromBot::Info(text)) => keep_info(&mut info, &mut dropped, &text),
                Ok(FromBot::Empty) => {}
                Ok(FromBot::Ready(_)) => {
                    let f = BotFailure::new(Reason::Protocol, "unexpected `ready`");
                    bot.mark_failed(f.clone());
                    return table.forfeit(seat, f);
                }
                Err(mut f) => {
                    if f.reason == Reason::Timeout {
                        f.detail = format!(
                            "no move within {} ms (+{} ms margin)",
                            limit.map_or(0, ms),
                            ms(tc.margin)
                        );
                    }
                    return table.forfeit(seat, f);
                }
            }
        };
        bot.set_output_budget(u64::MAX);
        let cpu = bot
            .cpu_time()
            .zip(cpu_at_go)
            .map(|(now, then)| now.saturating_sub(then));
        let used = answered_at - go_at;
        if let Some(limit) = limit {
            if used > limit + tc.margin {
                let f = BotFailure::new(
                    Reason::Timeout,
                    format!(
                        "move took {:.1} ms, limit {} ms (+{} ms margin)",
                        used.as_secs_f64() * 1e3,
                        ms(limit),
                        ms(tc.margin)
                    ),
                );
                bot.mark_failed(f.clone());
                return table.forfeit(seat, f);
            }
        }
        if let Some(c) = clock[seat].as_mut() {
            *c = c.saturating_sub(used) + tc.inc;
        }
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
        if dropped > 0 {
            info.push(format!("[arena: {dropped} more info lines dropped]"));
        }
        state_text = state.to_string();
        // Both bots hear the move. The opponent hears it at once (in the
        // same write as its own `go` when it moves next); the mover's echo of
        // its own move waits for its next `go` or `gameover`, which saves a
        // write and a wake-up of a bot that learns nothing from it.
        let next = state.outcome().is_none().then(|| state.to_move());
        for (s, bot) in bots.iter_mut().enumerate() {
            bot.queue(&ToBot::Played { seat, mv: &mv });
            if s != seat && next.is_some() && next != Some(s) {
                if let Err(f) = bot.flush().await {
                    return table.forfeit(s, f);
                }
            }
        }
        table.record.moves.push(MoveRecord {
            seat,
            mv,
            ms: round_ms(used),
            cpu_ms: cpu.map(round_ms),
            info,
            state: state_text.clone(),
            effects,
        });
    }
}

/// How long a bot may think before its waiting opponent is frozen.
pub const FREEZE_AFTER: Duration = Duration::from_millis(1);

/// Sleeps until `at`, or for ever when there is none.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Milliseconds with three decimals (a microsecond).
fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1000.0
}

fn keep_info(info: &mut Vec<String>, dropped: &mut usize, text: &str) {
    if info.len() < MAX_INFO_LINES {
        info.push(protocol::truncate(text, MAX_INFO_CHARS));
    } else {
        *dropped += 1;
    }
}

/// Tells both bots how the game ended (best effort: a bot that is gone or
/// does not read is not waited for).
async fn send_gameover(bots: &mut [&mut Bot; 2], record: &GameRecord) {
    let extra = [
        (
            "scores".to_string(),
            format!("{},{}", record.scores[0], record.scores[1]),
        ),
        ("plies".to_string(), record.moves.len().to_string()),
    ];
    for (seat, bot) in bots.iter_mut().enumerate() {
        let verdict = match record.result {
            GameResult::Draw => Verdict::Draw,
            r if r.points(seat) > 0.5 => Verdict::Win,
            _ => Verdict::Loss,
        };
        bot.queue(&ToBot::GameOver {
            verdict,
            reason: record.reason,
            extra: &extra,
        });
        let _ = bot.flush_within(Duration::from_millis(200)).await;
    }
}

/// A bot for one seat of a match, started when needed.
#[derive(Debug)]
pub struct Player {
    pub spec: Arc<BotSpec>,
    bot: Option<Bot>,
}

impl Player {
    pub fn new(spec: Arc<BotSpec>) -> Self {
        Player { spec, bot: None }
    }

    /// Stops the bot if one is running.
    pub async fn release(&mut self) {
        if let Some(mut bot) = self.bot.take() {
            bot.shutdown().await;
        }
    }

    /// The running bot, if any (for tests).
    pub fn bot(&self) -> Option<&Bot> {
        self.bot.as_ref()
    }
}

/// Starts the bot of `spec` just to see that its command can be run, and
/// stops it at once. The error names the command.
pub async fn check_command(spec: &Arc<BotSpec>, limits: &Limits) -> Result<(), String> {
    match Bot::spawn(spec.clone(), limits, None).await {
        Ok(mut bot) => {
            bot.kill().await;
            Ok(())
        }
        Err(e) => Err(format!(
            "bot `{}`: cannot start command `{}`: {e}",
            spec.name,
            spec.command_line()
        )),
    }
}

/// Plays one game with the two players' bots (`players[0]` takes seat 0),
/// starting each bot that is not running. With `keep`, healthy bots stay
/// running for the next game (`newgame` again); otherwise, and for a bot
/// that misbehaved, they are stopped afterwards. A bot that cannot be
/// started loses the game (both failing: a draw).
pub async fn run_game(
    setup: &GameSetup,
    players: [&mut Player; 2],
    keep: bool,
    limits: &Limits,
) -> GameRecord {
    let [p0, p1] = players;
    let started = Instant::now();
    let (r0, r1) = tokio::join!(ensure(p0, setup, 0, limits), ensure(p1, setup, 1, limits));
    let mut record = match (r0, r1) {
        (Ok(()), Ok(())) => {
            let (b0, b1) = (p0.bot.as_mut().unwrap(), p1.bot.as_mut().unwrap());
            play_game(setup, [b0, b1]).await
        }
        (r0, r1) => start_failure(setup, [&*p0, &*p1], [r0.err(), r1.err()]),
    };
    let stop = |p: &mut Player| !keep || p.bot.as_ref().is_some_and(|b| b.failure().is_some());
    let (s0, s1) = (stop(p0), stop(p1));
    tokio::join!(
        async {
            if s0 {
                p0.release().await
            }
        },
        async {
            if s1 {
                p1.release().await
            }
        }
    );
    // A bot that wrote nothing to stderr has no log file (it is made at the
    // first byte); the record names only files that exist.
    for seat in &mut record.seats {
        if seat.log.as_ref().is_some_and(|p| !Path::new(p).exists()) {
            seat.log = None;
        }
    }
    record.duration_ms = ms(started.elapsed());
    record
}

async fn ensure(
    player: &mut Player,
    setup: &GameSetup,
    seat: Seat,
    limits: &Limits,
) -> Result<(), BotFailure> {
    if player.bot.as_ref().is_some_and(|b| b.failure().is_some()) {
        player.release().await;
    }
    if player.bot.is_some() {
        return Ok(());
    }
    let log = setup.log_path(seat, &player.spec.name);
    match Bot::start(player.spec.clone(), limits, log.as_deref()).await {
        Ok(bot) => {
            player.bot = Some(bot);
            Ok(())
        }
        Err(StartError::Failed(f)) => Err(f),
        Err(e @ StartError::Spawn { .. }) => Err(BotFailure::new(Reason::Crash, e.to_string())),
    }
}

fn start_failure(
    setup: &GameSetup,
    players: [&Player; 2],
    failures: [Option<BotFailure>; 2],
) -> GameRecord {
    let seats = [0, 1].map(|s| {
        let log = setup.log_path(s, &players[s].spec.name);
        seat_record(&players[s].spec, log.as_deref().filter(|p| p.exists()))
    });
    let state = setup.game.initial_state().to_string();
    let mut table = Table::new(setup, seats, state);
    match failures {
        [Some(f), None] => table.forfeit(0, f),
        [None, Some(f)] => table.forfeit(1, f),
        [Some(f0), Some(f1)] => {
            table.record.result = GameResult::Draw;
            table.record.reason = f0.reason;
            table.record.detail = Some(format!(
                "both bots failed to start: seat 0: {f0}; seat 1: {f1}"
            ));
        }
        [None, None] => unreachable!("start_failure needs a failure"),
    }
    table.finish()
}

#[cfg(test)]
mod tests {
    //! The referee loop against real bot processes, on a toy game (the real
    //! engines are tested end to end in `tests/`).
    use super::*;
    use crate::games::{Game, IllegalMove, Outcome, ParamError, ParamReader, Params, ParseError};
    use std::fmt;

    /// Nim with one pile: take 1 or 2 stones; whoever takes the last wins.
    #[derive(Clone, Debug)]
    struct Nim {
        pile: u32,
    }

    #[derive(Clone, Debug, PartialEq)]
    struct NimState {
        pile: u32,
        turn: Seat,
    }

    impl fmt::Display for NimState {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "pile={} turn={}", self.pile, self.turn)
        }
    }

    impl Game for Nim {
        const NAME: &'static str = "nim";
        type State = NimState;
        type Move = u32;
        type Effects = ();

        fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
            let r = ParamReader::new("nim", params, &["pile"])?;
            Ok(Nim {
                pile: r.int("pile", 7, 1..=1000)?,
            })
        }
        fn params(&self) -> Params {
            vec![("pile".into(), self.pile.to_string())]
        }
        fn initial_state(&self) -> NimState {
            NimState {
                pile: self.pile,
                turn: 0,
            }
        }
        fn parse_state(&self, text: &str) -> Result<NimState, ParseError> {
            Err(ParseError::new("nim state", "not needed", text))
        }
        fn parse_move(&self, text: &str) -> Result<u32, ParseError> {
            match text {
                "1" => Ok(1),
                "2" => Ok(2),
                _ => Err(ParseError::new("nim move", "take 1 or 2", text)),
            }
        }
        fn to_move(&self, s: &NimState) -> Seat {
            s.turn
        }
        fn legal_moves(&self, s: &NimState, out: &mut Vec<u32>) {
            out.clear();
            out.extend((1..=2).filter(|&k| k <= s.pile));
        }
        fn apply(&self, s: &mut NimState, mv: &u32) {
            s.pile -= mv;
            s.turn = 1 - s.turn;
        }
        fn outcome(&self, s: &NimState) -> Option<Outcome> {
            (s.pile == 0).then(|| Outcome {
                scores: [(s.turn == 1) as i32, (s.turn == 0) as i32],
                winner: Some(1 - s.turn),
                adjudicated: None,
            })
        }
        fn play(&self, s: &mut NimState, mv: &u32) -> Result<(), IllegalMove> {
            let mut legal = Vec::new();
            self.legal_moves(s, &mut legal);
            if legal.contains(mv) {
                self.apply(s, mv);
                Ok(())
            } else {
                Err(IllegalMove(mv.to_string()))
            }
        }
    }

    fn python() -> &'static str {
        // The real interpreter: a pyenv shim on PATH takes ~0.7 s to start.
        if Path::new("/usr/bin/python3").exists() {
            "/usr/bin/python3"
        } else {
            "python3"
        }
    }

    fn testbot(name: &str, args: &[&str]) -> Arc<BotSpec> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../bots/test/testbot.py");
        let mut command = vec![python().to_string(), script.to_string()];
        command.extend(args.iter().map(|a| a.to_string()));
        Arc::new(BotSpec::new(name, command))
    }

    /// Plays the first legal move and writes nothing to stderr.
    fn quiet_bot(name: &str) -> Arc<BotSpec> {
        let script = "import sys\nfirst = ''\nfor line in sys.stdin:\n    w = line.split()\n    \
            if w and w[0] == 'arena': print('ready quiet', flush=True)\n    \
            elif w and w[0] == 'legal': first = w[1]\n    \
            elif w and w[0] == 'go': print('move ' + first, flush=True)\n    \
            elif w and w[0] == 'quit': break\n";
        let command = vec![python().to_string(), "-c".to_string(), script.to_string()];
        Arc::new(BotSpec::new(name, command))
    }

    fn setup(pile: u32, movetime_ms: u64) -> GameSetup {
        GameSetup {
            game: Arc::new(Nim { pile }),
            index: 0,
            round: 0,
            pair: 0,
            seed: 7,
            opening: Vec::new(),
            time: TimeControl {
                movetime: Some(Duration::from_millis(movetime_ms)),
                time: None,
                inc: Duration::ZERO,
                margin: Duration::from_millis(50),
                ponder: false,
            },
            log_dir: None,
        }
    }

    fn limits() -> Limits {
        Limits {
            startup: Duration::from_secs(5),
            grace: Duration::from_millis(100),
            write_stall: Duration::from_secs(2),
            log_cap: 1 << 16,
            hide: Vec::new(),
        }
    }

    async fn game(setup: &GameSetup, a: Arc<BotSpec>, b: Arc<BotSpec>) -> GameRecord {
        let (mut pa, mut pb) = (Player::new(a), Player::new(b));
        let record = run_game(setup, [&mut pa, &mut pb], false, &limits()).await;
        assert!(pa.bot().is_none() && pb.bot().is_none());
        record
    }

    fn alive(pid: i32) -> bool {
        // A reaped process has no /proc entry; a zombie would show state Z.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false)
    }

    #[tokio::test]
    async fn a_normal_game_runs_to_the_end() {
        let s = setup(7, 2000);
        let r = game(&s, testbot("a", &[]), testbot("b", &["--mode", "last"])).await;
        // a takes 1, b takes 2, ...: 7 -> 6 -> 4 -> 3 -> 1 -> 0 (a takes the last).
        let moves: Vec<&str> = r.moves.iter().map(|m| m.mv.as_str()).collect();
        assert_eq!(moves, ["1", "2", "1", "2", "1"]);
        assert_eq!(r.result, GameResult::Seat0Wins);
        assert_eq!(r.reason, Reason::Normal);
        assert_eq!(r.offender, None);
        assert_eq!(r.final_state, "pile=0 turn=1");
        assert_eq!(r.moves[0].state, "pile=6 turn=1");
        assert_eq!(r.params.get("pile").map(String::as_str), Some("7"));
        assert!(r.moves.iter().all(|m| m.ms >= 0.0 && m.ms < 2000.0));
    }

    async fn forfeit_of(mode: &[&str], movetime: u64) -> GameRecord {
        let s = setup(9, movetime);
        game(&s, testbot("good", &[]), testbot("bad", mode)).await
    }

    fn assert_forfeit(r: &GameRecord, reason: Reason, detail_has: &str) {
        assert_eq!(r.reason, reason, "{r:?}");
        assert_eq!(r.offender, Some(1), "{r:?}");
        assert_eq!(r.result, GameResult::Seat0Wins);
        let detail = r.detail.as_deref().unwrap_or("");
        assert!(detail.contains(detail_has), "detail {detail:?}");
    }

    #[tokio::test]
    async fn each_misbehaviour_loses_with_its_reason() {
        let cases: &[(&[&str], Reason, &str)] = &[
            (
                &["--mode", "illegal", "--after", "1"],
                Reason::Illegal,
                "nim move",
            ),
            (&["--mode", "illegal"], Reason::Illegal, "z9"),
            (
                &["--mode", "timeout"],
                Reason::Timeout,
                "no move within 500 ms",
            ),
            (
                &["--mode", "crash", "--after", "1"],
                Reason::Crash,
                "exited with code 3",
            ),
            (
                &["--mode", "garbage"],
                Reason::Protocol,
                "unknown message: hello",
            ),
            (
                &["--mode", "double"],
                Reason::Protocol,
                "no `go` was pending",
            ),
            (
                &["--mode", "overlong"],
                Reason::Protocol,
                "longer than 65536",
            ),
            (&["--mode", "nonutf8"], Reason::Protocol, "not valid UTF-8"),
            (&["--mode", "noline"], Reason::Protocol, "longer than 65536"),
            (&["--mode", "flood"], Reason::Protocol, "flooded"),
            (
                &["--mode", "exit-at-once"],
                Reason::Crash,
                "exited with code 0",
            ),
            (&["--mode", "hang-start"], Reason::Timeout, "no `ready`"),
            (
                &["--mode", "fork-hold"],
                Reason::Crash,
                "exited with code 0",
            ),
            (
                &["--mode", "slow", "--sleep-ms", "1000"],
                Reason::Timeout,
                "no move",
            ),
        ];
        // Run concurrently: most cases wait for a time limit.
        let mut set = tokio::task::JoinSet::new();
        for (mode, reason, detail) in cases {
            set.spawn(async move {
                let r = forfeit_of(mode, 500).await;
                assert_forfeit(&r, *reason, detail);
            });
        }
        while let Some(done) = set.join_next().await {
            done.unwrap();
        }
    }

    #[tokio::test]
    async fn an_opening_is_played_by_the_referee_and_told_to_both_bots() {
        let mut s = setup(7, 2000);
        s.opening = vec!["2".into(), "2".into()];
        s.check_opening().unwrap();
        let r = game(&s, testbot("a", &[]), testbot("b", &[])).await;
        assert_eq!(r.opening_plies, 2);
        assert_eq!(r.moves[0].ms, 0.0);
        assert_eq!(r.moves[1].state, "pile=3 turn=0");
        // 3 left, both take 1: a, b, a.
        assert_eq!(r.moves.len(), 5);
        assert_eq!(r.result, GameResult::Seat0Wins);
        let mut bad = setup(3, 2000);
        bad.opening = vec!["2".into(), "2".into()];
        assert!(bad.check_opening().unwrap_err().contains("opening move 2"));
    }

    #[tokio::test]
    async fn kept_bots_stay_up_but_an_offender_is_restarted() {
        let s = setup(9, 2000);
        let mut good = Player::new(testbot("good", &[]));
        let mut bad = Player::new(testbot("bad", &["--mode", "illegal"]));
        let r = run_game(&s, [&mut good, &mut bad], true, &limits()).await;
        assert_eq!(r.reason, Reason::Illegal);
        let pid = good.bot().expect("kept").pid();
        assert!(bad.bot().is_none(), "the offender was stopped");
        let r = run_game(&s, [&mut bad, &mut good], true, &limits()).await;
        assert_eq!((r.reason, r.offender), (Reason::Illegal, Some(0)));
        assert_eq!(good.bot().unwrap().pid(), pid, "the same process");
        good.release().await;
        assert!(!alive(pid));
    }

    #[tokio::test]
    async fn a_dropped_bot_is_killed_and_reaped() {
        let spec = testbot("x", &["--mode", "stubborn"]);
        let bot = Bot::start(spec, &limits(), None).await.unwrap();
        let pid = bot.pid();
        assert!(alive(pid));
        drop(bot);
        let start = Instant::now();
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(
                start.elapsed() < Duration::from_secs(2),
                "pid {pid} still there (zombie?)"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!crate::bot::is_live(pid));
    }

    #[tokio::test]
    async fn a_stubborn_bot_is_killed_after_the_grace_periods() {
        let spec = testbot("x", &["--mode", "stubborn"]);
        let mut bot = Bot::start(spec, &limits(), None).await.unwrap();
        let pid = bot.pid();
        let start = Instant::now();
        bot.shutdown().await;
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(200), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert!(!alive(pid));
    }

    #[tokio::test]
    async fn only_a_bot_that_writes_to_stderr_has_a_log_and_a_stale_one_goes() {
        let mut s = setup(7, 2000);
        let dir = std::env::temp_dir().join(format!("arena-quietlog-{}", std::process::id()));
        s.log_dir = Some(dir.clone());
        // Left by an interrupted earlier attempt at the same game.
        let stale = s.log_path(0, "quiet").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&stale, "stale\n").unwrap();
        let r = game(&s, quiet_bot("quiet"), testbot("loud", &[])).await;
        assert_eq!(r.reason, Reason::Normal, "{:?}", r.detail);
        assert_eq!(r.seats[0].log, None);
        assert!(!stale.exists(), "the stale log of seat 0 is still there");
        let log = std::fs::read_to_string(r.seats[1].log.as_ref().expect("a log")).unwrap();
        assert!(log.contains("testbot: go"), "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn the_game_clock_runs_down_and_gains_the_increment() {
        let mut s = setup(9, 2000);
        s.time = TimeControl {
            movetime: None,
            time: Some(Duration::from_millis(3000)),
            inc: Duration::from_millis(100),
            margin: Duration::from_millis(50),
            ponder: false,
        };
        let dir = std::env::temp_dir().join(format!("arena-clock-{}", std::process::id()));
        s.log_dir = Some(dir.clone());
        let r = game(&s, testbot("a", &[]), testbot("b", &[])).await;
        assert_eq!(r.reason, Reason::Normal);
        let log = std::fs::read_to_string(r.seats[0].log.as_ref().unwrap()).unwrap();
        let gos: Vec<(u64, u64)> = log
            .lines()
            .filter_map(|l| l.strip_prefix("testbot: go "))
            .map(|l| {
                let field = |k: &str| -> u64 {
                    l.split(' ')
                        .find_map(|f| f.strip_prefix(k))
                        .unwrap()
                        .parse()
                        .unwrap()
                };
                assert!(l.ends_with("inc=100 movetime=-"), "{l}");
                (field("time="), field("opptime="))
            })
            .collect();
        assert_eq!(gos[0], (3000, 3000));
        // Before seat 0's k-th decision each side has made k moves: its
        // clock is 3000 ms minus what those took plus 100 ms for each.
        let used = |seat: Seat, k: usize| -> f64 {
            r.moves
                .iter()
                .filter(|m| m.seat == seat)
                .take(k)
                .map(|m| m.ms)
                .sum()
        };
        assert!(gos.len() >= 3, "{gos:?}");
        for (k, &(time, opp)) in gos.iter().enumerate() {
            for (seat, shown) in [(0, time), (1, opp)] {
                let expected = 3000.0 + 100.0 * k as f64 - used(seat, k);
                assert!(
                    (shown as f64 - expected).abs() <= 1.0,
                    "go {k}, seat {seat}: {shown} vs {expected}: {gos:?}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
