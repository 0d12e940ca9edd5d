//! Dakon, the Indonesian mancala with relay sowing (rules: `rules/dakon.md`).
//!
//! The board lives in one fixed array in *sowing order* (a ring), so sowing
//! is a walk along the array:
//!
//! ```text
//! ring index  0 .. n-1    = pits n .. 2n-1   (player 0's row, left to right)
//! ring index  n           = store 0
//! ring index  n+1 .. 2n   = pits n-1 .. 0    (player 1's row, right to left)
//! ring index  2n+1        = store 1
//! ```
//!
//! Pit `i` and pit `i + n` face each other; in the ring, index `k` faces
//! `2n - k`. The notation uses the rules' pit numbers; the ring is internal.
//!
//! How a finished game looks in the notation:
//! - natural end (the player to move has no seed): the opponent's sweep is
//!   done in the state, so every pit reads 0 and the stores are the scores;
//!   `turn` still names the player who has no move.
//! - move limit (`ply == max_plies` and the player to move still has seeds):
//!   the pits are left as they are; [`Game::outcome`] credits each side's pit
//!   seeds to its own store. (Sweeping them in the state would make an
//!   adjudicated end indistinguishable in the text from a natural end on the
//!   last allowed move, which the rules score differently.)
//!
//! A state whose player to move has no seed while the other side still has
//! seeds (an unswept natural end) is never reached and is refused by the
//! parser, so every state has a single text and every text a single outcome.

use std::fmt::{self, Display};
use std::str::FromStr;

use serde::Serialize;

use super::{Game, Outcome, ParamError, ParamReader, Params, ParseError, Seat};

/// Smallest and largest number of holes per row.
pub const MIN_HOLES: usize = 3;
pub const MAX_HOLES: usize = 9;
/// Largest number of starting seeds per pit: keeps every count (at most
/// `2 * 9 * 1000 = 18000` seeds on the board) inside a `u16`.
pub const MAX_SEEDS: u32 = 1000;
/// Largest total number of seeds a state may hold.
pub const MAX_TOTAL: u32 = 2 * MAX_HOLES as u32 * MAX_SEEDS;
/// Ring slots: 2 * 9 pits + 2 stores.
const RING: usize = 2 * MAX_HOLES + 2;

const PARAM_KEYS: &[&str] = &["holes", "seeds", "nembak_takes_lander", "max_plies"];

/// The game parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dakon {
    /// Pits per row, 3..=9.
    pub holes: u8,
    /// Starting seeds per pit, 1..=[`MAX_SEEDS`].
    pub seeds: u16,
    /// Whether nembak also takes the seed that landed.
    pub nembak_takes_lander: bool,
    /// Move limit (bonus moves count), >= 1.
    pub max_plies: u32,
}

impl Default for Dakon {
    fn default() -> Self {
        Dakon {
            holes: 7,
            seeds: 7,
            nembak_takes_lander: false,
            max_plies: 1000,
        }
    }
}

/// A move: the absolute pit number the mover empties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pit(pub u8);

impl Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.0, f)
    }
}

impl FromStr for Pit {
    type Err = ParseError;

    /// A pit number on some board (0..=17); [`Game::parse_move`] also checks
    /// it is on the board in play.
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let pit = parse_uint(text, (2 * MAX_HOLES - 1) as u64)
            .map_err(|why| ParseError::new("dakon move", why, text))?;
        Ok(Pit(pit as u8))
    }
}

/// A position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DakonState {
    /// Pits and stores in sowing order (see the module docs); slots past
    /// `2 * holes + 2` are always 0.
    board: [u16; RING],
    holes: u8,
    /// The player to move (0 or 1).
    turn: u8,
    /// Moves made so far, bonus moves included.
    ply: u32,
}

impl DakonState {
    /// The starting position: `seeds` in each of `2 * holes` pits.
    pub fn new(holes: usize, seeds: u16) -> Self {
        assert!((MIN_HOLES..=MAX_HOLES).contains(&holes));
        let mut board = [0; RING];
        for k in 0..2 * holes + 1 {
            if k != holes {
                board[k] = seeds;
            }
        }
        DakonState {
            board,
            holes: holes as u8,
            turn: 0,
            ply: 0,
        }
    }

    pub fn holes(&self) -> usize {
        self.holes as usize
    }

    /// The seeds in pit `pit` (rules numbering).
    pub fn pit(&self, pit: usize) -> u16 {
        self.board[ring_of(self.holes(), pit)]
    }

    /// Seeds in player `seat`'s store.
    pub fn store(&self, seat: Seat) -> u16 {
        self.board[store_of(self.holes(), seat)]
    }

