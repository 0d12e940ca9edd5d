//! Re-refereeing a record a remote worker posts, before it counts: the
//! rules engine replays it from the lease's opening and checks that it is
//! the game the lease was for (game, parameters, seed, seats), that every
//! move was legal and made by the seat to move, that a `normal` or
//! `adjudicated` end is what the rules say after those moves, and that a
//! forfeit names its offender with a reason the moves and times bear out
//! (an illegal move really is illegal; a timeout took longer than the
//! limit and margin; no move that did not time out took longer).
//!
//! What no replay can show (a crash, a protocol error, a bot that never
//! answered) is accepted and counted per worker and reason, so that the
//! organiser sees a worker whose bots forfeit more than others' do.
//!
//! Pure: no I/O, no SQL, no clock.

use std::collections::BTreeMap;

use arena::referee::TimeControl;
use arena_core::games::AnyGame;
use arena_core::record::{Clock, GameRecord, GameResult, Reason};

/// What the lease says the game is.
pub struct Expected<'a> {
    /// The ladder's game, with its parameters.
    pub game: &'a dyn AnyGame,
    /// The ladder's time control (both seats).
    pub time: TimeControl,
    /// The opening's moves, played by the referee first.
    pub opening: &'a [String],
    /// The game's seed.
    pub seed: u64,
    /// The versions' names in seat 0 and seat 1.
    pub names: [&'a str; 2],
}

/// Why a record was refused. Each has a stable [`Refusal::code`] (in API
/// errors and in the organiser's counts) and says what was wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// Not the lease's game or parameters.
    #[error("the record is of {found}, the lease of {expected}")]
    WrongGame {
        /// The lease's game and parameters.
        expected: String,
        /// The record's.
        found: String,
    },
    /// Not the lease's seed.
    #[error("the record's seed is {found}, the lease's {expected}")]
    WrongSeed {
        /// The lease's.
        expected: u64,
        /// The record's.
        found: u64,
    },
    /// Seats named other than the lease's versions.
    #[error("the record's seats are {found:?}, the lease's {expected:?}")]
    WrongSeats {
        /// The lease's.
        expected: [String; 2],
        /// The record's.
        found: [String; 2],
    },
    /// A clock other than the ladder's.
    #[error("the record was played on the {found} clock, the ladder's is {expected}")]
    WrongClock {
        /// The ladder's.
        expected: Clock,
        /// The record's.
        found: Clock,
    },
    /// The initial state is not the game's.
    #[error("the record's initial state is not the game's")]
    WrongInitialState,
    /// The first moves are not the lease's opening.
    #[error("the record's first {plies} moves are not the lease's opening")]
    WrongOpening {
        /// The opening's length.
        plies: usize,
    },
    /// A move was made by the seat not to move.
    #[error("ply {ply}: seat {found} moved, seat {expected} was to move")]
    WrongMover {
        /// From 1.
        ply: usize,
        /// Who was to move.
        expected: usize,
        /// Who the record says moved.
        found: usize,
    },
    /// A recorded move is not legal.
    #[error("ply {ply}: `{mv}` is not legal: {why}")]
    IllegalMove {
        /// From 1.
        ply: usize,
        /// The move.
        mv: String,
        /// The rules' reason.
        why: String,
    },
    /// A state in the record is not the one the moves reach.
    #[error("ply {ply}: the recorded state is not the one the moves reach")]
    WrongState {
        /// From 1 (0: the final state).
        ply: usize,
    },
    /// Moves after the rules had ended the game.
    #[error("the rules ended the game after ply {ply}, the record goes on")]
    PlayedAfterEnd {
        /// The last legal ply.
        ply: usize,
    },
    /// The reason is not what the rules say after the moves.
    #[error("the record ends `{found}`, the rules say {expected}")]
    WrongEnd {
        /// What the rules say (`normal`, `adjudicated`, or a forfeit as the game is not over).
        expected: String,
        /// The record's reason.
        found: Reason,
    },
    /// The result or the scores are not what the end implies.
    #[error("the record says {found}, its end implies {expected}")]
    WrongResult {
        /// Result and scores implied.
        expected: String,
        /// Result and scores recorded.
        found: String,
    },
    /// A forfeit without an offender, or an offender without a forfeit.
    #[error("a `{reason}` end must name its offender, and only a forfeit has one")]
    Offender {
        /// The record's reason.
        reason: Reason,
    },
    /// An illegal-move forfeit whose move is legal, or not named, or by
    /// the seat not to move.
    #[error("the `illegal` forfeit does not hold: {0}")]
    NotIllegal(String),
    /// A timeout whose reported time and limit do not make one.
    #[error("the `timeout` forfeit does not hold: {0}")]
    NotATimeout(String),
    /// A move took longer than the limit and margin, yet the game went on.
    #[error(
        "ply {ply} took {ms:.1} ms, over its limit of {limit_ms} ms and margin: that was a timeout"
    )]
    MoveOverTime {
        /// From 1.
        ply: usize,
        /// The charged time.
        ms: f64,
        /// The limit then.
        limit_ms: u64,
    },
}

