//! The rules engines: one module per game behind the [`Game`] trait, plus a
//! type-erased view ([`AnyGame`]/[`AnyState`]) the referee uses so that the
//! game can be chosen at run time by its wire name.
//!
//! Engines are pure: no I/O, no clocks, no processes, no randomness. A third
//! game is added by writing one module that implements [`Game`] and builds
//! its [`GameEntry`], and adding that entry to [`GAMES`] (docs/architecture.md,
//! "Adding a game").

pub mod dakon;
pub mod dakon_view;
#[cfg(test)]
mod encoding_oracle;
pub mod game_entry;
// Its items' docs are the engine's business (another branch works on it).
#[allow(missing_docs)]
pub mod latrunculi;
pub mod latrunculi_view;
#[cfg(any(test, feature = "nim"))]
pub mod nim;
mod notation;
pub mod registry;

pub use game_entry::{CheckPosition, GameEntry, NewGame, ReplayDrawer, Start};
pub use registry::{entry, new_game, GAMES};

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

impl Outcome {
    /// Why the game ended, as records and `gameover` say it: `normal`, or
    /// `adjudicated` when a safeguard ended it.
    pub fn reason(&self) -> crate::record::Reason {
        if self.adjudicated.is_some() {
            crate::record::Reason::Adjudicated
        } else {
            crate::record::Reason::Normal
        }
    }
}

/// Why a parameter set was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// No game of that name in the registry.
    UnknownGame {
        /// The name asked for.
        name: String,
        /// The registry's names, comma-separated.
        known: String,
    },
    /// A key the game does not have.
    Unknown {
        /// The game.
        game: &'static str,
        /// The key given.
        key: String,
        /// The game's keys, comma-separated.
        valid: String,
    },
    /// A value out of range or of the wrong kind.
    Invalid {
        /// The game.
        game: &'static str,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What would be valid, in words.
        expected: String,
    },
    /// The same key twice.
    Duplicate {
        /// The key.
        key: String,
    },
}

// arena-core writes its few error types' messages by hand rather than with
// thiserror: two crates fewer for every bot built on it.
impl Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::UnknownGame { name, known } => {
                write!(f, "unknown game `{name}` (known games: {known})")
            }
            ParamError::Unknown { game, key, valid } => {
                write!(f, "unknown parameter `{key}` for {game} (valid: {valid})")
            }
            ParamError::Invalid {
                game,
                key,
                value,
                expected,
            } => write!(
                f,
                "parameter `{key}` of {game}: `{value}` is not a valid value ({expected})"
            ),
            ParamError::Duplicate { key } => write!(f, "parameter `{key}` given twice"),
        }
    }
}

impl std::error::Error for ParamError {}

/// Why a state or move text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What was being parsed, e.g. "dakon state" or "latrunculi move".
    pub what: &'static str,
    /// What was wrong with it, in plain words.
    pub why: String,
    /// The offending text, truncated to a readable length.
    pub text: String,
}

impl Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (in `{}`)", self.what, self.why, self.text)
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// What was parsed, why it was refused, and the text (cut to 120
    /// characters).
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub String);

impl Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move `{}`", self.0)
    }
}

impl std::error::Error for IllegalMove {}

