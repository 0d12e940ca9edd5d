//! One game between two bots: the referee sends `newgame`, the opening,
//! `position`/`legal`/`go` before each decision and `played` after each
//! move, runs the clocks, validates every move through [`AnyState::play`],
//! and turns whatever happens (including any bot misbehaviour) into a
//! [`GameRecord`]. It never returns an error because of a bot.
//!
//! [`play_game`] plays on two bots that are already running; [`run_game`]
//! also starts them (fresh for each game, or kept across games) and stops
//! them afterwards. Both are plain async functions: a tournament can run
//! many games at once on one runtime. What is said to a bot, and how its
//! answers are read, is [`seat`]'s: check-bot and terminal play use it too.
//!
//! [`AnyState::play`]: arena_core::games::AnyState::play

pub mod adjudicate;
pub mod clock;
mod game;
pub mod seat;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::process::{Bot, BotFailure, BotSpec, Limits, StartError};
use arena_core::games::{AnyGame, Seat};
use arena_core::protocol::Budget;
use arena_core::record::{Clock, GameRecord, GameResult, Reason};

pub use adjudicate::{Adjudication, DrawRule, ResignRule};
pub use game::play_game;
use game::{seat_record, Table};

/// The clock rules of a game, in milliseconds, as configs write them and
/// manifests keep them; [`clock::SeatClock`] runs them. With neither `movetime_ms` nor `time_ms` a bot may
/// think for ever (only sensible for trusted bots; a config must set one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// A fixed budget for every move.
    pub movetime_ms: Option<u64>,
    /// A game clock per bot...
    pub time_ms: Option<u64>,
    /// ...plus this much added after each of its moves.
    pub inc_ms: u64,
    /// Grace on top of the budget before a bot is out of time (pipes, scheduling).
    pub margin_ms: u64,
    /// Which time a decision is charged (`wall` unless set: absent then,
    /// so that manifests without it keep their fingerprint).
    #[serde(default, skip_serializing_if = "Clock::is_wall")]
    pub clock: Clock,
    /// With the CPU clock: how long, in wall time, a decision may take at
    /// most (a bot that sleeps or blocks uses no CPU); default 5 times its
    /// limit plus 1 s ([`clock::SeatClock::deadline`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_ms: Option<u64>,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            movetime_ms: Some(1000),
            time_ms: None,
            inc_ms: 0,
            margin_ms: 50,
            clock: Clock::Wall,
            ceiling_ms: None,
        }
    }
}

/// An opening move that cannot be played (a caller's mistake).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("opening move {ply} `{mv}`: {why}")]
pub struct IllegalOpening {
    /// Which move, from 1.
    pub ply: usize,
    /// The move.
    pub mv: String,
    /// Why it cannot be played.
    pub why: String,
}

/// Everything needed to play one game, apart from the bots.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The game, with its parameters.
    pub game: Arc<dyn AnyGame>,
    /// Position in the schedule.
    pub index: u64,
    /// The schedule's round, for the record.
    pub round: u64,
    /// The seat-swapped pair the game belongs to, for the record and shards.
    pub pair: u64,
    /// Sent to both bots in `newgame` (for their own randomness).
    pub seed: u64,
    /// Moves the referee plays before the bots decide (a random opening,
    /// say). They must be legal: see [`GameSetup::check_opening`].
    pub opening: Vec<String>,
    /// Both seats' time control, unless a seat has its own in `seat_time`.
    pub time: TimeControl,
    /// A seat's own time control (time odds: a bot's `time_control`),
    /// replacing `time` for it; the clock kind is the same for both.
    pub seat_time: [Option<TimeControl>; 2],
    /// Whether the bot not on move keeps running (thinking on its
    /// opponent's time, cutechess's `ponder`). Off: it is frozen from
    /// [`seat::FREEZE_AFTER`] into its opponent's turn until its next `go`,
    /// so that nothing it left running takes the CPU its opponent's clock is
    /// paying for.
    pub ponder: bool,
    /// What each seat's bot is asked to search (sent in its `go`, kept in
    /// its seat's record); empty for none.
    pub budgets: [Budget; 2],
    /// When the bots' own scores end the game early (`[adjudication]`'s
    /// `resign` and `draw`); none by default.
    pub adjudication: Adjudication,
    /// Where the bots' stderr logs go (one file per bot per game); `None`
    /// discards them.
    pub log_dir: Option<PathBuf>,
    /// Told each move as it is recorded (the ladder's live pages); `None`
    /// for no one.
    pub feed: Option<MoveFeed>,
}

