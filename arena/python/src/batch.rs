//! `arena_games.Batch`: N games of one game stepped in one call, for training
//! loops whose speed the Python interpreter would otherwise bound. The work of a
//! step (the moves, the next observations and masks) runs without the GIL.

use std::sync::Arc;

use numpy::{AllowTypeChange, IntoPyArray, PyArray1, PyArrayDyn, PyArrayLike1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::codec::Codec;
use crate::{engine, legal_pairs, mask_of, observation_of, Game, IllegalMoveError, Shared, State};

/// What `observe()` returns: observations, masks, players to move.
type Observed<'py> = (
    Bound<'py, PyArrayDyn<f32>>,
    Bound<'py, PyArrayDyn<i8>>,
    Bound<'py, PyArray1<i64>>,
);

/// What `step()` returns: `Observed`, then rewards, terminated, truncated.
type Stepped<'py> = (
    Bound<'py, PyArrayDyn<f32>>,
    Bound<'py, PyArrayDyn<i8>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArrayDyn<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
);

/// N games of one game, each stepped by the player to move, restarted when it ends.
#[pyclass(module = "arena_games")]
pub struct Batch {
    shared: Arc<Shared>,
    initial: engine::State,
    states: Vec<engine::State>,
    /// Each game's legal (action, move) pairs: computed once per position, for
    /// its mask and then for the move its action stands for.
    legal: Vec<Vec<(usize, String)>>,
}

/// The observations, masks and players to move of every game, in flat buffers.
struct Views {
    observations: Vec<f32>,
    masks: Vec<i8>,
    players: Vec<i64>,
}

fn views(
    codec: &Codec,
    states: &[engine::State],
    legal: &[Vec<(usize, String)>],
) -> Result<Views, String> {
    let actions = codec.num_distinct_actions();
    let mut out = Views {
        observations: Vec::new(),
        masks: vec![0; states.len() * actions],
        players: Vec::with_capacity(states.len()),
    };
    for (i, (state, pairs)) in states.iter().zip(legal).enumerate() {
        let player = state.to_move();
        out.observations
            .extend(observation_of(codec, state, player)?);
        mask_of(pairs, &mut out.masks[i * actions..(i + 1) * actions]);
        out.players.push(player as i64);
    }
    Ok(out)
}

impl Batch {
    fn codec(&self) -> &Codec {
        self.shared.codec.as_ref().expect("checked in Batch::new")
    }

    /// The arrays of `views`, shaped `[n, *observation shape]` and `[n, actions]`.
    fn arrays<'py>(&self, py: Python<'py>, v: Views) -> PyResult<Observed<'py>> {
        let n = self.states.len();
        let mut shape = vec![n];
        shape.extend(self.codec().observation_shape());
        let actions = self.codec().num_distinct_actions();
        Ok((
            v.observations.into_pyarray(py).reshape(shape)?,
            v.masks.into_pyarray(py).reshape(vec![n, actions])?,
            v.players.into_pyarray(py),
        ))
    }
}

#[pymethods]
impl Batch {
    /// `n` games of `game`, all at the initial position.
    #[new]
    fn new(game: PyRef<'_, Game>, n: usize) -> PyResult<Self> {
        let shared = game.shared.clone();
        let codec = shared.codec()?.clone();
        if n == 0 {
            return Err(PyValueError::new_err(
                "a batch needs at least one game (n >= 1)",
            ));
        }
        let initial = shared.engine.initial_state();
        let legal = vec![legal_pairs(&codec, &initial); n];
        Ok(Batch {
            shared,
            states: vec![initial.clone(); n],
            initial,
            legal,
        })
    }

    fn __len__(&self) -> usize {
        self.states.len()
    }

