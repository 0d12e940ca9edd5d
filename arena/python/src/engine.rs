//! The one file that touches the Rust engines. Everything else in this crate
//! sees a game only through the types here, which use nothing but the dynamic
//! registry API of `arena-core` (`new_game`, `AnyGame`, `AnyState`).

use arena_core::games::{self, AnyGame, AnyState, PlayError};
pub use arena_core::games::{Outcome, Spaces};

/// Why the engines refused something, sorted by the Python exception it becomes.
#[derive(Debug)]
pub enum Error {
    /// An unknown game, or a parameter it does not take or accept.
    Params(String),
    /// State or move text that is not in the game's notation.
    Notation(String),
    /// A well-formed move that is not legal in the position.
    Illegal(String),
}

/// The wire names of every game the engines know, in registry order.
pub fn names() -> Vec<&'static str> {
    games::GAMES.iter().map(|g| g.name).collect()
}

/// What the registry says of a game beyond its rules (the rest, defaults,
/// actions and observations, come from the game built with its defaults).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: &'static str,
    /// The name in words (OpenSpiel's long name).
    pub long_name: &'static str,
    /// Parameters whose default follows from another's (Dakon's `seeds`).
    pub derived_defaults: &'static [&'static str],
}

/// Every game the engines know, in registry order.
pub fn entries() -> Vec<Entry> {
    games::GAMES
        .iter()
        .map(|g| Entry {
            name: g.name,
            long_name: g.long_name,
            derived_defaults: g.derived_defaults,
        })
        .collect()
}

/// A game with its parameters fixed.
#[derive(Debug)]
pub struct Game(Box<dyn AnyGame>);

impl Game {
    pub fn new(name: &str, params: &[(String, String)]) -> Result<Self, Error> {
        games::new_game(name, params)
            .map(Game)
            .map_err(|e| Error::Params(e.to_string()))
    }

    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// Every parameter, defaults included, in the game's canonical order.
    pub fn params(&self) -> Vec<(String, String)> {
        self.0.params()
    }

    pub fn initial_state(&self) -> State {
        State(self.0.initial_state())
    }

    /// The board of a state drawn for the terminal, as `arena show` draws it.
    pub fn draw(&self, state: &State) -> String {
        let text = state.text();
        let entry = games::entry(self.name()).expect("a game built by name has an entry");
        // The engines' own text always draws; keep the text should it ever not.
        (entry.draw)(&text, None).unwrap_or(text)
    }

    /// The integer actions and observation tensor; `None` for a game without them.
    pub fn spaces(&self) -> Option<Spaces> {
        self.0.spaces()
    }

    /// The action id of a move in notation; `Ok(None)` for a game without actions.
    pub fn move_to_action(&self, mv: &str) -> Result<Option<usize>, Error> {
        self.0
            .move_to_action(mv)
            .map_err(|e| Error::Notation(e.to_string()))
    }

    /// Parses the protocol's state text.
    pub fn parse_state(&self, text: &str) -> Result<State, Error> {
        self.0
            .parse_state(text)
            .map(State)
            .map_err(|e| Error::Notation(e.to_string()))
    }
}

/// A position, bound to its game's parameters.
#[derive(Clone, Debug)]
pub struct State(Box<dyn AnyState>);

impl State {
    /// The seat to move (meaningful while the game is not over).
    pub fn to_move(&self) -> usize {
        self.0.to_move()
    }

    /// Every legal move in the protocol's notation and order; empty once the game is over.
    pub fn legal_moves(&self) -> Vec<String> {
        self.0.legal_moves()
    }

    /// Applies one move given as text; on error the state is unchanged.
    pub fn play(&mut self, mv: &str) -> Result<(), Error> {
        match self.0.play(mv) {
            Ok(_effects) => Ok(()),
            Err(e @ PlayError::Malformed(_)) => Err(Error::Notation(e.to_string())),
            // With the game's reason (which chain is the canonical one, say).
            Err(e @ PlayError::Illegal(..)) => Err(Error::Illegal(e.to_string())),
        }
    }

    /// `Some` once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }

    /// The protocol's state text.
    pub fn text(&self) -> String {
        self.0.to_string()
    }

    /// Replaces `out` with the legal action ids, increasing; empty once the game is over.
    pub fn legal_actions(&self, out: &mut Vec<usize>) {
        self.0.legal_actions(out)
    }

    /// The legal action ids in the generator's order (unsorted), each once.
    pub fn legal_action_ids(&self, out: &mut Vec<usize>) {
        self.0.legal_action_ids(out)
    }

    /// The legal move (notation) an action id stands for; `None` if no legal move has it.
    pub fn action_to_move(&self, action: usize) -> Option<String> {
        self.0.action_to_move(action)
    }

    /// Plays the legal move of an action id; `false`, the state unchanged, if none has it.
    pub fn apply_action(&mut self, action: usize) -> bool {
        self.0.apply_action(action)
    }

    /// Writes the position seen by `player` into `out` (the length of the game's
    /// observation); `false` for a game without observations.
    pub fn observation(&self, player: usize, out: &mut [f32]) -> bool {
        self.0.observation(player, out)
    }

    /// Each seat's material: seeds in the store, or pieces on the board and in hand.
    pub fn material(&self) -> [i32; 2] {
        self.0.material()
    }

    /// Plays uniformly random legal moves (ChaCha8 seeded with `seed`) until the
    /// game ends; returns the number of moves played.
    pub fn random_playout(&mut self, seed: u64) -> u64 {
        self.0.random_playout(seed)
    }
}
