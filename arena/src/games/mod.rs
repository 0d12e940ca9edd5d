//! The rules engines: one module per game behind the [`Game`] trait, plus a
//! type-erased view ([`AnyGame`]/[`AnyState`]) the referee uses so that the
//! game can be chosen at run time by its wire name.
//!
//! Engines are pure: no I/O, no clocks, no processes, no randomness. A third
//! game is added by writing one module that implements [`Game`] and adding one
//! line to [`GAMES`].

pub mod dakon;
pub mod latrunculi;

use std::fmt::{self, Debug, Display};

use serde::Serialize;

/// A seat at the table. Seat 0 moves first in both games.
pub type Seat = usize;

/// Game parameters as `key=value` pairs, in the game's canonical order.
pub type Params = Vec<(String, String)>;

/// How a finished game came out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Each seat's score: seeds in the store (Dakon), pieces on the board
    /// (Ludus latrunculorum).
    pub scores: [i32; 2],
    /// `None` for a draw.
    pub winner: Option<Seat>,
    /// `None` when the rules ended the game; otherwise the safeguard that
    /// adjudicated it (`max_plies`, `quiet_plies`, `repetition`).
    pub adjudicated: Option<&'static str>,
}

/// Why a parameter set was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("unknown game `{name}` (known games: {known})")]
    UnknownGame { name: String, known: String },
    #[error("unknown parameter `{key}` for {game} (valid: {valid})")]
    Unknown {
        game: &'static str,
        key: String,
        valid: String,
    },
    #[error("parameter `{key}` of {game}: `{value}` is not a valid value ({expected})")]
    Invalid {
        game: &'static str,
        key: String,
        value: String,
        expected: String,
    },
    #[error("parameter `{key}` given twice")]
    Duplicate { key: String },
}

/// Why a state or move text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {why} (in `{text}`)")]
pub struct ParseError {
    /// What was being parsed, e.g. "dakon state" or "latrunculi move".
    pub what: &'static str,
    /// What was wrong with it, in plain words.
    pub why: String,
    /// The offending text, truncated to a readable length.
    pub text: String,
}

impl ParseError {
    pub fn new(what: &'static str, why: impl Into<String>, text: &str) -> Self {
        const MAX: usize = 120;
        let text = match text.char_indices().nth(MAX) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text.to_string(),
        };
        ParseError {
            what,
            why: why.into(),
            text,
        }
    }
}

/// A move that is well-formed but not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move `{0}`")]
pub struct IllegalMove(pub String);

/// One game's rules, in the OpenSpiel split: the value implementing `Game`
/// holds the immutable parameters; `State` is a position.
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// The name on the wire and on the command line.
    const NAME: &'static str;

    type State: Clone + Debug + PartialEq + Display + Send + Sync;
    type Move: Clone + Debug + PartialEq + Display + Send + Sync;
    /// What applying one move did (laps, captures, traps...), for game
    /// records and tests. Cheap to build: it sits on the hot path.
    type Effects: Clone + Debug + PartialEq + Serialize;

    /// Builds the game from `key=value` parameters; missing keys take their
    /// defaults, unknown keys and out-of-range values are errors.
    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError>;

    /// Every parameter with its value, defaults included, in canonical order.
    fn params(&self) -> Params;

    fn initial_state(&self) -> Self::State;

    /// Parses state notation and checks it fits these parameters.
    fn parse_state(&self, text: &str) -> Result<Self::State, ParseError>;

    /// Parses move notation and checks it fits these parameters (board size);
    /// it does not check legality in any position.
    fn parse_move(&self, text: &str) -> Result<Self::Move, ParseError>;

    /// The seat to act in `state` (meaningful while the game is not over).
    fn to_move(&self, state: &Self::State) -> Seat;

    /// Replaces the contents of `out` with every legal move, in a fixed order.
    /// Empty if and only if the game is over.
    fn legal_moves(&self, state: &Self::State, out: &mut Vec<Self::Move>);

    /// Applies a legal move. Behaviour on an illegal move is unspecified (it
    /// must not be relied on); use [`Game::play`] for untrusted input.
    fn apply(&self, state: &mut Self::State, mv: &Self::Move) -> Self::Effects;

    /// `Some` once the game is over.
    fn outcome(&self, state: &Self::State) -> Option<Outcome>;

    /// Why `mv`, which is not legal in `state`, is refused, when the rules
    /// say more than that it is not in the legal list (a Ludus
    /// latrunculorum jump chain that is not the canonical one).
    fn why_illegal(&self, _state: &Self::State, _mv: &Self::Move) -> Option<String> {
        None
    }

    /// Applies `mv` if it is legal in `state`; otherwise leaves `state` as it was.
    fn play(&self, state: &mut Self::State, mv: &Self::Move) -> Result<Self::Effects, IllegalMove> {
        let mut legal = Vec::new();
        self.legal_moves(state, &mut legal);
        if legal.contains(mv) {
            Ok(self.apply(state, mv))
        } else {
            Err(IllegalMove(mv.to_string()))
        }
    }
}

/// A game chosen at run time: what the referee and the tools see.
pub trait AnyGame: Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn params(&self) -> Params;
    fn initial_state(&self) -> Box<dyn AnyState>;
    fn parse_state(&self, text: &str) -> Result<Box<dyn AnyState>, ParseError>;
}

