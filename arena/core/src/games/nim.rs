//! Nim, the test-only third game (feature `nim`): piles of stones, a move
//! takes 1 to `take` stones from one pile, and whoever takes the last stone
//! wins. With `bonus=true`, emptying a pile earns another move (as a Dakon
//! store does). `max_plies` ends a game in a draw (adjudicated).
//!
//! It is here to show that a game is this module and one registry line: the
//! referee, `arena match`, `check-bot`, `show`, `play`, the bench, the HTML
//! report and the Python package take it from the registry (its [`ENTRY`]
//! and its [`Game`] methods), and every test that needs a small game uses
//! it.
//!
//! Notation: states `piles=7,5 turn=0 ply=3`; moves a pile letter and a
//! count, `a2` (two stones from the first pile).

use std::fmt::{self, Display, Write as _};

use super::game_entry::{params, CheckPosition, GameEntry, Start};
use super::notation::{seat_name, Fields};
use super::{Game, Outcome, ParamError, ParamReader, Params, ParseError, Seat, Spaces};

/// The game's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nim {
    /// Number of piles (1 to 8).
    pub piles: u32,
    /// Stones in each pile at the start (1 to 1000).
    pub stones: u32,
    /// The most stones one move takes (1 to 9).
    pub take: u32,
    /// Whether emptying a pile earns another move.
    pub bonus: bool,
    /// Plies after which the game is a draw (adjudicated).
    pub max_plies: u32,
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NimState {
    /// Stones in each pile.
    pub piles: Vec<u32>,
    /// The seat to move (after the last stone: see [`Game::outcome`]).
    pub turn: Seat,
    /// Moves made.
    pub ply: u32,
}

/// Take `take` stones from pile `pile` (0 = `a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NimMove {
    /// The pile, from 0.
    pub pile: usize,
    /// How many stones.
    pub take: u32,
}

impl Display for NimState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("piles=")?;
        for (i, p) in self.piles.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{p}")?;
        }
        write!(f, " turn={} ply={}", self.turn, self.ply)
    }
}

impl Display for NimMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", pile_letter(self.pile), self.take)
    }
}

