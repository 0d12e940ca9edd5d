//! Boards drawn as text for the terminal (`arena show`, `arena play`), read
//! from the games' state notations:
//!
//! - Dakon: `pits=P0,...,P(2n-1) stores=S0,S1 turn=T ply=K`;
//! - Ludus latrunculorum: `board=R/.../R turn=T phase=place|move hand=H0,H1
//!   quiet=Q ply=K`, ranks from the top, `X`/`O` free pieces of seats 0/1,
//!   `x`/`o` trapped ones, numbers for runs of empty squares.
//!
//! Only the notation is known here, not the rules.

use std::fmt::Write as _;

use crate::display::escape;
use arena_core::record::GameRecord;

/// A Dakon position as its notation gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DakonView {
    /// Pits 0..n-1 belong to seat 1 (top row), n..2n-1 to seat 0.
    pub pits: Vec<u32>,
    pub stores: [u32; 2],
    pub turn: usize,
    pub ply: u64,
}

/// A square of Ludus latrunculorum: who owns the piece and whether it is trapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub seat: usize,
    pub trapped: bool,
}

/// A Ludus latrunculorum position as its notation gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatrunculiView {
    pub width: usize,
    pub height: usize,
    /// Row-major from the TOP rank down, files left to right.
    pub squares: Vec<Option<Piece>>,
    pub turn: usize,
    /// `place` or `move`.
    pub phase: String,
    pub hand: [u32; 2],
    pub quiet: u64,
    pub ply: u64,
}

impl LatrunculiView {
    /// The square at `file` (0 = a) and `rank` (0 = rank 1).
    pub fn at(&self, file: usize, rank: usize) -> Option<Piece> {
        self.squares[(self.height - 1 - rank) * self.width + file]
    }
}

/// A position of either game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Board {
    Dakon(DakonView),
    Latrunculi(LatrunculiView),
}

fn fields(state: &str) -> Vec<(&str, &str)> {
    state
        .split_whitespace()
        .filter_map(|f| f.split_once('='))
        .collect()
}

fn field<'a>(fields: &[(&str, &'a str)], key: &str) -> Result<&'a str, String> {
    fields
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
        .ok_or_else(|| format!("no `{key}=` field"))
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a number ({what})"))
}

fn pair(text: &str, what: &str) -> Result<[u32; 2], String> {
    let v: Vec<&str> = text.split(',').collect();
    match v.as_slice() {
        [a, b] => Ok([number(a, what)?, number(b, what)?]),
        _ => Err(format!("{what} should be two numbers, got `{text}`")),
    }
}

/// Reads a state's notation. The error says what did not fit.
pub fn parse_board(state: &str) -> Result<Board, String> {
    let f = fields(state);
    if let Ok(pits) = field(&f, "pits") {
        let pits = pits
            .split(',')
            .map(|p| number::<u32>(p, "pit"))
            .collect::<Result<Vec<_>, _>>()?;
        if pits.is_empty() || pits.len() % 2 != 0 {
            return Err(format!("{} pits is not two equal rows", pits.len()));
        }
        return Ok(Board::Dakon(DakonView {
            pits,
            stores: pair(field(&f, "stores")?, "stores")?,
            turn: number(field(&f, "turn")?, "turn")?,
            ply: number(field(&f, "ply")?, "ply")?,
        }));
    }
    let board = field(&f, "board").map_err(|_| "neither `pits=` nor `board=`".to_string())?;
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
            squares.push(Some(match c {
                'X' => Piece {
                    seat: 0,
                    trapped: false,
                },
                'O' => Piece {
                    seat: 1,
                    trapped: false,
                },
                'x' => Piece {
                    seat: 0,
                    trapped: true,
                },
                'o' => Piece {
                    seat: 1,
                    trapped: true,
                },
                _ => return Err(format!("unknown square `{c}` in `{rank}`")),
            }));
        }
        squares.extend(std::iter::repeat_n(None, run));
        let w = squares.len() - start;
        if w == 0 || *width.get_or_insert(w) != w {
            return Err(format!("rank `{rank}` does not have the board's width"));
        }
    }
    Ok(Board::Latrunculi(LatrunculiView {
        width: width.unwrap_or(0),
        height: ranks.len(),
        squares,
        turn: number(field(&f, "turn")?, "turn")?,
        phase: field(&f, "phase")?.to_string(),
        hand: pair(field(&f, "hand")?, "hand")?,
        quiet: number(field(&f, "quiet")?, "quiet")?,
        ply: number(field(&f, "ply")?, "ply")?,
    }))
}