/// A position of a game chosen at run time. Moves travel as text, as on the wire.
pub trait AnyState: Debug + Display + Send + Sync {
    fn to_move(&self) -> Seat;
    /// Every legal move in notation, in the game's fixed order.
    fn legal_moves(&self) -> Vec<String>;
    /// Parses and applies one move; on error the state is unchanged.
    fn play(&mut self, mv: &str) -> Result<serde_json::Value, PlayError>;
    fn outcome(&self) -> Option<Outcome>;
    fn clone_box(&self) -> Box<dyn AnyState>;
    /// Plays uniformly random legal moves (ChaCha8 seeded with `seed`) until the
    /// game ends and returns how many: playouts without a round trip through
    /// move text (the Python package's `State.playout`).
    fn random_playout(&mut self, seed: u64) -> u64;
}

impl Clone for Box<dyn AnyState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Why a move sent as text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Malformed(#[from] ParseError),
    /// Not legal in the position, and why when the game says more
    /// ([`Game::why_illegal`]).
    #[error("{}{}", .0, because(.1))]
    Illegal(IllegalMove, Option<String>),
}

fn because(why: &Option<String>) -> String {
    why.as_ref().map(|w| format!(": {w}")).unwrap_or_default()
}

/// A game's state bundled with its parameters, so it can stand alone behind `dyn`.
#[derive(Clone, Debug)]
struct Bound<G: Game> {
    game: G,
    state: G::State,
}

impl<G: Game> Display for Bound<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.state, f)
    }
}

impl<G: Game> AnyState for Bound<G> {
    fn to_move(&self) -> Seat {
        self.game.to_move(&self.state)
    }

    fn legal_moves(&self) -> Vec<String> {
        let mut moves = Vec::new();
        self.game.legal_moves(&self.state, &mut moves);
        moves.iter().map(ToString::to_string).collect()
    }

    fn play(&mut self, mv: &str) -> Result<serde_json::Value, PlayError> {
        let mv = self.game.parse_move(mv)?;
        let effects = self
            .game
            .play(&mut self.state, &mv)
            .map_err(|e| PlayError::Illegal(e, self.game.why_illegal(&self.state, &mv)))?;
        Ok(serde_json::to_value(effects).expect("effects serialize to JSON"))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome(&self.state)
    }

    fn clone_box(&self) -> Box<dyn AnyState> {
        Box::new(self.clone())
    }

    fn random_playout(&mut self, seed: u64) -> u64 {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        crate::playout::random_playout(&self.game, &mut self.state, &mut rng, &mut Vec::new()).0
    }
}

impl<G: Game> AnyGame for G {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn params(&self) -> Params {
        Game::params(self)
    }

    fn initial_state(&self) -> Box<dyn AnyState> {
        Box::new(Bound {
            game: self.clone(),
            state: Game::initial_state(self),
        })
    }

    fn parse_state(&self, text: &str) -> Result<Box<dyn AnyState>, ParseError> {
        Ok(Box::new(Bound {
            game: self.clone(),
            state: Game::parse_state(self, text)?,
        }))
    }
}

type Constructor = fn(&[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError>;

fn construct<G: Game>(params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    Ok(Box::new(G::from_params(params)?))
}

/// The registry: every game arena knows, by wire name. Add a game here.
pub const GAMES: &[(&str, Constructor)] = &[
    (dakon::Dakon::NAME, construct::<dakon::Dakon>),
    (
        latrunculi::Latrunculi::NAME,
        construct::<latrunculi::Latrunculi>,
    ),
];

/// Builds a game by its wire name from `key=value` parameters.
pub fn new_game(name: &str, params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    let (_, make) = GAMES
        .iter()
        .find(|(known, _)| *known == name)
        .ok_or_else(|| ParamError::UnknownGame {
            name: name.to_string(),
            known: GAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        })?;
    make(params)
}

/// Reads parameters into a game's fields: the shared part of every
/// `from_params` (unknown keys, duplicates, number parsing).
pub struct ParamReader<'a> {
    game: &'static str,
    params: &'a [(String, String)],
    valid: &'static [&'static str],
}

impl<'a> ParamReader<'a> {
    /// Checks that every key is one of `valid` and none repeats.
    pub fn new(
        game: &'static str,
        params: &'a [(String, String)],
        valid: &'static [&'static str],
    ) -> Result<Self, ParamError> {
        for (i, (key, _)) in params.iter().enumerate() {
            if !valid.contains(&key.as_str()) {
                return Err(ParamError::Unknown {
                    game,
                    key: key.clone(),
                    valid: valid.join(", "),
                });
            }
            if params[..i].iter().any(|(k, _)| k == key) {
                return Err(ParamError::Duplicate { key: key.clone() });
            }
        }
        Ok(ParamReader {
            game,
            params,
            valid,
        })
    }

    fn raw(&self, key: &str) -> Option<&'a str> {
        debug_assert!(self.valid.contains(&key));
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// An integer in `range`, or `default` when absent.
    pub fn int(
        &self,
        key: &str,
        default: u32,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<u32, ParamError> {
        let Some(text) = self.raw(key) else {
            return Ok(default);
        };
        match text.parse::<u32>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(self.invalid(
                key,
                text,
                format!("an integer from {} to {}", range.start(), range.end()),
            )),
        }
    }

    /// `true`/`false`, or `default` when absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, ParamError> {
        match self.raw(key) {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(text) => Err(self.invalid(key, text, "true or false".into())),
        }
    }

    pub fn invalid(&self, key: &str, value: &str, expected: String) -> ParamError {
        ParamError::Invalid {
            game: self.game,
            key: key.to_string(),
            value: value.to_string(),
            expected,
        }
    }
}

/// Parses `key=value` command-line text into parameters.
pub fn parse_param(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected key=value, got `{text}`")),
    }
}
