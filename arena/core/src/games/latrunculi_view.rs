//! Ludus latrunculorum outside its rules: the board drawn as text for the
//! terminal (from the state notation alone) and the positions `arena
//! check-bot` tries.

use std::fmt::Write as _;

use super::game_entry::{params, CheckPosition, GameEntry, Start};
use super::notation::{seat_name, Fields};
use super::ParseError;

/// A square of Ludus latrunculorum: who owns the piece and whether it is trapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The owner.
    pub seat: usize,
    /// Trapped (written `x`/`o`).
    pub trapped: bool,
}

/// A Ludus latrunculorum position as its notation gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatrunculiView {
    /// Files.
    pub width: usize,
    /// Ranks.
    pub height: usize,
    /// Row-major from the TOP rank down, files left to right.
    pub squares: Vec<Option<Piece>>,
    /// The seat to move.
    pub turn: usize,
    /// `place` or `move`.
    pub phase: String,
    /// Pieces still to place, per seat.
    pub hand: [u32; 2],
    /// Plies without a capture.
    pub quiet: u64,
    /// Moves made.
    pub ply: u64,
}

impl LatrunculiView {
    /// The square at `file` (0 = a) and `rank` (0 = rank 1).
    pub fn at(&self, file: usize, rank: usize) -> Option<Piece> {
        self.squares[(self.height - 1 - rank) * self.width + file]
    }
}

/// Reads `board=R/.../R turn=T phase=place|move hand=H0,H1 quiet=Q ply=K`:
/// ranks from the top, `X`/`O` free pieces of seats 0/1, `x`/`o` trapped
/// ones, numbers for runs of empty squares.
pub fn parse(state: &str) -> Result<LatrunculiView, ParseError> {
    let f = Fields::new("latrunculi state", state);
    let board = f.text("board")?;
    let mut squares = Vec::new();
    let mut width = None;
    let ranks: Vec<&str> = board.split('/').collect();
    for rank in &ranks {
        let start = squares.len();
        let mut run = 0usize;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                run = run * 10 + d as usize;
                continue;
            }
            squares.extend(std::iter::repeat_n(None, run));
            run = 0;
            let (seat, trapped) = match c {
                'X' => (0, false),
                'O' => (1, false),
                'x' => (0, true),
                'o' => (1, true),
                _ => return Err(f.error(format!("unknown square `{c}` in `{rank}`"))),
            };
            squares.push(Some(Piece { seat, trapped }));
        }
        squares.extend(std::iter::repeat_n(None, run));
        let w = squares.len() - start;
        if w == 0 || *width.get_or_insert(w) != w {
            return Err(f.error(format!("rank `{rank}` does not have the board's width")));
        }
    }
    Ok(LatrunculiView {
        width: width.unwrap_or(0),
        height: ranks.len(),
        squares,
        turn: f.get("turn")?,
        phase: f.text("phase")?.to_string(),
        hand: f.pair("hand")?,
        quiet: f.get("quiet")?,
        ply: f.get("ply")?,
    })
}

/// The file letter of column `file` (0 = a).
pub fn file_name(file: usize) -> char {
    (b'a' + file as u8) as char
}

/// The board for the terminal: a labelled grid, the pieces on the board
/// and in hand, the phase and who moves.
pub fn draw(state: &str, names: Option<[&str; 2]>) -> Result<String, ParseError> {
    let v = parse(state)?;
    let mut s = String::new();
    let files: String = (0..v.width).map(|f| format!(" {}", file_name(f))).collect();
    let _ = writeln!(s, "    {files}");
    for rank in (0..v.height).rev() {
        let _ = write!(s, "{:>3} ", rank + 1);
        for file in 0..v.width {
            let c = match v.at(file, rank) {
                None => '.',
                Some(Piece {
                    seat: 0,
                    trapped: false,
                }) => 'X',
                Some(Piece {
                    seat: 0,
                    trapped: true,
                }) => 'x',
                Some(Piece { trapped: false, .. }) => 'O',
                Some(Piece { trapped: true, .. }) => 'o',
            };
            let _ = write!(s, " {c}");
        }
        let _ = writeln!(s, "  {}", rank + 1);
    }
    let _ = writeln!(s, "    {files}");
    let count = |seat: usize| {
        v.squares
            .iter()
            .flatten()
            .filter(|p| p.seat == seat)
            .count()
    };
    let _ = writeln!(
        s,
        "X = {}: {} on board, {} in hand; O = {}: {} on board, {} in hand; x/o trapped",
        seat_name(names, 0),
        count(0),
        v.hand[0],
        seat_name(names, 1),
        count(1),
        v.hand[1]
    );
    let phase = if v.phase == "place" {
        "placement"
    } else {
        "movement"
    };
    let _ = writeln!(
        s,
        "{phase} phase; {} ({}) to move; quiet {}; ply {}",
        seat_name(names, v.turn),
        if v.turn == 0 { 'X' } else { 'O' },
        v.quiet,
        v.ply
    );
    Ok(s)
}

