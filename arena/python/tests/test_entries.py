"""Every game of arena's registry reaches every Python front end through its entry alone.

The package, OpenSpiel's registration, the Gymnasium ids and PettingZoo have no list of
games of their own: they read :func:`arena_games.entries` (arena-core's ``GAMES``). The
tests here loop over that list, so a game added to the registry is tested here without a
line of Python. The shipped package has Dakon and Ludus latrunculorum; Nim, arena-core's
test-only game, is in a package built with the ``nim`` feature (beside the .venv of
venv.sh, not in it)::

    CARGO_TARGET_DIR=$PWD/target .venv/bin/maturin build --release --features nim \\
        -m arena/python/Cargo.toml -o /tmp/nim-wheel
    .venv/bin/pip install --no-deps --target /tmp/nim-pkg /tmp/nim-wheel/*.whl
    ARENA_REQUIRE_NIM=1 PYTHONPATH=/tmp/nim-pkg .venv/bin/python -m pytest -q \\
        arena/python/tests/test_entries.py

and then :func:`test_nim_is_in_every_front_end` runs instead of being skipped.
"""

import os

import numpy as np
import pytest

import arena_games

ENTRIES = arena_games.entries()
WITH_ACTIONS = [e for e in ENTRIES if e["num_distinct_actions"] is not None]
IDS = [e["name"] for e in WITH_ACTIONS]


def test_entries_are_the_registry_in_order():
    assert [e["name"] for e in ENTRIES] == arena_games.games()
    by_name = {e["name"]: e for e in ENTRIES}
    dakon = by_name["dakon"]
    assert dakon["long_name"] == "Dakon (Javanese mancala)"
    assert dakon["params"] == {"holes": 7, "seeds": 7, "nembak_takes_lander": False, "max_plies": 1000}
    assert dakon["derived_defaults"] == ["seeds"]
    latrunculi = by_name["latrunculi"]
    assert latrunculi["long_name"] == "Ludus latrunculorum"
    assert latrunculi["derived_defaults"] == []
    assert latrunculi["observation_shape"] == arena_games.load("latrunculi").observation_tensor_shape()


@pytest.mark.parametrize("entry", WITH_ACTIONS, ids=IDS)
def test_the_package_plays_the_game_from_its_entry(entry):
    game = arena_games.load(entry["name"])
    assert game.params == entry["params"]
    assert game.num_distinct_actions() == entry["num_distinct_actions"]
    assert game.max_game_length() == entry["max_game_length"]
    assert game.observation_tensor_shape() == entry["observation_shape"]
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    assert state.draw()
    for _ in range(entry["max_game_length"]):
        if state.is_terminal():
            break
        player = state.current_player()
        observation = state.observation_tensor(player)  # flat, as OpenSpiel's
        assert observation.size == np.prod(entry["observation_shape"])
        mask = state.legal_actions_mask()
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.is_terminal()
    batch = arena_games.Batch(game, 3)
    observations, masks, _ = batch.reset()
    assert list(observations.shape) == [3] + entry["observation_shape"]
    for _ in range(5):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        observations, masks, *_ = batch.step(actions)


@pytest.mark.parametrize("entry", WITH_ACTIONS, ids=IDS)
def test_openspiel_registers_the_game_from_its_entry(entry):
    pyspiel = pytest.importorskip("pyspiel")
    from arena_games import openspiel

    game = openspiel.load_game(entry["name"])
    kind = game.get_type()
    assert kind.short_name == openspiel.SPIEL_NAMES[entry["name"]]
    assert kind.long_name == entry["long_name"]
    spec = dict(entry["params"])
    spec.update({key: 0 for key in entry["derived_defaults"]})
    assert kind.parameter_specification == spec
    assert game.num_distinct_actions() == entry["num_distinct_actions"]
    assert isinstance(game, openspiel.ArenaGame)
    # A derived default given as 0 is arena's own default.
    assert str(game.new_initial_state()) == str(arena_games.load(entry["name"]).new_initial_state())
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("entry", WITH_ACTIONS, ids=IDS)
def test_gymnasium_and_pettingzoo_offer_the_game_from_its_entry(entry):
    gymnasium = pytest.importorskip("gymnasium")
    from arena_games import gymnasium as arena_gym

    env = gymnasium.make(arena_gym.IDS[entry["name"]])
    observation, info = env.reset(seed=1)
    assert list(observation.shape) == entry["observation_shape"]
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env.close()

    pytest.importorskip("pettingzoo")
    from arena_games import pettingzoo as arena_pz

    aec = arena_pz.env(entry["name"])
    aec.reset(seed=1)
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    aec.close()


def test_nim_is_in_every_front_end():
    """Nim, registered in arena-core by its entry alone, is offered by every front end.

    Skipped for a package built without the ``nim`` feature, unless ARENA_REQUIRE_NIM is
    set (.ci/run sets it for the package it builds with the feature).
    """
    if "nim" not in arena_games.games():
        if os.environ.get("ARENA_REQUIRE_NIM"):
            pytest.fail("ARENA_REQUIRE_NIM is set but the package has no nim (built without the feature)")
        pytest.skip("package built without the nim feature")
    pyspiel = pytest.importorskip("pyspiel")
    from arena_games import gymnasium as arena_gym
    from arena_games import openspiel

    assert "nim" in IDS
    # OpenSpiel has a Nim of its own: ours is registered beside it, not over it.
    assert openspiel.SPIEL_NAMES["nim"] == "arena_nim"
    assert {"nim", "arena_nim"} <= set(pyspiel.registered_names())
    assert "piles" not in pyspiel.load_game("nim").get_parameters()
    assert pyspiel.load_game("arena_nim(piles=2,stones=3)").num_distinct_actions() == 4
    assert arena_gym.IDS["nim"] == "arena_games/Nim-v0"
