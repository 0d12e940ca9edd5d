//! The bench's own game, for the referee's cost per move without an
//! engine's.

use std::fmt;

use arena_core::games::{Game, Outcome, ParamError, Params, ParseError, Seat};

/// Plies of a [`Toy`] game.
pub const TOY_PLIES: u32 = 400;

/// A bench-only game: 7 legal moves per position and a state line of
/// Dakon's size, so that the figure is the referee's cost, not an engine's.
#[derive(Clone, Debug)]
pub struct Toy;

#[derive(Clone, Debug, PartialEq)]
pub struct ToyState {
    ply: u32,
    pits: [u8; 14],
}

impl fmt::Display for ToyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pits=")?;
        for (i, p) in self.pits.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, " stores=0,0 turn={} ply={}", self.ply % 2, self.ply)
    }
}

impl Game for Toy {
    const NAME: &'static str = "toy";
    type State = ToyState;
    type Move = u8;
    type Effects = ();
    fn from_params(_: &[(String, String)]) -> Result<Self, ParamError> {
        Ok(Toy)
    }
    fn params(&self) -> Params {
        vec![("plies".into(), TOY_PLIES.to_string())]
    }
    fn initial_state(&self) -> ToyState {
        ToyState {
            ply: 0,
            pits: [7; 14],
        }
    }
    fn parse_state(&self, text: &str) -> Result<ToyState, ParseError> {
        Err(ParseError::new("toy state", "not needed", text))
    }
    fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
        text.parse()
            .map_err(|_| ParseError::new("toy move", "a number", text))
    }
    fn to_move(&self, s: &ToyState) -> Seat {
        (s.ply % 2) as Seat
    }
    fn legal_moves(&self, s: &ToyState, out: &mut Vec<u8>) {
        out.clear();
        if s.ply < TOY_PLIES {
            let base = if s.ply.is_multiple_of(2) { 7 } else { 0 };
            out.extend(base..base + 7);
        }
    }
    fn apply(&self, s: &mut ToyState, mv: &u8) {
        s.pits[*mv as usize] = s.pits[*mv as usize].wrapping_add(1) % 10;
        s.ply += 1;
    }
    fn outcome(&self, s: &ToyState) -> Option<Outcome> {
        (s.ply >= TOY_PLIES).then_some(Outcome {
            scores: [0, 0],
            winner: None,
            adjudicated: None,
        })
    }
}