    pub fn turn(&self) -> Seat {
        self.turn as Seat
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Seeds on the board and in the stores.
    pub fn total(&self) -> u32 {
        self.board.iter().map(|&s| s as u32).sum()
    }

    /// Seeds in player `seat`'s pits.
    pub fn side(&self, seat: Seat) -> u32 {
        let n = self.holes();
        let row = &self.board[row_of(n, seat)];
        row.iter().map(|&s| s as u32).sum()
    }

    fn side_empty(&self, seat: Seat) -> bool {
        let n = self.holes();
        self.board[row_of(n, seat)].iter().all(|&s| s == 0)
    }
}

/// Ring index of pit `pit` on a board of `n` holes.
#[inline(always)]
fn ring_of(n: usize, pit: usize) -> usize {
    if pit >= n {
        pit - n
    } else {
        2 * n - pit
    }
}

#[inline(always)]
fn store_of(n: usize, seat: Seat) -> usize {
    if seat == 0 {
        n
    } else {
        2 * n + 1
    }
}

/// Ring indices of player `seat`'s pits.
#[inline(always)]
fn row_of(n: usize, seat: Seat) -> std::ops::Range<usize> {
    if seat == 0 {
        0..n
    } else {
        n + 1..2 * n + 1
    }
}

impl Display for DakonState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.holes();
        f.write_str("pits=")?;
        for pit in 0..2 * n {
            if pit > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", self.pit(pit))?;
        }
        write!(
            f,
            " stores={},{} turn={} ply={}",
            self.store(0),
            self.store(1),
            self.turn,
            self.ply
        )
    }
}

