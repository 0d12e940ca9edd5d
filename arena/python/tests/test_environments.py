"""The PettingZoo and Gymnasium environments, checked by the frameworks' own tests.

Needs pettingzoo and gymnasium (arena/python/venv.sh installs them).
"""

import os
import sys

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import arena_games  # noqa: E402
import arena_games.gymnasium  # noqa: E402,F401  (registers the ids)
from arena_games import pettingzoo as arena_pz  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# Non-default parameters: they must survive reset().
SMALL = [
    ("dakon", {"holes": 5, "seeds": 3}),
    ("latrunculi", {"width": 6, "height": 5, "pieces": 5, "quiet_plies": 20}),
]


@pytest.mark.parametrize("name, params", SMALL, ids=["dakon", "latrunculi"])
def test_pettingzoo_api_test(name, params):
    api_test(arena_pz.env(name, **params), num_cycles=300)


@pytest.mark.parametrize("name, params", SMALL, ids=["dakon", "latrunculi"])
def test_pettingzoo_seed_test(name, params):
    seed_test(lambda: arena_pz.env(name, **params), num_cycles=300)


@pytest.mark.parametrize("name, params", SMALL, ids=["dakon", "latrunculi"])
def test_parameters_survive_reset(name, params):
    env = arena_pz.env(name, **params)
    for seed in (1, 2):
        env.reset(seed=seed)
        assert env.unwrapped.state.game() == arena_games.load(name, **params)
        observation = env.observe(env.agent_selection)["observation"]
        assert observation.shape == tuple(arena_games.load(name, **params).observation_tensor_shape())


def play_out(env, seed):
    """A random game; returns the last step's (rewards, terminations, truncations)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        seen[agent] = (reward, termination, truncation)
        mask = observation["action_mask"]
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(mask))))
    return seen


def test_a_safeguard_is_a_truncation_with_the_adjudicated_result():
    # Ten plies cannot finish a 7-hole Dakon: max_plies adjudicates it.
    seen = play_out(arena_pz.env("dakon", max_plies=10), seed=1)
    assert all(truncation and not termination for _, termination, truncation in seen.values())
    assert sorted(reward for reward, _, _ in seen.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_game_ended_by_the_rules_is_a_termination():
    seen = play_out(arena_pz.env("dakon", holes=3), seed=4)
    assert all(termination and not truncation for _, termination, truncation in seen.values())
    assert sorted(reward for reward, _, _ in seen.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_observations_are_each_agents_view():
    env = arena_pz.env("dakon", holes=4)
    env.reset(seed=0)
    state = env.unwrapped.state
    for seat, agent in enumerate(arena_pz.AGENTS):
        observed = env.observe(agent)
        assert observed["observation"].tolist() == state.observation_tensor(seat).tolist()
        expected = state.legal_actions_mask() if seat == 0 else np.zeros(8, np.int8)
        assert observed["action_mask"].tolist() == expected.tolist()


def test_an_illegal_action_loses_as_in_pettingzoos_classic_games():
    env = arena_pz.env("dakon", holes=4)
    env.reset()
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.rewards["player_0"] == -1 and env.terminations["player_0"]
    with pytest.raises(arena_games.IllegalMoveError):
        raw = arena_pz.raw_env("dakon", holes=4)
        raw.reset()
        raw.step(illegal)


def test_render_ansi_is_the_board():
    env = arena_pz.env("latrunculi", width=5, height=5, pieces=3, render_mode="ansi")
    env.reset()
    assert env.render() == env.unwrapped.state.draw()


# --- Gymnasium ---------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ["arena_games/Dakon-v0", "arena_games/Latrunculi-v0"])
def test_gymnasium_check_env(env_id):
    env = gymnasium.make(env_id)
    check_env(env.unwrapped)
    check_env(env)  # with make's wrappers too


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_gymnasium_ids_take_parameters_and_opponents(opponent):
    env = gymnasium.make("arena_games/Latrunculi-v0", width=5, height=5, pieces=3, opponent=opponent)
    check_env(env.unwrapped)
    observation, info = env.reset(seed=3)
    assert observation.shape == (10, 5, 5)
    assert env.unwrapped.game.params["pieces"] == 3


def run_episode(env, seed, policy):
    observation, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(info["action_mask"]))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


def test_the_same_seed_replays_the_same_episode():
    env = gymnasium.make("arena_games/Dakon-v0", holes=5)
    first = run_episode(env, 7, lambda mask: int(np.flatnonzero(mask)[0]))
    again = run_episode(env, 7, lambda mask: int(np.flatnonzero(mask)[0]))
    assert first[:2] == again[:2] and first[2]["seat"] == again[2]["seat"]


def test_the_agents_seat_can_be_fixed_and_it_sees_its_own_view():
    env = gymnasium.make("arena_games/Dakon-v0", holes=4, seat=1).unwrapped
    observation, info = env.reset(seed=0)
    assert info["seat"] == 1 and env.state.current_player() == 1  # the opponent moved first
    assert observation.tolist() == env.state.observation_tensor(1).tolist()
    _, info = env.reset(seed=0, options={"seat": 0})
    assert info["seat"] == 0


def test_greedy_beats_random_so_the_opponent_is_really_played():
    """The control: the same agent wins less against greedy than against random."""

    def wins(opponent):
        env = gymnasium.make("arena_games/Dakon-v0", holes=5, opponent=opponent)
        rng = np.random.default_rng(0)
        policy = lambda mask: int(rng.choice(np.flatnonzero(mask)))  # noqa: E731
        return sum(run_episode(env, seed, policy)[0] > 0 for seed in range(40))

    assert wins("greedy") < wins("random")


def test_a_callable_opponent_plays_on_a_copy_of_the_state():
    seen = []

    def opponent(state):
        seen.append(str(state))
        action = state.legal_actions()[-1]
        state.apply_action(action)  # its own copy: the environment's game does not move
        return action

    env = gymnasium.make("arena_games/Dakon-v0", holes=3, seat=1, opponent=opponent).unwrapped
    env.reset(seed=1)
    assert seen[0] == str(arena_games.load("dakon", holes=3).new_initial_state())
    # One move per call (a bonus move calls it again), none made twice.
    assert str(env.state).endswith("ply=%d" % len(seen))


def test_invalid_actions_lose_or_raise():
    env = gymnasium.make("arena_games/Dakon-v0", holes=4, seat=0).unwrapped
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(arena_games.IllegalMoveError, match="call reset"):
        env.step(illegal)
    strict = gymnasium.make("arena_games/Dakon-v0", holes=4, seat=0, illegal_action="raise").unwrapped
    _, info = strict.reset(seed=0)
    before = str(strict.state)
    with pytest.raises(arena_games.IllegalMoveError):
        strict.step(illegal)
    assert str(strict.state) == before


def test_an_openspiel_bot_as_the_opponent():
    pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import mcts

    import arena_games.openspiel as arena_openspiel

    game = arena_openspiel.load_game("dakon", holes=4)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2, 30, arena_openspiel.PlayoutEvaluator(random_state=rng), random_state=rng)
    env = gymnasium.make("arena_games/Dakon-v0", holes=4, opponent=bot)
    agent = np.random.default_rng(0)
    results = [run_episode(env, seed, lambda m: int(agent.choice(np.flatnonzero(m))))[0] for seed in range(6)]
    assert sum(r < 0 for r in results) >= 4  # MCTS beats a random agent