fn pile_letter(pile: usize) -> char {
    (b'a' + pile as u8) as char
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    type State = NimState;
    type Move = NimMove;
    type Effects = ();

    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError> {
        let r = ParamReader::new(
            Self::NAME,
            params,
            &["piles", "stones", "take", "bonus", "max_plies"],
        )?;
        Ok(Nim {
            piles: r.int("piles", 1, 1..=8)?,
            stones: r.int("stones", 7, 1..=1000)?,
            take: r.int("take", 2, 1..=9)?,
            bonus: r.flag("bonus", false)?,
            max_plies: r.int("max_plies", 1000, 1..=100_000)?,
        })
    }

    fn params(&self) -> Params {
        vec![
            ("piles".into(), self.piles.to_string()),
            ("stones".into(), self.stones.to_string()),
            ("take".into(), self.take.to_string()),
            ("bonus".into(), self.bonus.to_string()),
            ("max_plies".into(), self.max_plies.to_string()),
        ]
    }

    fn initial_state(&self) -> NimState {
        NimState {
            piles: vec![self.stones; self.piles as usize],
            turn: 0,
            ply: 0,
        }
    }

    fn parse_state(&self, text: &str) -> Result<NimState, ParseError> {
        let f = Fields::new("nim state", text);
        let piles = f
            .text("piles")?
            .split(',')
            .map(|p| f.number::<u32>(p, "pile"))
            .collect::<Result<Vec<_>, _>>()?;
        if piles.len() != self.piles as usize {
            return Err(f.error(format!(
                "{} piles, the game has {}",
                piles.len(),
                self.piles
            )));
        }
        if piles.iter().any(|&p| p > self.stones) {
            return Err(f.error(format!("a pile holds more than {} stones", self.stones)));
        }
        let state = NimState {
            piles,
            turn: f.get("turn")?,
            ply: f.get("ply")?,
        };
        if state.turn > 1 || state.ply > self.max_plies {
            return Err(f.error("turn is 0 or 1, ply at most max_plies"));
        }
        Ok(state)
    }

    fn parse_move(&self, text: &str) -> Result<NimMove, ParseError> {
        let err = |why: &str| ParseError::new("nim move", why, text);
        let mut chars = text.chars();
        let pile = match chars.next() {
            Some(c @ 'a'..='h') => c as usize - 'a' as usize,
            _ => {
                return Err(err(
                    "a pile letter (a, b, ...) and a count from 1 to 9, e.g. a2",
                ))
            }
        };
        if pile >= self.piles as usize {
            return Err(err("no such pile"));
        }
        // A count is a digit; the game's `take` (and the pile) decide
        // whether the move is legal.
        match chars.as_str().parse::<u32>() {
            Ok(take @ 1..=9) => Ok(NimMove { pile, take }),
            _ => Err(err(
                "a pile letter (a, b, ...) and a count from 1 to 9, e.g. a2",
            )),
        }
    }

    fn to_move(&self, state: &NimState) -> Seat {
        state.turn
    }

    fn legal_moves(&self, state: &NimState, out: &mut Vec<NimMove>) {
        out.clear();
        if self.outcome(state).is_some() {
            return;
        }
        for (pile, &n) in state.piles.iter().enumerate() {
            out.extend((1..=n.min(self.take)).map(|take| NimMove { pile, take }));
        }
    }

    fn apply(&self, state: &mut NimState, mv: &NimMove) {
        state.piles[mv.pile] -= mv.take;
        state.ply += 1;
        if !(self.bonus && state.piles[mv.pile] == 0) {
            state.turn = 1 - state.turn;
        }
    }

    /// Taking `k` stones from pile `p` is action `p * take + k - 1`. The
    /// observation, seen by one player: [I am to move, the opponent is to
    /// move], then each pile's stones. Every move takes a stone, so a game
    /// lasts at most `piles * stones` moves (or `max_plies`).
    fn spaces(&self) -> Option<Spaces> {
        let piles = self.piles as usize;
        Some(Spaces {
            num_distinct_actions: piles * self.take as usize,
            max_game_length: (piles * self.stones as usize).min(self.max_plies as usize),
            observation_shape: vec![2 + piles],
            observation_bounds: (0.0, self.stones as f32),
        })
    }

    fn move_to_action(&self, mv: &NimMove) -> Option<usize> {
        Some(mv.pile * self.take as usize + mv.take as usize - 1)
    }

    // legal_actions and action_to_move: the trait's defaults, which derive
    // them from legal_moves and move_to_action.

    fn observation(&self, state: &NimState, player: Seat, out: &mut [f32]) -> bool {
        out[0] = f32::from(u8::from(state.turn == player));
        out[1] = f32::from(u8::from(state.turn != player));
        for (slot, &pile) in out[2..].iter_mut().zip(&state.piles) {
            *slot = pile as f32;
        }
        true
    }

    /// The last stone wins: its taker is the seat to move after it with
    /// `bonus` (emptying the last pile earned another move), the other seat
    /// without.
    fn outcome(&self, state: &NimState) -> Option<Outcome> {
        if state.piles.iter().all(|&p| p == 0) {
            let winner = if self.bonus {
                state.turn
            } else {
                1 - state.turn
            };
            let mut scores = [0, 0];
            scores[winner] = 1;
            return Some(Outcome {
                scores,
                winner: Some(winner),
                adjudicated: None,
            });
        }
        (state.ply >= self.max_plies).then_some(Outcome {
            scores: [0, 0],
            winner: None,
            adjudicated: Some("max_plies"),
        })
    }
}

/// The piles as rows of stones.
pub fn draw(state: &str, names: Option<[&str; 2]>) -> Result<String, ParseError> {
    let f = Fields::new("nim state", state);
    let mut s = String::new();
    for (i, p) in f.text("piles")?.split(',').enumerate() {
        let n: u32 = f.number(p, "pile")?;
        let _ = writeln!(s, "  {}: {} ({n})", pile_letter(i), "o".repeat(n as usize));
    }
    let turn: usize = f.get("turn")?;
    if turn > 1 {
        return Err(f.error("turn is 0 or 1"));
    }
    let _ = writeln!(
        s,
        "{} to move; ply {}",
        seat_name(names, turn),
        f.get::<u32>("ply")?
    );
    Ok(s)
}

