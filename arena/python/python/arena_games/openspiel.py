"""arena's games (Dakon, Ludus latrunculorum) as OpenSpiel games.

Importing this module registers with OpenSpiel (``pip install open_spiel``) every game of
:func:`arena_games.entries` that has integer actions, under its arena name (``arena_<name>``
if OpenSpiel has a game of that name: :data:`SPIEL_NAMES`) and with its long name and
defaults from arena's registry, so OpenSpiel's own algorithms run on them unchanged::

    import pyspiel
    import arena_games.openspiel  # registers "dakon" and "latrunculi"

    game = pyspiel.load_game("latrunculi(width=7,height=7,pieces=12)")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])

Parameters are those of protocol.md with the same defaults, except those whose default
follows from another parameter (the entry's ``derived_defaults``: Dakon's ``seeds``, as
many as ``holes``), whose default is 0, meaning "derived" (OpenSpiel defaults are
constants).

Actions are the integer ids of :meth:`arena_games.State.legal_actions`; action strings
are the protocol's move texts; ``str(state)`` and the observation string are the
protocol's state text; ``state.observation_tensor(player)`` is
:meth:`arena_games.State.observation_tensor` of that player (the position seen by it).
The games are deterministic, perfect information, zero-sum, with a reward at the end
only (+1 win, -1 loss, 0 draw).

:class:`PlayoutEvaluator` is an MCTS evaluator whose rollouts run in native code, a drop-in
for OpenSpiel's ``RandomRolloutEvaluator`` that is orders of magnitude faster on these games.
"""

import numpy as np
import pyspiel

from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import IIGObserverForPublicInfoGame

import arena_games

# The games OpenSpiel can play (those with integer actions), from arena's registry.
ENTRIES = {e["name"]: e for e in arena_games.entries() if e["num_distinct_actions"] is not None}


def _specification(entry):
    """OpenSpiel's parameter specification: arena's defaults, 0 for a derived one."""
    spec = dict(entry["params"])
    for key in entry["derived_defaults"]:
        spec[key] = 0
    return spec


# OpenSpiel parameter specifications and long names, by game.
PARAMETERS = {name: _specification(e) for name, e in ENTRIES.items()}

LONG_NAMES = {name: e["long_name"] for name, e in ENTRIES.items()}

# OpenSpiel's name for each game: arena's, or arena_<name> when OpenSpiel has a game of that
# name already (its own Nim, say), which registering ours would not replace. Taken once, at
# import, before ours are registered.
_TAKEN = set(pyspiel.registered_names())
SPIEL_NAMES = {name: "arena_" + name if name in _TAKEN else name for name in ENTRIES}


def _game_type(name):
    return pyspiel.GameType(
        short_name=SPIEL_NAMES[name],
        long_name=LONG_NAMES[name],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS[name],
    )


GAME_TYPES = {name: _game_type(name) for name in PARAMETERS}


def _arena_params(name, params):
    """OpenSpiel parameters (defaults filled in) -> arena_games.load keyword arguments."""
    merged = dict(PARAMETERS[name])
    merged.update(params or {})
    for key in ENTRIES[name]["derived_defaults"]:
        if merged.get(key) == 0:
            del merged[key]  # "derived": arena's own default
    return merged


class ArenaGame(pyspiel.Game):
    """An arena game (name given by the subclass) with its parameters."""

    NAME = None

    def __init__(self, params=None):
        params = dict(params or {})
        self.arena = arena_games.load(self.NAME, **_arena_params(self.NAME, params))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.arena.num_distinct_actions(),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.arena.max_game_length(),
        )
        super().__init__(GAME_TYPES[self.NAME], info, params)

    def new_initial_state(self, state=None):
        """The initial state, or the position ``state`` (protocol state text)."""
        if state is None:
            return ArenaState(self, self.arena.new_initial_state())
        return ArenaState(self, self.arena.state_from_text(state))

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return Observer(self.arena, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


# One ArenaGame subclass per game, as pyspiel.register_game wants a class.
GAME_CLASSES = {
    name: type(name.capitalize() + "Game", (ArenaGame,), {"NAME": name}) for name in ENTRIES
}
# Module attributes too (DakonGame, LatrunculiGame): pickle finds a class by its name.
globals().update({cls.__name__: cls for cls in GAME_CLASSES.values()})


class ArenaState(pyspiel.State):
    """An OpenSpiel state around an :class:`arena_games.State` (``self.arena``)."""

    def __init__(self, game, arena_state):
        super().__init__(game)
        self.arena = arena_state

    def current_player(self):
        return self.arena.current_player()  # arena_games.TERMINAL is OpenSpiel's

    def _legal_actions(self, player):
        if player != self.arena.current_player():
            return []
        return self.arena.legal_actions()

    def _apply_action(self, action):
        self.arena.apply_action(int(action))

    def _action_to_string(self, player, action):
        try:
            return self.arena.action_to_move(int(action))
        except arena_games.IllegalMoveError:
            return "action %d" % action  # not legal here: no notation to give

    def is_terminal(self):
        return self.arena.is_terminal()

    def returns(self):
        return self.arena.returns()

    def __str__(self):
        return str(self.arena)


class Observer:
    """The observation tensor of :meth:`arena_games.State.observation_tensor` for the
    player asked (the position seen by that player); the string is the state text, the
    same for both players: the games have perfect information."""

    def __init__(self, arena_game, params):
        if params:
            raise ValueError("observation parameters not supported; passed %r" % (params,))
        shape = tuple(arena_game.observation_tensor_shape())
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state, player):
        self.tensor[:] = state.arena.observation_tensor(player)

    def string_from(self, state, player):
        return str(state.arena)


class PlayoutEvaluator(mcts.Evaluator):
    """MCTS leaf evaluation by random playouts run natively (:meth:`arena_games.State.playout`).

    Same role as OpenSpiel's ``RandomRolloutEvaluator`` (uniform priors, the mean return of
    ``n_rollouts`` random games), for states of the games registered here.
    """

    def __init__(self, n_rollouts=1, random_state=None):
        self.n_rollouts = n_rollouts
        self._random_state = random_state or np.random.RandomState()

    def evaluate(self, state):
        total = np.zeros(2)
        for _ in range(self.n_rollouts):
            seed = int(self._random_state.randint(0, 2**63, dtype=np.int64))
            total += state.arena.playout(seed).returns()
        return total / self.n_rollouts

    def prior(self, state):
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def register():
    """Registers the games with OpenSpiel (done on import; calling it again is harmless)."""
    for name, cls in GAME_CLASSES.items():
        if SPIEL_NAMES[name] not in pyspiel.registered_names():
            pyspiel.register_game(GAME_TYPES[name], cls)


def load_game(name, **params):
    """``pyspiel.load_game`` for an arena game (by its arena name) with keyword parameters."""
    return pyspiel.load_game(SPIEL_NAMES[name], params)


register()