/// A callback told each move of a game as the referee records it (opening
/// moves included), while the game is played: what a live view of the game
/// needs, which the record only gives at the end. It runs on the referee's
/// task, so it must be quick (a send on a channel, say).
#[derive(Clone)]
pub struct MoveFeed(pub Arc<dyn Fn(&arena_core::record::MoveRecord) + Send + Sync>);

impl std::fmt::Debug for MoveFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MoveFeed(..)")
    }
}

impl GameSetup {
    /// The time control of `seat`'s bot.
    pub fn time_of(&self, seat: Seat) -> TimeControl {
        self.seat_time[seat].unwrap_or(self.time)
    }

    /// Checks that the opening moves are legal, one after the other.
    pub fn check_opening(&self) -> Result<(), IllegalOpening> {
        let mut state = self.game.initial_state();
        for (i, mv) in self.opening.iter().enumerate() {
            let illegal = |why: String| IllegalOpening {
                ply: i + 1,
                mv: mv.clone(),
                why,
            };
            if state.outcome().is_some() {
                return Err(illegal("the game is over".into()));
            }
            state.play(mv).map_err(|e| illegal(e.to_string()))?;
        }
        Ok(())
    }

    /// The stderr log file of `seat`'s bot in this game.
    pub fn log_path(&self, seat: Seat, name: &str) -> Option<PathBuf> {
        self.seat_file(seat, name, "log")
    }

    /// The transcript file of `seat`'s bot in this game (`transcript = true`).
    pub fn transcript_path(&self, seat: Seat, name: &str) -> Option<PathBuf> {
        self.seat_file(seat, name, "transcript")
    }

    fn seat_file(&self, seat: Seat, name: &str, ext: &str) -> Option<PathBuf> {
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
            .map(|d| d.join(format!("game{:05}-seat{seat}-{clean}.{ext}", self.index)))
    }
}

/// The bot of one seat, started when a game needs it, kept between games
/// or stopped.
#[derive(Debug)]
pub struct BotSlot {
    /// How to start it.
    pub spec: Arc<BotSpec>,
    bot: Option<Bot>,
}

