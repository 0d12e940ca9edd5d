//! `arena_games._engine`: the Python classes over the Rust engines. The public
//! package `arena_games` (python/arena_games/) re-exports them; the API and its
//! documentation are in `arena_games/_engine.pyi`.

mod batch;
mod engine;

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};

use engine::Spaces;

create_exception!(
    arena_games,
    GameError,
    PyValueError,
    "Base class of every error arena_games raises for bad input (a ValueError)."
);
create_exception!(
    arena_games,
    ParameterError,
    GameError,
    "An unknown game, or a parameter the game does not take or accept."
);
create_exception!(
    arena_games,
    NotationError,
    GameError,
    "State or move text that is not in the game's notation (protocol.md)."
);
create_exception!(
    arena_games,
    IllegalMoveError,
    GameError,
    "A well-formed move or action that is not legal in the position (or the game is over)."
);

/// Parameters as `key=value` pairs, in the game's canonical order.
type Params = Vec<(String, String)>;

/// What `__reduce__` returns for pickling: the function that rebuilds, and its arguments.
type Reduced<Args> = (Py<PyAny>, Args);

/// OpenSpiel's player id for "nobody: the game is over" (`pyspiel.PlayerId.TERMINAL`).
const TERMINAL: i64 = -4;

fn to_py(error: engine::Error) -> PyErr {
    match error {
        engine::Error::Params(m) => ParameterError::new_err(m),
        engine::Error::Notation(m) => NotationError::new_err(m),
        engine::Error::Illegal(m) => IllegalMoveError::new_err(m),
    }
}

/// What a Game and every State of it share.
#[derive(Debug)]
struct Shared {
    engine: engine::Game,
    params: Params,
    /// The game's integer actions and observation tensor (arena-core's `Game::spaces`).
    spaces: Option<Spaces>,
}

impl Shared {
    fn spaces(&self) -> PyResult<&Spaces> {
        self.spaces.as_ref().ok_or_else(|| {
            PyNotImplementedError::new_err(format!(
                "no integer actions or observation tensors for {} yet",
                self.engine.name()
            ))
        })
    }
}

/// A game with fixed parameters: the factory of its states.
#[pyclass(module = "arena_games", frozen)]
struct Game {
    shared: Arc<Shared>,
}

impl Game {
    fn build(name: &str, params: &[(String, String)]) -> PyResult<Game> {
        let engine = engine::Game::new(name, params).map_err(to_py)?;
        let params = engine.params();
        let spaces = engine.spaces();
        Ok(Game {
            shared: Arc::new(Shared {
                engine,
                params,
                spaces,
            }),
        })
    }

    fn state(&self, inner: engine::State) -> State {
        State {
            shared: self.shared.clone(),
            inner,
        }
    }
}

/// A parameter value as the protocol writes it: bools as true/false, ints in decimal.
fn param_text(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.cast::<PyBool>() {
        Ok(if b.is_true() { "true" } else { "false" }.to_string())
    } else if value.is_instance_of::<PyInt>() {
        Ok(value.str()?.to_string())
    } else if let Ok(s) = value.cast::<PyString>() {
        Ok(s.to_string())
    } else {
        Err(ParameterError::new_err(format!(
            "parameter `{key}`: expected an int, a bool or a str, got {}",
            value.get_type().name()?
        )))
    }
}

/// A parameter value as Python sees it: int or bool where it is one.
fn param_value(py: Python<'_>, text: &str) -> Py<PyAny> {
    match text {
        "true" => true
            .into_pyobject(py)
            .unwrap()
            .to_owned()
            .into_any()
            .unbind(),
        "false" => false
            .into_pyobject(py)
            .unwrap()
            .to_owned()
            .into_any()
            .unbind(),
        _ => match text.parse::<i64>() {
            Ok(n) => n.into_pyobject(py).unwrap().into_any().unbind(),
            Err(_) => PyString::new(py, text).into_any().unbind(),
        },
    }
}