impl Refusal {
    /// The stable code of this refusal (API errors, the organiser's counts).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::WrongGame { .. } => "wrong_game",
            Refusal::WrongSeed { .. } => "wrong_seed",
            Refusal::WrongSeats { .. } => "wrong_seats",
            Refusal::WrongClock { .. } => "wrong_clock",
            Refusal::WrongInitialState => "wrong_initial_state",
            Refusal::WrongOpening { .. } => "wrong_opening",
            Refusal::WrongMover { .. } => "wrong_mover",
            Refusal::IllegalMove { .. } => "illegal_move",
            Refusal::WrongState { .. } => "wrong_state",
            Refusal::PlayedAfterEnd { .. } => "played_after_end",
            Refusal::WrongEnd { .. } => "wrong_end",
            Refusal::WrongResult { .. } => "wrong_result",
            Refusal::Offender { .. } => "offender",
            Refusal::NotIllegal(_) => "not_illegal",
            Refusal::NotATimeout(_) => "not_a_timeout",
            Refusal::MoveOverTime { .. } => "move_over_time",
        }
    }
}

/// Rounding the referee's times to a microsecond in records leaves this
/// much doubt in a sum of them.
const SLACK_MS: f64 = 2.0;

/// Checks `rec` against what the lease said and the rules.
pub fn verify(exp: &Expected, rec: &GameRecord) -> Result<(), Refusal> {
    let game = exp.game;
    let params: BTreeMap<String, String> = game.params().into_iter().collect();
    if rec.game != game.name() || rec.params != params {
        return Err(Refusal::WrongGame {
            expected: format!("{} {params:?}", game.name()),
            found: format!("{} {:?}", rec.game, rec.params),
        });
    }
    if rec.seed != exp.seed {
        return Err(Refusal::WrongSeed {
            expected: exp.seed,
            found: rec.seed,
        });
    }
    if [rec.seats[0].name.as_str(), rec.seats[1].name.as_str()] != exp.names {
        return Err(Refusal::WrongSeats {
            expected: exp.names.map(str::to_string),
            found: [rec.seats[0].name.clone(), rec.seats[1].name.clone()],
        });
    }
    if rec.clock != exp.time.clock {
        return Err(Refusal::WrongClock {
            expected: exp.time.clock,
            found: rec.clock,
        });
    }
    let mut state = game.initial_state();
    if rec.initial_state != state.to_string() {
        return Err(Refusal::WrongInitialState);
    }
    let n = exp.opening.len();
    let opening_ok = rec.opening_plies == n
        && rec.moves.len() >= n
        && rec.moves[..n]
            .iter()
            .zip(exp.opening)
            .all(|(m, o)| m.mv == *o && m.ms == 0.0);
    if !opening_ok {
        return Err(Refusal::WrongOpening { plies: n });
    }

    let tc = exp.time;
    let margin_ms = tc.margin_ms as f64;
    // Each seat's game clock, in milliseconds, as the referee keeps it.
    let mut clock: [Option<f64>; 2] = [tc.time_ms.map(|t| t as f64); 2];
    let limit_ms = |clock: &[Option<f64>; 2], seat: usize| -> Option<f64> {
        match (tc.movetime_ms.map(|m| m as f64), clock[seat]) {
            (Some(m), Some(c)) => Some(m.min(c)),
            (m, c) => m.or(c),
        }
    };
    for (i, m) in rec.moves.iter().enumerate() {
        let ply = i + 1;
        if state.outcome().is_some() {
            return Err(Refusal::PlayedAfterEnd { ply: i });
        }
        let to_move = state.to_move();
        if m.seat != to_move {
            return Err(Refusal::WrongMover {
                ply,
                expected: to_move,
                found: m.seat,
            });
        }
        if i >= n {
            // A bot's move: within its limit, and charged to its clock.
            let used = match (tc.clock, m.cpu_ms) {
                (Clock::Cpu, Some(cpu)) => cpu,
                _ => m.ms,
            };
            if let Some(limit) = limit_ms(&clock, to_move) {
                if used > limit + margin_ms + SLACK_MS {
                    return Err(Refusal::MoveOverTime {
                        ply,
                        ms: used,
                        limit_ms: limit as u64,
                    });
                }
            }
            if let Some(c) = clock[to_move].as_mut() {
                *c = (*c - used).max(0.0) + tc.inc_ms as f64;
            }
        }
        if let Err(e) = state.play(&m.mv) {
            return Err(Refusal::IllegalMove {
                ply,
                mv: m.mv.clone(),
                why: e.to_string(),
            });
        }
        if !m.state.is_empty() && m.state != state.to_string() {
            return Err(Refusal::WrongState { ply });
        }
    }
    if rec.final_state != state.to_string() {
        return Err(Refusal::WrongState { ply: 0 });
    }

    let shown = |result: GameResult, scores: [i32; 2]| format!("{} {scores:?}", result.as_str());
    match state.outcome() {
        Some(outcome) => {
            if rec.reason != outcome.reason() {
                return Err(Refusal::WrongEnd {
                    expected: format!("`{}` (the game is over)", outcome.reason()),
                    found: rec.reason,
                });
            }
            if rec.offender.is_some() {
                return Err(Refusal::Offender { reason: rec.reason });
            }
            let result = GameResult::from_winner(outcome.winner);
            if rec.result != result || rec.scores != outcome.scores {
                return Err(Refusal::WrongResult {
                    expected: shown(result, outcome.scores),
                    found: shown(rec.result, rec.scores),
                });
            }
            Ok(())
        }
        None => {
            if !rec.reason.is_forfeit() {
                // The ladder adjudicates nothing itself (no `[adjudication]`).
                return Err(Refusal::WrongEnd {
                    expected: "a forfeit (the game is not over)".into(),
                    found: rec.reason,
                });
            }
            let Some(offender) = rec.offender.filter(|s| *s < 2) else {
                return Err(Refusal::Offender { reason: rec.reason });
            };
            let result = GameResult::win_for(1 - offender);
            if rec.result != result || rec.scores != [0, 0] {
                return Err(Refusal::WrongResult {
                    expected: shown(result, [0, 0]),
                    found: shown(rec.result, rec.scores),
                });
            }
            let detail = rec.detail.as_deref().unwrap_or("");
            let to_move = state.to_move();
            match rec.reason {
                Reason::Illegal => {
                    if offender != to_move {
                        return Err(Refusal::NotIllegal(format!(
                            "seat {offender} is named, seat {to_move} was to move"
                        )));
                    }
                    let mv = named_move(detail)
                        .ok_or_else(|| Refusal::NotIllegal("its detail names no move".into()))?;
                    if state.clone_box().play(mv).is_ok() {
                        return Err(Refusal::NotIllegal(format!(
                            "`{mv}` is legal in that position"
                        )));
                    }
                    Ok(())
                }
                Reason::Timeout => {
                    let limit = limit_ms(&clock, to_move);
                    check_timeout(detail, offender, to_move, limit, margin_ms)
                }
                // Nothing in the moves shows or refutes a crash or a
                // protocol error: counted per worker instead.
                _ => Ok(()),
            }
        }
    }
}

