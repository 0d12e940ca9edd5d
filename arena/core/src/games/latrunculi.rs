//! Ludus latrunculorum, as written down in `rules/latrunculi.md`: a placement
//! phase, then steps, draughts-like jump chains that do not capture, custodial
//! traps, freeing, and removal of trapped pieces as a turn.
//!
//! # Representation
//! The board is a mailbox of `(height + 2) * (width + 1)` cells with a border
//! of off-board cells around it (the right border column doubles as the left
//! one of the next rank), so every neighbour and every square beyond a
//! neighbour of an on-board square is inside the array. Moves and effects
//! name squares as [`Square`] (`rank * 16 + file`), independent of the board
//! size, so they display without the parameters.
//!
//! # Repetition history and equality
//! The rules leave repetition history to the referee; it is not part of the
//! state text. A [`State`] therefore carries it inside: the Zobrist hashes of
//! the phase-2 positions (board, trapped flags, player to move) reached since
//! phase 2 began or since the last removal (a position can never recur across
//! a removal, since the piece count drops), the current one included. Its
//! length is bounded by `quiet_plies + 1`. A state parsed from text starts
//! with a history holding only itself (if it is in phase 2).
//!
//! `PartialEq` on [`State`] compares exactly what the state text holds (board,
//! player to move, phase, hands, quiet counter, ply); the history and other
//! derived caches are ignored, so `parse(s.to_string()) == s` always holds even
//! though the parsed copy has forgotten the history.
//!
//! # Rulings the rules file leaves open (decided here)
//! - The position in which phase 2 begins (after the last placement), and the
//!   position left by a removal, count as the first occurrence of that
//!   position for the repetition rule.
//! - A state parsed from text is judged by the same end checks as a state
//!   reached by play (one piece, no legal action, `quiet >= quiet_plies`);
//!   its repetition count starts at one.
//!
//! # Jump chains
//! Every chain that ends on the same square gives the same position, so the
//! rules list one chain per square a piece can end on: the canonical one
//! (fewest hops, then hops up, right, down, left first, compared hop by hop).
//! The generator finds them with a breadth-first search per piece over a
//! fixed-size queue, which bounds the legal list by the pieces times the
//! squares: crowded 16 x 16 boards list at most about 1,200 actions, where
//! listing every chain prefix gave up to millions (docs/performance.md). A
//! chain that is not canonical is not in the list, and
//! [`Game::why_illegal`] names the one that is.

use std::fmt::{self, Display, Write as _};
use std::str::FromStr;

use serde::{Serialize, Serializer};

use super::{Game, Outcome, ParamError, ParamReader, Params, ParseError, Seat, Spaces};

const MIN_SIDE: usize = 5;
const MAX_SIDE: usize = 16;
/// Mailbox size for the largest board: `(16 + 2) * (16 + 1)`.
const CELLS: usize = (MAX_SIDE + 2) * (MAX_SIDE + 1);
/// Longest possible jump chain: landings keep the parity of both coordinates,
/// so at most 8 * 8 - 1 hops on a 16 x 16 board.
const MAX_HOPS: u8 = 63;

const EMPTY: u8 = 0;
const TRAPPED: u8 = 4;
const OFF: u8 = 8;
/// The cell value of a free piece of each player; `| TRAPPED` for a trapped one.
const FREE: [u8; 2] = [1, 2];

/// Adding these to a [`Square`] (wrapping) steps W, S, N, E.
const SQ_STEP: [u8; 4] = [255, 240, 16, 1];

const STATE: &str = "latrunculi state";
const MOVE: &str = "latrunculi move";

// ---------------------------------------------------------------- Zobrist keys

const fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

static ZOBRIST: [[u64; CELLS]; 4] = {
    let mut t = [[0; CELLS]; 4];
    let mut k = 0;
    while k < 4 {
        let mut i = 0;
        while i < CELLS {
            t[k][i] = splitmix(((k * CELLS + i) as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
            i += 1;
        }
        k += 1;
    }
    t
};
const SIDE_KEY: u64 = splitmix(0x0005_EED0_F1A7_2C0D);

/// Key of a non-empty cell value (1, 2, 5 or 6) at mailbox index `i`.
#[inline]
fn zkey(cell: u8, i: usize) -> u64 {
    let code = (cell & 3) as usize - 1 + ((cell >> 1) & 2) as usize;
    ZOBRIST[code][i]
}

// ---------------------------------------------------------------- squares

/// A square, `rank * 16 + file` (0-based), whatever the board size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    pub fn new(file: usize, rank: usize) -> Self {
        debug_assert!(file < MAX_SIDE && rank < MAX_SIDE);
        Square((rank * 16 + file) as u8)
    }
    pub fn file(self) -> usize {
        (self.0 & 15) as usize
    }
    pub fn rank(self) -> usize {
        (self.0 >> 4) as usize
    }
    /// The name as bytes (at most 3) and its length, without allocating.
    fn name(self) -> ([u8; 3], usize) {
        let mut b = [b'a' + self.file() as u8, 0, 0];
        let r = self.rank() + 1;
        if r >= 10 {
            b[1] = b'1';
            b[2] = b'0' + (r - 10) as u8;
            (b, 3)
        } else {
            b[1] = b'0' + r as u8;
            (b, 2)
        }
    }
    /// The square `steps` squares away in direction `dir` (0 W, 1 S, 2 N, 3 E);
    /// `None` off the 16 x 16 grid.
    fn shifted(self, dir: u8, steps: usize) -> Option<Square> {
        let (f, r) = (self.file(), self.rank());
        let (f, r) = match dir {
            0 => (f.checked_sub(steps)?, r),
            1 => (f, r.checked_sub(steps)?),
            2 => (f, r + steps),
            _ => (f + steps, r),
        };
        (f < MAX_SIDE && r < MAX_SIDE).then(|| Square::new(f, r))
    }
}

impl Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, n) = self.name();
        f.write_str(std::str::from_utf8(&b[..n]).expect("ascii"))
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (b, n) = self.name();
        s.serialize_str(std::str::from_utf8(&b[..n]).expect("ascii"))
    }
}

impl FromStr for Square {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let bad = |why: &str| ParseError::new("latrunculi square", why, text);
        let bytes = text.as_bytes();
        let (&file, rank) = bytes.split_first().ok_or_else(|| bad("empty square"))?;
        if !(b'a'..=b'p').contains(&file) {
            return Err(bad("the file must be a letter from a to p"));
        }
        match canonical_number(rank) {
            Some(r) if (1..=MAX_SIDE as u64).contains(&r) => {
                Ok(Square::new((file - b'a') as usize, r as usize - 1))
            }
            _ => Err(bad("the rank must be a number from 1 to 16")),
        }
    }
}

/// A decimal number without sign or leading zeros.
fn canonical_number(text: &[u8]) -> Option<u64> {
    if text.is_empty()
        || !text.iter().all(u8::is_ascii_digit)
        || (text.len() > 1 && text[0] == b'0')
    {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Up to 16 squares, stored inline (effects of one action).
#[derive(Clone, Copy, Debug, Default)]
pub struct Squares {
    len: u8,
    sq: [Square; 16],
}

impl Squares {
    pub fn as_slice(&self) -> &[Square] {
        &self.sq[..self.len as usize]
    }
    fn push(&mut self, s: Square) {
        self.sq[self.len as usize] = s;
        self.len += 1;
    }
    fn contains(&self, s: Square) -> bool {
        self.as_slice().contains(&s)
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl PartialEq for Squares {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Serialize for Squares {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

// ---------------------------------------------------------------- moves

/// A jump chain: the start square and each hop's direction, two bits per hop
/// (0 west, 1 south, 2 north, 3 east), first hop in the lowest bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chain {
    pub from: Square,
    pub hops: u8,
    dirs: u128,
}

impl Chain {
    /// Every landing square in order.
    pub fn landings(&self) -> impl Iterator<Item = Square> + '_ {
        let mut at = self.from;
        (0..self.hops).map(move |k| {
            at = at
                .shifted(((self.dirs >> (2 * k)) & 3) as u8, 2)
                .expect("chain built on the board");
            at
        })
    }
    /// The final square: the start plus two squares per hop (every chain
    /// stays on the 16 x 16 grid, so the square arithmetic does not wrap),
    /// without [`Chain::landings`]' checks: an action id is read from it
    /// for each chain listed.
    pub fn to(&self) -> Square {
        let at = (0..self.hops).fold(self.from.0, |at, k| {
            let step = SQ_STEP[((self.dirs >> (2 * k)) & 3) as usize];
            at.wrapping_add(step.wrapping_mul(2))
        });
        debug_assert_eq!(Some(Square(at)), self.landings().last().or(Some(self.from)));
        Square(at)
    }
}

/// One action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Phase 1: put a piece from the hand on an empty square (`d4`).
    Place(Square),
    /// A one-square orthogonal step (`d4-d5`).
    Step(Square, Square),
    /// A jump chain, every landing listed (`d4-d6-f6`).
    Jump(Chain),
    /// Take a trapped enemy piece off the board (`xe5`).
    Remove(Square),
}

impl Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place(s) => write!(f, "{s}"),
            Move::Step(a, b) => write!(f, "{a}-{b}"),
            Move::Remove(s) => write!(f, "x{s}"),
            Move::Jump(c) => {
                write!(f, "{}", c.from)?;
                for s in c.landings() {
                    write!(f, "-{s}")?;
                }
                Ok(())
            }
        }
    }
}

/// Direction (0 W, 1 S, 2 N, 3 E) from `a` to `b` if `b` is `dist` squares away.
fn direction(a: Square, b: Square, dist: usize) -> Option<u8> {
    (0..4).find(|&d| a.shifted(d, dist) == Some(b))
}

impl FromStr for Move {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let bad = |why: String| ParseError::new(MOVE, why, text);
        let sq = |t: &str| t.parse::<Square>().map_err(|e| bad(e.why));
        if let Some(rest) = text.strip_prefix('x') {
            return Ok(Move::Remove(sq(rest)?));
        }
        let mut parts = text.split('-');
        let from = sq(parts.next().unwrap_or(""))?;
        let Some(second) = parts.next() else {
            return Ok(Move::Place(from));
        };
        let second = sq(second)?;
        if direction(from, second, 1).is_some() {
            if parts.next().is_some() {
                return Err(bad("a step is one square and cannot continue".into()));
            }
            return Ok(Move::Step(from, second));
        }
        let mut chain = Chain {
            from,
            hops: 0,
            dirs: 0,
        };
        let mut at = from;
        for next in std::iter::once(Ok(second)).chain(parts.map(sq)) {
            let next = next?;
            let Some(d) = direction(at, next, 2) else {
                return Err(bad(format!(
                    "`{at}` to `{next}` is neither a one-square step nor a two-square jump in a straight line"
                )));
            };
            if chain.hops == MAX_HOPS {
                return Err(bad(format!("a jump chain has at most {MAX_HOPS} hops")));
            }
            chain.dirs |= (d as u128) << (2 * chain.hops);
            chain.hops += 1;
            at = next;
        }
        Ok(Move::Jump(chain))
    }
}

// ---------------------------------------------------------------- effects

/// What one action did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Effects {
    /// Enemy pieces the moved piece trapped (directions W, S, N, E).
    pub trapped: Squares,
    /// Trapped pieces (either side) freed by this action, in square order.
    pub freed: Squares,
    /// The piece removed, for a removal.
    pub removed: Option<Square>,
    /// Hops of a jump chain (0 for other actions).
    pub hops: u8,
    /// How the game ended, if this action ended it.
    pub end: Option<Outcome>,
}

// ---------------------------------------------------------------- state

/// A position. See the module docs for what `PartialEq` compares.
#[derive(Clone, Debug)]
pub struct State {
    w: u8,
    h: u8,
    cells: [u8; CELLS],
    turn: u8,
    moving: bool,
    hand: [u8; 2],
    quiet: u64,
    ply: u64,
    // Derived: not in the text, not compared.
    count: [u16; 2],
    hash: u64,
    /// Occurrences of the current position in `history`.
    reps: u32,
    history: Vec<u64>,
}

impl PartialEq for State {
    fn eq(&self, o: &Self) -> bool {
        self.w == o.w
            && self.h == o.h
            && self.cells == o.cells
            && self.turn == o.turn
            && self.moving == o.moving
            && self.hand == o.hand
            && self.quiet == o.quiet
            && self.ply == o.ply
    }
}