impl BotSlot {
    /// An empty slot for the bot of `spec`.
    pub fn new(spec: Arc<BotSpec>) -> Self {
        BotSlot { spec, bot: None }
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

    /// Freezes the running bot until its next game's first `go`: a kept bot
    /// between its games (the end of a game froze it already; this makes
    /// sure of it for every way a bot gets parked).
    pub fn park(&mut self) {
        if let Some(bot) = self.bot.as_mut() {
            bot.set_frozen(true);
        }
    }
}

/// A bot that cannot be brought to `ready` before a run: the run stops
/// before its first game, saying why (a tournament of hours must not be
/// played as forfeits because of a typo in a script name).
#[derive(Debug, thiserror::Error)]
#[error("bot `{bot}` cannot start: `{command}`: {why}{}", stderr_tail(stderr))]
pub struct CommandError {
    /// The bot's name.
    pub bot: String,
    /// Its command line.
    pub command: String,
    /// What went wrong: it could not be run at all, or it ran and did not
    /// answer `arena 1` with `ready` (its exit status, or the time it had).
    pub why: String,
    /// The last lines it wrote to stderr.
    pub stderr: Vec<String>,
}

fn stderr_tail(lines: &[String]) -> String {
    if lines.is_empty() {
        "; it wrote nothing to stderr".into()
    } else {
        format!("; the end of its stderr:\n  {}", lines.join("\n  "))
    }
}

/// Starts the bot of `spec` just to see that its command can be run, and
/// stops it at once (what a library run checks: a bot that then fails to
/// answer loses its games). The error names the command.
pub async fn check_spawn(spec: &Arc<BotSpec>, limits: &Limits) -> Result<(), CommandError> {
    match Bot::spawn(spec.clone(), limits, None).await {
        Ok(mut bot) => {
            bot.kill().await;
            Ok(())
        }
        Err(e) => Err(CommandError {
            bot: spec.name.clone(),
            command: spec.command_line(),
            why: e.to_string(),
            stderr: Vec::new(),
        }),
    }
}

/// Lines of a failed bot's stderr shown by [`check_command`].
const STDERR_TAIL_LINES: usize = 12;

/// Starts the bot of `spec` once, as a game would, and waits for its
/// `ready` (within `limits.startup`), then lets it go with `quit`. The
/// error names the command, what happened and the end of its stderr.
pub async fn check_command(spec: &Arc<BotSpec>, limits: &Limits) -> Result<(), CommandError> {
    let log = tempfile::Builder::new()
        .prefix("arena-start-check-")
        .tempdir()
        .map(|d| {
            let path = d.path().join("stderr.log");
            (d, path)
        });
    let log_path = log.as_ref().ok().map(|(_, p)| p.clone());
    let error = |why: String| {
        let text = log_path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..]
            .iter()
            .map(|l| crate::display::escape(l).into_owned())
            .collect();
        CommandError {
            bot: spec.name.clone(),
            command: spec.command_line(),
            why,
            stderr: tail,
        }
    };
    match Bot::start(spec.clone(), limits, log_path.as_deref()).await {
        Ok(mut bot) => {
            bot.shutdown().await;
            Ok(())
        }
        Err(StartError::Spawn { error: e, .. }) => Err(error(e.to_string())),
        Err(StartError::Failed(f)) => Err(error(f.detail)),
    }
}

/// Plays one game with the two players' bots (`players[0]` takes seat 0),
/// starting each bot that is not running, seat 0's first. Every bot waits
/// frozen from its `ready` (or the end of its last game) to its first `go`. With `keep`, healthy bots stay
/// running for the next game (`newgame` again); otherwise, and for a bot
/// that misbehaved, they are stopped afterwards. A bot that cannot be
/// started loses the game (both failing: a draw).
pub async fn run_game(
    setup: &GameSetup,
    players: [&mut BotSlot; 2],
    keep: bool,
    limits: &Limits,
) -> GameRecord {
    let [p0, p1] = players;
    let started = Instant::now();
    // One after the other: a bot is frozen once it is `ready`, so the
    // second starts with nothing of the first running beside it (a bot that
    // answers `ready` and then spins, in as many processes and sessions as
    // it likes, cannot starve its opponent's start-up).
    let r0 = ensure(p0, setup, 0, limits).await;
    let r1 = ensure(p1, setup, 1, limits).await;
    let mut record = match (r0, r1) {
        (Ok(()), Ok(())) => {
            let (b0, b1) = (p0.bot.as_mut().unwrap(), p1.bot.as_mut().unwrap());
            play_game(setup, [b0, b1]).await
        }
        (r0, r1) => start_failure(setup, [&*p0, &*p1], [r0.err(), r1.err()]),
    };
    for (seat, p) in [&mut *p0, &mut *p1].into_iter().enumerate() {
        record.seats[seat].transcript = write_transcript(setup, seat, p);
    }
    let stop = |p: &mut BotSlot| !keep || p.bot.as_ref().is_some_and(|b| b.failure().is_some());
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
    record.duration_ms = started.elapsed().as_millis() as u64;
    record
}

/// Writes the conversation of `player`'s bot in this game, if one is kept,
/// to its file in the log directory; the file's name, if written.
fn write_transcript(setup: &GameSetup, seat: Seat, player: &mut BotSlot) -> Option<String> {
    let text = player.bot.as_mut()?.take_transcript()?;
    let path = setup.transcript_path(seat, &player.spec.name)?;
    match std::fs::write(&path, text) {
        Ok(()) => Some(path.display().to_string()),
        Err(e) => {
            eprintln!("arena: warning: {}: {e}", path.display());
            None
        }
    }
}