/// The move an `illegal` forfeit's detail names: the referee writes
/// "illegal move `MV`..." or "...: why (in `MV`)".
fn named_move(detail: &str) -> Option<&str> {
    let after = detail
        .strip_prefix("illegal move `")
        .or_else(|| detail.rfind("(in `").map(|i| &detail[i + 5..]))?;
    after.split('`').next().filter(|m| !m.is_empty())
}

/// A timeout's detail as the referee writes it, against the limit the
/// moves imply: "move took X ms, limit L ms (+M ms margin)" must have X
/// over L + M; "no move within L ms ..." must name the limit. Other
/// timeouts (a bot that never said `ready`, or stopped reading) happen
/// outside a decision and cannot be checked by time.
fn check_timeout(
    detail: &str,
    offender: usize,
    to_move: usize,
    limit: Option<f64>,
    margin_ms: f64,
) -> Result<(), Refusal> {
    let decision = detail.starts_with("move took ") || detail.starts_with("no move within ");
    if !decision {
        return Ok(());
    }
    if offender != to_move {
        return Err(Refusal::NotATimeout(format!(
            "seat {offender} is named, seat {to_move} was to move"
        )));
    }
    let Some(limit) = limit else {
        return Err(Refusal::NotATimeout(
            "the time control has no limit on a move".into(),
        ));
    };
    let close = |l: f64| (l - limit).abs() <= SLACK_MS;
    if let Some(rest) = detail.strip_prefix("move took ") {
        let took = rest
            .split(" ms")
            .next()
            .and_then(|t| t.trim().parse::<f64>().ok());
        let stated = rest
            .find("limit ")
            .and_then(|i| rest[i + 6..].split(" ms").next())
            .and_then(|t| t.trim().parse::<f64>().ok());
        let (Some(took), Some(stated)) = (took, stated) else {
            return Err(Refusal::NotATimeout("its detail does not read".into()));
        };
        if !close(stated) {
            return Err(Refusal::NotATimeout(format!(
                "it states a limit of {stated} ms, the clock gave {limit:.0} ms"
            )));
        }
        if took <= limit + margin_ms {
            return Err(Refusal::NotATimeout(format!(
                "{took} ms is within the limit of {limit:.0} ms and margin of {margin_ms} ms"
            )));
        }
        return Ok(());
    }
    // "no move within L ms (+M ms margin)" or, on the cpu clock, "no move
    // within W ms of wall time (... for a limit of L ms)".
    let after = detail
        .find("for a limit of ")
        .map(|i| &detail[i + 15..])
        .or_else(|| detail.strip_prefix("no move within "));
    let stated: Option<f64> = after
        .and_then(|r| r.split(" ms").next())
        .and_then(|t| t.trim().parse().ok());
    match stated {
        Some(l) if close(l) => Ok(()),
        Some(l) => Err(Refusal::NotATimeout(format!(
            "it states a limit of {l} ms, the clock gave {limit:.0} ms"
        ))),
        None => Err(Refusal::NotATimeout("its detail does not read".into())),
    }
}