/// What a state text says that no game can reach (see
/// `State::check_consistent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inconsistent {
    EmptyHands,
    /// Hands that do not fit whose turn it is in placement.
    Hands {
        turn: u8,
        hand: [u8; 2],
    },
    QuietInPlacement,
    TrappedInPlacement,
    HandsInMovement,
    Ended,
    /// A trapped piece without its two captors.
    NotFlanked(Square),
}

impl Display for Inconsistent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inconsistent::EmptyHands => {
                f.write_str("phase=place with both hands empty: that is phase=move")
            }
            Inconsistent::Hands { turn, hand } => write!(
                f,
                "in placement player 0 places first, so with turn={turn} the hands cannot be {},{}",
                hand[0], hand[1]
            ),
            Inconsistent::QuietInPlacement => f.write_str("quiet must be 0 during placement"),
            Inconsistent::TrappedInPlacement => f.write_str("nothing is trapped during placement"),
            Inconsistent::HandsInMovement => f.write_str("phase=move needs hand=0,0"),
            Inconsistent::Ended => {
                f.write_str("both players have at most one piece: the game ended earlier")
            }
            Inconsistent::NotFlanked(sq) => write!(
                f,
                "the trapped piece on {sq} is not flanked by two free enemy pieces in a row or column"
            ),
        }
    }
}

impl State {
    fn empty(w: usize, h: usize) -> State {
        let mut cells = [OFF; CELLS];
        for r in 0..h {
            for c in 0..w {
                cells[(r + 1) * (w + 1) + c] = EMPTY;
            }
        }
        State {
            w: w as u8,
            h: h as u8,
            cells,
            turn: 0,
            moving: false,
            hand: [0, 0],
            quiet: 0,
            ply: 0,
            count: [0, 0],
            hash: 0,
            reps: 0,
            history: Vec::new(),
        }
    }

    pub fn width(&self) -> usize {
        self.w as usize
    }
    pub fn height(&self) -> usize {
        self.h as usize
    }
    /// `true` in phase 2 (movement).
    pub fn in_phase_two(&self) -> bool {
        self.moving
    }
    pub fn hand(&self) -> [u32; 2] {
        [self.hand[0] as u32, self.hand[1] as u32]
    }
    /// Pieces of each player on the board.
    pub fn on_board(&self) -> [u32; 2] {
        [self.count[0] as u32, self.count[1] as u32]
    }
    pub fn quiet(&self) -> u64 {
        self.quiet
    }
    pub fn ply(&self) -> u64 {
        self.ply
    }
    /// Length of the repetition history (positions since phase 2 began or
    /// the last removal, the current one included).
    pub fn history_len(&self) -> usize {
        self.history.len()
    }
    /// Times the current position has occurred in that history.
    pub fn repetitions(&self) -> u32 {
        self.reps
    }

    #[inline]
    fn stride(&self) -> usize {
        self.w as usize + 1
    }
    #[inline]
    fn idx(&self, sq: Square) -> usize {
        (sq.rank() + 1) * self.stride() + sq.file()
    }
    fn on_board_sq(&self, sq: Square) -> bool {
        sq.file() < self.w as usize && sq.rank() < self.h as usize
    }
    /// `(owner, trapped)` of the piece on `sq`, if any.
    pub fn piece(&self, sq: Square) -> Option<(Seat, bool)> {
        if !self.on_board_sq(sq) {
            return None;
        }
        match self.cells[self.idx(sq)] {
            EMPTY => None,
            c => Some((((c & 2) >> 1) as usize, c & TRAPPED != 0)),
        }
    }

    fn compute_hash(&self) -> u64 {
        let mut h = if self.turn == 1 { SIDE_KEY } else { 0 };
        for (i, &c) in self.cells.iter().enumerate() {
            if c != EMPTY && c != OFF {
                h ^= zkey(c, i);
            }
        }
        h
    }

    #[inline]
    fn set(&mut self, i: usize, v: u8) {
        let old = self.cells[i];
        if old != EMPTY {
            self.hash ^= zkey(old, i);
        }
        if v != EMPTY {
            self.hash ^= zkey(v, i);
        }
        self.cells[i] = v;
    }

    /// Is the trapped piece at `i` held by two free enemies in a line?
    #[inline]
    fn flanked(&self, i: usize) -> bool {
        let c = &self.cells;
        let s = self.stride();
        let f = FREE[1 - ((c[i] & 2) >> 1) as usize];
        (c[i - 1] == f && c[i + 1] == f) || (c[i - s] == f && c[i + s] == f)
    }

    /// Frees, all at once, every trapped piece among `cand` that is not
    /// flanked in the current position.
    fn free_unflanked(&mut self, cand: &[(usize, Square)], freed: &mut Squares) {
        let mut go = [0usize; 16];
        let mut n = 0;
        for &(i, sq) in cand {
            if self.cells[i] & TRAPPED != 0 && !freed.contains(sq) && !self.flanked(i) {
                freed.push(sq);
                go[n] = i;
                n += 1;
            }
        }
        for &i in &go[..n] {
            let v = self.cells[i] & !TRAPPED;
            self.set(i, v);
        }
        freed.sq[..freed.len as usize].sort_unstable();
    }

    fn generate<S: Sink>(&self, sink: &mut S) -> bool {
        let w = self.w as usize;
        let h = self.h as usize;
        let s = w + 1;
        if !self.moving {
            for c in 0..w {
                for r in 0..h {
                    if self.cells[(r + 1) * s + c] == EMPTY
                        && sink.push(Move::Place(Square::new(c, r)))
                    {
                        return true;
                    }
                }
            }
            return false;
        }
        let mut g = self.gen();
        let trapped_foe = g.foe | TRAPPED;
        let mut any_trapped_foe = false;
        for c in 0..w {
            for r in 0..h {
                let i = (r + 1) * s + c;
                if self.cells[i] != g.me {
                    any_trapped_foe |= self.cells[i] == trapped_foe;
                    continue;
                }
                if g.piece_moves(i, Square::new(c, r), sink) {
                    return true;
                }
            }
        }
        if !any_trapped_foe {
            return false;
        }
        for c in 0..w {
            for r in 0..h {
                if self.cells[(r + 1) * s + c] == trapped_foe
                    && sink.push(Move::Remove(Square::new(c, r)))
                {
                    return true;
                }
            }
        }
        false
    }

    /// The move-generation context of the player to move (phase 2).
    fn gen(&self) -> Gen<'_> {
        let s = self.stride() as isize;
        let p = self.turn as usize;
        Gen {
            cells: &self.cells,
            dirs: [-1, -s, s, 1],
            me: FREE[p],
            foe: FREE[1 - p],
            from: 0,
            from_sq: Square(0),
        }
    }

    /// Checks what the text format itself requires (no parameters needed).
    fn check_consistent(&self) -> Result<(), Inconsistent> {
        if !self.moving {
            if self.hand == [0, 0] {
                return Err(Inconsistent::EmptyHands);
            }
            let ok = match self.turn {
                0 => self.hand[0] == self.hand[1],
                _ => self.hand[0] + 1 == self.hand[1],
            };
            if !ok {
                return Err(Inconsistent::Hands {
                    turn: self.turn,
                    hand: self.hand,
                });
            }
            if self.quiet != 0 {
                return Err(Inconsistent::QuietInPlacement);
            }
            if self.cells.iter().any(|&c| c != OFF && c & TRAPPED != 0) {
                return Err(Inconsistent::TrappedInPlacement);
            }
        } else {
            if self.hand != [0, 0] {
                return Err(Inconsistent::HandsInMovement);
            }
            if self.count[0] <= 1 && self.count[1] <= 1 {
                return Err(Inconsistent::Ended);
            }
            for r in 0..self.h as usize {
                for c in 0..self.w as usize {
                    let sq = Square::new(c, r);
                    let i = self.idx(sq);
                    if self.cells[i] & TRAPPED != 0 && !self.flanked(i) {
                        return Err(Inconsistent::NotFlanked(sq));
                    }
                }
            }
        }
        Ok(())
    }

    fn after_parse(mut self) -> State {
        self.hash = self.compute_hash();
        if self.moving {
            self.history = vec![self.hash];
            self.reps = 1;
        }
        self
    }
}

/// Where generated moves go; `push` returns `true` to stop generating.
trait Sink {
    fn push(&mut self, mv: Move) -> bool;
}

impl Sink for Vec<Move> {
    #[inline]
    fn push(&mut self, mv: Move) -> bool {
        Vec::push(self, mv);
        false
    }
}

/// Stops at the first legal action.
struct AnyAction;

impl Sink for AnyAction {
    #[inline]
    fn push(&mut self, _: Move) -> bool {
        true
    }
}

/// The integer action ids of a board of `w` x `h` squares (see
/// [`Latrunculi::spaces`]): a square's index is `rank * w + file`.
#[derive(Clone, Copy)]
struct ActionIds {
    w: usize,
    squares: usize,
}

impl ActionIds {
    fn new(w: usize, h: usize) -> Self {
        ActionIds { w, squares: w * h }
    }

    fn square(self, sq: Square) -> usize {
        sq.rank() * self.w + sq.file()
    }

    fn of(self, mv: &Move) -> usize {
        let s = self.squares;
        match *mv {
            Move::Place(sq) => self.square(sq),
            Move::Remove(sq) => s + self.square(sq),
            Move::Step(a, b) => 2 * s + self.square(a) * s + self.square(b),
            Move::Jump(c) => 2 * s + self.square(c.from) * s + self.square(c.to()),
        }
    }
}

/// Collects the action ids of the generated moves, without the moves.
struct ActionSink<'a> {
    ids: ActionIds,
    out: &'a mut Vec<usize>,
}

impl Sink for ActionSink<'_> {
    #[inline]
    fn push(&mut self, mv: Move) -> bool {
        self.out.push(self.ids.of(&mv));
        false
    }
}

/// Stops at the first generated move with the action id `target`.
struct FindAction {
    ids: ActionIds,
    target: usize,
    found: Option<Move>,
}

impl Sink for FindAction {
    #[inline]
    fn push(&mut self, mv: Move) -> bool {
        if self.ids.of(&mv) == self.target {
            self.found = Some(mv);
            return true;
        }
        false
    }
}

/// Planes of the observation (see [`Latrunculi::spaces`]).
const PLANES: usize = 10;

/// Hop directions in the order the canonical chain prefers them: up (N),
/// right (E), down (S), left (W).
const CANONICAL_ORDER: [u8; 4] = [2, 3, 1, 0];

/// Landing squares one piece can reach in a chain: they keep the parity of
/// both coordinates, so at most 8 * 8 on a 16 x 16 board (the start included).
const QUEUE: usize = 64;

/// A landing square in the breadth-first search of [`Gen::chains`]: its
/// mailbox index, the queue index of the square the hop came from, and the
/// hop's direction. Four bytes, so that a queue is cheap to clear.
#[derive(Clone, Copy, Default)]
struct Node {
    at: u16,
    parent: u8,
    dir: u8,
}

/// Move-generation context for one moving piece.
struct Gen<'a> {
    cells: &'a [u8; CELLS],
    dirs: [isize; 4],
    me: u8,
    foe: u8,
    from: usize,
    from_sq: Square,
}