/// One game's rules, in the OpenSpiel split: the value implementing `Game`
/// holds the immutable parameters; `State` is a position.
///
/// States and moves are plain values with a notation (`Display`, parsed
/// back by [`Game::parse_state`] and [`Game::parse_move`]); the referee, the
/// bots and the tests work with any game through this trait alone.
///
/// ```
/// use arena_core::games::{dakon::Dakon, Game};
///
/// let game = Dakon::from_params(&[("holes".into(), "5".into())])?;
/// let mut state = game.initial_state();
/// let mut legal = Vec::new();
/// game.legal_moves(&state, &mut legal);
/// assert_eq!(legal.len(), 5, "seat 0 may sow any of its five pits");
///
/// // Moves and states travel as text and read back as the same values.
/// let mv = game.parse_move(&legal[0].to_string())?;
/// game.play(&mut state, &mv)?;
/// assert_eq!(game.parse_state(&state.to_string())?, state);
/// assert!(game.outcome(&state).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Untrusted moves go through [`Game::play`], which refuses an illegal one
/// and leaves the state as it was:
///
/// ```
/// use arena_core::games::{latrunculi::Latrunculi, Game};
///
/// let game = Latrunculi::from_params(&[])?;
/// let mut state = game.initial_state();
/// let before = state.clone();
/// let mv = game.parse_move("a1-a3")?; // well-formed; no piece there yet
/// assert!(game.play(&mut state, &mv).is_err());
/// assert_eq!(state, before);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// The name on the wire and on the command line.
    const NAME: &'static str;

    /// A position; `Display` writes its notation.
    type State: Clone + Debug + PartialEq + Display + Send + Sync;
    /// A move; `Display` writes its notation.
    type Move: Clone + Debug + PartialEq + Display + Send + Sync;
    /// What applying one move did (laps, captures, traps...), for game
    /// records and tests. Cheap to build: it sits on the hot path.
    type Effects: Clone + Debug + PartialEq + Serialize;

    /// Builds the game from `key=value` parameters; missing keys take their
    /// defaults, unknown keys and out-of-range values are errors.
    fn from_params(params: &[(String, String)]) -> Result<Self, ParamError>;

    /// Every parameter with its value, defaults included, in canonical order.
    fn params(&self) -> Params;

    /// The position a game starts from.
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

    /// Each seat's material in any position, finished or not: what
    /// [`Outcome::scores`] counts at the end (seeds in the store for Dakon,
    /// pieces on the board and in hand for Ludus latrunculorum). The
    /// reference search of `arena openings --balanced` evaluates with it;
    /// a game without material says `[0, 0]`.
    fn material(&self, _state: &Self::State) -> [i32; 2] {
        [0, 0]
    }

    /// Whether `state` is still in a set-up phase that is not yet the game
    /// proper (Ludus latrunculorum's placement), which an opening suite
    /// plays through unless asked not to.
    fn in_setup(&self, _state: &Self::State) -> bool {
        false
    }

    /// The integer action space and the observation tensor (OpenSpiel's
    /// `num_distinct_actions`, `observation_tensor_shape`...); `None` for a
    /// game that defines neither, whose [`Game::move_to_action`] is `None`
    /// and whose [`Game::observation`] writes nothing.
    fn spaces(&self) -> Option<Spaces> {
        None
    }

    /// The action id of a move, `0 .. num_distinct_actions`: several moves
    /// may share one (the first of them in the legal list is the one the id
    /// plays). `None` when the game has no [`Game::spaces`].
    fn move_to_action(&self, _mv: &Self::Move) -> Option<usize> {
        None
    }

    /// Replaces the contents of `out` with the action ids of the legal
    /// moves, in increasing order, each once; empty once the game is over (or
    /// if the game has no [`Game::spaces`]).
    fn legal_actions(&self, state: &Self::State, out: &mut Vec<usize>) {
        let mut moves = Vec::new();
        self.legal_moves(state, &mut moves);
        out.clear();
        out.extend(moves.iter().filter_map(|mv| self.move_to_action(mv)));
        out.sort_unstable();
        out.dedup();
    }

    /// The same ids as [`Game::legal_actions`], each once, in whatever order
    /// the move generator finds them: for callers that only mark them (a
    /// batch of training games writing masks), which need not pay for the
    /// sort.
    fn legal_action_ids(&self, state: &Self::State, out: &mut Vec<usize>) {
        self.legal_actions(state, out)
    }

    /// The legal move an action id stands for in `state`: the first in the
    /// legal list with that id; `None` if no legal move has it.
    fn action_to_move(&self, state: &Self::State, action: usize) -> Option<Self::Move> {
        let mut moves = Vec::new();
        self.legal_moves(state, &mut moves);
        moves
            .into_iter()
            .find(|mv| self.move_to_action(mv) == Some(action))
    }

    /// Plays the legal move of an action id ([`Game::action_to_move`]);
    /// `None`, with `state` unchanged, if no legal move has that id.
    fn apply_action(&self, state: &mut Self::State, action: usize) -> Option<Self::Effects> {
        let mv = self.action_to_move(state, action)?;
        Some(self.apply(state, &mv))
    }

    /// Writes the position as numbers seen by seat `player` into `out`,
    /// whose length is the product of [`Spaces::observation_shape`]; every
    /// element is written. Returns `false`, leaving `out` alone, when the
    /// game has no [`Game::spaces`].
    fn observation(&self, _state: &Self::State, _player: Seat, _out: &mut [f32]) -> bool {
        false
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

/// A game's integer actions and observation tensor, as OpenSpiel describes a
/// game: what learning frameworks index their policies and networks by. The
/// encodings themselves are [`Game::move_to_action`] and
/// [`Game::observation`]; arena/python/README.md documents them for users.
#[derive(Clone, Debug, PartialEq)]
pub struct Spaces {
    /// Action ids run from 0 to this, exclusive.
    pub num_distinct_actions: usize,
    /// An upper bound on the number of moves of a game.
    pub max_game_length: usize,
    /// The shape of the observation tensor ([`Game::observation`] writes the
    /// product of it, in row-major order).
    pub observation_shape: Vec<usize>,
    /// The least and the greatest number an observation holds.
    pub observation_bounds: (f32, f32),
}

impl Spaces {
    /// The number of elements of an observation.
    pub fn observation_len(&self) -> usize {
        self.observation_shape.iter().product()
    }
}

/// A game chosen at run time: what the referee and the tools see.
pub trait AnyGame: Debug + Send + Sync {
    /// [`Game::NAME`].
    fn name(&self) -> &'static str;
    /// [`Game::params`].
    fn params(&self) -> Params;
    /// [`Game::initial_state`].
    fn initial_state(&self) -> Box<dyn AnyState>;
    /// [`Game::parse_state`].
    fn parse_state(&self, text: &str) -> Result<Box<dyn AnyState>, ParseError>;
    /// [`Game::spaces`].
    fn spaces(&self) -> Option<Spaces>;
    /// The action id of a move in notation ([`Game::move_to_action`]);
    /// `Ok(None)` when the game has no [`Game::spaces`].
    fn move_to_action(&self, mv: &str) -> Result<Option<usize>, ParseError>;
}

/// A position of a game chosen at run time. Moves travel as text, as on the wire.
pub trait AnyState: Debug + Display + Send + Sync {
    /// [`Game::to_move`].
    fn to_move(&self) -> Seat;
    /// Every legal move in notation, in the game's fixed order.
    fn legal_moves(&self) -> Vec<String>;
    /// Parses and applies one move; on error the state is unchanged.
    fn play(&mut self, mv: &str) -> Result<serde_json::Value, PlayError>;
    /// [`Game::outcome`].
    fn outcome(&self) -> Option<Outcome>;
    /// A copy behind a new box (what `Clone` for `Box<dyn AnyState>` uses).
    fn clone_box(&self) -> Box<dyn AnyState>;
    /// Plays uniformly random legal moves (ChaCha8 seeded with `seed`) until the
    /// game ends and returns how many: playouts without a round trip through
    /// move text (the Python package's `State.playout`).
    fn random_playout(&mut self, seed: u64) -> u64;
    /// [`Game::in_setup`].
    fn in_setup(&self) -> bool;
    /// The value of the position for seat 0 by the reference search
    /// ([`crate::search::reference_value`] at `depth` plies).
    fn reference_value(&self, depth: u32) -> i32;
    /// [`Game::material`].
    fn material(&self) -> [i32; 2];
    /// [`Game::legal_actions`].
    fn legal_actions(&self, out: &mut Vec<usize>);
    /// [`Game::legal_action_ids`].
    fn legal_action_ids(&self, out: &mut Vec<usize>);
    /// [`Game::action_to_move`], in notation.
    fn action_to_move(&self, action: usize) -> Option<String>;
    /// [`Game::apply_action`]: `false`, with the state unchanged, if no legal
    /// move has that id.
    fn apply_action(&mut self, action: usize) -> bool;
    /// [`Game::observation`].
    fn observation(&self, player: Seat, out: &mut [f32]) -> bool;
}

impl Clone for Box<dyn AnyState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Why a move sent as text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// Not a move of this game at all.
    Malformed(ParseError),
    /// Not legal in the position, and why when the game says more
    /// ([`Game::why_illegal`]).
    Illegal(IllegalMove, Option<String>),
}