fn seat_name(names: Option<[&str; 2]>, seat: usize) -> String {
    match names {
        Some(n) => format!("seat {seat} ({})", escape(n[seat])),
        None => format!("seat {seat}"),
    }
}

/// The file letter(s) of column `file` (0 = a).
pub fn file_name(file: usize) -> char {
    (b'a' + file as u8) as char
}

fn dakon_text(v: &DakonView, names: Option<[&str; 2]>) -> String {
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
    s
}

fn latrunculi_text(v: &LatrunculiView, names: Option<[&str; 2]>) -> String {
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
    s
}

/// Draws a board for the terminal. `names` are the players of seats 0 and 1.
/// A state this module cannot read is shown as it is, with the reason.
pub fn render_state(state: &str, names: Option<[&str; 2]>) -> String {
    match parse_board(state) {
        Ok(Board::Dakon(v)) => dakon_text(&v, names),
        Ok(Board::Latrunculi(v)) => latrunculi_text(&v, names),
        Err(why) => format!(
            "{}\n(cannot draw this state: {})\n",
            escape(state),
            escape(&why)
        ),
    }
}

/// Moves as numbered lines: ply, seat, move, time used.
pub fn render_moves(record: &GameRecord, upto: usize) -> String {
    let mut s = String::new();
    for (i, m) in record.moves.iter().take(upto).enumerate() {
        let _ = write!(
            s,
            "{:>4}. seat {} {:<14} {:>8.1} ms",
            i + 1,
            m.seat,
            escape(&m.mv),
            m.ms
        );
        if i < record.opening_plies {
            s.push_str("  (opening)");
        }
        s.push('\n');
    }
    s
}

/// What `arena show` prints: the game's header, the moves up to `ply`, the
/// board after them and, at the end of the game, the result.
pub fn render_game(record: &GameRecord, ply: usize) -> String {
    let ply = ply.min(record.moves.len());
    let names = [record.seats[0].name.as_str(), record.seats[1].name.as_str()];
    let mut s = String::new();
    let params: Vec<String> = record
        .params
        .iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect();
    let _ = writeln!(
        s,
        "game {}: {} {}, seed {}; seat 0: {}, seat 1: {}",
        record.index,
        escape(&record.game),
        params.join(" "),
        record.seed,
        escape(names[0]),
        escape(names[1])
    );
    s.push_str(&render_moves(record, ply));
    let state = if ply == 0 {
        &record.initial_state
    } else {
        &record.moves[ply - 1].state
    };
    let _ = writeln!(s, "\nafter ply {ply} of {}:", record.moves.len());
    s.push_str(&render_state(state, Some(names)));
    if ply == record.moves.len() {
        let _ = write!(
            s,
            "result {} ({}), scores {}-{}",
            record.result, record.reason, record.scores[0], record.scores[1]
        );
        if let Some(d) = &record.detail {
            let _ = write!(s, ": {}", escape(d));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dakon_states_draw_with_both_rows_and_stores() {
        let state = "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1";
        let Ok(Board::Dakon(v)) = parse_board(state) else {
            panic!("not read as dakon")
        };
        assert_eq!(v.pits.len(), 14);
        assert_eq!(v.stores, [9, 0]);
        let text = render_state(state, Some(["alice", "bob"]));
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
    fn latrunculi_states_draw_as_a_labelled_grid() {
        let state = "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=8 ply=41";
        let Ok(Board::Latrunculi(v)) = parse_board(state) else {
            panic!("not read as latrunculi")
        };
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
        let text = render_state(state, None);
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
        let Ok(Board::Latrunculi(v)) = parse_board(&state) else {
            panic!()
        };
        assert_eq!((v.width, v.height), (12, 5));
        let text = render_state(&state, None);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(" k l"), "{text}");
        assert!(
            lines[1].starts_with("  5  . ") && lines[1].ends_with(".  5"),
            "{text}"
        );
    }

    #[test]
    fn unreadable_states_are_shown_raw_with_the_reason() {
        let text = render_state("board=XX/XXX turn=0", None);
        assert!(text.contains("cannot draw"), "{text}");
        assert!(parse_board("nonsense").is_err());
    }
}
