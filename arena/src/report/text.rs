//! Games drawn as text for the terminal (`arena show`, `arena play`): the
//! board of a state by its game's drawer in the registry
//! ([`arena_core::games::GameEntry::draw`]), the moves, the result.

use std::fmt::Write as _;

use crate::display::escape;
use arena_core::record::GameRecord;

/// Draws a state of `game` for the terminal. `names` are the players of
/// seats 0 and 1 (escaped here). A state that cannot be drawn (a game
/// arena does not know, a notation its drawer cannot read) is shown as it
/// is, with the reason.
pub fn render_state(game: &str, state: &str, names: Option<[&str; 2]>) -> String {
    let names = names.map(|n| n.map(|name| escape(name).into_owned()));
    let names = names.as_ref().map(|[a, b]| [a.as_str(), b.as_str()]);
    let why = match arena_core::games::entry(game) {
        Ok(entry) => match (entry.draw)(state, names) {
            Ok(board) => return board,
            Err(e) => e.why,
        },
        Err(e) => e.to_string(),
    };
    format!(
        "{}\n(cannot draw this state: {})\n",
        escape(state),
        escape(&why)
    )
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
    s.push_str(&render_state(&record.game, state, Some(names)));
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
    fn unreadable_states_are_shown_raw_with_the_reason() {
        let text = render_state("latrunculi", "board=XX/XXX turn=0", None);
        assert!(text.contains("cannot draw"), "{text}");
        let text = render_state("chess", "rnbqkbnr/pppppppp", None);
        assert!(
            text.contains("cannot draw this state: unknown game `chess`"),
            "{text}"
        );
        // The game's drawer draws; names are made safe for the terminal.
        let text = render_state(
            "dakon",
            "pits=1,1,1,1,1,1 stores=0,0 turn=0 ply=0",
            Some(["a\u{1b}[2J", "b"]),
        );
        assert!(text.contains("seat 0 (a\\x1b[2J)"), "{text}");
    }
}