#[pymethods]
impl Game {
    /// The game's wire name, e.g. "dakon".
    #[getter]
    fn name(&self) -> &'static str {
        self.shared.engine.name()
    }

    /// Every parameter, defaults included, in the game's canonical order.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (key, value) in &self.shared.params {
            dict.set_item(key, param_value(py, value))?;
        }
        Ok(dict)
    }

    /// 2: both games are for two players; seat 0 moves first.
    fn num_players(&self) -> usize {
        2
    }

    /// The position before the first move.
    fn new_initial_state(&self) -> State {
        self.state(self.shared.engine.initial_state())
    }

    /// The position in the protocol's state notation; NotationError if it is not one.
    fn state_from_text(&self, text: &str) -> PyResult<State> {
        let inner = self.shared.engine.parse_state(text).map_err(to_py)?;
        Ok(self.state(inner))
    }

    /// The size of the integer action space (see State.legal_actions).
    fn num_distinct_actions(&self) -> PyResult<usize> {
        Ok(self.shared.spaces()?.num_distinct_actions)
    }

    /// An upper bound on the number of moves of a game.
    fn max_game_length(&self) -> PyResult<usize> {
        Ok(self.shared.spaces()?.max_game_length)
    }

    /// The shape of State.observation_tensor().
    fn observation_tensor_shape(&self) -> PyResult<Vec<usize>> {
        Ok(self.shared.spaces()?.observation_shape.clone())
    }

    /// `(low, high)`: the least and greatest number an observation tensor holds.
    fn observation_tensor_bounds(&self) -> PyResult<(f32, f32)> {
        Ok(self.shared.spaces()?.observation_bounds)
    }

    /// The action id of a move in notation (for jump chains: of its start and final square).
    fn move_to_action(&self, r#move: &str) -> PyResult<usize> {
        self.shared.spaces()?;
        let action = self.shared.engine.move_to_action(r#move).map_err(to_py)?;
        Ok(action.expect("a game with spaces has action ids"))
    }

    fn __str__(&self) -> String {
        let params: Vec<String> = self
            .shared
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}({})", self.name(), params.join(","))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut out = format!(
            "arena_games.load({}",
            PyString::new(py, self.name()).repr()?
        );
        for (key, value) in &self.shared.params {
            out.push_str(&format!(
                ", {key}={}",
                param_value(py, value).bind(py).repr()?
            ));
        }
        out.push(')');
        Ok(out)
    }

    fn __eq__(&self, other: PyRef<'_, Game>) -> bool {
        self.name() == other.name() && self.shared.params == other.shared.params
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.name(), &self.shared.params).hash(&mut h);
        h.finish()
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<Reduced<(String, Params)>> {
        let restore = py.import("arena_games._engine")?.getattr("_game")?;
        Ok((
            restore.unbind(),
            (self.name().to_string(), self.shared.params.clone()),
        ))
    }
}

/// A position of a game: mutable (apply), cheap to clone.
#[pyclass(module = "arena_games")]
struct State {
    shared: Arc<Shared>,
    inner: engine::State,
}

/// The legal actions as 0/1 in `out`, one entry per action id (OpenSpiel's
/// legal_actions_mask); `out` is all zeros on entry.
fn mask_of(actions: &[usize], out: &mut [i8]) {
    for &action in actions {
        out[action] = 1;
    }
}

/// Writes the position seen by `player` into `out`; a game with spaces always
/// observes, so a failure here is a bug of its engine, reported with the text.
fn observation_of(state: &engine::State, player: usize, out: &mut [f32]) -> Result<(), String> {
    if state.observation(player, out) {
        Ok(())
    } else {
        Err(format!("no observation of `{}`", state.text()))
    }
}

impl State {
    /// The seat whose view is asked for: `player`, or by default the one to move.
    fn observer(&self, player: Option<i64>) -> PyResult<usize> {
        match player {
            Some(p @ 0..=1) => Ok(p as usize),
            Some(p) => Err(GameError::new_err(format!(
                "player {p}: a player is 0 or 1"
            ))),
            None if self.inner.outcome().is_some() => Err(GameError::new_err(
                "the game is over: nobody is to move, so give the player whose view you want",
            )),
            None => Ok(self.inner.to_move()),
        }
    }

    /// The error for an action id no legal move has.
    fn not_legal(&self, action: i64) -> PyErr {
        IllegalMoveError::new_err(format!(
            "action {action} is not legal in `{}`",
            self.inner.text()
        ))
    }

