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
//!
//! Decided here where the rules file is silent:
//! - after a natural end, `turn` names the player who had no seed (after a
//!   bonus move that emptied the mover's own side, the mover) and `ply`
//!   counts the move that ended the game;
//! - with `nembak_takes_lander=true` and an empty opposite pit nothing is
//!   captured and the lander stays;
//! - notation is canonical: decimal without sign or leading zeros, single
//!   spaces, fields in the fixed order, no surrounding whitespace;
//! - `seeds` is capped at [`MAX_SEEDS`]; `max_plies` may be up to `u32::MAX`;
//!   a state at `ply == max_plies` is a finished game, `ply > max_plies` is
//!   refused.

use std::fmt::{self, Display};
use std::str::FromStr;

use serde::Serialize;

use super::{Game, Outcome, ParamError, ParamReader, Params, ParseError, Seat, Spaces};

/// Smallest number of holes per row.
pub const MIN_HOLES: usize = 3;
/// Largest number of holes per row.
pub const MAX_HOLES: usize = 9;
/// Largest number of starting seeds per pit: keeps every count (at most
/// `2 * 9 * 1000 = 18000` seeds on the board) inside a `u16`.
pub const MAX_SEEDS: u32 = 1000;
/// Largest total number of seeds a state may hold.
pub const MAX_TOTAL: u32 = 2 * MAX_HOLES as u32 * MAX_SEEDS;
/// Ring slots: 2 * 9 pits + 2 stores.
const RING: usize = 2 * MAX_HOLES + 2;
/// Sowing adds a 16-lane mask of ones, so the board array has 16 slots of
/// padding (always 0) past the ring.
const LANES: usize = 16;
const BOARD: usize = RING + LANES;
/// `ONES[LANES - k..][..LANES]` is `k` ones followed by zeros.
static ONES: [u16; 2 * LANES] = {
    let mut ones = [0; 2 * LANES];
    let mut i = 0;
    while i < LANES {
        ones[i] = 1;
        i += 1;
    }
    ones
};
/// `FULL[LANES - n..][..LANES]` keeps the first `n` lanes of a 16-lane AND.
static FULL: [u16; 2 * LANES] = {
    let mut full = [0; 2 * LANES];
    let mut i = 0;
    while i < LANES {
        full[i] = u16::MAX;
        i += 1;
    }
    full
};

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
            .map_err(|why| ParseError::new("dakon move", why.to_string(), text))?;
        Ok(Pit(pit as u8))
    }
}

/// A position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DakonState {
    /// Pits and stores in sowing order (see the module docs); slots past
    /// `2 * holes + 2` are always 0.
    board: [u16; BOARD],
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
        let mut board = [0; BOARD];
        board[..2 * holes + 1].fill(seeds);
        board[holes] = 0; // store 0
        DakonState {
            board,
            holes: holes as u8,
            turn: 0,
            ply: 0,
        }
    }

    /// Pits per row.
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

    /// The seat to move (after a natural end: see the module's notes).
    pub fn turn(&self) -> Seat {
        self.turn as Seat
    }

    /// Moves made so far.
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

    /// Whether player `seat` has no seed in their pits: a fixed-width masked
    /// OR over the row (no early exit, so no data-dependent branch).
    #[inline(always)]
    fn side_empty(&self, seat: Seat) -> bool {
        let n = self.holes();
        let start = if seat == 0 { 0 } else { n + 1 };
        let row: &[u16; LANES] = self.board[start..][..LANES].try_into().unwrap();
        let mask: &[u16; LANES] = FULL[LANES - n..][..LANES].try_into().unwrap();
        row.iter().zip(mask).fold(0, |acc, (&s, &m)| acc | (s & m)) == 0
    }
}

/// Seed counts as numbers, for an observation.
fn fill_seeds<'a>(out: &mut [f32], seeds: impl Iterator<Item = &'a u16>) {
    for (slot, &s) in out.iter_mut().zip(seeds) {
        *slot = f32::from(s);
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
    /// Digits are written by hand into one buffer and written once: the
    /// referee formats the state after every move, and `write!` per number
    /// was 22% of its instructions in a match of instant bots (callgrind:
    /// about 6,500 instructions per state).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.holes();
        let mut s = String::with_capacity(16 + 4 * 2 * n + 32);
        s.push_str("pits=");
        for pit in 0..2 * n {
            if pit > 0 {
                s.push(',');
            }
            push_uint(&mut s, u64::from(self.pit(pit)));
        }
        s.push_str(" stores=");
        push_uint(&mut s, u64::from(self.store(0)));
        s.push(',');
        push_uint(&mut s, u64::from(self.store(1)));
        s.push_str(" turn=");
        push_uint(&mut s, u64::from(self.turn));
        s.push_str(" ply=");
        push_uint(&mut s, u64::from(self.ply));
        f.write_str(&s)
    }
}