async fn ensure(
    player: &mut BotSlot,
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
    players: [&BotSlot; 2],
    failures: [Option<BotFailure>; 2],
) -> GameRecord {
    let seats = [0, 1].map(|s| {
        let log = setup.log_path(s, &players[s].spec.name);
        // The bot that did start has its `ready` text.
        let ready = players[s].bot.as_ref().map(|b| b.ready_text.as_str());
        seat_record(
            &players[s].spec,
            log.as_deref().filter(|p| p.exists()),
            setup.budgets[s],
            ready,
        )
    });
    let mut state = setup.game.initial_state();
    let mut table = Table::new(setup, seats, state.to_string());
    // The game's opening is in its record as in any other (a resumed run
    // checks every record's opening against its schedule).
    for mv in &setup.opening {
        table.opening_move(&mut state, mv);
    }
    table.record.final_state = state.to_string();
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
    use arena_core::games::nim::Nim;
    use std::collections::BTreeMap;
    use std::time::Duration;

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

    /// Nim with one pile of `pile` stones: take 1 or 2; whoever takes the
    /// last wins.
    fn setup(pile: u32, movetime_ms: u64) -> GameSetup {
        GameSetup {
            game: Arc::new(Nim {
                piles: 1,
                stones: pile,
                take: 2,
                bonus: false,
                max_plies: 1000,
            }),
            index: 0,
            round: 0,
            pair: 0,
            seed: 7,
            opening: Vec::new(),
            time: TimeControl {
                movetime_ms: Some(movetime_ms),
                time_ms: None,
                inc_ms: 0,
                margin_ms: 50,
                clock: Default::default(),
                ceiling_ms: None,
            },
            seat_time: [None; 2],
            ponder: false,
            budgets: Default::default(),
            adjudication: Default::default(),
            log_dir: None,
            feed: None,
        }
    }

    fn limits() -> Limits {
        Limits {
            startup: Duration::from_secs(5),
            grace: Duration::from_millis(100),
            write_stall: Duration::from_secs(2),
            log_cap: 1 << 16,
            ..Limits::default()
        }
    }

    async fn game(setup: &GameSetup, a: Arc<BotSpec>, b: Arc<BotSpec>) -> GameRecord {
        let (mut pa, mut pb) = (BotSlot::new(a), BotSlot::new(b));
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
        assert_eq!(moves, ["a1", "a2", "a1", "a2", "a1"]);
        assert_eq!(r.result, GameResult::Seat0Wins);
        assert_eq!(r.reason, Reason::Normal);
        assert_eq!(r.offender, None);
        assert_eq!(r.final_state, "piles=0 turn=1 ply=5");
        assert_eq!(r.moves[0].state, "piles=6 turn=1 ply=1");
        assert_eq!(r.params.get("stones").map(String::as_str), Some("7"));
        assert!(r.moves.iter().all(|m| m.ms >= 0.0 && m.ms < 2000.0));
    }

    async fn forfeit_of(mode: &[&str], movetime: u64) -> GameRecord {
        let mut s = setup(9, movetime);
        // Only the offender plays to the limit under test: the good seat
        // gets 20 s a move, so fourteen Python bots starting at once on a
        // loaded two-core machine cannot make *it* the one that times out
        // (CI saw its first move take 562 ms against 500).
        s.seat_time[0] = Some(TimeControl {
            movetime_ms: Some(20_000),
            ..s.time
        });
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

    /// A bot that sets up for 1.5 s at each game loses nothing on time at
    /// 500 ms per move (room for a loaded CI machine; still a third of the
    /// set-up) when it asks for `isready` (both seats, a kept bot's
    /// second game too); the control, the same set-up on `newgame`, loses
    /// on time at its first move. A set-up longer than the start-up limit
    /// is a `timeout`.
    #[tokio::test]
    async fn an_untimed_set_up_at_each_game_costs_no_time() {
        let s = setup(9, 500);
        let slow = |isready: bool| {
            let mut args = vec!["--setup-ms", "1500"];
            args.extend(isready.then_some("--isready"));
            testbot(if isready { "setup" } else { "loader" }, &args)
        };
        let (mut a, mut b) = (BotSlot::new(slow(true)), BotSlot::new(slow(true)));
        for _ in 0..2 {
            let r = run_game(&s, [&mut a, &mut b], true, &limits()).await;
            assert_eq!(r.reason, Reason::Normal, "{:?}", r.detail);
            assert!(r.moves.len() >= 5, "{r:?}");
        }
        let pids = [&a, &b].map(|p| p.bot().expect("kept").pid());
        assert_ne!(pids[0], pids[1]);
        a.release().await;
        b.release().await;

        let r = game(&s, testbot("good", &[]), slow(false)).await;
        assert_forfeit(&r, Reason::Timeout, "no move within 500 ms");
        assert_eq!(r.moves.len(), 1, "it lost at its first move: {r:?}");

        let mut short = limits();
        short.startup = Duration::from_millis(1500);
        let late = testbot("late", &["--setup-ms", "4000", "--isready"]);
        let (mut good, mut late) = (BotSlot::new(testbot("good", &[])), BotSlot::new(late));
        let r = run_game(&s, [&mut good, &mut late], false, &short).await;
        assert_forfeit(
            &r,
            Reason::Timeout,
            "no `readyok` within 1500 ms of `isready`",
        );
        assert!(r.moves.is_empty(), "{r:?}");
    }

    /// With `transcript`, each bot's file holds exactly the lines that went
    /// each way, timed in order: from the bot its `ready` and its moves (as
    /// the record has them), to it `arena 1`, `newgame`, a `played` for
    /// every move, `position`/`legal`/`go` for each of its decisions, and
    /// `gameover`. The control: without it, no file and no record field.
    #[tokio::test]
    async fn a_transcript_holds_the_lines_that_went_each_way() {
        let mut s = setup(7, 2000);
        let dir = tempfile::tempdir().unwrap();
        s.log_dir = Some(dir.path().to_path_buf());
        let mut with = limits();
        with.transcript = true;
        let (mut a, mut b) = (
            BotSlot::new(testbot("a", &[])),
            BotSlot::new(quiet_bot("b")),
        );
        let r = run_game(&s, [&mut a, &mut b], false, &with).await;
        assert_eq!(r.reason, Reason::Normal, "{:?}", r.detail);
        for seat in 0..2 {
            let path = r.seats[seat].transcript.as_ref().expect("a transcript");
            assert_eq!(
                Some(PathBuf::from(path)),
                s.transcript_path(seat, &r.seats[seat].name)
            );
            let text = std::fs::read_to_string(path).unwrap();
            let lines: Vec<(f64, &str, &str)> = text
                .lines()
                .map(|l| {
                    let mut it = l.splitn(3, ' ');
                    let ms = it.next().unwrap().parse().unwrap();
                    (ms, it.next().unwrap(), it.next().unwrap())
                })
                .collect();
            assert!(lines.windows(2).all(|w| w[0].0 <= w[1].0), "{text}");
            let way = |arrow: &str| -> Vec<&str> {
                lines.iter().filter(|l| l.1 == arrow).map(|l| l.2).collect()
            };
            let mut said = vec![format!("ready {}", r.seats[seat].ready.as_deref().unwrap())];
            said.extend(
                r.moves
                    .iter()
                    .filter(|m| m.seat == seat)
                    .map(|m| format!("move {}", m.mv)),
            );
            assert_eq!(way("<"), said, "{text}");
            let heard = way(">");
            assert_eq!(heard[0], "arena 1");
            assert!(
                heard[1].starts_with(&format!("newgame nim seat={seat} seed=7 ")),
                "{text}"
            );
            assert!(heard.last().unwrap().starts_with("gameover "), "{text}");
            let count = |w: &str| {
                heard
                    .iter()
                    .filter(|l| l.split(' ').next() == Some(w))
                    .count()
            };
            let decisions = said.len() - 1;
            assert_eq!(count("played"), r.moves.len(), "{text}");
            for w in ["position", "legal", "go"] {
                assert_eq!(count(w), decisions, "{w}: {text}");
            }
            assert_eq!(heard.len(), 3 + r.moves.len() + 3 * decisions, "{text}");
        }
        let r = game(&s, testbot("a", &[]), quiet_bot("b")).await;
        assert!(r.seats.iter().all(|s| s.transcript.is_none()));
        assert!(
            s.transcript_path(0, "a").is_some_and(|p| p.exists()),
            "the first run's file"
        );
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(files, 3, "two transcripts and a's stderr log, nothing more");
    }

    /// A bot's structured `info` (UCI-style here) is in its moves' records
    /// as fields; the bot that says nothing structured has none.
    #[tokio::test]
    async fn structured_info_is_kept_as_fields_of_the_move() {
        let script = "import sys\nfirst = ''\nn = 0\nfor line in sys.stdin:\n    w = line.split()\n    \
            if w and w[0] == 'arena': print('ready searcher', flush=True)\n    \
            elif w and w[0] == 'legal': first = w[1]\n    \
            elif w and w[0] == 'go':\n        n += 1\n        \
            print('info depth %d score cp %d nodes 40 pv %s' % (n, 10 * n, first), flush=True)\n        \
            print('move ' + first, flush=True)\n    \
            elif w and w[0] == 'quit': break\n";
        let searcher = Arc::new(BotSpec::new(
            "searcher",
            vec![python().to_string(), "-c".to_string(), script.to_string()],
        ));
        let r = game(
            &setup(7, 2000),
            searcher,
            testbot("plain", &["--mode", "info"]),
        )
        .await;
        assert_eq!(r.reason, Reason::Normal, "{:?}", r.detail);
        for (k, m) in r.moves.iter().filter(|m| m.seat == 0).enumerate() {
            let want: BTreeMap<String, String> = [
                ("depth", (k + 1).to_string()),
                ("score", (10 * (k + 1)).to_string()),
                ("nodes", "40".to_string()),
                ("pv", m.mv.clone()),
            ]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b))
            .collect();
            assert_eq!(m.search, want, "{m:?}");
        }
        for m in r.moves.iter().filter(|m| m.seat == 1) {
            assert!(!m.info.is_empty() && m.search.is_empty(), "{m:?}");
        }
    }

    /// Plays the first legal move, each with `info score S ...` first (the
    /// score from its own point of view), or nothing structured for `None`.
    fn scoring_bot(name: &str, score: Option<i64>) -> Arc<BotSpec> {
        let info = score.map_or_else(
            || "print('info thinking', flush=True)".to_string(),
            |s| format!("print('info depth 4 score {s} nodes 100', flush=True)"),
        );
        let script = format!(
            "import sys\nfirst = ''\nfor line in sys.stdin:\n    w = line.split()\n    \
            if w and w[0] == 'arena': print('ready scorer', flush=True)\n    \
            elif w and w[0] == 'legal': first = w[1]\n    \
            elif w and w[0] == 'go':\n        {info}\n        print('move ' + first, flush=True)\n    \
            elif w and w[0] == 'quit': break\n"
        );
        let command = vec![python().to_string(), "-c".to_string(), script];
        Arc::new(BotSpec::new(name, command))
    }

    /// Resign adjudication with real bots: seat 1's bot sees -900 and seat
    /// 0's +900, so the game ends after three moves of each, won by seat 0,
    /// `adjudicated` with the rule, and both bots hear it in `gameover`.
    /// When they disagree (both say +900), or one says nothing, the game is
    /// played to its end.
    #[tokio::test]
    async fn agreed_scores_end_a_game_by_resign_adjudication() {
        let mut s = setup(20, 2000);
        s.adjudication.resign = Some(ResignRule {
            movecount: 3,
            score: 600,
        });
        let dir = tempfile::tempdir().unwrap();
        s.log_dir = Some(dir.path().to_path_buf());
        let mut with = limits();
        with.transcript = true;
        let (mut a, mut b) = (
            BotSlot::new(scoring_bot("up", Some(900))),
            BotSlot::new(scoring_bot("down", Some(-900))),
        );
        let r = run_game(&s, [&mut a, &mut b], false, &with).await;
        assert_eq!(r.reason, Reason::Adjudicated, "{:?}", r.detail);
        assert_eq!(r.result, GameResult::Seat0Wins);
        assert_eq!(r.offender, None);
        assert_eq!(r.moves.len(), 6, "{r:?}");
        assert_eq!(r.moves[5].search["score"], "-900");
        let detail = r.detail.as_deref().unwrap();
        assert!(
            detail.starts_with("resign movecount=3 score=600: "),
            "{detail}"
        );
        for seat in 0..2 {
            let text = std::fs::read_to_string(r.seats[seat].transcript.as_ref().unwrap()).unwrap();
            let last = text.lines().filter(|l| l.contains(" > ")).last().unwrap();
            let verdict = ["win", "loss"][seat];
            assert!(
                last.contains(&format!("> gameover {verdict} adjudicated")),
                "{last}"
            );
        }

        // The same with the draw rule too (its scores are far from 0).
        s.adjudication.draw = Some(DrawRule {
            movenumber: 0,
            movecount: 1,
            score: 10,
        });
        let r = game(
            &s,
            scoring_bot("up", Some(900)),
            scoring_bot("down", Some(-900)),
        )
        .await;
        assert_eq!((r.reason, r.moves.len()), (Reason::Adjudicated, 6));
        s.adjudication.draw = None;

        for (b0, b1) in [
            (Some(900), Some(900)),
            (Some(900), None),
            (Some(900), Some(-500)),
        ] {
            let r = game(&s, scoring_bot("a", b0), scoring_bot("b", b1)).await;
            assert_eq!(r.reason, Reason::Normal, "{b0:?} {b1:?}: {:?}", r.detail);
            assert_eq!(r.moves.len(), 20, "{b0:?} {b1:?}: played to the end");
        }
    }

    /// Draw adjudication: both bots see the game as level (within 10 of 0)
    /// for two moves each, after full move 3 (ply 6).
    #[tokio::test]
    async fn level_scores_end_a_game_by_draw_adjudication() {
        let mut s = setup(40, 2000);
        s.adjudication.draw = Some(DrawRule {
            movenumber: 3,
            movecount: 2,
            score: 10,
        });
        let r = game(&s, scoring_bot("a", Some(5)), scoring_bot("b", Some(-10))).await;
        assert_eq!(r.reason, Reason::Adjudicated, "{:?}", r.detail);
        assert_eq!((r.result, r.moves.len()), (GameResult::Draw, 6));
        assert!(r
            .detail
            .unwrap()
            .starts_with("draw movenumber=3 movecount=2 score=10: "));
    }

    #[tokio::test]
    async fn an_opening_is_played_by_the_referee_and_told_to_both_bots() {
        let mut s = setup(7, 2000);
        s.opening = vec!["a2".into(), "a2".into()];
        s.check_opening().unwrap();
        let r = game(&s, testbot("a", &[]), testbot("b", &[])).await;
        assert_eq!(r.opening_plies, 2);
        assert_eq!(r.moves[0].ms, 0.0);
        assert_eq!(r.moves[1].state, "piles=3 turn=0 ply=2");
        // 3 left, both take 1: a, b, a.
        assert_eq!(r.moves.len(), 5);
        assert_eq!(r.result, GameResult::Seat0Wins);
        let mut bad = setup(3, 2000);
        bad.opening = vec!["a2".into(), "a2".into()];
        assert!(bad
            .check_opening()
            .unwrap_err()
            .to_string()
            .contains("opening move 2"));
    }

    #[tokio::test]
    async fn kept_bots_stay_up_but_an_offender_is_restarted() {
        let s = setup(9, 2000);
        let mut good = BotSlot::new(testbot("good", &[]));
        let mut bad = BotSlot::new(testbot("bad", &["--mode", "illegal"]));
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
        assert!(!crate::process::bot::is_live(pid));
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
            movetime_ms: None,
            time_ms: Some(3000),
            inc_ms: 100,
            margin_ms: 50,
            clock: Default::default(),
            ceiling_ms: None,
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
