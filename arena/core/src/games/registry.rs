//! The registry: every game arena knows, by wire name, with everything the
//! tools need besides the rules. The referee, `arena match`, `check-bot`,
//! `show`, `play`, the HTML report, the bench and the help texts all loop
//! over [`GAMES`]; adding a game is its module and one line here.

use super::{dakon, dakon_view, latrunculi, latrunculi_view};
use super::{AnyGame, Game, ParamError, Params, ParseError, Seat};
use crate::playout::Throughput;

/// A game's constructor from `key=value` parameters.
pub type NewGame = fn(&[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError>;

/// One game and what arena needs to run, show and test it.
#[derive(Clone, Copy, Debug)]
pub struct GameEntry {
    /// The name on the wire, on the command line and in records.
    pub name: &'static str,
    /// Builds the game from `key=value` parameters (see [`Game::from_params`]).
    pub new: NewGame,
    /// Draws a state (its notation) as text for the terminal; `names` (seat
    /// 0, seat 1) come already made safe for a terminal. The error says what
    /// in the notation did not fit.
    pub draw: fn(&str, Option<[&str; 2]>) -> Result<String, ParseError>,
    /// The replay viewer's drawer for this game in the HTML report
    /// (`report.js`), or `None`: the replay then says it has no board for
    /// the game and lists the moves and states.
    pub replay_drawer: Option<&'static str>,
    /// Positions worth a bot's attention beside whole games (`arena
    /// check-bot`): the game's odd corners, from a seed.
    pub check_positions: fn(u64) -> Vec<CheckPosition>,
    /// Random-playout throughput with the default parameters over about
    /// `seconds` from `seed` ([`crate::playout::throughput`], monomorphised
    /// for the game: the engine's own speed, not the `dyn` view's).
    pub throughput: fn(f64, u64) -> Throughput,
}

impl GameEntry {
    /// The entry of game `G` with its drawer, replay drawer and positions.
    pub const fn of<G: Game>(
        draw: fn(&str, Option<[&str; 2]>) -> Result<String, ParseError>,
        replay_drawer: Option<&'static str>,
        check_positions: fn(u64) -> Vec<CheckPosition>,
    ) -> GameEntry {
        GameEntry {
            name: G::NAME,
            new: construct::<G>,
            draw,
            replay_drawer,
            check_positions,
            throughput: default_throughput::<G>,
        }
    }
}

fn default_throughput<G: Game>(seconds: f64, seed: u64) -> Throughput {
    let game = G::from_params(&[]).expect("every game has default parameters");
    crate::playout::throughput(&game, seconds, seed)
}

fn construct<G: Game>(params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    Ok(Box::new(G::from_params(params)?))
}

/// Every game arena knows. Add a game here.
pub const GAMES: &[GameEntry] = &[
    GameEntry::of::<dakon::Dakon>(dakon_view::draw, Some("dakon"), dakon_view::check_positions),
    GameEntry::of::<latrunculi::Latrunculi>(
        latrunculi_view::draw,
        Some("latrunculi"),
        latrunculi_view::check_positions,
    ),
    #[cfg(any(test, feature = "nim"))]
    super::nim::ENTRY,
];

/// The entry of the game called `name`.
pub fn entry(name: &str) -> Result<&'static GameEntry, ParamError> {
    GAMES
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| ParamError::UnknownGame {
            name: name.to_string(),
            known: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        })
}

/// Builds a game by its wire name from `key=value` parameters.
pub fn new_game(name: &str, params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    (entry(name)?.new)(params)
}

/// A position `arena check-bot` puts a bot in: a short game from a chosen
/// start, the bot in one seat and a random mover in the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckPosition {
    /// What the position is, in words (the check's label).
    pub label: String,
    /// The game's parameters (the defaults for those not given).
    pub params: Params,
    /// How the game gets there.
    pub start: Start,
    /// The bot's seat.
    pub seat: Seat,
    /// The most decisions the bot is asked for before the check stops.
    pub max_decisions: usize,
}

/// How a check game reaches its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// From the initial position after these moves (told as `played`).
    Moves(Vec<String>),
    /// From this state (told as the first `position`, without moves).
    State(String),
}

/// `key=value` pairs from `&str` pairs.
pub(crate) fn params(pairs: &[(&str, &str)]) -> Params {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_its_game_draws_it_and_checks_it() {
        for g in GAMES {
            let game = (g.new)(&[]).expect("default parameters");
            assert_eq!(game.name(), g.name);
            let state = game.initial_state().to_string();
            let board = (g.draw)(&state, Some(["a", "b"])).expect("the initial state draws");
            assert!(!board.is_empty());
            for p in (g.check_positions)(1) {
                let game = (g.new)(&p.params).expect(&p.label);
                let mut state = match &p.start {
                    Start::Moves(_) => game.initial_state(),
                    Start::State(text) => game.parse_state(text).expect(&p.label),
                };
                if let Start::Moves(moves) = &p.start {
                    for m in moves {
                        state.play(m).expect(&p.label);
                    }
                }
                assert!(state.outcome().is_none(), "{}: game over", p.label);
                assert!(p.seat < 2 && p.max_decisions > 0, "{}", p.label);
            }
        }
        assert!(entry("chess")
            .unwrap_err()
            .to_string()
            .contains("known games: dakon"));
    }
}
