//! `arena play`: people play at the terminal. The board is drawn with
//! [`crate::report::text`], the legal moves are listed, and a bad move gets
//! a message saying whether it was not a move at all or not legal here,
//! then another try.

use std::io::{self, BufRead, Write};

use crate::games::{AnyGame, AnyState, Outcome, PlayError};
use crate::report::text::render_state;

/// How a terminal game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayEnd {
    /// The rules ended it.
    Finished(Outcome),
    /// Someone typed `quit`, or the input ended.
    Abandoned,
}

fn wrap_moves(moves: &[String]) -> String {
    let mut out = String::new();
    let mut line = 0;
    for m in moves {
        if line > 0 && line + m.len() + 1 > 76 {
            out.push_str("\n  ");
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(m);
        line += m.len();
    }
    out
}

/// Describes an outcome in words, seat 0's score first.
pub fn describe_outcome(o: &Outcome, names: [&str; 2]) -> String {
    let who = match o.winner {
        Some(s) => format!("seat {s} ({}) wins", names[s]),
        None => "draw".to_string(),
    };
    let why = o
        .adjudicated
        .map(|a| format!(", adjudicated ({a})"))
        .unwrap_or_default();
    format!("{who}, scores {}-{}{why}", o.scores[0], o.scores[1])
}

/// Plays one game of `game` with every move read from `input`, both seats
/// typed by people. `names` label the seats.
pub fn play_humans(
    game: &dyn AnyGame,
    names: [&str; 2],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<PlayEnd> {
    let mut state: Box<dyn AnyState> = game.initial_state();
    let params: Vec<String> = game
        .params()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    writeln!(
        out,
        "{} ({}): type a move and Enter; `moves` lists them again, `quit` stops.",
        game.name(),
        params.join(" ")
    )?;
    loop {
        let text = state.to_string();
        writeln!(out, "\n{}", render_state(&text, Some(names)))?;
        if let Some(outcome) = state.outcome() {
            writeln!(out, "game over: {}", describe_outcome(&outcome, names))?;
            writeln!(out, "final state: {text}")?;
            return Ok(PlayEnd::Finished(outcome));
        }
        let seat = state.to_move();
        let legal = state.legal_moves();
        writeln!(
            out,
            "legal moves ({}):\n  {}",
            legal.len(),
            wrap_moves(&legal)
        )?;
        loop {
            write!(out, "seat {seat} ({})> ", names[seat])?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(out, "\ninput ended; game abandoned.")?;
                return Ok(PlayEnd::Abandoned);
            }
            let mv = line.trim();
            match mv {
                "" => continue,
                "quit" | "exit" => {
                    writeln!(out, "game abandoned.")?;
                    return Ok(PlayEnd::Abandoned);
                }
                "moves" | "help" | "?" => {
                    writeln!(out, "legal moves:\n  {}", wrap_moves(&legal))?;
                    continue;
                }
                _ => {}
            }
            match state.play(mv) {
                Ok(_) => break,
                Err(PlayError::Malformed(e)) => writeln!(
                    out,
                    "`{mv}` is not a move: {}. Type one of the legal moves, e.g. `{}`.",
                    e.why,
                    legal.first().map(String::as_str).unwrap_or("?")
                )?,
                Err(PlayError::Illegal(_)) => writeln!(
                    out,
                    "`{mv}` is a move but not a legal one here. Legal moves:\n  {}",
                    wrap_moves(&legal)
                )?,
            }
        }
    }
}