/// Example 3 of the Latrunculi rules: `xd6` is legal.
pub const REMOVAL: &str =
    "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42";
/// The X on a1 can jump a2, b3, c4, d5, e6 in turn: five chains, one per
/// square it can end on (`a1-a3` ... `a1-a3-c3-c5-e5-e7`), are legal moves.
pub const JUMP_CHAIN: &str =
    "board=7O/8/4O3/3O4/2O5/1O6/O7/X6X turn=0 phase=move hand=0,0 quiet=3 ply=40";
/// Example 1 of the Latrunculi rules: seat 1 places.
pub const PLACEMENT: &str =
    "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3";

/// Ludus latrunculorum's registry entry; the playout target is the plain C
/// figure of issue 1.
pub const ENTRY: GameEntry =
    GameEntry::of::<super::latrunculi::Latrunculi>("Ludus latrunculorum", draw, check_positions)
        .with_replay_drawer("latrunculi", include_str!("latrunculi_view.js"))
        .with_playout_target(0.9e6);

/// A removal, a long jump chain, the placement phase, a non-square board.
pub fn check_positions(_seed: u64) -> Vec<CheckPosition> {
    let at = |label: &str, state: &str, seat| CheckPosition {
        label: label.into(),
        params: Vec::new(),
        start: Start::State(state.into()),
        seat,
        max_decisions: 3,
    };
    vec![
        at("position where a removal (`xd6`) is legal", REMOVAL, 0),
        at(
            "position with a long jump chain (`a1-a3-c3-c5-e5-e7`)",
            JUMP_CHAIN,
            0,
        ),
        at("placement-phase position (seat 1 to place)", PLACEMENT, 1),
        CheckPosition {
            label: "non-square board (9 x 5, 6 pieces each)".into(),
            params: params(&[("width", "9"), ("height", "5"), ("pieces", "6")]),
            start: Start::Moves(Vec::new()),
            seat: 1,
            max_decisions: 12,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::new_game;

    #[test]
    fn latrunculi_states_draw_as_a_labelled_grid() {
        let state = "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=8 ply=41";
        let v = parse(state).expect("read as latrunculi");
        assert_eq!((v.width, v.height), (8, 8));
        assert_eq!(
            v.at(3, 5),
            Some(Piece {
                seat: 1,
                trapped: true
            })
        );
        assert_eq!(
            v.at(0, 7),
            Some(Piece {
                seat: 0,
                trapped: false
            })
        );
        let text = draw(state, None).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "     a b c d e f g h");
        assert_eq!(lines[1], "  8  X X . . . . O O  8");
        assert_eq!(lines[3], "  6  . . . o . . . .  6");
        assert!(text.contains("seat 1 (O) to move"), "{text}");
    }

    #[test]
    fn runs_of_more_than_nine_empty_squares_are_read() {
        let rank = "12";
        let board = [rank; 5].join("/");
        let state = format!("board={board} turn=0 phase=place hand=3,3 quiet=0 ply=0");
        let v = parse(&state).unwrap();
        assert_eq!((v.width, v.height), (12, 5));
        let text = draw(&state, None).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(" k l"), "{text}");
        assert!(
            lines[1].starts_with("  5  . ") && lines[1].ends_with(".  5"),
            "{text}"
        );
    }

    #[test]
    fn unreadable_states_are_refused_with_the_reason() {
        let e = draw("board=XX/XXX turn=0", None).unwrap_err();
        assert!(e.why.contains("does not have the board's width"), "{e}");
        assert!(parse("nonsense").is_err());
    }

    #[test]
    fn chosen_positions_are_what_their_labels_say() {
        let g = new_game("latrunculi", &[]).unwrap();
        let s = g.parse_state(REMOVAL).unwrap();
        assert!(s.legal_moves().contains(&"xd6".to_string()));
        let s = g.parse_state(JUMP_CHAIN).unwrap();
        let legal = s.legal_moves();
        for chain in [
            "a1-a3",
            "a1-a3-c3",
            "a1-a3-c3-c5",
            "a1-a3-c3-c5-e5",
            "a1-a3-c3-c5-e5-e7",
        ] {
            assert!(legal.contains(&chain.to_string()), "{chain} in {legal:?}");
        }
        let s = g.parse_state(PLACEMENT).unwrap();
        assert_eq!(s.to_move(), 1);
        assert!(s.legal_moves().contains(&"d4".to_string()));
    }
}
