"""Dakon and Ludus latrunculorum as PettingZoo AEC environments, in the form of
PettingZoo's classic games (chess, connect four)::

    from arena_games import pettingzoo as arena_pz

    env = arena_pz.env("dakon", holes=5, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)
    env.close()

Agents are ``"player_0"`` (seat 0, moves first) and ``"player_1"``. The agent to move is
``env.agent_selection``; in Dakon a bonus move gives the same agent the next step too.

An observation is a dict: ``"observation"``, the position seen by that agent
(:meth:`arena_games.State.observation_tensor` of its seat, float32, of shape
:meth:`arena_games.Game.observation_tensor_shape`), and ``"action_mask"``, int8 of
``Game.num_distinct_actions()`` entries, the legal actions of the agent to move (all zeros
for the other agent and once the game is over). Actions are the package's integer ids.

Rewards come at the end: +1 for the winner, -1 for the loser, 0 each for a draw.
``termination`` when the rules end the game, ``truncation`` when a referee safeguard does
(Dakon's ``max_plies``, Ludus latrunculorum's ``quiet_plies`` or third repetition); the
rewards are then the adjudicated result. An illegal action ends the game with -1 for the
agent that played it and 0 for the other (PettingZoo's ``TerminateIllegalWrapper``, as
in its classic games). The parameters given to :func:`env` hold for every ``reset()``.
The games have no chance: ``reset(seed=...)`` seeds ``env.np_random`` and nothing in the
environment draws from it, so two environments stepped with the same actions agree.

There is no parallel form: the games are turn-based (PettingZoo's parallel API is for
simultaneous moves), and in Dakon who moves next depends on the move.
"""

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import arena_games

AGENTS = ["player_0", "player_1"]


def env(game="dakon", render_mode=None, **params):
    """The AEC environment of ``game`` (a name, with its parameters as keywords, or an
    :class:`arena_games.Game`), wrapped as PettingZoo's classic games are."""
    raw = raw_env(game, render_mode=render_mode, **params)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def _load(game, params):
    if isinstance(game, arena_games.Game):
        if params:
            raise arena_games.ParameterError("give parameters to arena_games.load, not with a Game")
        return game
    return arena_games.load(game, **params)


class raw_env(AECEnv):
    """The environment without PettingZoo's wrappers: an illegal action raises
    :class:`arena_games.IllegalMoveError`."""

    metadata = {"render_modes": ["ansi"], "name": "arena_games", "is_parallelizable": False}

    def __init__(self, game="dakon", render_mode=None, **params):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode %r: this environment renders only 'ansi'" % (render_mode,))
        self.game = _load(game, params)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name="arena_games_%s_v0" % self.game.name)
        self.possible_agents = list(AGENTS)
        self.state = self.game.new_initial_state()
        self._shape = tuple(self.game.observation_tensor_shape())
        low, high = self.game.observation_tensor_bounds()
        actions = self.game.num_distinct_actions()
        space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, self._shape, np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in AGENTS}
        self.np_random, self.np_random_seed = seeding.np_random()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = AGENTS.index(agent)
        observation = self.state.observation_tensor(seat).reshape(self._shape)
        if seat == self.state.current_player():
            mask = self.state.legal_actions_mask()
        else:
            mask = np.zeros(self.action_spaces[agent].n, np.int8)
        return {"observation": observation, "action_mask": mask}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.state = self.game.new_initial_state()
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self.state.current_player()]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mover = AGENTS.index(agent)
        self.state.apply_action(int(action))
        self._cumulative_rewards[agent] = 0.0
        outcome = self.state.outcome()
        if outcome is None:
            self.agent_selection = AGENTS[self.state.current_player()]
        else:
            returns = self.state.returns()
            self.rewards = {a: float(r) for a, r in zip(AGENTS, returns)}
            ended_by_rules = outcome.adjudicated is None
            self.terminations = {a: ended_by_rules for a in AGENTS}
            self.truncations = {a: not ended_by_rules for a in AGENTS}
            # The agent that did not make the last move sees the end first.
            self.agent_selection = AGENTS[1 - mover]
        self._accumulate_rewards()

    def render(self):
        """The board as ``arena show`` draws it (``render_mode="ansi"``)."""
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; this environment offers 'ansi'")
            return None
        return self.state.draw()

    def close(self):
        pass