impl Gen<'_> {
    #[inline]
    fn step(&self, i: usize, k: u8) -> usize {
        i.wrapping_add_signed(self.dirs[k as usize])
    }

    /// The landing square of a hop in direction `k` over the neighbour `n`,
    /// if `n` holds an enemy piece (free or trapped) and the square beyond
    /// is empty. (`OFF` shares no bit with a piece, so an off-board `n`
    /// fails the first test and the square beyond it is never read.)
    #[inline]
    fn hop(&self, n: usize, k: u8) -> Option<usize> {
        if self.cells[n] & self.foe == 0 {
            return None;
        }
        let t = self.step(n, k);
        (self.cells[t] == EMPTY).then_some(t)
    }

    /// The moves of the free piece of the player to move on mailbox index
    /// `i` (square `sq`), in the generator's order: steps W, S, N, E, then
    /// its jump chains.
    fn piece_moves<S: Sink>(&mut self, i: usize, sq: Square, sink: &mut S) -> bool {
        // The suicide rule's exception reads `from` (see `traps_from`).
        self.from = i;
        for k in 0..4u8 {
            let n = self.step(i, k);
            if self.cells[n] == EMPTY && self.landing_ok(n) {
                let to = Square(sq.0.wrapping_add(SQ_STEP[k as usize]));
                if sink.push(Move::Step(sq, to)) {
                    return true;
                }
            }
        }
        self.jumps(i, sq, sink)
    }

    /// The jump chains of the piece on `i` (square `sq`), [`Gen::chains`].
    fn jumps<S: Sink>(&mut self, i: usize, sq: Square, sink: &mut S) -> bool {
        let first = self.first_hops(i, sq);
        first != [0; 4] && self.chains(first, sink)
    }

    /// The jump chains of two hops or more of the piece on `i` (square
    /// `sq`), [`Gen::longer_chains`], for a caller that has listed its
    /// one-hop chains.
    fn longer_jumps<S: Sink>(&mut self, i: usize, sq: Square, sink: &mut S) -> bool {
        let first = self.first_hops(i, sq);
        self.longer_chains(first, sink)
    }

    /// Makes the piece on `i` (square `sq`) the moving one; returns the
    /// landing square of its first hop in each direction (0: none).
    fn first_hops(&mut self, i: usize, sq: Square) -> [u16; 4] {
        self.from = i;
        self.from_sq = sq;
        let mut first = [0u16; 4];
        for k in 0..4u8 {
            if let Some(t) = self.hop(self.step(i, k), k) {
                first[k as usize] = t as u16;
            }
        }
        first
    }

    /// May the moving piece end on the empty square `t`? (The suicide rule.)
    #[inline(always)]
    fn landing_ok(&self, t: usize) -> bool {
        let c = self.cells;
        let f = self.foe;
        let s = self.dirs[2] as usize;
        let sandwiched = (c[t - 1] == f && c[t + 1] == f) || (c[t - s] == f && c[t + s] == f);
        !sandwiched || self.traps_from(t)
    }

    /// Would the moving piece, ending on `t`, trap an enemy?
    #[inline]
    fn traps_from(&self, t: usize) -> bool {
        (0..4u8).any(|k| {
            let n = self.step(t, k);
            self.cells[n] == self.foe && {
                let b = self.step(n, k);
                self.cells[b] == self.me && b != self.from
            }
        })
    }

    /// Lists one jump chain per square the piece on `from` can end on, the
    /// canonical one, given the landing square of its first hop in each
    /// direction (0: none): the one-hop chains in [`CANONICAL_ORDER`], then,
    /// if any of them can hop on, the longer ones.
    fn chains<S: Sink>(&self, first: [u16; 4], sink: &mut S) -> bool {
        // One hop first, without the queue: most pieces stop there.
        let mut deeper = false;
        for k in CANONICAL_ORDER {
            let t = first[k as usize] as usize;
            if t == 0 {
                continue;
            }
            let chain = Chain {
                from: self.from_sq,
                hops: 1,
                dirs: k as u128,
            };
            if self.landing_ok(t) && sink.push(Move::Jump(chain)) {
                return true;
            }
            // The hop back lands on the start square, which is occupied.
            deeper |= (0..4).any(|d| d != 3 - k && self.hop(self.step(t, d), d).is_some());
        }
        deeper && self.longer_chains(first, sink)
    }

    /// The chains of two hops or more, for [`Gen::chains`] (out of line: few
    /// pieces have any). A breadth-first search that tries the directions
    /// in [`CANONICAL_ORDER`] reaches each square first by the shortest
    /// chain whose hops come first in that order, hop by hop (the squares of
    /// each length leave the queue in that order, so their first extensions
    /// do too). Chains come out fewest hops first, then in that order.
    #[inline(never)]
    fn longer_chains<S: Sink>(&self, first: [u16; 4], sink: &mut S) -> bool {
        let mut queue = [Node::default(); QUEUE];
        // Squares reached (the start square is occupied on the board, so it
        // is excluded without being marked).
        let mut visited = [0u64; 5];
        let mut tail = 1;
        for k in CANONICAL_ORDER {
            let t = first[k as usize];
            if t != 0 {
                visited[t as usize >> 6] |= 1 << (t & 63);
                queue[tail] = Node {
                    at: t,
                    parent: 0,
                    dir: k,
                };
                tail += 1;
            }
        }
        // Nodes 1 to listed - 1 are the one-hop chains, listed above.
        let listed = tail;
        let mut head = 1;
        while head < tail {
            let at = queue[head].at as usize;
            if head >= listed
                && self.landing_ok(at)
                && sink.push(Move::Jump(self.chain_to(&queue, head)))
            {
                return true;
            }
            for k in CANONICAL_ORDER {
                let Some(t) = self.hop(self.step(at, k), k) else {
                    continue;
                };
                if visited[t >> 6] & (1 << (t & 63)) == 0 {
                    visited[t >> 6] |= 1 << (t & 63);
                    queue[tail] = Node {
                        at: t as u16,
                        parent: head as u8,
                        dir: k,
                    };
                    tail += 1;
                }
            }
            head += 1;
        }
        false
    }

    /// The chain to node `i` of `queue` (node 0 is the start), read back
    /// along the parents.
    fn chain_to(&self, queue: &[Node; QUEUE], i: usize) -> Chain {
        let mut hops = 0;
        let mut j = i;
        while j > 0 {
            hops += 1;
            j = queue[j].parent as usize;
        }
        debug_assert!(hops <= MAX_HOPS);
        let (mut dirs, mut k, mut j) = (0u128, hops, i);
        while j > 0 {
            k -= 1;
            dirs |= (queue[j].dir as u128) << (2 * k);
            j = queue[j].parent as usize;
        }
        Chain {
            from: self.from_sq,
            hops,
            dirs,
        }
    }
}

// ---------------------------------------------------------------- cell sets

/// A set of mailbox cells, bit `i` for cell `i`, in `N` words: a Python
/// training batch asks for every position's legal action ids, and finding
/// them a whole board at a time with shifts ([`State::action_ids`]) is
/// several times faster than visiting piece by piece. Two words hold the
/// mailbox of boards whose `(height + 2) * (width + 1)` cells fit 128 bits
/// (8 x 8, 9 x 9), five the largest. Cells past the mailbox are off the
/// board (`OFF`) and never in a set.
#[derive(Clone, Copy)]
struct CellSet<const N: usize>([u64; N]);

impl<const N: usize> CellSet<N> {
    const NONE: Self = CellSet([0; N]);

    /// The empty cells, the free pieces of seat `p`, the free pieces of its
    /// opponent and all of the opponent's pieces among the first `len`
    /// cells (enough to hold the last on-board one), read eight cells at a
    /// time (one `u64`) and compared byte by byte within it.
    #[inline(always)]
    fn of_position(cells: &[u8; CELLS], len: usize, p: usize) -> [Self; 4] {
        let (me, foe) = (FREE[p] as u64 * LOW, FREE[1 - p] as u64 * LOW);
        let mut sets = [[0u64; N]; 4];
        for q in 0..(8 * N).min(len.div_ceil(8)) {
            let mut bytes = [OFF; 8];
            let start = 8 * q;
            if start + 8 <= CELLS {
                bytes.copy_from_slice(&cells[start..start + 8]);
            } else if start < CELLS {
                bytes[..CELLS - start].copy_from_slice(&cells[start..]);
            }
            let v = u64::from_le_bytes(bytes);
            let (j, shift) = (q / 8, 8 * (q % 8));
            // `OFF` is none of these: not 0, and no bit in common with a piece.
            let found = [
                !nonzero_bytes(v),
                !nonzero_bytes(v ^ me),
                !nonzero_bytes(v ^ foe),
                nonzero_bytes(v & foe),
            ];
            for (set, bytes) in sets.iter_mut().zip(found) {
                set[j] |= u64::from(byte_bits(bytes & HIGH)) << shift;
            }
        }
        sets.map(CellSet)
    }

    #[inline(always)]
    fn and(self, o: Self) -> Self {
        CellSet(std::array::from_fn(|j| self.0[j] & o.0[j]))
    }

    #[inline(always)]
    fn or(self, o: Self) -> Self {
        CellSet(std::array::from_fn(|j| self.0[j] | o.0[j]))
    }

    /// The cells of `self` not in `o`.
    #[inline(always)]
    fn minus(self, o: Self) -> Self {
        CellSet(std::array::from_fn(|j| self.0[j] & !o.0[j]))
    }

    /// The cells `t` such that `t + d` is in the set (`0 < |d| < 64`):
    /// `at(d)` lines up each cell with its neighbour `d` cells on.
    #[inline(always)]
    fn at(self, d: isize) -> Self {
        let k = d.unsigned_abs() as u32;
        debug_assert!((1..64).contains(&k));
        let w = &self.0;
        CellSet(std::array::from_fn(|j| {
            if d > 0 {
                // Bit t + d to bit t.
                let carry = if j + 1 < N { w[j + 1] << (64 - k) } else { 0 };
                w[j] >> k | carry
            } else {
                // Bit t - |d| to bit t.
                let carry = if j > 0 { w[j - 1] >> (64 - k) } else { 0 };
                w[j] << k | carry
            }
        }))
    }