/// A decimal number without sign or leading zeros, at most `max`.
fn parse_uint(text: &str, max: u64) -> Result<u64, String> {
    if text.is_empty() {
        return Err("expected a number, found nothing".into());
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{}` is not a decimal number", shorten(text)));
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(format!("`{}` has a leading zero", shorten(text)));
    }
    let mut value: u64 = 0;
    for b in text.bytes() {
        value = value * 10 + (b - b'0') as u64;
        if value > max {
            return Err(format!("`{}` is larger than {max}", shorten(text)));
        }
    }
    Ok(value)
}

fn shorten(text: &str) -> &str {
    match text.char_indices().nth(24) {
        Some((cut, _)) => &text[..cut],
        None => text,
    }
}

impl FromStr for DakonState {
    type Err = ParseError;

    /// Parses `pits=P0,...,P(2n-1) stores=S0,S1 turn=T ply=K`, inferring `n`
    /// from the pit count. Checks what holds on any board: 3 to 9 holes,
    /// at most [`MAX_TOTAL`] seeds, and a finished game's board swept.
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let err = |why: String| ParseError::new("dakon state", why, text);
        let mut fields = text.split(' ');
        let mut field = |key: &'static str| {
            let part = fields.next().ok_or_else(|| {
                err(format!(
                    "missing field `{key}=` (expected `pits=... stores=S0,S1 turn=T ply=K`)"
                ))
            })?;
            part.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix('='))
                .ok_or_else(|| {
                    err(format!(
                        "expected `{key}=` at `{}` (fields are separated by single spaces, \
                         in the order pits, stores, turn, ply)",
                        shorten(part)
                    ))
                })
        };
        let pits_text = field("pits")?;
        let stores_text = field("stores")?;
        let turn_text = field("turn")?;
        let ply_text = field("ply")?;
        if fields.next().is_some() {
            return Err(err("unexpected text after the `ply=` field".into()));
        }

        let max = MAX_TOTAL as u64;
        let mut pits = [0u16; 2 * MAX_HOLES];
        let mut count = 0;
        for part in pits_text.split(',') {
            if count == 2 * MAX_HOLES {
                return Err(err(format!(
                    "more than {} pits (at most {MAX_HOLES} holes per row)",
                    2 * MAX_HOLES
                )));
            }
            let v = parse_uint(part, max).map_err(|why| err(format!("pit {count}: {why}")))?;
            pits[count] = v as u16;
            count += 1;
        }
        if count % 2 != 0 || count < 2 * MIN_HOLES {
            return Err(err(format!(
                "{count} pits: expected an even number from {} to {} (two rows of \
                 {MIN_HOLES} to {MAX_HOLES} holes)",
                2 * MIN_HOLES,
                2 * MAX_HOLES
            )));
        }
        let n = count / 2;

        let (s0, s1) = stores_text
            .split_once(',')
            .ok_or_else(|| err("`stores=` needs two numbers, `S0,S1`".into()))?;
        let s0 = parse_uint(s0, max).map_err(|why| err(format!("store 0: {why}")))?;
        let s1 = parse_uint(s1, max).map_err(|why| err(format!("store 1: {why}")))?;

        let turn = match turn_text {
            "0" => 0,
            "1" => 1,
            _ => return Err(err(format!("turn `{}` is not 0 or 1", shorten(turn_text)))),
        };
        let ply =
            parse_uint(ply_text, u32::MAX as u64).map_err(|why| err(format!("ply: {why}")))?;

        let total = pits[..count].iter().map(|&s| s as u64).sum::<u64>() + s0 + s1;
        if total > max {
            return Err(err(format!(
                "{total} seeds in all: at most {MAX_TOTAL} are supported"
            )));
        }

        let mut board = [0u16; RING];
        for (pit, &seeds) in pits[..count].iter().enumerate() {
            board[ring_of(n, pit)] = seeds;
        }
        board[store_of(n, 0)] = s0 as u16;
        board[store_of(n, 1)] = s1 as u16;
        let state = DakonState {
            board,
            holes: n as u8,
            turn,
            ply: ply as u32,
        };
        if state.side_empty(state.turn()) && state.side(1 - state.turn()) > 0 {
            return Err(err(format!(
                "player {turn} is to move with no seeds, so the game is over, but player \
                 {}'s pits still hold seeds: a finished game's board is swept into the stores",
                1 - turn
            )));
        }
        Ok(state)
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// The player to move had no seed; the opponent swept the board.
    Sweep,
    /// The move limit was reached; each side's pit seeds count for itself.
    MaxPlies,
}

/// What one move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DakonEffects {
    /// Laps sown: 1 plus one per relay.
    pub laps: u32,
    /// Seeds taken by nembak (including the lander under `nembak_takes_lander`).
    pub nembak: u16,
    /// Seeds taken by mikul (both neighbours and the lander).
    pub mikul: u16,
    /// The last seed fell in the mover's store (a bonus move, unless the game ended).
    pub bonus: bool,
    /// Set when this move ended the game.
    pub end: Option<End>,
    /// Seeds credited to each player at the end: the sweep (moved into the
    /// sweeper's store) or, under the move limit, each side's own pit seeds
    /// (counted by the outcome; the state keeps them in the pits).
    pub swept: [u16; 2],
}

impl Game for Dakon {
    const NAME: &'static str = "dakon";

    type State = DakonState;
    type Move = Pit;
    type Effects = DakonEffects;

    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
        let reader = ParamReader::new(Self::NAME, params, PARAM_KEYS)?;
        let holes = reader.int("holes", 7, MIN_HOLES as u32..=MAX_HOLES as u32)?;
        let seeds = reader.int("seeds", holes, 1..=MAX_SEEDS)?;
        let nembak_takes_lander = reader.flag("nembak_takes_lander", false)?;
        let max_plies = reader.int("max_plies", 1000, 1..=u32::MAX)?;
        Ok(Dakon {
            holes: holes as u8,
            seeds: seeds as u16,
            nembak_takes_lander,
            max_plies,
        })
    }

    fn params(&self) -> Params {
        vec![
            ("holes".into(), self.holes.to_string()),
            ("seeds".into(), self.seeds.to_string()),
            (
                "nembak_takes_lander".into(),
                self.nembak_takes_lander.to_string(),
            ),
            ("max_plies".into(), self.max_plies.to_string()),
        ]
    }

    fn initial_state(&self) -> DakonState {
        DakonState::new(self.holes as usize, self.seeds)
    }

    fn parse_state(&self, text: &str) -> Result<DakonState, ParseError> {
        let state: DakonState = text.parse()?;
        let err = |why: String| ParseError::new("dakon state", why, text);
        let n = self.holes as usize;
        if state.holes() != n {
            return Err(err(format!(
                "{} pits, but this game has {} (holes={n})",
                2 * state.holes(),
                2 * n
            )));
        }
        let expected = 2 * n as u32 * self.seeds as u32;
        if state.total() != expected {
            return Err(err(format!(
                "{} seeds in all, but this game has {expected} (2 x holes={n} x seeds={})",
                state.total(),
                self.seeds
            )));
        }
        if state.ply > self.max_plies {
            return Err(err(format!(
                "ply {} is past the move limit max_plies={}",
                state.ply, self.max_plies
            )));
        }
        Ok(state)
    }

    fn parse_move(&self, text: &str) -> Result<Pit, ParseError> {
        let pit: Pit = text.parse()?;
        if pit.0 as usize >= 2 * self.holes as usize {
            return Err(ParseError::new(
                "dakon move",
                format!(
                    "pit {} is not on the board (pits 0 to {} with holes={})",
                    pit.0,
                    2 * self.holes as usize - 1,
                    self.holes
                ),
                text,
            ));
        }
        Ok(pit)
    }

    fn to_move(&self, state: &DakonState) -> Seat {
        state.turn()
    }

    /// The mover's non-empty pits, in increasing pit number.
    fn legal_moves(&self, state: &DakonState, out: &mut Vec<Pit>) {
        out.clear();
        if state.ply >= self.max_plies {
            return;
        }
        let n = state.holes();
        // Collect into a small array and copy once: cheaper than n pushes.
        let mut moves = [Pit(0); MAX_HOLES];
        let mut count = 0;
        if state.turn == 0 {
            for (k, &seeds) in state.board[..n].iter().enumerate() {
                moves[count] = Pit((k + n) as u8);
                count += (seeds != 0) as usize;
            }
        } else {
            for (i, &seeds) in state.board[n + 1..2 * n + 1].iter().rev().enumerate() {
                moves[count] = Pit(i as u8);
                count += (seeds != 0) as usize;
            }
        }
        out.extend_from_slice(&moves[..count]);
    }

    fn apply(&self, state: &mut DakonState, mv: &Pit) -> DakonEffects {
        let n = state.holes();
        let len = 2 * n + 2;
        let mover = state.turn();
        let own_store = store_of(n, mover);
        let opp_store = store_of(n, 1 - mover);
        let board = &mut state.board;
        let mut fx = DakonEffects::default();

        let mut pos = ring_of(n, mv.0 as usize);
        let mut seeds = board[pos];
        board[pos] = 0;
        loop {
            fx.laps += 1;
            // Sow in runs of consecutive ring slots (the opponent's store and
            // the end of the ring break a run): one tight loop per run.
            let mut start = pos + 1;
            while seeds > 0 {
                if start == opp_store {
                    start += 1;
                }
                if start >= len {
                    start = 0;
                }
                let run_end = if start < opp_store { opp_store } else { len };
                let k = (seeds as usize).min(run_end - start);
                for slot in &mut board[start..start + k] {
                    *slot += 1;
                }
                seeds -= k as u16;
                pos = start + k - 1;
                start += k;
            }
            if pos == own_store {
                fx.bonus = true;
                break;
            }
            if board[pos] > 1 {
                // Relay: lift the pit, including the seed just dropped.
                seeds = board[pos];
                board[pos] = 0;
                continue;
            }
            // The last seed fell into an empty pit: the turn ends.
            let own_row = if mover == 0 { pos < n } else { pos > n };
            if own_row {
                let opposite = 2 * n - pos;
                let taken = board[opposite];
                if taken > 0 {
                    board[opposite] = 0;
                    let mut gain = taken;
                    if self.nembak_takes_lander {
                        board[pos] = 0;
                        gain += 1;
                    }
                    board[own_store] += gain;
                    fx.nembak = gain;
                }
            } else {
                let end_pit = pos == 0 || pos == n - 1 || pos == n + 1 || pos == 2 * n;
                if !end_pit {
                    let (left, right) = (board[pos - 1], board[pos + 1]);
                    if left == right && left > 0 {
                        let gain = left + right + 1;
                        board[pos - 1] = 0;
                        board[pos + 1] = 0;
                        board[pos] = 0;
                        board[own_store] += gain;
                        fx.mikul = gain;
                    }
                }
            }
            break;
        }

        if !fx.bonus {
            state.turn ^= 1;
        }
        state.ply += 1;
        let next = state.turn();
        if state.side_empty(next) {
            let sweeper = 1 - next;
            let row = row_of(n, sweeper);
            let swept: u16 = state.board[row.clone()].iter().sum();
            state.board[row].fill(0);
            state.board[store_of(n, sweeper)] += swept;
            fx.swept[sweeper] = swept;
            fx.end = Some(End::Sweep);
        } else if state.ply >= self.max_plies {
            fx.swept = [state.side(0) as u16, state.side(1) as u16];
            fx.end = Some(End::MaxPlies);
        }
        fx
    }

    fn outcome(&self, state: &DakonState) -> Option<Outcome> {
        let mover = state.turn();
        let mut scores = [state.store(0) as i32, state.store(1) as i32];
        let adjudicated = if state.side_empty(mover) {
            // Natural end; the sweep is already in the stores (counted here
            // too, so a hand-built unswept state still scores right).
            scores[1 - mover] += state.side(1 - mover) as i32;
            None
        } else if state.ply >= self.max_plies {
            scores[0] += state.side(0) as i32;
            scores[1] += state.side(1) as i32;
            Some("max_plies")
        } else {
            return None;
        };
        let winner = match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        };
        Some(Outcome {
            scores,
            winner,
            adjudicated,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
}
