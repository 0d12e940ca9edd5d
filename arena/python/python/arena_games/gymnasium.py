"""Dakon and Ludus latrunculorum as single-agent Gymnasium environments: the agent plays
one seat, an opponent the other. Importing this module registers the ids::

    import gymnasium
    import arena_games.gymnasium  # registers arena_games/Dakon-v0, arena_games/Latrunculi-v0

    env = gymnasium.make("arena_games/Dakon-v0", holes=5, opponent="greedy")
    observation, info = env.reset(seed=1)
    action = env.action_space.sample(info["action_mask"])
    observation, reward, terminated, truncated, info = env.step(action)

Keyword arguments (of :class:`ArenaEnv`, through ``gymnasium.make``):

- the game's parameters (protocol.md), kept across ``reset()``;
- ``opponent``: ``"random"`` (uniform, default), ``"greedy"``
  (:func:`arena_games.policies.greedy`), any callable ``f(state) -> action`` (it gets a
  copy of the :class:`arena_games.State`), an OpenSpiel bot (a ``pyspiel.Bot``: it plays
  on the game registered by :mod:`arena_games.openspiel`), or an
  :class:`arena_games.ProcessBot` (a bot program speaking arena's protocol). Built-in
  policies draw from ``env.np_random``, so ``reset(seed=...)`` makes an episode
  reproducible. Bots are told every move, with OpenSpiel's ``restart_at`` and
  ``inform_action``;
- ``seat``: the agent's seat, 0 (moves first) or 1; ``None`` (default) draws it from
  ``env.np_random`` at each reset (``reset(options={"seat": s})`` fixes one episode's);
- ``illegal_action``: ``"loss"`` (default): an action that is not legal ends the episode
  with reward -1 and ``info["illegal_action"] = True``; ``"raise"``: it raises
  :class:`arena_games.IllegalMoveError` and the state is unchanged;
- ``render_mode``: ``"ansi"`` (``render()`` returns the board as ``arena show`` draws it).

The observation is the position seen by the agent
(:meth:`arena_games.State.observation_tensor` of its seat, float32, of shape
:meth:`arena_games.Game.observation_tensor_shape`); the action space is
``Discrete(Game.num_distinct_actions())``. ``info["action_mask"]`` (int8) and
``env.action_masks()`` (the method sb3-contrib's ``MaskablePPO`` calls) give the legal
actions. The reward is the game's result for the agent, at the end only (+1, -1, 0);
``terminated`` when the rules end the game, ``truncated`` when a referee safeguard does
(the reward is then the adjudicated result). ``info["seat"]`` is the agent's seat.
"""

import gymnasium
import numpy as np
from gymnasium import spaces

import arena_games
from arena_games import policies

# An id for every game of arena's registry with integer actions (arena_games.entries()):
# arena_games/Dakon-v0, arena_games/Latrunculi-v0.
IDS = {
    e["name"]: "arena_games/%s-v0" % e["name"].capitalize()
    for e in arena_games.entries()
    if e["num_distinct_actions"] is not None
}


class _Bot:
    """An opponent with OpenSpiel's bot methods, told the game as evaluate_bots tells it."""

    def __init__(self, bot, game):
        self.bot = bot
        self.openspiel_game = None
        try:
            import pyspiel
        except ImportError:
            pyspiel = None
        if pyspiel is not None and isinstance(bot, pyspiel.Bot):
            from arena_games import openspiel

            self.openspiel_game = openspiel.load_game(game.name, **game.params)

    def _view(self, state):
        if self.openspiel_game is None:
            return state.clone()
        from arena_games.openspiel import ArenaState

        return ArenaState(self.openspiel_game, state.clone())

    def restart_at(self, state):
        self.bot.restart_at(self._view(state))

    def step(self, state):
        return int(self.bot.step(self._view(state)))

    def inform_action(self, state, player, action):
        self.bot.inform_action(self._view(state), player, action)