    fn legal_action_ids(&self) -> PyResult<Vec<usize>> {
        self.shared.spaces()?;
        let mut actions = Vec::new();
        self.inner.legal_actions(&mut actions);
        Ok(actions)
    }

    fn copy(&self) -> State {
        State {
            shared: self.shared.clone(),
            inner: self.inner.clone(),
        }
    }
}

#[pymethods]
impl State {
    /// The game this state belongs to.
    fn game(&self) -> Game {
        Game {
            shared: self.shared.clone(),
        }
    }

    /// The seat to move, 0 or 1; TERMINAL (-4) once the game is over.
    fn current_player(&self) -> i64 {
        if self.inner.outcome().is_some() {
            TERMINAL
        } else {
            self.inner.to_move() as i64
        }
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.inner.outcome().is_some()
    }

    /// Every legal move in the protocol's notation and order; empty once the game is over.
    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves()
    }

    /// Plays a move given in notation; NotationError or IllegalMoveError leave the state unchanged.
    fn apply(&mut self, r#move: &str) -> PyResult<()> {
        match self.inner.play(r#move) {
            Err(engine::Error::Illegal(_)) if self.inner.outcome().is_some() => Err(
                IllegalMoveError::new_err(format!("illegal move `{move}`: the game is over")),
            ),
            result => result.map_err(to_py),
        }
    }

    /// The legal moves as integer action ids, in increasing order.
    fn legal_actions(&self) -> PyResult<Vec<usize>> {
        self.legal_action_ids()
    }

    /// Plays the legal move with this action id; IllegalMoveError if none.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        self.shared.spaces()?;
        match usize::try_from(action) {
            Ok(a) if self.inner.apply_action(a) => Ok(()),
            _ => Err(self.not_legal(action)),
        }
    }

    /// The legal move (notation) an action id stands for here.
    fn action_to_move(&self, action: i64) -> PyResult<String> {
        self.shared.spaces()?;
        usize::try_from(action)
            .ok()
            .and_then(|a| self.inner.action_to_move(a))
            .ok_or_else(|| self.not_legal(action))
    }

    /// The action id of a move in notation.
    fn move_to_action(&self, r#move: &str) -> PyResult<usize> {
        self.game().move_to_action(r#move)
    }

    /// Each seat's result: 1 win, -1 loss, 0 draw or not over.
    fn returns(&self) -> [f64; 2] {
        match self.inner.outcome().map(|o| o.winner) {
            Some(Some(0)) => [1.0, -1.0],
            Some(Some(_)) => [-1.0, 1.0],
            _ => [0.0, 0.0],
        }
    }

    /// How the game ended (scores, winner, adjudicated), or None while it goes on.
    fn outcome(&self) -> Option<Outcome> {
        self.inner.outcome().map(|o| Outcome {
            scores: (o.scores[0], o.scores[1]),
            winner: o.winner,
            adjudicated: o.adjudicated,
        })
    }

    /// The position as numbers seen by `player` (default: the player to move), a flat
    /// float32 array of Game.observation_tensor_shape() elements.
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let player = self.observer(player)?;
        let mut tensor = vec![0.0; self.shared.spaces()?.observation_len()];
        observation_of(&self.inner, player, &mut tensor).map_err(PyValueError::new_err)?;
        Ok(tensor.into_pyarray(py))
    }

    /// The legal actions as an int8 array of 0/1, one entry per action id.
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let mut mask = vec![0; self.shared.spaces()?.num_distinct_actions];
        mask_of(&self.legal_action_ids()?, &mut mask);
        Ok(mask.into_pyarray(py))
    }

    /// `player`'s material less the opponent's: seeds in the stores (Dakon), pieces on
    /// the board and in hand (Ludus latrunculorum).
    fn material(&self, player: i64) -> PyResult<f32> {
        let player = self.observer(Some(player))?;
        let material = self.inner.material();
        Ok((material[player] - material[1 - player]) as f32)
    }

    /// The board drawn for the terminal, as `arena show` draws it.
    fn draw(&self) -> String {
        self.shared.engine.draw(&self.inner)
    }

    /// An independent copy.
    fn clone(&self) -> State {
        self.copy()
    }

    fn __copy__(&self) -> State {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.copy()
    }

    /// A copy of this state played to the end with seeded uniformly random moves, natively.
    #[pyo3(signature = (seed=0))]
    fn playout(&self, py: Python<'_>, seed: u64) -> State {
        let mut inner = self.inner.clone();
        // The engines need no Python: let other threads run meanwhile.
        py.detach(|| inner.random_playout(seed));
        State {
            shared: self.shared.clone(),
            inner,
        }
    }

    fn __str__(&self) -> String {
        self.inner.text()
    }

    fn __repr__(&self) -> String {
        format!(
            "<arena_games.State {} {:?}>",
            self.shared.engine.name(),
            self.inner.text()
        )
    }

    fn __eq__(&self, other: PyRef<'_, State>) -> bool {
        self.shared.engine.name() == other.shared.engine.name()
            && self.shared.params == other.shared.params
            && self.inner.text() == other.inner.text()
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<Reduced<(Game, String)>> {
        let restore = py.import("arena_games._engine")?.getattr("_state")?;
        Ok((restore.unbind(), (self.game(), self.inner.text())))
    }
}