    #[inline(always)]
    fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Calls `f` with each cell of the set, in increasing order.
    #[inline(always)]
    fn for_each(self, mut f: impl FnMut(usize)) {
        for (j, &word) in self.0.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                f(64 * j + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }
}

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each nonzero byte of `x` (and anything in the others'
/// low bits: mask with `HIGH`). Exact, with no carry between bytes.
#[inline(always)]
fn nonzero_bytes(x: u64) -> u64 {
    ((x & !HIGH) + !HIGH) | x
}

/// Bit `b` for the high bit of byte `b` of `h`, which has no other bits.
#[inline(always)]
fn byte_bits(h: u64) -> u8 {
    ((h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// Mailbox index to square index (`rank * width + file`, the action ids'
/// numbering) without a division per square: `i / stride` as a product by
/// a rounded-up reciprocal of 2^16, which overshoots by less than `i / 2^16`,
/// under `1 / stride` for every index of the largest mailbox: exact.
#[derive(Clone, Copy)]
struct SquareIndex {
    width: usize,
    stride: usize,
    reciprocal: usize,
}

impl SquareIndex {
    fn new(width: usize) -> Self {
        let stride = width + 1;
        SquareIndex {
            width,
            stride,
            reciprocal: (1usize << 16).div_ceil(stride),
        }
    }

    /// `(file, rank)` of the on-board mailbox index `i`.
    #[inline(always)]
    fn file_rank(self, i: usize) -> (usize, usize) {
        let row = (i * self.reciprocal) >> 16;
        debug_assert_eq!(row, i / self.stride);
        (i - row * self.stride, row - 1)
    }

    #[inline(always)]
    fn of(self, i: usize) -> usize {
        let (file, rank) = self.file_rank(i);
        rank * self.width + file
    }
}

impl State {
    /// Appends the legal action ids of a position the end checks without a
    /// search let through ([`Latrunculi::ended_without_search`]): the ids of
    /// [`State::generate`]'s moves, each once, in another order. Steps and
    /// one-hop jump chains are found for the whole board at once with cell
    /// sets of `N` words (which must hold the mailbox); longer chains by the
    /// generator's own search, for just the pieces that have one.
    fn action_ids<const N: usize>(&self, out: &mut Vec<usize>) {
        let (w, h) = (self.width(), self.height());
        debug_assert!((w + 1) * (h + 2) <= 64 * N);
        let squares = w * h;
        let index = SquareIndex::new(w);
        let p = self.turn as usize;
        let [empty, mine, free_foes, foes] =
            CellSet::<N>::of_position(&self.cells, (h + 1) * (w + 1), p);
        if !self.moving {
            empty.for_each(|i| out.push(index.of(i)));
            return;
        }
        let s = w as isize + 1;
        // The mailbox steps W, S, N, E, and the same steps in square indices.
        let dirs = [-1, -s, s, 1];
        let square_dirs = [-1, -(w as isize), w as isize, 1];
        // The suicide rule: a piece may not end between two free enemies in
        // a row or a column unless it traps there: next to a free enemy
        // with a free piece of mine beyond it, in direction k for the
        // squares of `traps[k]`.
        let sandwiched = free_foes
            .at(-1)
            .and(free_foes.at(1))
            .or(free_foes.at(-s).and(free_foes.at(s)));
        let traps: [CellSet<N>; 4] =
            std::array::from_fn(|k| free_foes.and(mine.at(dirs[k])).at(dirs[k]));
        // The squares a piece can hop from in direction k: an enemy (free
        // or trapped) next to it and an empty square beyond.
        let hops: [CellSet<N>; 4] =
            std::array::from_fn(|k| foes.at(dirs[k]).and(empty.at(2 * dirs[k])));
        // A step's start square is one square from its landing, never the
        // flanker two squares away: every trap counts.
        let any_trap = traps[0].or(traps[1]).or(traps[2]).or(traps[3]);
        let step_landings = empty.minus(sandwiched.minus(any_trap));
        // Pieces whose chains go on past one hop.
        let mut deeper = CellSet::NONE;
        for k in 0..4 {
            // Steps to `t` from `t - dirs[k]`.
            mine.at(-dirs[k]).and(step_landings).for_each(|t| {
                let to = index.of(t);
                let from = to.wrapping_add_signed(-square_dirs[k]);
                out.push(2 * squares + from * squares + to);
            });
            // One hop to `t` from `t - 2 dirs[k]`: two squares back from the
            // landing is the piece's own start square, which traps nothing
            // (`Gen::traps_from`), so the trap that way does not count; and
            // a hop back would land on it, so no chain goes on that way.
            let back = 3 - k;
            let landed = mine.and(hops[k]).at(-2 * dirs[k]);
            let mut trap = CellSet::NONE;
            let mut onward = CellSet::NONE;
            for j in (0..4).filter(|&j| j != back) {
                trap = trap.or(traps[j]);
                onward = onward.or(hops[j]);
            }
            landed.minus(sandwiched.minus(trap)).for_each(|t| {
                let to = index.of(t);
                let from = to.wrapping_add_signed(-2 * square_dirs[k]);
                out.push(2 * squares + from * squares + to);
            });
            deeper = deeper.or(landed.and(onward).at(2 * dirs[k]));
        }
        if !deeper.is_empty() {
            let mut g = self.gen();
            let mut sink = ActionSink {
                ids: ActionIds::new(w, h),
                out: &mut *out,
            };
            deeper.for_each(|i| {
                let (file, rank) = index.file_rank(i);
                g.longer_jumps(i, Square::new(file, rank), &mut sink);
            });
        }
        foes.minus(free_foes)
            .for_each(|i| out.push(squares + index.of(i)));
    }
}

impl Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("board=")?;
        for r in (0..self.h as usize).rev() {
            let mut run = 0;
            for c in 0..self.w as usize {
                let ch = match self.cells[self.idx(Square::new(c, r))] {
                    EMPTY => {
                        run += 1;
                        continue;
                    }
                    1 => 'X',
                    2 => 'O',
                    5 => 'x',
                    _ => 'o',
                };
                if run > 0 {
                    write!(f, "{run}")?;
                    run = 0;
                }
                f.write_char(ch)?;
            }
            if run > 0 {
                write!(f, "{run}")?;
            }
            if r > 0 {
                f.write_char('/')?;
            }
        }
        write!(
            f,
            " turn={} phase={} hand={},{} quiet={} ply={}",
            self.turn,
            if self.moving { "move" } else { "place" },
            self.hand[0],
            self.hand[1],
            self.quiet,
            self.ply
        )
    }
}

impl FromStr for State {
    type Err = ParseError;

    /// Parses the text alone; [`Game::parse_state`] also checks it against
    /// the parameters.
    fn from_str(text: &str) -> Result<Self, ParseError> {
        let bad = |why: String| ParseError::new(STATE, why, text);
        let mut fields = text.split(' ');
        let mut field = |key: &str| -> Result<&str, ParseError> {
            fields
                .next()
                .and_then(|f| f.strip_prefix(key))
                .and_then(|f| f.strip_prefix('='))
                .ok_or_else(|| {
                    bad(format!(
                        "expected `board=... turn=T phase=place|move hand=H0,H1 quiet=Q ply=K` \
                         separated by single spaces; `{key}=` is missing or out of place"
                    ))
                })
        };
        let board = field("board")?;
        let turn = field("turn")?;
        let phase = field("phase")?;
        let hand = field("hand")?;
        let quiet = field("quiet")?;
        let ply = field("ply")?;
        if fields.next().is_some() {
            return Err(bad("unexpected text after `ply=`".into()));
        }

        // Board: ranks from the top down, each read into a row first.
        let ranks: Vec<&str> = board.split('/').collect();
        let h = ranks.len();
        if !(MIN_SIDE..=MAX_SIDE).contains(&h) {
            return Err(bad(format!(
                "the board has {h} ranks; it must have {MIN_SIDE} to {MAX_SIDE}"
            )));
        }
        let mut rows = [[EMPTY; MAX_SIDE]; MAX_SIDE];
        let mut w = 0;
        for (k, rank_text) in ranks.iter().enumerate() {
            let rank = h - k; // 1-based rank number
            let bytes = rank_text.as_bytes();
            let mut len = 0usize;
            let mut j = 0;
            while j < bytes.len() {
                let b = bytes[j];
                if b.is_ascii_digit() {
                    let start = j;
                    while j < bytes.len() && bytes[j].is_ascii_digit() {
                        j += 1;
                    }
                    let n = canonical_number(&bytes[start..j])
                        .filter(|&n| n >= 1 && n <= MAX_SIDE as u64)
                        .ok_or_else(|| {
                            bad(format!(
                                "rank {rank}: a run of empty squares must be a number from 1 to {MAX_SIDE} without leading zeros"
                            ))
                        })?;
                    len += n as usize;
                    if len > MAX_SIDE {
                        return Err(bad(format!("rank {rank} is wider than {MAX_SIDE} squares")));
                    }
                    continue;
                }
                let cell = match b {
                    b'X' => 1,
                    b'O' => 2,
                    b'x' => 1 | TRAPPED,
                    b'o' => 2 | TRAPPED,
                    _ => {
                        return Err(bad(format!(
                            "rank {rank}: unexpected character; use X O x o and numbers of empty squares"
                        )))
                    }
                };
                if len == MAX_SIDE {
                    return Err(bad(format!("rank {rank} is wider than {MAX_SIDE} squares")));
                }
                rows[rank - 1][len] = cell;
                len += 1;
                j += 1;
            }
            if k == 0 {
                w = len;
                if !(MIN_SIDE..=MAX_SIDE).contains(&w) {
                    return Err(bad(format!(
                        "the top rank is {w} squares wide; the board must be {MIN_SIDE} to {MAX_SIDE} wide"
                    )));
                }
            } else if len != w {
                return Err(bad(format!(
                    "rank {rank} is {len} squares wide but the top rank is {w}"
                )));
            }
        }
        let mut st = State::empty(w, h);
        for (r, row) in rows.iter().enumerate().take(h) {
            for (c, &cell) in row.iter().enumerate().take(w) {
                if cell != EMPTY {
                    let i = st.idx(Square::new(c, r));
                    st.cells[i] = cell;
                    st.count[((cell & 2) >> 1) as usize] += 1;
                }
            }
        }

        st.turn = match turn {
            "0" => 0,
            "1" => 1,
            _ => return Err(bad("turn must be 0 or 1".into())),
        };
        st.moving = match phase {
            "place" => false,
            "move" => true,
            _ => return Err(bad("phase must be `place` or `move`".into())),
        };
        let hands = hand
            .split_once(',')
            .and_then(|(a, b)| {
                let a = canonical_number(a.as_bytes())?;
                let b = canonical_number(b.as_bytes())?;
                Some([u8::try_from(a).ok()?, u8::try_from(b).ok()?])
            })
            .ok_or_else(|| {
                bad("hand must be two numbers from 0 to 255, like `hand=14,15`".into())
            })?;
        st.hand = hands;
        st.quiet = canonical_number(quiet.as_bytes())
            .ok_or_else(|| bad("quiet must be a number without leading zeros".into()))?;
        st.ply = canonical_number(ply.as_bytes())
            .ok_or_else(|| bad("ply must be a number without leading zeros".into()))?;
        st.check_consistent().map_err(|e| bad(e.to_string()))?;
        Ok(st.after_parse())
    }
}

// ---------------------------------------------------------------- the game

/// The parameters of a Ludus latrunculorum game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Latrunculi {
    pub width: u32,
    pub height: u32,
    pub pieces: u32,
    pub quiet_plies: u32,
}

impl Default for Latrunculi {
    fn default() -> Self {
        Latrunculi {
            width: 8,
            height: 8,
            pieces: 16,
            quiet_plies: 100,
        }
    }
}

impl Latrunculi {
    fn material(&self, st: &State, why: &'static str) -> Outcome {
        let scores = [st.count[0] as i32, st.count[1] as i32];
        let winner = match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        };
        Outcome {
            scores,
            winner,
            adjudicated: Some(why),
        }
    }

    fn loss(&self, st: &State, loser: Seat) -> Outcome {
        Outcome {
            scores: [st.count[0] as i32, st.count[1] as i32],
            winner: Some(1 - loser),
            adjudicated: None,
        }
    }

    /// The end checks other than "no legal action", in the rules' order.
    fn ended_without_search(&self, st: &State) -> bool {
        st.moving
            && (st.count[0] <= 1
                || st.count[1] <= 1
                || st.quiet >= self.quiet_plies as u64
                || st.reps >= 3)
    }

    /// All end checks, in the rules' order.
    fn end_check(&self, st: &State) -> Option<Outcome> {
        if !st.moving {
            return None;
        }
        for p in 0..2 {
            if st.count[p] <= 1 {
                return Some(self.loss(st, p));
            }
        }
        if !st.generate(&mut AnyAction) {
            return Some(self.loss(st, st.turn as usize));
        }
        if st.quiet >= self.quiet_plies as u64 {
            return Some(self.material(st, "quiet_plies"));
        }
        if st.reps >= 3 {
            return Some(self.material(st, "repetition"));
        }
        None
    }

    /// Moves the piece on `a` to `b`, traps and frees.
    fn do_move(st: &mut State, a: Square, b: Square, eff: &mut Effects) {
        let p = st.turn as usize;
        let me = FREE[p];
        let foe = FREE[1 - p];
        let s = st.stride() as isize;
        let dirs = [-1, -s, s, 1];
        let (ia, ib) = (st.idx(a), st.idx(b));
        st.set(ia, EMPTY);
        st.set(ib, me);
        // Traps by the moved piece on its final square.
        let mut cand = [(0usize, Square(0)); 16];
        let mut n = 0;
        for k in 0..4u8 {
            let i = ib.wrapping_add_signed(dirs[k as usize]);
            if st.cells[i] == foe && st.cells[i.wrapping_add_signed(dirs[k as usize])] == me {
                st.set(i, foe | TRAPPED);
                let sq = b.shifted(k, 1).expect("on board");
                eff.trapped.push(sq);
            }
        }
        // Candidates for freeing: trapped neighbours of the square left and
        // of each newly trapped piece (the only flankers that changed).
        for k in 0..4u8 {
            let i = ia.wrapping_add_signed(dirs[k as usize]);
            if st.cells[i] != OFF && st.cells[i] & TRAPPED != 0 {
                cand[n] = (i, a.shifted(k, 1).expect("on board"));
                n += 1;
            }
        }
        for t in 0..eff.trapped.len() {
            let tsq = eff.trapped.sq[t];
            let ti = st.idx(tsq);
            for k in 0..4u8 {
                let i = ti.wrapping_add_signed(dirs[k as usize]);
                if st.cells[i] == me | TRAPPED {
                    cand[n] = (i, tsq.shifted(k, 1).expect("on board"));
                    n += 1;
                }
            }
        }
        let mut freed = Squares::default();
        st.free_unflanked(&cand[..n], &mut freed);
        eff.freed = freed;
    }
}

impl Game for Latrunculi {
    const NAME: &'static str = "latrunculi";
    type State = State;
    type Move = Move;
    type Effects = Effects;

    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
        let r = ParamReader::new(
            Self::NAME,
            params,
            &["width", "height", "pieces", "quiet_plies"],
        )?;
        let side = MIN_SIDE as u32..=MAX_SIDE as u32;
        let width = r.int("width", 8, side.clone())?;
        let height = r.int("height", 8, side)?;
        let max_pieces = (width * height - 1) / 2;
        // The default must fit the board too, so the range is checked here
        // rather than by `ParamReader::int` (which trusts its default).
        let expected = || {
            format!(
                "an integer from 2 to {max_pieces}: 2 * pieces must leave an empty square on a \
                 {width} x {height} board (the default is 16)"
            )
        };
        let pieces = r.int("pieces", 16, 0..=u32::MAX).map_err(|e| match e {
            ParamError::Invalid { value, .. } => r.invalid("pieces", &value, expected()),
            other => other,
        })?;
        if !(2..=max_pieces).contains(&pieces) {
            return Err(r.invalid("pieces", &pieces.to_string(), expected()));
        }
        let quiet_plies = r.int("quiet_plies", 100, 1..=u32::MAX)?;
        Ok(Latrunculi {
            width,
            height,
            pieces,
            quiet_plies,
        })
    }

