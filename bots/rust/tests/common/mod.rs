//! Two toy games implementing `arena_core::games::Game`, to test the generic
//! searches without the real engines: arena-core's Nim with bonus moves
//! (emptying a pile earns another move, like Dakon's store), and
//! tic-tac-toe, a game that perfect play draws.
#![allow(dead_code)]

pub mod referee;

use std::fmt;

use arena_bots::eval::Evaluate;
use arena_core::games::nim::{Nim, NimMove, NimState};
use arena_core::games::{Game, Outcome, ParamError, ParamReader, Params, ParseError, Seat};

// ---------------------------------------------------------------- Nim

/// arena-core's test game, Nim, with bonus moves: piles of stones, a move
/// takes 1 to 3 from one pile, emptying a pile earns another move (like
/// Dakon's store), whoever takes the last stone wins. The rules are
/// arena-core's; this wrapper only adds the bots' heuristic (none), which
/// the orphan rule keeps off arena-core's own type.
#[derive(Clone, Debug, PartialEq)]
pub struct BonusNim(pub Nim);

impl BonusNim {
    /// `piles` piles of `stones` each.
    pub fn new(piles: u32, stones: u32) -> BonusNim {
        BonusNim(Nim {
            piles,
            stones,
            take: 3,
            bonus: true,
            max_plies: 1000,
        })
    }

    /// Three piles of three: every position can be solved by brute force.
    pub fn small() -> BonusNim {
        BonusNim::new(3, 3)
    }

    /// Four piles of five.
    pub fn big() -> BonusNim {
        BonusNim::new(4, 5)
    }
}

impl Game for BonusNim {
    const NAME: &'static str = Nim::NAME;
    type State = NimState;
    type Move = NimMove;
    type Effects = ();

    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
        Nim::from_params(params).map(BonusNim)
    }
    fn params(&self) -> Params {
        self.0.params()
    }
    fn initial_state(&self) -> NimState {
        self.0.initial_state()
    }
    fn parse_state(&self, text: &str) -> Result<NimState, ParseError> {
        self.0.parse_state(text)
    }
    fn parse_move(&self, text: &str) -> Result<NimMove, ParseError> {
        self.0.parse_move(text)
    }
    fn to_move(&self, s: &NimState) -> Seat {
        self.0.to_move(s)
    }
    fn legal_moves(&self, s: &NimState, out: &mut Vec<NimMove>) {
        self.0.legal_moves(s, out)
    }
    fn apply(&self, s: &mut NimState, mv: &NimMove) {
        self.0.apply(s, mv)
    }
    fn outcome(&self, s: &NimState) -> Option<Outcome> {
        self.0.outcome(s)
    }
}

impl Evaluate for BonusNim {
    fn evaluate(&self, _: &NimState, _: Seat) -> i32 {
        0
    }
}

/// Exact game value for the player to move (true = win), by brute force.
pub fn nim_wins(game: &BonusNim, s: &NimState) -> bool {
    let mut moves = Vec::new();
    game.legal_moves(s, &mut moves);
    moves.iter().any(|m| nim_move_wins(game, s, m))
}

/// Whether `m` wins for the player to move in `s`.
pub fn nim_move_wins(game: &BonusNim, s: &NimState, m: &NimMove) -> bool {
    let me = s.turn;
    let mut c = s.clone();
    game.apply(&mut c, m);
    match game.outcome(&c) {
        Some(o) => o.winner == Some(me),
        None => nim_wins(game, &c) == (c.turn == me),
    }
}

// ---------------------------------------------------------- tic-tac-toe

fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.split_whitespace()
        .find_map(|t| t.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

#[derive(Clone, Debug, PartialEq)]
pub struct TicTacToe;

#[derive(Clone, Debug, PartialEq)]
pub struct TttState {
    /// 0 empty, 1 seat 0 (X), 2 seat 1 (O).
    pub cells: [u8; 9],
    pub turn: Seat,
}

impl fmt::Display for TttState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b: String = self
            .cells
            .iter()
            .map(|&c| ['.', 'X', 'O'][c as usize])
            .collect();
        write!(f, "board={b} turn={}", self.turn)
    }
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TttState {
    fn winner(&self) -> Option<Seat> {
        LINES.iter().find_map(|l| {
            let c = self.cells[l[0]];
            (c != 0 && c == self.cells[l[1]] && c == self.cells[l[2]]).then(|| (c - 1) as Seat)
        })
    }
}

impl Game for TicTacToe {
    const NAME: &'static str = "tictactoe";
    type State = TttState;
    type Move = usize;
    type Effects = ();

    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
        ParamReader::new(Self::NAME, params, &[])?;
        Ok(TicTacToe)
    }
    fn params(&self) -> Params {
        Vec::new()
    }
    fn initial_state(&self) -> TttState {
        TttState {
            cells: [0; 9],
            turn: 0,
        }
    }
    fn parse_state(&self, text: &str) -> Result<TttState, ParseError> {
        let err = |why: &str| ParseError::new("ttt state", why, text);
        let b = field(text, "board").ok_or_else(|| err("no board"))?;
        if b.len() != 9 {
            return Err(err("board needs 9 cells"));
        }
        let mut cells = [0; 9];
        for (i, ch) in b.chars().enumerate() {
            cells[i] = match ch {
                '.' => 0,
                'X' => 1,
                'O' => 2,
                _ => return Err(err("bad cell")),
            };
        }
        let turn = field(text, "turn")
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| err("bad turn"))?;
        Ok(TttState { cells, turn })
    }
    fn parse_move(&self, text: &str) -> Result<usize, ParseError> {
        text.parse::<usize>()
            .ok()
            .filter(|&c| c < 9)
            .ok_or_else(|| ParseError::new("ttt move", "expected a cell 0-8", text))
    }
    fn to_move(&self, s: &TttState) -> Seat {
        s.turn
    }
    fn legal_moves(&self, s: &TttState, out: &mut Vec<usize>) {
        out.clear();
        if s.winner().is_none() {
            out.extend((0..9).filter(|&i| s.cells[i] == 0));
        }
    }
    fn apply(&self, s: &mut TttState, mv: &usize) {
        s.cells[*mv] = s.turn as u8 + 1;
        s.turn = 1 - s.turn;
    }
    fn outcome(&self, s: &TttState) -> Option<Outcome> {
        let w = s.winner();
        if w.is_none() && s.cells.contains(&0) {
            return None;
        }
        let mut scores = [0, 0];
        if let Some(w) = w {
            scores[w] = 1;
        }
        Some(Outcome {
            scores,
            winner: w,
            adjudicated: None,
        })
    }
}

impl Evaluate for TicTacToe {
    /// Open lines: lines with only my marks minus lines with only theirs.
    fn evaluate(&self, s: &TttState, seat: Seat) -> i32 {
        let mine = seat as u8 + 1;
        let mut v = 0;
        for l in LINES {
            let cs = l.map(|i| s.cells[i]);
            let m = cs.iter().filter(|&&c| c == mine).count() as i32;
            let t = cs.iter().filter(|&&c| c != 0 && c != mine).count() as i32;
            if t == 0 {
                v += m * m;
            }
            if m == 0 {
                v -= t * t;
            }
        }
        v
    }
}
