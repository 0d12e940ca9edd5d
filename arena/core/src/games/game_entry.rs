//! What a game gives arena's front ends besides its rules: [`GameEntry`].
//! Each game's own module builds its entry (`dakon_view::ENTRY`,
//! `latrunculi_view::ENTRY`, `nim::ENTRY`) and the registry lists them;
//! this module only has the types, so that a game's module and the
//! registry depend on it and not on each other.
//!
//! Everything else a front end needs comes from the [`Game`] trait itself:
//! the parameters and their defaults (`from_params(&[])` then `params()`),
//! the integer actions and the observation tensor (`spaces`,
//! `move_to_action`, `observation`), as OpenSpiel has them on its games.

use super::{AnyGame, Game, ParamError, Params, ParseError, Seat};
use crate::playout::Throughput;

/// A game's constructor from `key=value` parameters.
pub type NewGame = fn(&[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError>;

/// One game and what arena needs to run, show and test it.
#[derive(Clone, Copy, Debug)]
pub struct GameEntry {
    /// The name on the wire, on the command line and in records.
    pub name: &'static str,
    /// The game's name in words (OpenSpiel's long name, help texts).
    pub long_name: &'static str,
    /// Builds the game from `key=value` parameters (see [`Game::from_params`]).
    pub new: NewGame,
    /// Parameters whose default follows from another parameter (Dakon's
    /// `seeds`: as many as `holes`). Front ends whose defaults are constants
    /// (OpenSpiel's parameter specification) say "derived" for them (0) and
    /// leave them out when given so.
    pub derived_defaults: &'static [&'static str],
    /// Draws a state (its notation) as text for the terminal; `names` (seat
    /// 0, seat 1) come already made safe for a terminal. The error says what
    /// in the notation did not fit.
    pub draw: fn(&str, Option<[&str; 2]>) -> Result<String, ParseError>,
    /// The replay viewer's board for this game in the HTML report, or
    /// `None`: the replay then says it has no board for the game and lists
    /// the moves and states.
    pub replay_drawer: Option<ReplayDrawer>,
    /// Positions worth a bot's attention beside whole games (`arena
    /// check-bot`): the game's odd corners, from a seed.
    pub check_positions: fn(u64) -> Vec<CheckPosition>,
    /// Random-playout throughput with the default parameters over about
    /// `seconds` from `seed` ([`crate::playout::throughput`], monomorphised
    /// for the game: the engine's own speed, not the `dyn` view's).
    pub throughput: fn(f64, u64) -> Throughput,
    /// What `arena bench` compares [`GameEntry::throughput`] with: a plain C
    /// implementation of the same rules on this kind of machine (moves per
    /// second, one core), for a game that has one.
    pub playout_target: Option<f64>,
}

/// A game's board in the HTML report's replay viewer (and the ladder's
/// game and live pages, which reuse its script).
#[derive(Clone, Copy, Debug)]
pub struct ReplayDrawer {
    /// The key the page's data gives each game of this kind (`drawer`).
    pub key: &'static str,
    /// A JavaScript expression (the game's `<game>_view.js`, through
    /// `include_str!`) whose value is the drawer, `function (state, names,
    /// lastMove, prevState, effects)` returning an SVG element. The report
    /// puts it inside its own script, so it may use the helpers there
    /// (`svg`, `append`, `fields`).
    pub script: &'static str,
}

impl GameEntry {
    /// The entry of game `G`: its name, long name, terminal drawer and
    /// check-bot positions; no replay drawer, no derived defaults, no
    /// playout target until the `with_` methods add them.
    pub const fn of<G: Game>(
        long_name: &'static str,
        draw: fn(&str, Option<[&str; 2]>) -> Result<String, ParseError>,
        check_positions: fn(u64) -> Vec<CheckPosition>,
    ) -> GameEntry {
        GameEntry {
            name: G::NAME,
            long_name,
            new: construct::<G>,
            derived_defaults: &[],
            draw,
            replay_drawer: None,
            check_positions,
            throughput: default_throughput::<G>,
            playout_target: None,
        }
    }

    /// This entry with a board in the replay viewer.
    pub const fn with_replay_drawer(self, key: &'static str, script: &'static str) -> GameEntry {
        GameEntry {
            replay_drawer: Some(ReplayDrawer { key, script }),
            ..self
        }
    }

    /// This entry with parameters whose default follows from others.
    pub const fn with_derived_defaults(self, keys: &'static [&'static str]) -> GameEntry {
        GameEntry {
            derived_defaults: keys,
            ..self
        }
    }

    /// This entry with a playout target (moves per second).
    pub const fn with_playout_target(self, moves_per_sec: f64) -> GameEntry {
        GameEntry {
            playout_target: Some(moves_per_sec),
            ..self
        }
    }

    /// The game with its default parameters.
    pub fn default_game(&self) -> Box<dyn AnyGame> {
        (self.new)(&[]).expect("every game has default parameters")
    }
}

fn default_throughput<G: Game>(seconds: f64, seed: u64) -> Throughput {
    let game = G::from_params(&[]).expect("every game has default parameters");
    crate::playout::throughput(&game, seconds, seed)
}

fn construct<G: Game>(params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    Ok(Box::new(G::from_params(params)?))
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