/// Right after a bonus move, and a game that starts from a given state.
pub fn check_positions(_seed: u64) -> Vec<CheckPosition> {
    vec![
        CheckPosition {
            label: "position right after a bonus move (seat 0 moves again at ply 1)".into(),
            params: params(&[
                ("piles", "2"),
                ("stones", "3"),
                ("take", "3"),
                ("bonus", "true"),
            ]),
            start: Start::Moves(vec!["a3".into()]),
            seat: 0,
            max_decisions: 3,
        },
        CheckPosition {
            label: "position given as a state (seat 1 to move)".into(),
            params: params(&[("piles", "2"), ("stones", "3")]),
            start: Start::State("piles=1,2 turn=1 ply=3".into()),
            seat: 1,
            max_decisions: 3,
        },
    ]
}

/// Nim's registry entry: no board in the HTML report's replay viewer (its
/// replays list the moves and states) and no playout target.
pub const ENTRY: GameEntry = GameEntry::of::<Nim>("Nim", draw, check_positions);

#[cfg(test)]
mod tests {
    use super::*;

    fn nim(params: &[(&str, &str)]) -> Nim {
        Nim::from_params(&super::params(params)).unwrap()
    }

    #[test]
    fn the_last_stone_wins_with_and_without_bonus_moves() {
        let g = nim(&[("stones", "3")]);
        let mut s = g.initial_state();
        for m in ["a1", "a2"] {
            g.play(&mut s, &g.parse_move(m).unwrap()).unwrap();
        }
        assert_eq!(s.to_string(), "piles=0 turn=0 ply=2");
        assert_eq!(g.outcome(&s).unwrap().winner, Some(1));

        let g = nim(&[("piles", "2"), ("stones", "2"), ("bonus", "true")]);
        let mut s = g.initial_state();
        g.play(&mut s, &g.parse_move("a2").unwrap()).unwrap();
        assert_eq!(g.to_move(&s), 0, "emptying a pile earns a move");
        g.play(&mut s, &g.parse_move("b2").unwrap()).unwrap();
        let o = g.outcome(&s).unwrap();
        assert_eq!((o.winner, o.scores), (Some(0), [1, 0]));
        let mut legal = Vec::new();
        g.legal_moves(&s, &mut legal);
        assert!(legal.is_empty());
    }

    #[test]
    fn notation_round_trips_and_bad_text_is_refused() {
        let g = nim(&[("piles", "3"), ("stones", "5"), ("take", "3")]);
        let s = g.parse_state("piles=5,0,2 turn=1 ply=4").unwrap();
        assert_eq!(s.to_string(), "piles=5,0,2 turn=1 ply=4");
        let mut legal = Vec::new();
        g.legal_moves(&s, &mut legal);
        let text: Vec<String> = legal.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["a1", "a2", "a3", "c1", "c2"]);
        for m in &legal {
            assert_eq!(g.parse_move(&m.to_string()).unwrap(), *m);
        }
        assert!(g.parse_move("a4").is_ok(), "a move, if not a legal one");
        for bad in ["", "z9", "d1", "a0", "a10", "a", "1"] {
            let e = g.parse_move(bad).unwrap_err();
            assert_eq!(e.what, "nim move", "{bad}");
        }
        assert!(g.parse_state("piles=5,0 turn=0 ply=0").is_err());
        assert!(g.parse_state("piles=6,0,0 turn=0 ply=0").is_err());
    }

    #[test]
    fn max_plies_adjudicates_a_draw() {
        let g = nim(&[("stones", "9"), ("take", "1"), ("max_plies", "4")]);
        let mut s = g.initial_state();
        for _ in 0..4 {
            g.play(&mut s, &g.parse_move("a1").unwrap()).unwrap();
        }
        let o = g.outcome(&s).unwrap();
        assert_eq!((o.winner, o.adjudicated), (None, Some("max_plies")));
    }

    #[test]
    fn the_board_draws_one_row_per_pile() {
        let text = draw("piles=3,0 turn=1 ply=4", Some(["a", "b"])).unwrap();
        assert_eq!(text, "  a: ooo (3)\n  b:  (0)\nseat 1 (b) to move; ply 4\n");
    }
}