impl Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::Malformed(e) => Display::fmt(e, f),
            PlayError::Illegal(e, None) => Display::fmt(e, f),
            PlayError::Illegal(e, Some(why)) => write!(f, "{e}: {why}"),
        }
    }
}

impl std::error::Error for PlayError {}

impl From<ParseError> for PlayError {
    fn from(e: ParseError) -> Self {
        PlayError::Malformed(e)
    }
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

    fn in_setup(&self) -> bool {
        self.game.in_setup(&self.state)
    }

    fn reference_value(&self, depth: u32) -> i32 {
        crate::search::reference_value(&self.game, &self.state, depth)
    }

    fn material(&self) -> [i32; 2] {
        self.game.material(&self.state)
    }

    fn legal_actions(&self, out: &mut Vec<usize>) {
        self.game.legal_actions(&self.state, out)
    }

    fn legal_action_ids(&self, out: &mut Vec<usize>) {
        self.game.legal_action_ids(&self.state, out)
    }

    fn action_to_move(&self, action: usize) -> Option<String> {
        let mv = self.game.action_to_move(&self.state, action)?;
        Some(mv.to_string())
    }

    fn apply_action(&mut self, action: usize) -> bool {
        self.game.apply_action(&mut self.state, action).is_some()
    }

    fn observation(&self, player: Seat, out: &mut [f32]) -> bool {
        self.game.observation(&self.state, player, out)
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

    fn spaces(&self) -> Option<Spaces> {
        Game::spaces(self)
    }

    fn move_to_action(&self, mv: &str) -> Result<Option<usize>, ParseError> {
        let mv = self.parse_move(mv)?;
        Ok(Game::move_to_action(self, &mv))
    }
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

    /// The error for `key`'s `value`, saying what would be `expected`.
    pub fn invalid(&self, key: &str, value: &str, expected: String) -> ParamError {
        ParamError::Invalid {
            game: self.game,
            key: key.to_string(),
            value: value.to_string(),
            expected,
        }
    }
}
