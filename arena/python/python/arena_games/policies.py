"""Built-in policies: functions of an :class:`arena_games.State` that return a legal action.

Opponents for :mod:`arena_games.gymnasium` (``opponent="random"`` or ``"greedy"``) and
baselines to evaluate against::

    policy = arena_games.policies.greedy(np.random.default_rng(1))
    state.apply_action(policy(state))
"""

import numpy as np


def random(rng=None):
    """Uniformly random among the legal actions, drawn from ``rng`` (a NumPy Generator)."""
    rng = rng if rng is not None else np.random.default_rng()

    def policy(state):
        return int(rng.choice(state.legal_actions()))

    return policy


def greedy(rng=None):
    """One ply of look-ahead: a move that wins at once, else one that leaves the mover the
    most material over the opponent (:meth:`arena_games.State.material`: seeds in the
    stores, pieces on the board and in hand), ties broken at random from ``rng``."""
    rng = rng if rng is not None else np.random.default_rng()

    def value(state, action, player):
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal():
            # Past any material: a win first, a loss last.
            return after.returns()[player] * 1e9 + after.material(player)
        return after.material(player)

    def policy(state):
        player = state.current_player()
        actions = state.legal_actions()
        values = np.array([value(state, a, player) for a in actions])
        best = np.flatnonzero(values == values.max())
        return int(actions[rng.choice(best)])

    return policy