/// A legal game of `game` from `opening`, its bot moves chosen by `seed`
/// (each taking `ms`), recorded as the referee records one: what tests and
/// the load figure post as a valid record.
pub fn sample_record(
    game: &dyn AnyGame,
    opening: &[String],
    seed: u64,
    names: [&str; 2],
    clock: Clock,
    ms: f64,
) -> GameRecord {
    use arena_core::record::{MoveRecord, SeatRecord};
    let mut state = game.initial_state();
    let initial_state = state.to_string();
    let mut moves = Vec::new();
    let mut x = seed;
    let mut ply = 0;
    while state.outcome().is_none() {
        let seat = state.to_move();
        let mv = match opening.get(ply) {
            Some(m) => m.clone(),
            None => {
                let legal = state.legal_moves();
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                legal[((x >> 33) % legal.len() as u64) as usize].clone()
            }
        };
        let effects = state.play(&mv).expect("a legal move");
        moves.push(MoveRecord {
            seat,
            mv,
            ms: if ply < opening.len() { 0.0 } else { ms },
            cpu_ms: None,
            info: Vec::new(),
            search: Default::default(),
            state: state.to_string(),
            effects,
        });
        ply += 1;
    }
    let outcome = state.outcome().expect("over");
    let seat = |name: &str| SeatRecord {
        name: name.to_string(),
        command: vec!["./bot".into()],
        log: None,
        budget: Default::default(),
        ready: None,
        transcript: None,
    };
    GameRecord {
        index: 0,
        round: 0,
        pair: 0,
        game: game.name().to_string(),
        params: game.params().into_iter().collect(),
        seed,
        seats: [seat(names[0]), seat(names[1])],
        opening_plies: opening.len(),
        initial_state,
        moves,
        final_state: state.to_string(),
        scores: outcome.scores,
        result: GameResult::from_winner(outcome.winner),
        reason: outcome.reason(),
        detail: outcome.adjudicated.map(str::to_string),
        offender: None,
        clock,
        duration_ms: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Box<dyn AnyGame>, Vec<String>, TimeControl) {
        let game = arena_core::games::new_game("dakon", &[]).unwrap();
        let opening = sample_record(&*game, &[], 1, ["a", "b"], Clock::Wall, 1.0).moves[..2]
            .iter()
            .map(|m| m.mv.clone())
            .collect();
        let time = TimeControl {
            movetime_ms: Some(200),
            time_ms: None,
            inc_ms: 0,
            margin_ms: 50,
            clock: Clock::Wall,
            ceiling_ms: None,
        };
        (game, opening, time)
    }

    fn check(rec: &GameRecord) -> Result<(), Refusal> {
        let (game, opening, time) = setup();
        verify(
            &Expected {
                game: &*game,
                time,
                opening: &opening,
                seed: 9,
                names: ["a.v1", "b.v1"],
            },
            rec,
        )
    }

    fn good() -> GameRecord {
        let (game, opening, _) = setup();
        sample_record(&*game, &opening, 9, ["a.v1", "b.v1"], Clock::Wall, 3.0)
    }

    /// The record cut after `plies`, as a forfeit of the seat to move then.
    fn forfeit_at(plies: usize, reason: Reason, detail: &str) -> GameRecord {
        let mut r = good();
        r.moves.truncate(plies);
        r.final_state = r.moves.last().unwrap().state.clone();
        let to_move = 1 - r.moves.last().unwrap().seat;
        // Dakon may give a seat two moves in a row: ask the rules.
        let (game, _, _) = setup();
        let mut s = game.initial_state();
        for m in &r.moves {
            s.play(&m.mv).unwrap();
        }
        let _ = to_move;
        let to_move = s.to_move();
        r.offender = Some(to_move);
        r.result = GameResult::win_for(1 - to_move);
        r.reason = reason;
        r.scores = [0, 0];
        r.detail = Some(detail.to_string());
        r
    }

    #[test]
    fn a_played_game_passes() {
        assert_eq!(check(&good()), Ok(()));
    }

    #[test]
    fn forged_records_are_refused_with_their_reason() {
        let code = |r: &GameRecord| check(r).unwrap_err().code();
        let mut r = good();
        r.seed = 10;
        assert_eq!(code(&r), "wrong_seed");
        let mut r = good();
        r.seats.swap(0, 1);
        assert_eq!(code(&r), "wrong_seats");
        let mut r = good();
        r.moves[0].mv = r.moves[1].mv.clone();
        assert!(matches!(code(&r), "wrong_opening"), "{:?}", check(&r));
        // An illegal move in the middle (a move of the other side's row).
        let mut r = good();
        let (game, _, _) = setup();
        let mut s = game.initial_state();
        for m in &r.moves[..4] {
            s.play(&m.mv).unwrap();
        }
        let legal = s.legal_moves();
        let bad = ["a", "z9", "0", "99"]
            .into_iter()
            .find(|m| !legal.contains(&m.to_string()))
            .unwrap();
        r.moves[4].mv = bad.to_string();
        assert_eq!(code(&r), "illegal_move");
        // A wrong winner.
        let mut r = good();
        r.result = match r.result {
            GameResult::Seat0Wins => GameResult::Seat1Wins,
            _ => GameResult::Seat0Wins,
        };
        assert_eq!(code(&r), "wrong_result");
        // A forfeit claimed after the game ended normally.
        let mut r = good();
        r.reason = Reason::Crash;
        assert_eq!(code(&r), "wrong_end");
        // A normal end claimed for a game not over.
        let mut r = forfeit_at(10, Reason::Crash, "exited with code 1");
        assert_eq!(check(&r), Ok(()), "a crash cannot be refuted");
        r.reason = Reason::Normal;
        r.offender = None;
        assert_eq!(code(&r), "wrong_end");
        // A move over the limit in a game that went on.
        let mut r = good();
        r.moves[5].ms = 900.0;
        assert_eq!(code(&r), "move_over_time");
    }

    #[test]
    fn timeouts_and_illegal_moves_must_be_what_they_claim() {
        let code = |r: &GameRecord| check(r).map_err(|e| e.code());
        let t = |d: &str| forfeit_at(8, Reason::Timeout, d);
        assert_eq!(
            code(&t("move took 400.0 ms, limit 200 ms (+50 ms margin)")),
            Ok(())
        );
        assert_eq!(
            code(&t("move took 120.0 ms, limit 200 ms (+50 ms margin)")),
            Err("not_a_timeout")
        );
        assert_eq!(
            code(&t("move took 400.0 ms, limit 100 ms (+50 ms margin)")),
            Err("not_a_timeout")
        );
        assert_eq!(code(&t("no move within 200 ms (+50 ms margin)")), Ok(()));
        assert_eq!(
            code(&t("no move within 50 ms (+50 ms margin)")),
            Err("not_a_timeout")
        );
        let mut wrong_seat = t("move took 400.0 ms, limit 200 ms (+50 ms margin)");
        let o = 1 - wrong_seat.offender.unwrap();
        wrong_seat.offender = Some(o);
        wrong_seat.result = GameResult::win_for(1 - o);
        assert_eq!(code(&wrong_seat), Err("not_a_timeout"));

        let r = good();
        let legal_next = r.moves[8].mv.clone();
        let i = |d: String| forfeit_at(8, Reason::Illegal, &d);
        assert_eq!(
            code(&i(format!("illegal move `{legal_next}`"))),
            Err("not_illegal")
        );
        assert_eq!(code(&i("illegal move `z9`".into())), Ok(()));
        assert_eq!(code(&i("hole: not a number (in `zz`)".into())), Ok(()));
        assert_eq!(code(&i("it cheated".into())), Err("not_illegal"));
    }
}