    fn params(&self) -> Params {
        vec![
            ("width".into(), self.width.to_string()),
            ("height".into(), self.height.to_string()),
            ("pieces".into(), self.pieces.to_string()),
            ("quiet_plies".into(), self.quiet_plies.to_string()),
        ]
    }

    fn initial_state(&self) -> State {
        let mut st = State::empty(self.width as usize, self.height as usize);
        st.hand = [self.pieces as u8; 2];
        st.history.reserve(self.quiet_plies.min(1024) as usize + 1);
        st
    }

    fn parse_state(&self, text: &str) -> Result<State, ParseError> {
        let st: State = text.parse()?;
        let bad = |why: String| ParseError::new(STATE, why, text);
        if (st.width(), st.height()) != (self.width as usize, self.height as usize) {
            return Err(bad(format!(
                "the board is {} x {} but the game is played on {} x {}",
                st.width(),
                st.height(),
                self.width,
                self.height
            )));
        }
        let pieces = self.pieces as u64;
        for p in 0..2 {
            let total = st.count[p] as u64 + st.hand[p] as u64;
            if total > pieces || (!st.moving && total != pieces) {
                return Err(bad(format!(
                    "player {p} has {} on the board and {} in hand; {} a game with pieces={}",
                    st.count[p],
                    st.hand[p],
                    if st.moving {
                        "that is more than"
                    } else {
                        "during placement they must add up to"
                    },
                    pieces
                )));
            }
        }
        if !st.moving {
            let placed = 2 * pieces - st.hand[0] as u64 - st.hand[1] as u64;
            if st.ply != placed {
                return Err(bad(format!(
                    "ply is {} but {placed} pieces have been placed",
                    st.ply
                )));
            }
        } else if st.ply < 2 * pieces + st.quiet {
            return Err(bad(format!(
                "ply {} is too small: {} placements and quiet={} phase-2 actions came before",
                st.ply,
                2 * pieces,
                st.quiet
            )));
        }
        Ok(st)
    }

    fn parse_move(&self, text: &str) -> Result<Move, ParseError> {
        let mv: Move = text.parse()?;
        let fits = |s: Square| s.file() < self.width as usize && s.rank() < self.height as usize;
        let ok = match &mv {
            Move::Place(s) | Move::Remove(s) => fits(*s),
            Move::Step(a, b) => fits(*a) && fits(*b),
            Move::Jump(c) => fits(c.from) && c.landings().all(fits),
        };
        if ok {
            Ok(mv)
        } else {
            Err(ParseError::new(
                MOVE,
                format!("a square is off the {} x {} board", self.width, self.height),
                text,
            ))
        }
    }

    fn to_move(&self, st: &State) -> Seat {
        st.turn as usize
    }

    fn legal_moves(&self, st: &State, out: &mut Vec<Move>) {
        out.clear();
        if self.ended_without_search(st) {
            return;
        }
        st.generate(out);
    }

    /// A jump chain that ends where a legal chain of the same piece ends is
    /// refused because it is not the canonical one: say which one is.
    fn why_illegal(&self, st: &State, mv: &Move) -> Option<String> {
        let Move::Jump(chain) = mv else {
            return None;
        };
        let to = chain.to();
        let mut legal = Vec::new();
        self.legal_moves(st, &mut legal);
        legal.iter().find_map(|m| match m {
            Move::Jump(c) if c.from == chain.from && c.to() == to => Some(format!(
                "the one legal chain from {} to {to} is `{m}`, the canonical one (fewest hops, \
                 then hops up, right, down, left first, compared hop by hop)",
                chain.from
            )),
            _ => None,
        })
    }

    fn apply(&self, st: &mut State, mv: &Move) -> Effects {
        let mut eff = Effects::default();
        let p = st.turn as usize;
        let mut removal = false;
        match *mv {
            Move::Place(sq) => {
                let i = st.idx(sq);
                st.set(i, FREE[p]);
                st.count[p] += 1;
                st.hand[p] -= 1;
            }
            Move::Step(a, b) => Self::do_move(st, a, b, &mut eff),
            Move::Jump(ch) => {
                eff.hops = ch.hops;
                Self::do_move(st, ch.from, ch.to(), &mut eff);
            }
            Move::Remove(sq) => {
                let i = st.idx(sq);
                st.set(i, EMPTY);
                st.count[1 - p] -= 1;
                eff.removed = Some(sq);
                removal = true;
                // A trapped piece flanks nothing, so removing it cannot free
                // anything; checked anyway to keep the rule in one place.
                let s = st.stride() as isize;
                let mut cand = [(0usize, Square(0)); 4];
                let mut n = 0;
                for (k, d) in [-1, -s, s, 1].into_iter().enumerate() {
                    let j = i.wrapping_add_signed(d);
                    if st.cells[j] != OFF && st.cells[j] & TRAPPED != 0 {
                        cand[n] = (j, sq.shifted(k as u8, 1).expect("on board"));
                        n += 1;
                    }
                }
                let mut freed = Squares::default();
                st.free_unflanked(&cand[..n], &mut freed);
                eff.freed = freed;
            }
        }
        st.turn ^= 1;
        st.hash ^= SIDE_KEY;
        st.ply += 1;
        if st.moving {
            if removal {
                st.quiet = 0;
                st.history.clear();
            } else {
                st.quiet += 1;
            }
            let h = st.hash;
            st.reps = 1 + st.history.iter().filter(|&&x| x == h).count() as u32;
            st.history.push(h);
        } else if st.hand == [0, 0] {
            // Phase 2 begins; its first position is the first occurrence.
            st.moving = true;
            st.quiet = 0;
            st.history.clear();
            st.history.push(st.hash);
            st.reps = 1;
        } else {
            return eff;
        }
        eff.end = self.end_check(st);
        eff
    }

    fn outcome(&self, st: &State) -> Option<Outcome> {
        self.end_check(st)
    }

    fn material(&self, st: &State) -> [i32; 2] {
        [0, 1].map(|p| i32::from(st.count[p]) + i32::from(st.hand[p]))
    }

    fn in_setup(&self, st: &State) -> bool {
        !st.moving
    }

    /// With `S = width * height` and a square's index `(rank - 1) * width +
    /// file` (`a1` is 0, `b1` is 1): a placement is its square, `0 .. S`; a
    /// removal `S + square`; a step or jump chain `2S + from * S + to`, where
    /// `to` is the chain's final square (the rules list one chain per final
    /// square, so no two legal moves share an id).
    ///
    /// The observation is `PLANES` planes of `height x width`, ranks from
    /// the top as in the notation, seen by one player ("mine" and "the
    /// opponent's" in place of seat 0 and seat 1): my free and trapped
    /// pieces, the opponent's, empty squares, then constant planes: the
    /// opponent to move, placement phase, my hand and the opponent's as
    /// fractions of `pieces`, the quiet count as a fraction of `quiet_plies`.
    fn spaces(&self) -> Option<Spaces> {
        let (w, h) = (self.width as usize, self.height as usize);
        let squares = w * h;
        // Placements, then at most 2 * pieces - 3 removals (one more and a
        // side would be down to one piece), each preceded by fewer than
        // quiet_plies other actions, and quiet_plies after the last one.
        let pieces = self.pieces as usize;
        let removals = (2 * pieces).saturating_sub(3);
        let max_game_length = 2 * pieces + removals + (removals + 1) * self.quiet_plies as usize;
        Some(Spaces {
            num_distinct_actions: squares * (squares + 2),
            max_game_length,
            observation_shape: vec![PLANES, h, w],
            observation_bounds: (0.0, 1.0),
        })
    }

    fn move_to_action(&self, mv: &Move) -> Option<usize> {
        Some(ActionIds::new(self.width as usize, self.height as usize).of(mv))
    }

    /// The generator's moves as ids, without building the list of moves:
    /// `State::action_ids`, with cell sets as wide as the board needs.
    fn legal_action_ids(&self, st: &State, out: &mut Vec<usize>) {
        out.clear();
        if self.ended_without_search(st) {
            return;
        }
        if (st.width() + 1) * (st.height() + 2) <= 128 {
            st.action_ids::<2>(out);
        } else {
            st.action_ids::<5>(out);
        }
    }

    fn legal_actions(&self, st: &State, out: &mut Vec<usize>) {
        self.legal_action_ids(st, out);
        out.sort_unstable();
        // A no-op while the generator lists one chain per final square.
        out.dedup();
    }

    /// Read from the id rather than searched for: the square of a placement
    /// or removal, or the piece that moves, whose moves alone are
    /// generated (no two legal moves share an id, see [`Game::spaces`]).
    fn action_to_move(&self, st: &State, action: usize) -> Option<Move> {
        if self.ended_without_search(st) {
            return None;
        }
        let w = st.width();
        let squares = w * st.height();
        let square = |k: usize| Square::new(k % w, k / w);
        let p = st.turn as usize;
        if action < squares {
            let sq = square(action);
            return (!st.moving && st.cells[st.idx(sq)] == EMPTY).then_some(Move::Place(sq));
        }
        if !st.moving {
            return None;
        }
        if action < 2 * squares {
            let sq = square(action - squares);
            let trapped_foe = FREE[1 - p] | TRAPPED;
            return (st.cells[st.idx(sq)] == trapped_foe).then_some(Move::Remove(sq));
        }
        let (from, to) = ((action - 2 * squares) / squares, action % squares);
        if from >= squares {
            return None;
        }
        let (from, to) = (square(from), square(to));
        let i = st.idx(from);
        if st.cells[i] != FREE[p] {
            return None;
        }
        let mut g = st.gen();
        if let Some(k) = direction(from, to, 1) {
            // A step: what `Gen::piece_moves` checks for it.
            let t = g.step(i, k);
            g.from = i;
            return (st.cells[t] == EMPTY && g.landing_ok(t)).then_some(Move::Step(from, to));
        }
        let mut find = FindAction {
            ids: ActionIds::new(w, st.height()),
            target: action,
            found: None,
        };
        g.jumps(i, from, &mut find);
        find.found
    }

