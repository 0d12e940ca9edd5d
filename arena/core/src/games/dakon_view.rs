//! Dakon outside its rules: the board drawn as text for the terminal (from
//! the state notation alone) and the positions `arena check-bot` tries.

use std::fmt::Write as _;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::dakon::Dakon;
use super::game_entry::{params, CheckPosition, GameEntry, Start};
use super::notation::{seat_name, Fields};
use super::{Game, ParseError, Seat};

/// A Dakon position as its notation gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DakonView {
    /// Pits 0..n-1 belong to seat 1 (top row), n..2n-1 to seat 0.
    pub pits: Vec<u32>,
    /// Seat 0's and seat 1's stores.
    pub stores: [u32; 2],
    /// The seat to move.
    pub turn: usize,
    /// Moves made.
    pub ply: u64,
}

/// Reads `pits=P0,...,P(2n-1) stores=S0,S1 turn=T ply=K`.
pub fn parse(state: &str) -> Result<DakonView, ParseError> {
    let f = Fields::new("dakon state", state);
    let pits = f
        .text("pits")?
        .split(',')
        .map(|p| f.number::<u32>(p, "pit"))
        .collect::<Result<Vec<_>, _>>()?;
    if pits.is_empty() || pits.len() % 2 != 0 {
        return Err(f.error(format!("{} pits is not two equal rows", pits.len())));
    }
    Ok(DakonView {
        pits,
        stores: f.pair("stores")?,
        turn: f.get("turn")?,
        ply: f.get("ply")?,
    })
}

/// The board for the terminal: both rows with their pit numbers, the
/// stores at the ends, who moves.
pub fn draw(state: &str, names: Option<[&str; 2]>) -> Result<String, ParseError> {
    let v = parse(state)?;
    let n = v.pits.len() / 2;
    let mut s = String::new();
    let labels = |s: &mut String, range: std::ops::Range<usize>| {
        s.push_str("       ");
        for i in range {
            let _ = write!(s, "{i:>4} ");
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    };
    labels(&mut s, 0..n);
    s.push_str("       ");
    for p in &v.pits[..n] {
        let _ = write!(s, "({p:>3})");
    }
    let _ = writeln!(s, "   {}", seat_name(names, 1));
    let _ = writeln!(
        s,
        " [{:>3}]{}[{:>3}]",
        v.stores[1],
        " ".repeat(5 * n + 1),
        v.stores[0]
    );
    s.push_str("       ");
    for p in &v.pits[n..] {
        let _ = write!(s, "({p:>3})");
    }
    let _ = writeln!(s, "   {}", seat_name(names, 0));
    labels(&mut s, n..2 * n);
    let _ = writeln!(
        s,
        "stores: {} {}, {} {}; {} to move; ply {}",
        seat_name(names, 0),
        v.stores[0],
        seat_name(names, 1),
        v.stores[1],
        seat_name(names, v.turn),
        v.ply
    );
    Ok(s)
}

/// Dakon's registry entry. `seeds` defaults to `holes`; the playout target
/// is the plain C figure of issue 1.
pub const ENTRY: GameEntry =
    GameEntry::of::<Dakon>("Dakon (Javanese mancala)", draw, check_positions)
        .with_derived_defaults(&["seeds"])
        .with_replay_drawer("dakon", include_str!("dakon_view.js"))
        .with_playout_target(8.0e6);

/// Right after a bonus move (the mover moves again), and the smallest and
/// largest boards.
pub fn check_positions(seed: u64) -> Vec<CheckPosition> {
    let (moves, seat, ply) = bonus_opening(&Dakon::default(), seed);
    let mut out = vec![CheckPosition {
        label: format!("position right after a bonus move (seat {seat} moves again at ply {ply})"),
        params: Vec::new(),
        start: Start::Moves(moves),
        seat,
        max_decisions: 3,
    }];
    for holes in ["3", "9"] {
        out.push(CheckPosition {
            label: format!("{holes}-hole board"),
            params: params(&[("holes", holes)]),
            start: Start::Moves(Vec::new()),
            seat: 0,
            max_decisions: if holes == "3" { 50 } else { 6 },
        });
    }
    out
}

/// Random moves from the start until a bonus move (the mover moves again)
/// past ply 6; returns the moves, the seat to move again and the ply.
pub fn bonus_opening(game: &Dakon, seed: u64) -> (Vec<String>, Seat, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xb0b0);
    let mut legal = Vec::new();
    for _ in 0..1000 {
        let mut state = game.initial_state();
        let mut moves = Vec::new();
        while game.outcome(&state).is_none() && moves.len() < 40 {
            game.legal_moves(&state, &mut legal);
            let mover = game.to_move(&state);
            let mv = legal[rng.random_range(0..legal.len())];
            game.apply(&mut state, &mv);
            moves.push(mv.to_string());
            if moves.len() > 6 && game.outcome(&state).is_none() && game.to_move(&state) == mover {
                let ply = moves.len();
                return (moves, mover, ply);
            }
        }
    }
    // Never reached in practice; the initial position is still a fair check.
    (Vec::new(), 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dakon_states_draw_with_both_rows_and_stores() {
        let state = "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1";
        let v = parse(state).expect("read as dakon");
        assert_eq!(v.pits.len(), 14);
        assert_eq!(v.stores, [9, 0]);
        let text = draw(state, Some(["alice", "bob"])).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[1].starts_with("       (  8)(  8)(  8)(  0)(  0)"),
            "{text}"
        );
        assert!(lines[1].ends_with("seat 1 (bob)"), "{text}");
        assert!(
            lines[2].starts_with(" [  0]") && lines[2].ends_with("[  9]"),
            "{text}"
        );
        assert!(
            lines[3].starts_with("       (  8)(  8)(  8)(  1)(  8)"),
            "{text}"
        );
        assert!(lines[4].contains("  13"), "{text}");
    }

    #[test]
    fn the_dakon_opening_ends_in_a_bonus_move() {
        let g = Dakon::default();
        let (moves, seat, ply) = bonus_opening(&g, 1);
        assert!(ply > 6);
        let mut s = g.initial_state();
        let mut last = 0;
        for m in &moves {
            last = g.to_move(&s);
            let mv = g.parse_move(m).unwrap();
            g.play(&mut s, &mv).unwrap();
        }
        assert_eq!(g.to_move(&s), seat);
        assert_eq!(last, seat, "the last move was the same seat's");
        assert!(g.outcome(&s).is_none());
    }
}