/// Appends `v` in decimal.
fn push_uint(s: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

/// Why a number in a state or move text was refused (the text shortened).
#[derive(Clone, Debug, PartialEq, Eq)]
enum NumberError {
    Missing,
    NotDecimal(String),
    LeadingZero(String),
    TooLarge(String, u64),
}

impl Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::Missing => f.write_str("expected a number, found nothing"),
            NumberError::NotDecimal(t) => write!(f, "`{t}` is not a decimal number"),
            NumberError::LeadingZero(t) => write!(f, "`{t}` has a leading zero"),
            NumberError::TooLarge(t, max) => write!(f, "`{t}` is larger than {max}"),
        }
    }
}

/// A decimal number without sign or leading zeros, at most `max`.
fn parse_uint(text: &str, max: u64) -> Result<u64, NumberError> {
    if text.is_empty() {
        return Err(NumberError::Missing);
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotDecimal(shorten(text).into()));
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(NumberError::LeadingZero(shorten(text).into()));
    }
    let mut value: u64 = 0;
    for b in text.bytes() {
        value = value * 10 + (b - b'0') as u64;
        if value > max {
            return Err(NumberError::TooLarge(shorten(text).into(), max));
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

        let mut board = [0u16; BOARD];
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

/// Mikul's test on the two neighbours of the empty pit the turn ended in:
/// what the mover takes (both neighbours and the lander), if anything.
///
/// The zero case cannot arise in play: the seed before the last one always
/// fell in the neighbour the sowing came from (a row's first pit after a
/// store is an end pit, which has no mikul), but the rule is kept as written.
#[inline(always)]
fn mikul(left: u16, right: u16) -> Option<u16> {
    (left == right && left > 0).then(|| left + right + 1)
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
        // Player 0's pits n..2n-1 are ring 0..n-1; player 1's pits 0..n-1
        // are ring 2n down to n+1. One loop for both, no turn branch inside.
        let (base, step, first_pit) = if state.turn == 0 {
            (0isize, 1isize, n)
        } else {
            (2 * n as isize, -1isize, 0)
        };
        for i in 0..n.min(MAX_HOLES) {
            let seeds = state.board[(base + step * i as isize) as usize];
            moves[count] = Pit((i + first_pit) as u8);
            count += (seeds != 0) as usize;
        }
        // A fixed-size copy then a cut: cheaper than a variable-length copy.
        out.extend_from_slice(&moves);
        out.truncate(count);
    }

    fn apply(&self, state: &mut DakonState, mv: &Pit) -> DakonEffects {
        let n = state.holes();
        let len = 2 * n + 2;
        assert!(len <= RING);
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
                if k <= LANES {
                    // One fixed-width add, no per-seed loop or branch.
                    let mask: &[u16; LANES] = ONES[LANES - k..][..LANES].try_into().unwrap();
                    let run: &mut [u16; LANES] =
                        (&mut board[start..start + LANES]).try_into().unwrap();
                    for (slot, add) in run.iter_mut().zip(mask) {
                        *slot += add;
                    }
                } else {
                    for slot in &mut board[start..start + k] {
                        *slot += 1;
                    }
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
                    if let Some(gain) = mikul(board[pos - 1], board[pos + 1]) {
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

    fn material(&self, state: &DakonState) -> [i32; 2] {
        [state.store(0) as i32, state.store(1) as i32]
    }

    /// Actions are pit numbers, `0 .. 2 * holes`. The observation is
    /// `2 + 2 * holes + 2` numbers seen by one player ("mine" and "the
    /// opponent's" in place of seat 0 and seat 1, so that one network plays
    /// either seat): [I am to move, the opponent is to move], the pits with
    /// my row where the notation puts seat 0's (player 1's view is the board
    /// turned round: its pit `k` is pit `(k + holes) % (2 * holes)`), then my
    /// store and the opponent's, as seed counts.
    fn spaces(&self) -> Option<Spaces> {
        let pits = 2 * self.holes as usize;
        Some(Spaces {
            num_distinct_actions: pits,
            max_game_length: self.max_plies as usize,
            observation_shape: vec![2 + pits + 2],
            observation_bounds: (0.0, (pits * self.seeds as usize) as f32),
        })
    }

    fn move_to_action(&self, mv: &Pit) -> Option<usize> {
        Some(mv.0 as usize)
    }

    /// The mover's non-empty pits, as [`Game::legal_moves`] lists them.
    fn legal_actions(&self, state: &DakonState, out: &mut Vec<usize>) {
        out.clear();
        if state.ply >= self.max_plies {
            return;
        }
        // As legal_moves does it: every pit written, the count moved on only
        // for a non-empty one (no branch to mispredict), then a fixed-size
        // copy and a cut.
        let n = state.holes();
        let mut ids = [0; MAX_HOLES];
        let mut count = 0;
        for k in 0..n.min(MAX_HOLES) {
            // Player 0's pit n + k is ring slot k; player 1's pit k is slot 2n - k.
            let (pit, slot) = if state.turn == 0 {
                (n + k, k)
            } else {
                (k, 2 * n - k)
            };
            ids[count] = pit;
            count += usize::from(state.board[slot] != 0);
        }
        out.extend_from_slice(&ids);
        out.truncate(count);
    }

    fn action_to_move(&self, state: &DakonState, action: usize) -> Option<Pit> {
        let n = state.holes();
        let first = if state.turn == 0 { n } else { 0 };
        let legal = state.ply < self.max_plies
            && (first..first + n).contains(&action)
            && state.pit(action) != 0;
        legal.then_some(Pit(action as u8))
    }

    fn observation(&self, state: &DakonState, player: Seat, out: &mut [f32]) -> bool {
        let n = state.holes();
        let (turn, rest) = out.split_at_mut(2);
        let (pits, stores) = rest.split_at_mut(2 * n);
        turn[0] = f32::from(u8::from(state.turn() == player));
        turn[1] = f32::from(u8::from(state.turn() != player));
        // Read straight off the ring (this runs at every step of a batch):
        // pits 0..n are ring slots 2n down to n + 1, pits n..2n slots 0..n.
        // Player 1's view starts at pit n and wraps round to pit 0.
        let low = state.board[n + 1..=2 * n].iter().rev();
        let high = state.board[..n].iter();
        let (mine, theirs) = pits.split_at_mut(n);
        if player == 0 {
            fill_seeds(mine, low);
            fill_seeds(theirs, high);
        } else {
            fill_seeds(mine, high);
            fill_seeds(theirs, low);
        }
        stores[0] = f32::from(state.store(player));
        stores[1] = f32::from(state.store(1 - player));
        true
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
    use crate::games::new_game;

    const START: &str = "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0";

    fn game(params: &[(&str, &str)]) -> Dakon {
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Dakon::from_params(&params).unwrap()
    }

    /// Parses `before` for `g`, plays `mv` (checked legal), and checks the
    /// resulting text is `after` and parses back to the same state.
    fn check(g: &Dakon, before: &str, mv: u8, after: &str) -> DakonEffects {
        let mut state = g.parse_state(before).unwrap();
        assert_eq!(state.to_string(), before, "notation round-trip");
        let fx = g.play(&mut state, &Pit(mv)).unwrap();
        assert_eq!(state.to_string(), after);
        assert_eq!(g.parse_state(after).unwrap(), state);
        fx
    }

    fn fx(laps: u32, nembak: u16, mikul: u16, bonus: bool) -> DakonEffects {
        DakonEffects {
            laps,
            nembak,
            mikul,
            bonus,
            ..Default::default()
        }
    }

    // ---- the five worked examples of the rules file, verbatim ----

    #[test]
    fn example_1_bonus_move_from_the_start() {
        let g = Dakon::default();
        assert_eq!(g.initial_state().to_string(), START);
        let e = check(
            &g,
            START,
            7,
            "pits=7,7,7,7,7,7,7,0,8,8,8,8,8,8 stores=1,0 turn=0 ply=1",
        );
        assert_eq!(e, fx(1, 0, 0, true));
    }

    #[test]
    fn example_2_relay_then_nembak() {
        let e = check(
            &Dakon::default(),
            START,
            10,
            "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1",
        );
        assert_eq!(e, fx(2, 8, 0, false));
    }

    #[test]
    fn example_3_mikul() {
        let e = check(
            &Dakon::default(),
            "pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=12",
            13,
            "pits=1,1,1,1,0,0,0,1,1,1,1,1,1,0 stores=43,45 turn=1 ply=13",
        );
        assert_eq!(e, fx(1, 0, 7, false));
    }

    #[test]
    fn example_4_origin_pit_not_skipped() {
        let e = check(
            &Dakon::default(),
            "pits=0,0,0,0,0,0,0,0,0,0,0,0,0,16 stores=40,42 turn=0 ply=30",
            13,
            "pits=1,1,1,1,1,1,1,1,1,1,1,1,1,1 stores=42,42 turn=0 ply=31",
        );
        assert_eq!(e, fx(1, 0, 0, true));
    }

    #[test]
    fn example_5_bonus_move_into_an_empty_side_ends_the_game() {
        let g = Dakon::default();
        let e = check(
            &g,
            "pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40",
            13,
            "pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=51,47 turn=0 ply=41",
        );
        assert_eq!(
            e,
            DakonEffects {
                end: Some(End::Sweep),
                swept: [0, 2],
                ..fx(1, 0, 0, true)
            }
        );
        let state = g.parse_state("pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=51,47 turn=0 ply=41");
        let state = state.unwrap();
        let mut moves = vec![Pit(99)];
        g.legal_moves(&state, &mut moves);
        assert!(moves.is_empty());
        assert_eq!(
            g.outcome(&state),
            Some(Outcome {
                scores: [51, 47],
                winner: Some(0),
                adjudicated: None
            })
        );
    }

    // ---- sowing ----

    #[test]
    fn sowing_path_skips_the_opponents_store() {
        let g = Dakon::default();
        // Player 1 sows 10 from pit 1: 0, store 1, 7..13, (store 0 skipped), 6;
        // pit 6 was empty and is player 1's: nembak takes pit 13's 2.
        let e = check(
            &g,
            "pits=0,10,0,0,0,0,0,1,1,1,1,1,1,1 stores=40,41 turn=1 ply=5",
            1,
            "pits=1,0,0,0,0,0,1,2,2,2,2,2,2,0 stores=40,44 turn=0 ply=6",
        );
        assert_eq!(e, fx(1, 2, 0, false));
        // Player 0 sows 9 from pit 13: store 0, 6..0, (store 1 skipped), 7;
        // pit 7 was empty: nembak takes pit 0's 2.
        let e = check(
            &g,
            "pits=1,1,1,1,1,1,1,0,0,0,0,0,0,9 stores=41,41 turn=0 ply=3",
            13,
            "pits=0,2,2,2,2,2,2,1,0,0,0,0,0,0 stores=44,41 turn=1 ply=4",
        );
        assert_eq!(e, fx(1, 2, 0, false));
    }

    #[test]
    fn origin_pit_not_skipped_on_a_full_lap() {
        // Player 1 sows 16 from pit 0: store 1, 7..13, 6..0 (the origin gets
        // the 15th seed), store 1 again with the 16th: a bonus move.
        let e = check(
            &Dakon::default(),
            "pits=16,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=42,40 turn=1 ply=30",
            0,
            "pits=1,1,1,1,1,1,1,1,1,1,1,1,1,1 stores=42,42 turn=1 ply=31",
        );
        assert_eq!(e, fx(1, 0, 0, true));
    }

    #[test]
    fn relay_across_both_rows() {
        // Player 1 sows 3 from pit 1: 0, store 1, 7; pit 7 held 2, so its 3
        // are relayed to 8, 9, 10; pit 10 was empty (player 0's): mikul sees
        // 2 and 5, no capture.
        let e = check(
            &Dakon::default(),
            "pits=7,3,7,7,7,7,7,2,0,1,0,5,7,7 stores=15,16 turn=1 ply=3",
            1,
            "pits=8,0,7,7,7,7,7,0,1,2,1,5,7,7 stores=15,17 turn=0 ply=4",
        );
        assert_eq!(e, fx(2, 0, 0, false));
    }

    #[test]
    fn long_relay_terminates() {
        // 1000 seeds a pit on the largest board: every opening move
        // terminates, conserves seeds and relays many laps.
        let g = game(&[("holes", "9"), ("seeds", "1000")]);
        let start = g.initial_state();
        let mut max_laps = 0;
        for pit in 9..18 {
            let mut state = start;
            let e = g.play(&mut state, &Pit(pit)).unwrap();
            assert_eq!(state.total(), 18_000);
            max_laps = max_laps.max(e.laps);
        }
        assert!(max_laps >= 20, "longest relay only {max_laps} laps");
        // A hand-worked four-lap relay on 3 holes: 5, store, 2, 1 | 0, 3, 4,
        // 5 | store, 2, 1, 0, 3, 4 | 5, store (a bonus move).
        let g3 = game(&[("holes", "3")]);
        let e = check(
            &g3,
            "pits=3,3,3,0,4,4 stores=1,0 turn=0 ply=1",
            4,
            "pits=5,1,5,2,0,1 stores=4,0 turn=0 ply=2",
        );
        assert_eq!(e, fx(4, 0, 0, true));
    }

    // ---- bonus moves ----

    #[test]
    fn bonus_move_when_last_seed_reaches_own_store() {
        let g = Dakon::default();
        // Player 1 sows 2 from pit 1: 0, store 1.
        let e = check(
            &g,
            "pits=7,2,7,7,7,7,7,7,7,7,7,7,7,7 stores=3,2 turn=1 ply=6",
            1,
            "pits=8,0,7,7,7,7,7,7,7,7,7,7,7,7 stores=3,3 turn=1 ply=7",
        );
        assert_eq!(e, fx(1, 0, 0, true));
    }

    #[test]
    fn bonus_moves_chain() {
        let g = game(&[("holes", "3")]);
        let e = check(
            &g,
            "pits=3,3,3,1,2,1 stores=3,2 turn=0 ply=2",
            5,
            "pits=3,3,3,1,2,0 stores=4,2 turn=0 ply=3",
        );
        assert!(e.bonus);
        let e = check(
            &g,
            "pits=3,3,3,1,2,0 stores=4,2 turn=0 ply=3",
            4,
            "pits=3,3,3,1,0,1 stores=5,2 turn=0 ply=4",
        );
        assert!(e.bonus);
        let e = check(
            &g,
            "pits=3,3,3,1,0,1 stores=5,2 turn=0 ply=4",
            5,
            "pits=3,3,3,1,0,0 stores=6,2 turn=0 ply=5",
        );
        assert!(e.bonus);
        // The fourth move ends in empty pit 4: nembak takes pit 1's 3.
        let e = check(
            &g,
            "pits=3,3,3,1,0,0 stores=6,2 turn=0 ply=5",
            3,
            "pits=3,0,3,0,1,0 stores=9,2 turn=1 ply=6",
        );
        assert_eq!(e, fx(1, 3, 0, false));
    }

    // ---- nembak ----

    const NEMBAK_BEFORE: &str = "pits=7,7,7,7,5,7,7,7,7,2,7,0,0,0 stores=14,14 turn=0 ply=10";

    #[test]
    fn nembak_lander_stays() {
        // Player 0 sows 2 from pit 9: 10, 11; pit 11 was empty: take pit 4's 5.
        let e = check(
            &Dakon::default(),
            NEMBAK_BEFORE,
            9,
            "pits=7,7,7,7,0,7,7,7,7,0,8,1,0,0 stores=19,14 turn=1 ply=11",
        );
        assert_eq!(e, fx(1, 5, 0, false));
    }

    #[test]
    fn nembak_takes_lander_option() {
        let g = game(&[("nembak_takes_lander", "true")]);
        let e = check(
            &g,
            NEMBAK_BEFORE,
            9,
            "pits=7,7,7,7,0,7,7,7,7,0,8,0,0,0 stores=20,14 turn=1 ply=11",
        );
        assert_eq!(e, fx(1, 6, 0, false));
    }

    #[test]
    fn nembak_on_an_empty_opposite_pit_captures_nothing() {
        // Under either option the lander stays when nothing is across.
        for takes in ["false", "true"] {
            let g = game(&[("nembak_takes_lander", takes)]);
            let e = check(
                &g,
                "pits=7,7,7,7,0,7,7,7,7,2,7,0,0,0 stores=16,17 turn=0 ply=10",
                9,
                "pits=7,7,7,7,0,7,7,7,7,0,8,1,0,0 stores=16,17 turn=1 ply=11",
            );
            assert_eq!(e, fx(1, 0, 0, false));
        }
    }

    // ---- mikul ----

    #[test]
    fn mikul_equal_neighbours_capture() {
        // Player 1 sows 3 from pit 0: store 1, 7, 8; pit 8 was empty (player
        // 0's) with neighbours 7 and 9 at 2 and 2: takes 2 + 2 + 1.
        let e = check(
            &Dakon::default(),
            "pits=3,7,7,7,7,7,7,1,0,2,7,7,7,7 stores=11,11 turn=1 ply=7",
            0,
            "pits=0,7,7,7,7,7,7,0,0,0,7,7,7,7 stores=11,17 turn=0 ply=8",
        );
        assert_eq!(e, fx(1, 0, 5, false));
    }

    #[test]
    fn mikul_unequal_neighbours_no_capture() {
        let e = check(
            &Dakon::default(),
            "pits=7,7,7,7,3,0,1,7,7,7,7,7,7,3 stores=10,11 turn=0 ply=20",
            13,
            "pits=7,7,7,7,3,1,2,7,7,7,7,7,7,0 stores=11,11 turn=1 ply=21",
        );
        assert_eq!(e, fx(1, 0, 0, false));
    }

    #[test]
    fn mikul_zero_neighbours_no_capture() {
        // Unreachable in play (see `mikul`), so the rule is tested directly.
        assert_eq!(mikul(0, 0), None);
        assert_eq!(mikul(3, 3), Some(7));
        assert_eq!(mikul(3, 2), None);
        assert_eq!(mikul(0, 1), None);
    }

    #[test]
    fn mikul_not_on_an_end_pit() {
        let g = Dakon::default();
        // Landing on pit 6 (end of player 1's row): its one neighbour is pit 5.
        let e = check(
            &g,
            "pits=7,7,7,7,7,7,0,7,7,7,7,7,7,2 stores=6,6 turn=0 ply=9",
            13,
            "pits=7,7,7,7,7,7,1,7,7,7,7,7,7,0 stores=7,6 turn=1 ply=10",
        );
        assert_eq!(e, fx(1, 0, 0, false));
        // Landing on pit 0 (the other end).
        let e = check(
            &g,
            "pits=0,2,7,7,7,7,7,7,7,7,7,7,7,8 stores=5,6 turn=0 ply=9",
            13,
            "pits=1,3,8,8,8,8,8,7,7,7,7,7,7,0 stores=6,6 turn=1 ply=10",
        );
        assert_eq!(e, fx(1, 0, 0, false));
    }

    // ---- end of the game ----

    #[test]
    fn end_of_game_sweep_by_the_mover() {
        // Player 0's nembak empties player 1's side; player 1 is to move with
        // nothing, so player 0 takes the 4 seeds left in player 0's pits.
        let g = game(&[("holes", "3")]);
        let e = check(
            &g,
            "pits=0,2,0,1,0,3 stores=6,6 turn=0 ply=8",
            3,
            "pits=0,0,0,0,0,0 stores=12,6 turn=1 ply=9",
        );
        assert_eq!(
            e,
            DakonEffects {
                end: Some(End::Sweep),
                swept: [4, 0],
                ..fx(1, 2, 0, false)
            }
        );
        let state = g
            .parse_state("pits=0,0,0,0,0,0 stores=12,6 turn=1 ply=9")
            .unwrap();
        assert_eq!(
            g.outcome(&state),
            Some(Outcome {
                scores: [12, 6],
                winner: Some(0),
                adjudicated: None
            })
        );
    }

    #[test]
    fn draw_49_49() {
        let g = Dakon::default();
        let e = check(
            &g,
            "pits=3,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=48,46 turn=0 ply=50",
            13,
            "pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=49,49 turn=0 ply=51",
        );
        assert_eq!(e.end, Some(End::Sweep));
        let state = g
            .parse_state("pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=49,49 turn=0 ply=51")
            .unwrap();
        assert_eq!(
            g.outcome(&state),
            Some(Outcome {
                scores: [49, 49],
                winner: None,
                adjudicated: None
            })
        );
    }

    #[test]
    fn move_limit_adjudication() {
        let g = game(&[("max_plies", "20")]);
        let before = "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=19";
        let after = "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=20";
        assert_eq!(g.outcome(&g.parse_state(before).unwrap()), None);
        let e = check(&g, before, 10, after);
        assert_eq!(
            e,
            DakonEffects {
                end: Some(End::MaxPlies),
                swept: [49, 40],
                ..fx(2, 8, 0, false)
            }
        );
        // The pits keep their seeds in the notation; the outcome counts them
        // for their owners.
        let state = g.parse_state(after).unwrap();
        let mut moves = vec![];
        g.legal_moves(&state, &mut moves);
        assert!(moves.is_empty());
        assert_eq!(
            g.outcome(&state),
            Some(Outcome {
                scores: [58, 40],
                winner: Some(0),
                adjudicated: Some("max_plies")
            })
        );
        // A game limited to one move ends after the first.
        let g1 = game(&[("max_plies", "1")]);
        let mut state = g1.initial_state();
        let e = g1.apply(&mut state, &Pit(7));
        assert_eq!(e.end, Some(End::MaxPlies));
        assert_eq!(g1.outcome(&state).unwrap().adjudicated, Some("max_plies"));
    }

    #[test]
    fn move_limit_natural_end_applies() {
        // Example 5 played as the last allowed move: the natural end wins.
        let g = game(&[("max_plies", "41")]);
        let e = check(
            &g,
            "pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40",
            13,
            "pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=51,47 turn=0 ply=41",
        );
        assert_eq!(e.end, Some(End::Sweep));
        let state = g
            .parse_state("pits=0,0,0,0,0,0,0,0,0,0,0,0,0,0 stores=51,47 turn=0 ply=41")
            .unwrap();
        assert_eq!(
            g.outcome(&state),
            Some(Outcome {
                scores: [51, 47],
                winner: Some(0),
                adjudicated: None
            })
        );
    }

    // ---- other board sizes ----

    #[test]
    fn board_of_3_holes() {
        let g = game(&[("holes", "3")]);
        assert_eq!(
            g.initial_state().to_string(),
            "pits=3,3,3,3,3,3 stores=0,0 turn=0 ply=0"
        );
        let e = check(
            &g,
            "pits=3,3,3,3,3,3 stores=0,0 turn=0 ply=0",
            3,
            "pits=3,3,3,0,4,4 stores=1,0 turn=0 ply=1",
        );
        assert_eq!(e, fx(1, 0, 0, true));
        // 4, 5 relays: 5, store, 2, 1 | 0, 3, 4, 5 | store, 2, 1, 0, 3, 4 | 5, store.
        let e = check(
            &g,
            "pits=3,3,3,0,4,4 stores=1,0 turn=0 ply=1",
            4,
            "pits=5,1,5,2,0,1 stores=4,0 turn=0 ply=2",
        );
        assert_eq!(e, fx(4, 0, 0, true));
    }

    #[test]
    fn board_of_5_holes() {
        let g = game(&[("holes", "5")]);
        // 7, 8, 9, store, 4 | 3, 2, 1, 0, 5, 6 (the emptied origin): nembak
        // takes pit 1's 6.
        let e = check(
            &g,
            "pits=5,5,5,5,5,5,5,5,5,5 stores=0,0 turn=0 ply=0",
            6,
            "pits=6,0,6,6,0,6,1,6,6,6 stores=7,0 turn=1 ply=1",
        );
        assert_eq!(e, fx(2, 6, 0, false));
    }

    #[test]
    fn board_of_9_holes() {
        let g = game(&[("holes", "9")]);
        // 17: store, 8..1 | 0, 9..16, 17 (the emptied origin): nembak takes
        // pit 8's 10.
        let e = check(
            &g,
            "pits=9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9 stores=0,0 turn=0 ply=0",
            17,
            "pits=10,0,10,10,10,10,10,10,0,10,10,10,10,10,10,10,10,1 stores=11,0 turn=1 ply=1",
        );
        assert_eq!(e, fx(2, 10, 0, false));
    }

    // ---- moves ----

    #[test]
    fn legal_moves_are_the_movers_non_empty_pits_in_order() {
        let g = Dakon::default();
        let mut moves = vec![];
        let s = g
            .parse_state("pits=7,0,7,7,7,7,7,7,0,7,7,7,7,0 stores=10,11 turn=0 ply=4")
            .unwrap();
        g.legal_moves(&s, &mut moves);
        assert_eq!(moves, [7, 9, 10, 11, 12].map(Pit));
        let s = g
            .parse_state("pits=7,0,7,7,7,7,7,7,0,7,7,7,7,0 stores=10,11 turn=1 ply=4")
            .unwrap();
        g.legal_moves(&s, &mut moves);
        assert_eq!(moves, [0, 2, 3, 4, 5, 6].map(Pit));
        // Playing an empty pit or the opponent's pit is refused and leaves
        // the state alone.
        let mut t = s;
        assert!(g.play(&mut t, &Pit(1)).is_err());
        assert!(g.play(&mut t, &Pit(9)).is_err());
        assert_eq!(t, s);
    }

    #[test]
    fn move_notation() {
        let g = Dakon::default();
        assert_eq!(g.parse_move("7"), Ok(Pit(7)));
        assert_eq!(g.parse_move("0"), Ok(Pit(0)));
        assert_eq!(Pit(13).to_string(), "13");
        for bad in [
            "",
            "14",
            "17",
            "18",
            "-1",
            "+7",
            "07",
            " 7",
            "7 ",
            "7\n",
            "x",
            "٣",
            "1e1",
            "99999999999999999999999999",
        ] {
            assert!(g.parse_move(bad).is_err(), "accepted {bad:?}");
        }
        assert_eq!(game(&[("holes", "9")]).parse_move("17"), Ok(Pit(17)));
    }

    #[test]
    fn effects_reach_the_referee_as_json() {
        let g = new_game("dakon", &[]).unwrap();
        let mut state = g.initial_state();
        let json = state.play("10").unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "laps": 2, "nembak": 8, "mikul": 0, "bonus": false,
                "end": null, "swept": [0, 0]
            })
        );
        assert_eq!(
            state.to_string(),
            "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1"
        );
        assert!(
            state.play("10").is_err(),
            "player 0's pit on player 1's turn"
        );
        assert!(state.play("x").is_err());
        let mut end = g
            .parse_state("pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40")
            .unwrap();
        assert_eq!(end.play("13").unwrap()["end"], "sweep");
        let g = new_game("dakon", &[("max_plies".into(), "1".into())]).unwrap();
        assert_eq!(g.initial_state().play("10").unwrap()["end"], "max_plies");
    }

    // ---- parameters ----

    #[test]
    fn parameters_and_defaults() {
        let expected: Params = [
            ("holes", "7"),
            ("seeds", "7"),
            ("nembak_takes_lander", "false"),
            ("max_plies", "1000"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(game(&[]).params(), expected);
        assert_eq!(game(&[]), Dakon::default());
        // seeds defaults to holes.
        assert_eq!(game(&[("holes", "5")]).seeds, 5);
        let g = game(&[
            ("max_plies", "7"),
            ("seeds", "1000"),
            ("nembak_takes_lander", "true"),
            ("holes", "9"),
        ]);
        assert_eq!(g.params()[0], ("holes".into(), "9".into()));
        assert_eq!(g.params()[3], ("max_plies".into(), "7".into()));
        assert!(new_game("dakon", &[]).is_ok());
        assert_eq!(new_game("dakon", &[]).unwrap().params(), expected);
    }

    #[test]
    fn parameter_errors() {
        let bad =
            |k: &str, v: &str| Dakon::from_params(&[(k.to_string(), v.to_string())]).unwrap_err();
        for (k, v) in [
            ("holes", "2"),
            ("holes", "10"),
            ("holes", "-7"),
            ("holes", "seven"),
            ("holes", ""),
            ("seeds", "0"),
            ("seeds", "1001"),
            ("seeds", "99999999999999999999"),
            ("nembak_takes_lander", "yes"),
            ("nembak_takes_lander", "1"),
            ("max_plies", "0"),
            ("max_plies", "4294967296"),
        ] {
            assert!(
                matches!(bad(k, v), ParamError::Invalid { ref key, .. } if key == k),
                "{k}={v}"
            );
        }
        assert!(matches!(bad("pits", "7"), ParamError::Unknown { .. }));
        let twice = [
            ("holes".to_string(), "7".to_string()),
            ("holes".to_string(), "7".to_string()),
        ];
        assert!(matches!(
            Dakon::from_params(&twice),
            Err(ParamError::Duplicate { .. })
        ));
    }

    // ---- state notation ----

    #[test]
    fn state_notation_round_trips() {
        for holes in 3..=9 {
            let g = game(&[("holes", &holes.to_string())]);
            let s = g.initial_state();
            assert_eq!(g.parse_state(&s.to_string()).unwrap(), s);
            assert_eq!(s.to_string().parse::<DakonState>().unwrap(), s);
        }
    }

    #[test]
    fn state_parse_errors() {
        let g = Dakon::default();
        let big = format!("pits={} stores=0,0 turn=0 ply=0", vec!["1"; 1000].join(","));
        let cases = [
            "",
            " ",
            "pits=",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0 ",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7  stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 ply=0 turn=0",
            "stores=0,0 pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=2 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=-0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=-1",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=99999999999999999999",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,07 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,+7 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,,7 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7, stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,٧ stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,70000 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,99999 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7 stores=0,0 turn=0 ply=0",
            "PITS=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7\tstores=0,0 turn=0 ply=0",
            // Unswept natural end: player 0 to move with no seed.
            "pits=7,7,7,7,7,7,7,0,0,0,0,0,0,0 stores=49,0 turn=0 ply=9",
            &big,
        ];
        for text in cases {
            assert!(text.parse::<DakonState>().is_err(), "accepted {text:?}");
            assert!(g.parse_state(text).is_err(), "accepted {text:?}");
        }
        // Well-formed but not this game's: 9 holes, 97 seeds, past the limit.
        for text in [
            "pits=9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9 stores=0,0 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,1 turn=0 ply=0",
            "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=1001",
        ] {
            assert!(text.parse::<DakonState>().is_ok(), "{text}");
            let e = g.parse_state(text).unwrap_err();
            assert_eq!(e.what, "dakon state");
        }
        // At the limit is fine (an adjudicated final position).
        assert!(g
            .parse_state("pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=1000")
            .is_ok());
    }
}