    /// Every game back to the initial position; returns `observe()`.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Observed<'py>> {
        let first = legal_pairs(self.codec(), &self.initial);
        self.states.fill(self.initial.clone());
        self.legal.fill(first);
        self.observe(py)
    }

    /// `(observations, masks, players)`: each game's observation from the view of
    /// its player to move, float32 `[n, *Game.observation_tensor_shape()]`; its
    /// legal actions, int8 `[n, Game.num_distinct_actions()]`; and that player,
    /// int64 `[n]`.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Observed<'py>> {
        let (codec, states, legal) = (self.codec(), &self.states, &self.legal);
        let v = py
            .detach(|| views(codec, states, legal))
            .map_err(PyValueError::new_err)?;
        self.arrays(py, v)
    }

    /// Plays `actions[i]` in game `i` for its player to move, every game at once.
    ///
    /// Returns `(observations, masks, players, rewards, terminated, truncated)`:
    /// the first three as `observe()` after the moves; `rewards`, float32 `[n, 2]`,
    /// each seat's result in the games that just ended (1 win, -1 loss, 0 draw),
    /// zeros elsewhere; `terminated` when the rules ended the game, `truncated`
    /// when a safeguard did (`max_plies`, `quiet_plies`, repetition). A game that
    /// ended restarts at once: its observation and mask are of the new game's
    /// first position. An action that is not legal raises IllegalMoveError
    /// naming the game, and no game moves.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyArrayLike1<'py, i64, AllowTypeChange>,
    ) -> PyResult<Stepped<'py>> {
        let actions = actions.as_slice()?;
        let n = self.states.len();
        if actions.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} actions for a batch of {n} games",
                actions.len()
            )));
        }
        let shared = &self.shared;
        let codec = shared.codec.as_ref().expect("checked in Batch::new");
        let (initial, states, legal) = (&self.initial, &mut self.states, &mut self.legal);
        let stepped = py.detach(move || {
            // Every action is checked before any game moves.
            let mut moves = Vec::with_capacity(n);
            for (i, (&action, pairs)) in actions.iter().zip(legal.iter()).enumerate() {
                match pairs
                    .iter()
                    .find(|(id, _)| action >= 0 && *id == action as usize)
                {
                    Some((_, mv)) => moves.push(mv.clone()),
                    None => {
                        return Err(IllegalMoveError::new_err(format!(
                            "game {i}: action {action} is not legal in `{}`",
                            states[i].text()
                        )))
                    }
                }
            }
            let mut rewards = vec![0.0f32; 2 * n];
            let mut terminated = vec![false; n];
            let mut truncated = vec![false; n];
            for (i, mv) in moves.iter().enumerate() {
                let state = &mut states[i];
                state.play(mv).expect("a legal move of this position plays");
                if let Some(outcome) = state.outcome() {
                    if let Some(winner) = outcome.winner {
                        rewards[2 * i + winner] = 1.0;
                        rewards[2 * i + 1 - winner] = -1.0;
                    }
                    terminated[i] = outcome.adjudicated.is_none();
                    truncated[i] = outcome.adjudicated.is_some();
                    *state = initial.clone();
                }
                legal[i] = legal_pairs(codec, state);
            }
            let v = views(codec, states, legal).map_err(PyValueError::new_err)?;
            Ok((v, rewards, terminated, truncated))
        });
        let (v, rewards, terminated, truncated) = stepped?;
        let (observations, masks, players) = self.arrays(py, v)?;
        Ok((
            observations,
            masks,
            players,
            rewards.into_pyarray(py).reshape(vec![n, 2])?,
            terminated.into_pyarray(py),
            truncated.into_pyarray(py),
        ))
    }

    /// A copy of game `i`'s position.
    fn state(&self, i: usize) -> PyResult<State> {
        let inner = self.states.get(i).cloned().ok_or_else(|| {
            PyValueError::new_err(format!(
                "game {i}: the batch has {} games",
                self.states.len()
            ))
        })?;
        Ok(State {
            shared: self.shared.clone(),
            inner,
        })
    }
}