    fn observation(&self, st: &State, player: Seat, out: &mut [f32]) -> bool {
        let (w, h) = (st.width(), st.height());
        let plane = w * h;
        // Seat -> its place in the view: 0 for the observer, 1 for the opponent.
        let place = |seat: usize| usize::from(seat != player);
        // A cell's plane, looked up rather than decoded square by square
        // (the observation is written once per step of a training batch):
        // 2 * place + trapped for a piece, 4 for an empty square.
        let mut plane_of = [4usize; 8];
        for seat in 0..2 {
            plane_of[FREE[seat] as usize] = 2 * place(seat);
            plane_of[(FREE[seat] | TRAPPED) as usize] = 2 * place(seat) + 1;
        }
        out[..5 * plane].fill(0.0);
        let s = st.stride();
        for r in 0..h {
            // Ranks from the top, as the notation writes them.
            let at = (h - 1 - r) * w;
            let row = &st.cells[(r + 1) * s..(r + 1) * s + w];
            for (c, &cell) in row.iter().enumerate() {
                out[plane_of[(cell & 7) as usize] * plane + at + c] = 1.0;
            }
        }
        let constants = [
            place(st.turn as usize) as f32,
            f32::from(u8::from(!st.moving)),
            st.hand[player] as f32 / self.pieces as f32,
            st.hand[1 - player] as f32 / self.pieces as f32,
            st.quiet as f32 / self.quiet_plies as f32,
        ];
        for (i, value) in constants.into_iter().enumerate() {
            out[(5 + i) * plane..(6 + i) * plane].fill(value);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::new_game;

    fn game() -> Latrunculi {
        Latrunculi::default()
    }

    fn game_with(params: &[(&str, &str)]) -> Latrunculi {
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Latrunculi::from_params(&params).expect("valid parameters")
    }

    fn state(g: &Latrunculi, text: &str) -> State {
        let st = g.parse_state(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(st.to_string(), text, "notation round-trips");
        st
    }

    fn legal(g: &Latrunculi, st: &State) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_moves(st, &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    fn play(g: &Latrunculi, st: &mut State, mv: &str) -> Effects {
        let m = g.parse_move(mv).unwrap_or_else(|e| panic!("{e}"));
        g.play(st, &m).unwrap_or_else(|e| panic!("{e} in {st}"))
    }

    fn is_legal(g: &Latrunculi, st: &State, mv: &str) -> bool {
        legal(g, st).iter().any(|m| m == mv)
    }

    /// The legal actions are those the rules list (in any order), and come
    /// in `engine_order` (protocol.md's ruling on the order).
    fn assert_legal(g: &Latrunculi, st: &State, rules: &str, engine_order: &str) {
        let got = legal(g, st);
        let mut sorted = got.clone();
        sorted.sort();
        let mut expected: Vec<&str> = rules.split(' ').collect();
        expected.sort();
        assert_eq!(sorted, expected);
        assert_eq!(got.join(" "), engine_order);
    }

    fn sqs(list: &Squares) -> Vec<String> {
        list.as_slice().iter().map(ToString::to_string).collect()
    }

    // ------------------------------------------------ the worked examples

    #[test]
    fn example1_placement_never_traps() {
        let g = game();
        let mut st = state(
            &g,
            "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3",
        );
        assert!(is_legal(&g, &st, "d4"));
        let eff = play(&g, &mut st, "d4");
        assert!(eff.trapped.is_empty() && eff.freed.is_empty() && eff.end.is_none());
        assert_eq!(
            st.to_string(),
            "board=8/8/8/3X4/3O4/3X4/8/O7 turn=0 phase=place hand=14,14 quiet=0 ply=4"
        );
    }

    #[test]
    fn example2_step_that_traps() {
        let g = game();
        let mut st = state(
            &g,
            "board=XX4OO/3X4/3O4/2X5/8/8/8/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        );
        let eff = play(&g, &mut st, "c5-d5");
        assert_eq!(sqs(&eff.trapped), ["d6"]);
        assert_eq!(
            st.to_string(),
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"
        );
    }

    #[test]
    fn example3_removal_as_a_turn() {
        let g = game();
        let mut st = state(
            &g,
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
        );
        assert_eq!(
            legal(&g, &st).join(" "),
            "a8-a7 b8-b7 b8-c8 d5-c5 d5-d4 d5-e5 d7-c7 d7-d8 d7-e7 xd6"
        );
        let eff = play(&g, &mut st, "xd6");
        assert_eq!(eff.removed, Some("d6".parse().unwrap()));
        assert_eq!(
            st.to_string(),
            "board=XX4OO/3X4/8/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=0 ply=43"
        );
        // A removal restarts the repetition history.
        assert_eq!(st.history_len(), 1);
    }

    #[test]
    fn example4_jump_chain_that_turns() {
        let g = game();
        let mut st = state(
            &g,
            "board=XX4OO/8/8/8/8/1O6/O7/X7 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        );
        // The engine lists steps before chains.
        assert_legal(
            &g,
            &st,
            "a1-a3 a1-a3-c3 a1-b1 a8-a7 b8-b7 b8-c8",
            "a1-b1 a1-a3 a1-a3-c3 a8-a7 b8-b7 b8-c8",
        );
        let eff = play(&g, &mut st, "a1-a3-c3");
        assert_eq!(eff.hops, 2);
        assert_eq!(
            st.to_string(),
            "board=XX4OO/8/8/8/8/1OX5/O7/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"
        );
    }

    #[test]
    fn example5_suicide_rule() {
        let g = game();
        let st = state(
            &g,
            "board=XX4OO/8/8/8/2O5/1X6/2O5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        );
        assert!(!is_legal(&g, &st, "b3-c3"));
        assert!(g
            .play(&mut st.clone(), &g.parse_move("b3-c3").unwrap())
            .is_err());
        let mut st = state(
            &g,
            "board=XX4OO/8/8/8/2O5/1X1OX3/2O5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        );
        let eff = play(&g, &mut st, "b3-c3");
        assert_eq!(sqs(&eff.trapped), ["d3"]);
        assert_eq!(
            st.to_string(),
            "board=XX4OO/8/8/8/2O5/2XoX3/2O5/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"
        );
    }

    #[test]
    fn example6_freeing_in_one_step() {
        let g = game();
        let mut st = state(
            &g,
            "board=2O2O2/3OOxOX/1O1X2X1/1X2X1X1/XoX4O/OxO1X2O/OX5X/3X1X2 turn=1 phase=move hand=0,0 quiet=5 ply=50",
        );
        let eff = play(&g, &mut st, "a3-a5-c5");
        assert_eq!(sqs(&eff.trapped), ["c4"]);
        assert_eq!(sqs(&eff.freed), ["b3", "b4"]);
        assert_eq!(
            st.to_string(),
            "board=2O2O2/3OOxOX/1O1X2X1/1XO1X1X1/XOx4O/1XO1X2O/OX5X/3X1X2 turn=0 phase=move hand=0,0 quiet=6 ply=51"
        );
    }

    #[test]
    fn example7_one_action_per_final_square() {
        let g = game();
        let text = "board=XX4OO/8/8/8/2O5/1O1O4/1XO5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40";
        let mut st = state(&g, text);
        assert_legal(
            &g,
            &st,
            "a8-a7 b8-b7 b8-c8 b2-a2 b2-b1 b2-b4 b2-b4-d4 b2-d2",
            "a8-a7 b2-a2 b2-b1 b2-b4 b2-d2 b2-b4-d4 b8-b7 b8-c8",
        );
        // b2-d2-d4 also ends on d4 but hops right before up: refused, and
        // the error names the canonical chain.
        assert!(!is_legal(&g, &st, "b2-d2-d4"));
        assert!(g
            .play(&mut st.clone(), &g.parse_move("b2-d2-d4").unwrap())
            .is_err());
        let mut any = new_game("latrunculi", &[])
            .unwrap()
            .parse_state(text)
            .unwrap();
        let err = any.play("b2-d2-d4").unwrap_err();
        assert!(matches!(err, crate::games::PlayError::Illegal(..)));
        assert_eq!(
            err.to_string(),
            "illegal move `b2-d2-d4`: the one legal chain from b2 to d4 is `b2-b4-d4`, the \
             canonical one (fewest hops, then hops up, right, down, left first, compared hop by hop)"
        );
        assert_eq!(any.to_string(), text, "a refused move changes nothing");
        let eff = play(&g, &mut st, "b2-b4-d4");
        assert_eq!(eff.hops, 2);
        assert_eq!(
            st.to_string(),
            "board=XX4OO/8/8/8/2OX4/1O1O4/2O5/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"
        );
    }

    // ------------------------------------------------ traps

    #[test]
    fn double_trap_in_one_move_also_legal_suicide() {
        let g = game();
        // d5 lies between d6 and d4 (free O): legal only because it traps.
        let mut st = state(
            &g,
            "board=8/3X4/3O4/2X5/3O4/3X4/8/7O turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        let eff = play(&g, &mut st, "c5-d5");
        assert_eq!(sqs(&eff.trapped), ["d4", "d6"]);
        assert_eq!(
            st.to_string(),
            "board=8/3X4/3o4/3X4/3o4/3X4/8/7O turn=1 phase=move hand=0,0 quiet=1 ply=33"
        );
    }

    #[test]
    fn trap_frees_a_trapped_friend() {
        let g = game();
        // x d5 is held by c5 and e5; trapping e5 frees it.
        let mut st = state(
            &g,
            "board=8/8/5X2/2OxO3/4X3/8/8/7O turn=0 phase=move hand=0,0 quiet=3 ply=40",
        );
        let eff = play(&g, &mut st, "f6-e6");
        assert_eq!(sqs(&eff.trapped), ["e5"]);
        assert_eq!(sqs(&eff.freed), ["d5"]);
        assert_eq!(
            st.to_string(),
            "board=8/8/4X3/2OXo3/4X3/8/8/7O turn=1 phase=move hand=0,0 quiet=4 ply=41"
        );
    }

    #[test]
    fn flanker_moving_away_frees() {
        let g = game();
        let mut st = state(
            &g,
            "board=8/8/8/2OxO3/8/8/X7/7O turn=1 phase=move hand=0,0 quiet=3 ply=41",
        );
        let eff = play(&g, &mut st, "e5-e6");
        assert!(eff.trapped.is_empty());
        assert_eq!(sqs(&eff.freed), ["d5"]);
        assert_eq!(
            st.to_string(),
            "board=8/8/4O3/2OX4/8/8/X7/7O turn=0 phase=move hand=0,0 quiet=4 ply=42"
        );
    }

    #[test]
    fn jump_chain_turns_and_never_revisits() {
        let g = game();
        // Four O around b2's ring: a1 reaches a3 and c1 in one hop and c3 in
        // two, both ways round; each square is listed once, by its canonical
        // chain, and the start square a1 is never a landing.
        let st = state(
            &g,
            "board=7X/8/8/8/8/1O6/O1O5/XO6 turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        assert_eq!(legal(&g, &st).join(" "), "a1-a3 a1-c1 a1-a3-c3 h8-g8 h8-h7");
        let mut after = st.clone();
        let eff = play(&g, &mut after, "a1-c1");
        assert_eq!(eff.hops, 1);
        assert!(eff.trapped.is_empty());
        assert_eq!(
            after.to_string(),
            "board=7X/8/8/8/8/1O6/O1O5/1OX5 turn=1 phase=move hand=0,0 quiet=1 ply=33"
        );
        // The long ways round end on squares a shorter chain reaches, and
        // c3 is reached up first: all refused.
        for longer in ["a1-a3-c3-c1", "a1-c1-c3", "a1-c1-c3-a3", "a1-a3-c3-c1-a1"] {
            assert!(g.parse_move(longer).is_ok());
            assert!(!is_legal(&g, &st, longer), "{longer}");
            let mut s = st.clone();
            assert!(g.play(&mut s, &g.parse_move(longer).unwrap()).is_err());
            assert_eq!(s, st);
        }
        let m = g.parse_move("a1-c1-c3").unwrap();
        assert!(g.why_illegal(&st, &m).unwrap().contains("`a1-a3-c3`"));
        // No chain ends on a1, so nothing to say beyond "not legal".
        let m = g.parse_move("a1-a3-c3-c1-a1").unwrap();
        assert_eq!(g.why_illegal(&st, &m), None);
        assert_eq!(g.why_illegal(&st, &g.parse_move("h8-h7").unwrap()), None);
    }

    /// The crowded board of the ruling: on 16 x 16, 60 O stand between the
    /// 6 x 6 squares of files and ranks a, c, ... k and 1, 3, ... 11, and X
    /// has a1 and 59 pieces on files m to p.
    fn lattice(g: &Latrunculi) -> State {
        let mut rows = [[b'.'; 16]; 16];
        for (r, row) in rows.iter_mut().enumerate().take(11) {
            for (f, cell) in row.iter_mut().enumerate().take(11) {
                if (r + f) % 2 == 1 {
                    *cell = b'O';
                }
            }
        }
        rows[0][0] = b'X';
        for k in 0..59 {
            rows[15 - k / 4][12 + k % 4] = b'X';
        }
        let board: Vec<String> = rows
            .iter()
            .rev()
            .map(|row| {
                let mut out = String::new();
                let mut run = 0;
                for &c in row {
                    if c == b'.' {
                        run += 1;
                        continue;
                    }
                    if run > 0 {
                        out += &run.to_string();
                        run = 0;
                    }
                    out.push(c as char);
                }
                if run > 0 {
                    out += &run.to_string();
                }
                out
            })
            .collect();
        let text = format!(
            "board={} turn=0 phase=move hand=0,0 quiet=0 ply=120",
            board.join("/")
        );
        state(g, &text)
    }

    #[test]
    fn crowded_big_board_lists_each_final_square_once() {
        let g = game_with(&[("width", "16"), ("height", "16"), ("pieces", "60")]);
        let st = lattice(&g);
        assert_eq!(st.on_board(), [60, 60]);
        // a1 can hop to all 35 other squares of the lattice, by millions of
        // chains, but only the three other corners are not between two O
        // (the suicide rule): three actions, each the canonical chain.
        let from_a1: Vec<String> = legal(&g, &st)
            .into_iter()
            .filter(|m| m.starts_with("a1-"))
            .collect();
        assert_eq!(
            from_a1,
            [
                "a1-a3-a5-a7-a9-a11",
                "a1-c1-e1-g1-i1-k1",
                "a1-a3-a5-a7-a9-a11-c11-e11-g11-i11-k11",
            ]
        );
        // The detour through the middle is refused.
        let detour = g.parse_move("a1-c1-c3-a3-a5-a7-a9-a11").unwrap();
        assert!(g.play(&mut st.clone(), &detour).is_err());
    }

    #[test]
    fn intermediate_chain_squares_trap_nothing() {
        let g = game();
        // Ending on a3 traps b3 (against c3), which also makes a3 (between
        // a2 and a4) a legal ending; passing through a3 to a5 traps nothing.
        let st = state(
            &g,
            "board=8/8/8/8/O7/1OX5/O7/X7 turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        let mut a = st.clone();
        assert_eq!(sqs(&play(&g, &mut a, "a1-a3").trapped), ["b3"]);
        let mut b = st.clone();
        let eff = play(&g, &mut b, "a1-a3-a5");
        assert!(eff.trapped.is_empty());
        assert_eq!(
            b.to_string(),
            "board=8/8/8/X7/O7/1OX5/O7/8 turn=1 phase=move hand=0,0 quiet=1 ply=33"
        );
    }

    #[test]
    fn suicide_rule_binds_the_final_square_only() {
        let g = game();
        // c3 lies between c4 and c2: b3 may not step there.
        let st = state(
            &g,
            "board=7X/8/8/8/2O5/1X6/2O5/8 turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        assert_eq!(legal(&g, &st).join(" "), "b3-a3 b3-b2 b3-b4 h8-g8 h8-h7");
        // b3-d3 would end between c3 and e3, and c3 is not trapped against the
        // square b3 the piece just left; but the chain may pass through d3.
        let st = state(
            &g,
            "board=7X/8/8/8/3O4/1XO1O3/8/8 turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        assert_eq!(
            legal(&g, &st).join(" "),
            "b3-a3 b3-b2 b3-b4 b3-d3-d5 b3-d3-f3 h8-g8 h8-h7"
        );
    }

    #[test]
    fn no_edge_corner_or_diagonal_trap() {
        let g = game();
        let st = state(
            &g,
            "board=8/8/8/O1X4X/5O2/4X3/X7/O1X5 turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        for mv in ["c5-b5", "c1-b1", "h5-g5"] {
            let mut s = st.clone();
            let eff = play(&g, &mut s, mv);
            assert!(eff.trapped.is_empty(), "{mv} trapped {:?}", eff.trapped);
        }
    }

    #[test]
    fn placement_never_traps_or_frees() {
        let g = game();
        // X completes a sandwich around O on b1 during placement: nothing.
        let mut st = state(
            &g,
            "board=8/8/8/8/8/8/8/XO6 turn=0 phase=place hand=15,15 quiet=0 ply=2",
        );
        let eff = play(&g, &mut st, "c1");
        assert!(eff.trapped.is_empty());
        assert_eq!(
            st.to_string(),
            "board=8/8/8/8/8/8/8/XOX5 turn=1 phase=place hand=14,15 quiet=0 ply=3"
        );
        // Placement on any empty square, in file-major order.
        let all = legal(&g, &st);
        assert_eq!(all.len(), 61);
        assert_eq!(&all[..3], ["a2", "a3", "a4"]);
        assert!(!all.contains(&"b1".to_string()));
    }

    #[test]
    fn standing_in_a_sandwich_is_not_trapped() {
        let g = game();
        // O d5 got between c5 and e5 during placement; another move traps nothing.
        let mut st = state(
            &g,
            "board=8/8/8/2XOX3/8/8/8/6OX turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        let eff = play(&g, &mut st, "h1-h2");
        assert!(eff.trapped.is_empty());
        assert_eq!(st.piece("d5".parse().unwrap()), Some((1, false)));
    }

    #[test]
    fn trapped_piece_immobile_but_can_be_jumped() {
        let g = game();
        let st = state(
            &g,
            "board=8/8/8/2OxO3/8/8/8/X6O turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        assert_eq!(legal(&g, &st).join(" "), "a1-a2 a1-b1");
        let mut st = state(
            &g,
            "board=8/8/3O4/2OxO3/8/8/8/X6O turn=1 phase=move hand=0,0 quiet=0 ply=33",
        );
        assert!(is_legal(&g, &st, "d6-d4"));
        let eff = play(&g, &mut st, "d6-d4");
        assert!(eff.freed.is_empty());
        assert_eq!(st.piece("d5".parse().unwrap()), Some((0, true)));
    }

    #[test]
    fn trapped_piece_does_not_help_trap_and_trapped_enemy_is_not_retrapped() {
        let g = game();
        // d4 O between the moving X (d3) and the trapped x d5: not trapped.
        let mut st = state(
            &g,
            "board=8/8/8/2OxO3/3O4/4X3/8/X6O turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        let eff = play(&g, &mut st, "e3-d3");
        assert!(eff.trapped.is_empty());
        // o d5 already trapped by c5/e5; X arriving on d6 with X on d4 traps nothing new.
        let mut st = state(
            &g,
            "board=8/8/4X3/2XoX3/3X4/8/8/X6O turn=0 phase=move hand=0,0 quiet=0 ply=32",
        );
        let eff = play(&g, &mut st, "e6-d6");
        assert!(eff.trapped.is_empty());
        assert_eq!(st.piece("d5".parse().unwrap()), Some((1, true)));
    }

    #[test]
    fn removal_only_of_trapped_enemy_pieces() {
        let g = game();
        // X may remove o e5 (trapped by X) but not its own x b5.
        let mut st = state(
            &g,
            "board=8/8/8/OxO1XoX1/8/8/8/7X turn=0 phase=move hand=0,0 quiet=4 ply=40",
        );
        let moves = legal(&g, &st);
        assert!(moves.contains(&"xf5".to_string()));
        assert!(!moves.iter().any(|m| m == "xb5"));
        assert!(g
            .play(&mut st.clone(), &g.parse_move("xb5").unwrap())
            .is_err());
        // Removing a trapped piece frees nothing: trapped pieces flank nothing.
        let eff = play(&g, &mut st, "xf5");
        assert!(eff.freed.is_empty());
        assert_eq!(st.quiet(), 0);
        assert_eq!(st.piece("b5".parse().unwrap()), Some((0, true)));
        assert_eq!(st.on_board(), [4, 2]);
    }

    // ------------------------------------------------ end of the game

    #[test]
    fn one_piece_left_loses_at_once() {
        let g = game();
        let mut st = state(
            &g,
            "board=8/8/8/2XoX3/8/8/8/7O turn=0 phase=move hand=0,0 quiet=3 ply=40",
        );
        let eff = play(&g, &mut st, "xd5");
        let expected = Outcome {
            scores: [2, 1],
            winner: Some(0),
            adjudicated: None,
        };
        assert_eq!(eff.end, Some(expected.clone()));
        assert_eq!(g.outcome(&st), Some(expected));
        assert!(legal(&g, &st).is_empty());
        // A parsed state where the player to move has one piece is over too.
        let st = state(
            &g,
            "board=8/8/8/2X5/8/8/8/6OO turn=0 phase=move hand=0,0 quiet=3 ply=40",
        );
        assert_eq!(g.outcome(&st).unwrap().winner, Some(1));
        assert!(legal(&g, &st).is_empty());
    }

    #[test]
    fn no_legal_action_loses() {
        let g = game();
        // After d1-c1, O's only free piece (a1) is blocked and its other piece
        // is trapped; X has nothing trapped for O to remove.
        let mut st = state(
            &g,
            "board=8/8/8/2XoX3/8/X7/X7/OX1X4 turn=0 phase=move hand=0,0 quiet=0 ply=40",
        );
        let eff = play(&g, &mut st, "d1-c1");
        let expected = Outcome {
            scores: [6, 2],
            winner: Some(0),
            adjudicated: None,
        };
        assert_eq!(eff.end, Some(expected.clone()));
        assert_eq!(g.outcome(&st), Some(expected));
        assert!(legal(&g, &st).is_empty());
    }

    #[test]
    fn no_legal_action_when_phase_two_begins() {
        let g = game_with(&[("width", "5"), ("height", "5"), ("pieces", "12")]);
        let mut st = state(
            &g,
            "board=OOOO1/OOXXO/OXXXX/OXXXX/1OOXX turn=1 phase=place hand=0,1 quiet=0 ply=23",
        );
        let eff = play(&g, &mut st, "e5");
        assert_eq!(
            st.to_string(),
            "board=OOOOO/OOXXO/OXXXX/OXXXX/1OOXX turn=0 phase=move hand=0,0 quiet=0 ply=24"
        );
        assert_eq!(
            eff.end,
            Some(Outcome {
                scores: [12, 12],
                winner: Some(1),
                adjudicated: None,
            })
        );
        assert!(legal(&g, &st).is_empty());
    }

    #[test]
    fn quiet_plies_adjudicates_by_material() {
        let g = game();
        let mut st = state(
            &g,
            "board=X7/8/8/8/8/8/8/XX4OO turn=0 phase=move hand=0,0 quiet=99 ply=200",
        );
        let eff = play(&g, &mut st, "a8-a7");
        assert_eq!(
            eff.end,
            Some(Outcome {
                scores: [3, 2],
                winner: Some(0),
                adjudicated: Some("quiet_plies"),
            })
        );
        assert!(legal(&g, &st).is_empty());
        // Equal material draws.
        let g = game_with(&[("quiet_plies", "1")]);
        let mut st = state(
            &g,
            "board=X7/8/8/8/8/8/8/X5OO turn=0 phase=move hand=0,0 quiet=0 ply=40",
        );
        let eff = play(&g, &mut st, "a8-b8");
        assert_eq!(eff.end.unwrap().winner, None);
    }

    #[test]
    fn no_legal_action_is_checked_before_quiet_plies() {
        let g = game_with(&[("quiet_plies", "1")]);
        let mut st = state(
            &g,
            "board=8/8/8/2XoX3/8/X7/X7/OX1X4 turn=0 phase=move hand=0,0 quiet=0 ply=40",
        );
        let eff = play(&g, &mut st, "d1-c1");
        assert_eq!(eff.end.unwrap().adjudicated, None);
    }

    #[test]
    fn third_repetition_adjudicates_by_material() {
        let g = game();
        let start = "board=X7/8/8/8/8/8/8/XX4OO turn=0 phase=move hand=0,0 quiet=0 ply=40";
        let mut st = state(&g, start);
        let cycle = ["a8-a7", "h1-h2", "a7-a8", "h2-h1"];
        for (k, mv) in cycle.iter().chain(&cycle).enumerate() {
            let eff = play(&g, &mut st, mv);
            if k < 7 {
                assert_eq!(eff.end, None, "after {mv} (#{k})");
            } else {
                assert_eq!(
                    eff.end,
                    Some(Outcome {
                        scores: [3, 2],
                        winner: Some(0),
                        adjudicated: Some("repetition"),
                    })
                );
            }
        }
        assert_eq!(st.repetitions(), 3);
        assert!(legal(&g, &st).is_empty());
        // The history is not in the text: the same text parsed is not over,
        // yet compares equal.
        let again = state(&g, &st.to_string());
        assert_eq!(again, st);
        assert_eq!(g.outcome(&again), None);
        assert!(st.to_string().ends_with("quiet=8 ply=48"));
    }

    #[test]
    fn repetition_counts_the_phase_two_start_position() {
        let g = game_with(&[("width", "5"), ("height", "5"), ("pieces", "2")]);
        let mut st = state(
            &g,
            "board=5/5/5/5/XXO2 turn=1 phase=place hand=0,1 quiet=0 ply=3",
        );
        play(&g, &mut st, "e5");
        assert_eq!(st.repetitions(), 1);
        let cycle = ["a1-a2", "e5-e4", "a2-a1", "e4-e5"];
        for mv in cycle.iter().chain(&cycle[..3]) {
            assert_eq!(play(&g, &mut st, mv).end, None);
        }
        let eff = play(&g, &mut st, "e4-e5");
        assert_eq!(eff.end.unwrap().adjudicated, Some("repetition"));
    }

    // ------------------------------------------------ boards, notation, parameters

    #[test]
    fn non_square_boards() {
        let g = game_with(&[("width", "5"), ("height", "7")]);
        let st = g.initial_state();
        assert_eq!(
            st.to_string(),
            "board=5/5/5/5/5/5/5 turn=0 phase=place hand=16,16 quiet=0 ply=0"
        );
        assert_eq!(legal(&g, &st).len(), 35);
        assert!(g.parse_move("e7").is_ok() && g.parse_move("f1").is_err());
        assert!(g.parse_move("a8").is_err());

        let g = game_with(&[("width", "16"), ("height", "5"), ("pieces", "6")]);
        assert!(g.parse_move("p5").is_ok() && g.parse_move("p6").is_err());
        // A trap on the far file: o p3 between X p4 (moved) and X p2.
        let mut st = state(
            &g,
            "board=O15/14X1/15O/15X/X15 turn=0 phase=move hand=0,0 quiet=0 ply=12",
        );
        let eff = play(&g, &mut st, "o4-p4");
        assert_eq!(sqs(&eff.trapped), ["p3"]);
        assert_eq!(
            st.to_string(),
            "board=O15/15X/15o/15X/X15 turn=1 phase=move hand=0,0 quiet=1 ply=13"
        );
        assert_eq!(eff.end, None);
        // Random games finish on both shapes.
        for g in [
            game_with(&[("width", "5"), ("height", "7")]),
            game_with(&[("width", "16"), ("height", "5"), ("pieces", "30")]),
        ] {
            let t = crate::playout::playouts(&g, 5, 7);
            assert_eq!(t.games, 5);
        }
    }

    #[test]
    fn state_notation_round_trips_and_eq_ignores_history() {
        let g = game();
        let mut st = g.initial_state();
        assert_eq!(
            st.to_string(),
            "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"
        );
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
        let mut buf = Vec::new();
        let mut n = 0;
        loop {
            g.legal_moves(&st, &mut buf);
            if buf.is_empty() {
                break;
            }
            let mv = buf[rand::RngExt::random_range(&mut rng, 0..buf.len())];
            assert_eq!(g.parse_move(&mv.to_string()).unwrap(), mv);
            g.apply(&mut st, &mv);
            let back = g.parse_state(&st.to_string()).unwrap();
            assert_eq!(back, st);
            assert_eq!(back.to_string(), st.to_string());
            n += 1;
        }
        assert!(n > 32);
        // Runs longer than 9 on a wide board.
        let g = game_with(&[("width", "16"), ("height", "5")]);
        let st = g.initial_state();
        assert_eq!(
            st.to_string(),
            "board=16/16/16/16/16 turn=0 phase=place hand=16,16 quiet=0 ply=0"
        );
    }

    #[test]
    fn parameters_defaults_order_and_errors() {
        let g = Latrunculi::from_params(&[]).unwrap();
        assert_eq!(g, Latrunculi::default());
        let names: Vec<_> = g
            .params()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(
            names,
            ["width=8", "height=8", "pieces=16", "quiet_plies=100"]
        );
        let err = |p: &[(&str, &str)]| {
            let p: Vec<(String, String)> = p
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Latrunculi::from_params(&p).unwrap_err()
        };
        for bad in [
            vec![("width", "4")],
            vec![("width", "17")],
            vec![("height", "0")],
            vec![("height", "-3")],
            vec![("pieces", "1")],
            vec![("pieces", "32")], // 64 squares, no empty one left
            vec![("width", "5"), ("height", "5")], // default 16 does not fit
            vec![("quiet_plies", "0")],
            vec![("quiet_plies", "many")],
        ] {
            assert!(matches!(err(&bad), ParamError::Invalid { .. }), "{bad:?}");
        }
        assert!(matches!(err(&[("dux", "1")]), ParamError::Unknown { .. }));
        assert!(matches!(
            err(&[("width", "8"), ("width", "9")]),
            ParamError::Duplicate { .. }
        ));
        let g = game_with(&[("pieces", "31"), ("width", "8")]);
        assert_eq!(g.pieces, 31);
        let g = game_with(&[("width", "5"), ("height", "5"), ("pieces", "12")]);
        assert_eq!(g.params()[2].1, "12");
        // Registered by name.
        let any = new_game("latrunculi", &[]).unwrap();
        let mut st = any.initial_state();
        st.play("d4").unwrap();
        assert!(st.play("d4").is_err());
        assert!(st.play("z9").is_err());
        assert!(st.to_string().starts_with("board=8/8/8/8/3X4/"));
    }

    #[test]
    fn state_parse_errors() {
        let g = game();
        let good = "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42";
        assert!(g.parse_state(good).is_ok());
        for bad in [
            "",
            "board=",
            "board=8/8/8/8/8/8/8/8",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8  turn=0 phase=move hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42 ",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 ply=42 quiet=8",
            "board=XX4OO/3X4/3o4/3X4/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42", // 7 ranks
            "board=XX4OO/3X5/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42", // 9 wide
            "board=XX4OO/3X3/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42", // 7 wide
            "board=XX4OO/3X4/3o4/3X4/8/8/8/08 turn=0 phase=move hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/0X7 turn=0 phase=move hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8Z turn=0 phase=move hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=2 phase=move hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=play hand=0,0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,1 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0 quiet=8 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=-1 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=08 ply=42",
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=99999999999999999999999",
            // unflanked trapped piece (d7 moved away)
            "board=XX4OO/8/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
            // trapped piece flanked by a trapped piece
            "board=XX4OO/3x4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
            // ply too small for 32 placements and 8 quiet actions
            "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=39",
            // placement: hands inconsistent with turn, counts, trapped, quiet, ply
            "board=8/8/8/3X4/8/3X4/8/O7 turn=0 phase=place hand=14,15 quiet=0 ply=3",
            "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=13,14 quiet=0 ply=5",
            "board=8/8/8/3X4/8/3x4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3",
            "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=1 ply=3",
            "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=4",
            "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=0,0 quiet=0 ply=32",
            // both players down to one piece
            "board=X7/8/8/8/8/8/8/7O turn=0 phase=move hand=0,0 quiet=0 ply=40",
            // too many pieces for pieces=16
            "board=XXXXXXXX/XXXXXXXX/XXXXXXXX/8/8/8/8/OO6 turn=0 phase=move hand=0,0 quiet=0 ply=40",
            // board too small for any game
            "board=4/4/4/4/4 turn=0 phase=place hand=1,1 quiet=0 ply=0",
        ] {
            assert!(g.parse_state(bad).is_err(), "accepted `{bad}`");
        }
        // The wrong board size for these parameters.
        let g57 = game_with(&[("width", "5"), ("height", "7")]);
        assert!(g57.parse_state(good).is_err());
        let e = g57.parse_state(good).unwrap_err();
        assert_eq!(e.what, "latrunculi state");
    }

    #[test]
    fn move_parse_errors() {
        let g = game();
        for ok in ["a1", "h8", "a1-a2", "a1-a3", "a1-a3-c3", "xe5"] {
            let m = g.parse_move(ok).unwrap();
            assert_eq!(m.to_string(), ok);
        }
        for bad in [
            "", "x", "-", "a1-", "i1", "a9", "a0", "a01", "a17", "A1", "a1-a4", "a1-b2",
            "a1-a2-a3", "a1-a1", "xa1-a2", "a1 ", " a1", "é1", "a1-a3-", "p16",
        ] {
            assert!(g.parse_move(bad).is_err(), "accepted `{bad}`");
        }
        assert!("p16".parse::<Move>().is_ok());
        assert!("q1".parse::<Move>().is_err());
    }

    #[test]
    fn effects_serialize_with_square_names() {
        let g = game();
        let mut st = state(
            &g,
            "board=XX4OO/3X4/3O4/2X5/8/8/8/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        );
        let eff = play(&g, &mut st, "c5-d5");
        assert_eq!(
            serde_json::to_string(&eff).unwrap(),
            r#"{"trapped":["d6"],"freed":[],"removed":null,"hops":0,"end":null}"#
        );
    }

    /// Checks the ids and decoding of `st` against the mailbox generator:
    /// `legal_action_ids` lists the ids of the generator's moves (through
    /// cell sets of both widths where they fit), and `action_to_move` gives
    /// the generator's first move with the id, or `None`: for every id on
    /// small boards, on larger ones for every placement and removal, every
    /// legal id and `random` others, mostly moves of the mover's pieces.
    fn check_ids(g: &Latrunculi, st: &State, rng: &mut impl rand::Rng) {
        use rand::RngExt;
        let mut moves = Vec::new();
        g.legal_moves(st, &mut moves);
        let ids = ActionIds::new(st.width(), st.height());
        let mut expected: Vec<usize> = moves.iter().map(|m| ids.of(m)).collect();
        expected.sort_unstable();
        let before = expected.len();
        expected.dedup();
        assert_eq!(expected.len(), before, "one move per id in `{st}`");
        let mut got = Vec::new();
        g.legal_action_ids(st, &mut got);
        got.sort_unstable();
        assert_eq!(got, expected, "legal action ids of `{st}`");
        if !g.ended_without_search(st) {
            if (st.width() + 1) * (st.height() + 2) <= 128 {
                let mut two = Vec::new();
                st.action_ids::<2>(&mut two);
                two.sort_unstable();
                assert_eq!(two, expected, "two-word cell sets in `{st}`");
            }
            let mut five = Vec::new();
            st.action_ids::<5>(&mut five);
            five.sort_unstable();
            assert_eq!(five, expected, "five-word cell sets in `{st}`");
        }
        let squares = st.width() * st.height();
        let all = squares * (squares + 2);
        let candidates: Vec<usize> = if all <= 5000 {
            (0..all).collect()
        } else {
            let mine: Vec<usize> = (0..squares)
                .filter(|&k| {
                    st.piece(Square::new(k % st.width(), k / st.width()))
                        == Some((st.turn as usize, false))
                })
                .collect();
            let mut c: Vec<usize> = (0..2 * squares).chain(expected.iter().copied()).collect();
            for _ in 0..300 {
                c.push(match mine.is_empty() {
                    false if rng.random_bool(0.9) => {
                        let from = mine[rng.random_range(0..mine.len())];
                        2 * squares + from * squares + rng.random_range(0..squares)
                    }
                    _ => rng.random_range(0..all + 10),
                });
            }
            c
        };
        for id in candidates {
            let first = moves.iter().find(|m| ids.of(m) == id).copied();
            assert_eq!(g.action_to_move(st, id), first, "action {id} in `{st}`");
        }
    }

    #[test]
    fn action_ids_and_decoding_equal_the_generator() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Boards whose mailbox fits two words or needs five, files of one
        // or two digits, crowded and sparse: (width, height, pieces, quiet
        // plies, games).
        let boards = [
            (8, 8, 16, 100, 3),
            (5, 5, 12, 20, 10),
            (5, 6, 4, 12, 10),
            (9, 9, 40, 30, 2),
            (10, 10, 49, 30, 1),
            (16, 5, 39, 20, 1),
            (5, 16, 39, 20, 1),
            (16, 16, 60, 10, 1),
        ];
        let mut positions = 0;
        let mut ended = [0; 2];
        for (w, h, pieces, quiet, games) in boards {
            let g = game_with(&[
                ("width", &w.to_string()),
                ("height", &h.to_string()),
                ("pieces", &pieces.to_string()),
                ("quiet_plies", &quiet.to_string()),
            ]);
            for _ in 0..games {
                let mut st = g.initial_state();
                let mut moves = Vec::new();
                loop {
                    check_ids(&g, &st, &mut rng);
                    positions += 1;
                    g.legal_moves(&st, &mut moves);
                    if moves.is_empty() {
                        ended[usize::from(g.ended_without_search(&st))] += 1;
                        break;
                    }
                    let mv = moves[rng.random_range(0..moves.len())];
                    g.apply(&mut st, &mv);
                }
            }
        }
        let g = game_with(&[("width", "16"), ("height", "16"), ("pieces", "60")]);
        check_ids(&g, &lattice(&g), &mut rng);
        assert!(positions > 2000, "{positions} positions");
        assert!(
            ended[1] > 0,
            "games that ended by a rule other than no action: {ended:?}"
        );
    }
}