/// How a finished game came out.
#[pyclass(module = "arena_games", frozen, get_all)]
struct Outcome {
    scores: (i32, i32),
    winner: Option<usize>,
    adjudicated: Option<&'static str>,
}

#[pymethods]
impl Outcome {
    fn __repr__(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "None".into());
        format!(
            "Outcome(scores=({}, {}), winner={}, adjudicated={})",
            self.scores.0,
            self.scores.1,
            opt(self.winner.map(|w| w.to_string())),
            opt(self.adjudicated.map(|a| format!("{a:?}")))
        )
    }

    fn __eq__(&self, other: PyRef<'_, Outcome>) -> bool {
        (self.scores, self.winner, self.adjudicated)
            == (other.scores, other.winner, other.adjudicated)
    }
}

/// The game `name` with these parameters (protocol.md); missing ones take their defaults.
#[pyfunction]
#[pyo3(signature = (name, **params))]
fn load(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Game> {
    let mut list = Vec::new();
    if let Some(params) = params {
        for (key, value) in params.iter() {
            let key: String = key.extract()?;
            let text = param_text(&key, &value)?;
            list.push((key, text));
        }
    }
    Game::build(name, &list)
}

/// The names of every game the engines know.
#[pyfunction]
fn games() -> Vec<&'static str> {
    engine::names()
}

/// Every game the engines know, in registry order, with what a front end
/// needs to offer it: `name`, `long_name`, `params` (every parameter with its
/// default), `derived_defaults` (the parameters whose default follows from
/// another's), and with the default parameters `num_distinct_actions`,
/// `max_game_length` and `observation_shape` (`None` for a game without
/// integer actions).
#[pyfunction]
fn entries(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let mut out = Vec::new();
    for e in engine::entries() {
        let game = Game::build(e.name, &[])?;
        let d = PyDict::new(py);
        d.set_item("name", e.name)?;
        d.set_item("long_name", e.long_name)?;
        d.set_item("params", game.params(py)?)?;
        d.set_item("derived_defaults", e.derived_defaults.to_vec())?;
        let spaces = game.shared.spaces.clone();
        d.set_item(
            "num_distinct_actions",
            spaces.as_ref().map(|s| s.num_distinct_actions),
        )?;
        d.set_item(
            "max_game_length",
            spaces.as_ref().map(|s| s.max_game_length),
        )?;
        d.set_item("observation_shape", spaces.map(|s| s.observation_shape))?;
        out.push(d);
    }
    Ok(out)
}

/// Unpickles a Game.
#[pyfunction]
fn _game(name: &str, params: Params) -> PyResult<Game> {
    Game::build(name, &params)
}

/// Unpickles a State.
#[pyfunction]
fn _state(game: PyRef<'_, Game>, text: &str) -> PyResult<State> {
    game.state_from_text(text)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Outcome>()?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(entries, m)?)?;
    m.add_function(wrap_pyfunction!(_game, m)?)?;
    m.add_function(wrap_pyfunction!(_state, m)?)?;
    m.add("GameError", py.get_type::<GameError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("NotationError", py.get_type::<NotationError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("TERMINAL", TERMINAL)?;
    Ok(())
}
