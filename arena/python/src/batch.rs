//! `arena_games.Batch`: N games of one game stepped in one call, for training
//! loops whose speed the Python interpreter would otherwise bound. The work of a
//! step (the moves, the next observations and masks) runs without the GIL.

use std::sync::Arc;

use numpy::{AllowTypeChange, IntoPyArray, PyArray1, PyArrayDyn, PyArrayLike1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::engine::Spaces;
use crate::{engine, mask_of, observation_of, Game, IllegalMoveError, Shared, State};

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
    /// Each game's legal action ids, in the generator's order (marking a mask
    /// needs no sort): computed once per position, for its mask and then to
    /// check the action it is given.
    legal: Vec<Vec<usize>>,
}

/// The observations, masks and players to move of every game, in flat buffers.
struct Views {
    observations: Vec<f32>,
    masks: Vec<i8>,
    players: Vec<i64>,
    /// One game's observation length and number of action ids.
    len: usize,
    actions: usize,
}

impl Views {
    /// Empty buffers with room for `n` games' rows.
    fn new(spaces: &Spaces, n: usize) -> Views {
        let (len, actions) = (spaces.observation_len(), spaces.num_distinct_actions);
        Views {
            observations: Vec::with_capacity(n * len),
            masks: Vec::with_capacity(n * actions),
            players: Vec::with_capacity(n),
            len,
            actions,
        }
    }

    /// Appends the next game's row: `state` seen by its player to move, and
    /// the mask of its legal action ids `ids`. Each row is zeroed just before
    /// it is written, while it is in the cache: zeroing the whole buffers
    /// first (1.7 MB for 256 games of Ludus latrunculorum) took an eighth of
    /// a step, as they no longer fitted in it.
    fn push(&mut self, state: &engine::State, ids: &[usize]) -> Result<(), String> {
        let player = state.to_move();
        let at = self.observations.len();
        self.observations.resize(at + self.len, 0.0);
        observation_of(state, player, &mut self.observations[at..])?;
        let at = self.masks.len();
        self.masks.resize(at + self.actions, 0);
        mask_of(ids, &mut self.masks[at..]);
        self.players.push(player as i64);
        Ok(())
    }
}

fn views(
    spaces: &Spaces,
    states: &[engine::State],
    legal: &[Vec<usize>],
) -> Result<Views, String> {
    let mut out = Views::new(spaces, states.len());
    for (state, ids) in states.iter().zip(legal) {
        out.push(state, ids)?;
    }
    Ok(out)
}

/// The legal action ids of a position, unsorted.
fn legal_of(state: &engine::State) -> Vec<usize> {
    let mut ids = Vec::new();
    state.legal_action_ids(&mut ids);
    ids
}

impl Batch {
    fn spaces(&self) -> &Spaces {
        self.shared.spaces.as_ref().expect("checked in Batch::new")
    }

    /// The arrays of `views`, shaped `[n, *observation shape]` and `[n, actions]`.
    fn arrays<'py>(&self, py: Python<'py>, v: Views) -> PyResult<Observed<'py>> {
        let n = self.states.len();
        let mut shape = vec![n];
        shape.extend(&self.spaces().observation_shape);
        let actions = self.spaces().num_distinct_actions;
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
        shared.spaces()?;
        if n == 0 {
            return Err(PyValueError::new_err(
                "a batch needs at least one game (n >= 1)",
            ));
        }
        let initial = shared.engine.initial_state();
        let legal = vec![legal_of(&initial); n];
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
        let first = legal_of(&self.initial);
        self.states.fill(self.initial.clone());
        self.legal.fill(first);
        self.observe(py)
    }

    /// `(observations, masks, players)`: each game's observation from the view of
    /// its player to move, float32 `[n, *Game.observation_tensor_shape()]`; its
    /// legal actions, int8 `[n, Game.num_distinct_actions()]`; and that player,
    /// int64 `[n]`.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Observed<'py>> {
        let (spaces, states, legal) = (self.spaces(), &self.states, &self.legal);
        let v = py
            .detach(|| views(spaces, states, legal))
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
        let spaces = self.shared.spaces.as_ref().expect("checked in Batch::new");
        let (initial, states, legal) = (&self.initial, &mut self.states, &mut self.legal);
        let stepped = py.detach(move || {
            // Every action is checked before any game moves.
            for (i, (&action, ids)) in actions.iter().zip(legal.iter()).enumerate() {
                let legal = usize::try_from(action).is_ok_and(|a| ids.contains(&a));
                if !legal {
                    return Err(IllegalMoveError::new_err(format!(
                        "game {i}: action {action} is not legal in `{}`",
                        states[i].text()
                    )));
                }
            }
            let mut rewards = vec![0.0f32; 2 * n];
            let mut terminated = vec![false; n];
            let mut truncated = vec![false; n];
            // One pass: each game's row is written while its state is at hand.
            let mut v = Views::new(spaces, n);
            for (i, &action) in actions.iter().enumerate() {
                let state = &mut states[i];
                let played = state.apply_action(action as usize);
                assert!(played, "a legal action of this position plays");
                state.legal_action_ids(&mut legal[i]);
                // No legal action if and only if the game is over: asking for the
                // outcome only then spares Ludus latrunculorum a search for one.
                if legal[i].is_empty() {
                    let outcome = state
                        .outcome()
                        .expect("a position without legal actions is over");
                    if let Some(winner) = outcome.winner {
                        rewards[2 * i + winner] = 1.0;
                        rewards[2 * i + 1 - winner] = -1.0;
                    }
                    terminated[i] = outcome.adjudicated.is_none();
                    truncated[i] = outcome.adjudicated.is_some();
                    *state = initial.clone();
                    state.legal_action_ids(&mut legal[i]);
                }
                v.push(state, &legal[i]).map_err(PyValueError::new_err)?;
            }
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

    /// `(actions, offsets)`: every game's legal action ids in one flat int64
    /// array, game `i`'s in `actions[offsets[i]:offsets[i + 1]]` (`offsets`,
    /// int64 `[n + 1]`), each id once, in no particular order: the ones of
    /// the masks, without scanning them. A uniformly random legal action of
    /// each game is then `actions[offsets[:-1] + (u * counts).astype(int)]`
    /// with `counts = np.diff(offsets)` and `u` uniform in [0, 1): for Ludus
    /// latrunculorum that reads a few dozen ids per game instead of a mask of
    /// 4,224 (finding the masks' nonzero entries cost more than a step).
    fn legal_actions<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let legal = &self.legal;
        let (actions, offsets) = py.detach(|| {
            let total = legal.iter().map(Vec::len).sum();
            let mut actions = Vec::with_capacity(total);
            let mut offsets = Vec::with_capacity(legal.len() + 1);
            offsets.push(0i64);
            for ids in legal {
                actions.extend(ids.iter().map(|&a| a as i64));
                offsets.push(actions.len() as i64);
            }
            (actions, offsets)
        });
        (actions.into_pyarray(py), offsets.into_pyarray(py))
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
