//! `arena play`: people play at the terminal, against each other or against
//! a move source (a bot). The board is drawn with [`crate::report::text`],
//! the legal moves are listed, and a person's bad entry gets a message saying
//! whether it was not a move at all or not legal here, then another try.
//!
//! Bots come in through [`MoveSource`], so this module needs no processes:
//! the bot runner implements it.

use std::io::{self, BufRead, Write};

use crate::display::escape;
use crate::report::text::render_state;
use arena_core::games::{AnyGame, AnyState, Outcome, PlayError, Seat};

/// How a terminal game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayEnd {
    /// The rules ended it.
    Finished(Outcome),
    /// Someone typed `quit`, or the input ended.
    Abandoned,
    /// A move source failed or sent a move that is not legal: `seat` loses.
    Forfeit {
        /// The seat that loses.
        seat: Seat,
        /// What it did wrong.
        why: String,
    },
}

/// Why a [`MoveSource`] gave no move (it forfeits): its own error type,
/// whose Display says why.
pub type SourceError = Box<dyn std::error::Error + Send + Sync>;

/// Where a seat's moves come from when no person types them: a bot.
pub trait MoveSource {
    /// Chooses a move for the seat to move. `state` is the position's
    /// notation, `legal` its legal moves and `history` every move so far
    /// (seat, move). An `Err` is a failure (crash, timeout...) that forfeits.
    fn choose(
        &mut self,
        state: &str,
        legal: &[String],
        history: &[(Seat, String)],
    ) -> Result<String, SourceError>;

    /// The `info` lines the source sent since the last call, to show.
    fn take_info(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Told once the game is over, with every move (a bot may want
    /// `gameover`).
    fn finish(&mut self, _end: &PlayEnd, _history: &[(Seat, String)]) {}
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

/// Reads one person's move: `Ok(None)` when they quit or the input ended.
fn read_human_move(
    state: &mut dyn AnyState,
    seat: Seat,
    names: [&str; 2],
    legal: &[String],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Option<String>> {
    loop {
        write!(out, "seat {seat} ({})> ", names[seat])?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\ninput ended; game abandoned.")?;
            return Ok(None);
        }
        let mv = line.trim();
        match mv {
            "" => continue,
            "quit" | "exit" => {
                writeln!(out, "game abandoned.")?;
                return Ok(None);
            }
            "moves" | "help" | "?" => {
                writeln!(out, "legal moves:\n  {}", wrap_moves(legal))?;
                continue;
            }
            _ => {}
        }
        match state.play(mv) {
            Ok(_) => return Ok(Some(mv.to_string())),
            Err(PlayError::Malformed(e)) => writeln!(
                out,
                "`{mv}` is not a move: {}. Type one of the legal moves, e.g. `{}`.",
                e.why,
                legal.first().map(String::as_str).unwrap_or("?")
            )?,
            Err(PlayError::Illegal(_, why)) => writeln!(
                out,
                "`{mv}` is a move but not a legal one here{}. Legal moves:\n  {}",
                why.map(|w| format!(" ({w})")).unwrap_or_default(),
                wrap_moves(legal)
            )?,
        }
    }
}

/// Plays one game of `game`. A seat with a [`MoveSource`] in `bots` is
/// played by it; the others are typed by people at `input`. `names` label
/// the seats.
pub fn play(
    game: &dyn AnyGame,
    names: [&str; 2],
    mut bots: [Option<&mut dyn MoveSource>; 2],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<PlayEnd> {
    let mut state: Box<dyn AnyState> = game.initial_state();
    let mut history: Vec<(Seat, String)> = Vec::new();
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
    let end = loop {
        let text = state.to_string();
        writeln!(out, "\n{}", render_state(game.name(), &text, Some(names)))?;
        if let Some(outcome) = state.outcome() {
            writeln!(out, "game over: {}", describe_outcome(&outcome, names))?;
            writeln!(out, "final state: {text}")?;
            break PlayEnd::Finished(outcome);
        }
        let seat = state.to_move();
        let legal = state.legal_moves();
        if let Some(bot) = bots[seat].as_deref_mut() {
            writeln!(out, "seat {seat} ({}) is thinking...", names[seat])?;
            out.flush()?;
            let forfeit = |why: String| PlayEnd::Forfeit { seat, why };
            let choice = bot.choose(&text, &legal, &history);
            for line in bot.take_info() {
                writeln!(out, "  info: {}", escape(&line))?;
            }
            match choice {
                Err(why) => break forfeit(why.to_string()),
                Ok(mv) => match state.play(&mv) {
                    Ok(_) => {
                        writeln!(out, "seat {seat} ({}) plays {mv}", names[seat])?;
                        history.push((seat, mv));
                    }
                    Err(e) => break forfeit(format!("sent `{mv}`: {e}")),
                },
            }
            continue;
        }
        writeln!(
            out,
            "legal moves ({}):\n  {}",
            legal.len(),
            wrap_moves(&legal)
        )?;
        match read_human_move(state.as_mut(), seat, names, &legal, input, out)? {
            Some(mv) => history.push((seat, mv)),
            None => break PlayEnd::Abandoned,
        }
    };
    if let PlayEnd::Forfeit { seat, why } = &end {
        writeln!(
            out,
            "seat {seat} ({}) forfeits: {}. seat {} ({}) wins.",
            names[*seat],
            escape(why),
            1 - seat,
            names[1 - seat]
        )?;
    }
    for bot in bots.iter_mut().flatten() {
        bot.finish(&end, &history);
    }
    Ok(end)
}

/// Plays one game with both seats typed by people.
pub fn play_humans(
    game: &dyn AnyGame,
    names: [&str; 2],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<PlayEnd> {
    play(game, names, [None, None], input, out)
}