class ArenaEnv(gymnasium.Env):
    """One seat of an arena game against an opponent (see the module's documentation)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game="dakon",
        opponent="random",
        seat=None,
        illegal_action="loss",
        render_mode=None,
        **params,
    ):
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode %r: this environment renders only 'ansi'" % (render_mode,))
        if seat not in (None, 0, 1):
            raise ValueError("seat %r: 0, 1 or None (drawn at each reset)" % (seat,))
        if illegal_action not in ("loss", "raise"):
            raise ValueError("illegal_action %r: 'loss' or 'raise'" % (illegal_action,))
        if isinstance(opponent, str) and opponent not in ("random", "greedy"):
            raise ValueError("opponent %r: 'random', 'greedy', a callable or a bot" % (opponent,))
        self.game = game if isinstance(game, arena_games.Game) else arena_games.load(game, **params)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self._seat_choice = seat
        self._opponent_spec = opponent
        self._bot = None
        if not isinstance(opponent, str) and hasattr(opponent, "step"):
            self._bot = _Bot(opponent, self.game)
        elif not isinstance(opponent, str) and not callable(opponent):
            raise ValueError("opponent %r: 'random', 'greedy', a callable or a bot" % (opponent,))
        self._shape = tuple(self.game.observation_tensor_shape())
        low, high = self.game.observation_tensor_bounds()
        self.observation_space = spaces.Box(low, high, self._shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions())
        self.state = self.game.new_initial_state()
        self.seat = 0 if seat is None else seat
        self._over = True  # until reset()

    def _policy(self):
        if self._opponent_spec == "random":
            return policies.random(self.np_random)
        if self._opponent_spec == "greedy":
            return policies.greedy(self.np_random)
        if self._bot is not None:
            return self._bot.step
        return lambda state: self._opponent_spec(state.clone())

    def _opponent_moves(self):
        while not self.state.is_terminal() and self.state.current_player() != self.seat:
            self.state.apply_action(int(self._opponent(self.state)))

    def _observe(self, **info):
        observation = self.state.observation_tensor(self.seat).reshape(self._shape)
        info.update(action_mask=self.action_masks(), seat=self.seat)
        return observation, info

    def action_masks(self):
        """The agent's legal actions as int8 0/1 (zeros once the game is over)."""
        if self.state.current_player() == self.seat:
            return self.state.legal_actions_mask()
        return np.zeros(self.action_space.n, np.int8)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        seat = (options or {}).get("seat", self._seat_choice)
        self.seat = int(self.np_random.integers(2)) if seat is None else int(seat)
        self.state = self.game.new_initial_state()
        self._opponent = self._policy()
        if self._bot is not None:
            self._bot.restart_at(self.state)
        self._opponent_moves()
        self._over = self.state.is_terminal()
        return self._observe()

    def step(self, action):
        action = int(action)
        if self._over:
            raise arena_games.IllegalMoveError("the episode is over: call reset()")
        if not (0 <= action < self.action_space.n and self.state.legal_actions_mask()[action]):
            if self.illegal_action == "raise":
                raise arena_games.IllegalMoveError(
                    "action %d is not legal in `%s`" % (action, self.state)
                )
            self._over = True
            observation, info = self._observe(illegal_action=True)
            return observation, -1.0, True, False, info
        if self._bot is not None:
            self._bot.inform_action(self.state, self.seat, action)
        self.state.apply_action(action)
        self._opponent_moves()
        observation, info = self._observe()
        outcome = self.state.outcome()
        self._over = outcome is not None
        if outcome is None:
            return observation, 0.0, False, False, info
        reward = float(self.state.returns()[self.seat])
        ended_by_rules = outcome.adjudicated is None
        return observation, reward, ended_by_rules, not ended_by_rules, info

    def render(self):
        """The board as ``arena show`` draws it (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; this environment offers 'ansi'")
            return None
        return self.state.draw()


def register():
    """Registers the ids with Gymnasium (done on import; calling it again is harmless)."""
    for name, env_id in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ArenaEnv, kwargs={"game": name})


register()
