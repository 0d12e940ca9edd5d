"""Batch: N games stepped in one call agree with N States stepped one by one."""

import importlib.util
import pathlib

import numpy as np
import pytest

import arena_games


def mirror_step(game, states, actions):
    """What Batch.step must return, from plain States (which it restarts as Batch does)."""
    rewards, terminated, truncated = [], [], []
    for i, action in enumerate(actions):
        states[i].apply_action(int(action))
        outcome = states[i].outcome()
        rewards.append(states[i].returns() if outcome else [0.0, 0.0])
        terminated.append(outcome is not None and outcome.adjudicated is None)
        truncated.append(outcome is not None and outcome.adjudicated is not None)
        if outcome:
            states[i] = game.new_initial_state()
    return np.array(rewards, np.float32), np.array(terminated), np.array(truncated)


def observed(states):
    return (
        np.stack([s.observation_tensor() for s in states]),
        np.stack([s.legal_actions_mask() for s in states]),
        np.array([s.current_player() for s in states]),
    )


@pytest.mark.parametrize(
    "name, params",
    [
        # Random 4-hole games take 3 to 30 plies: 14 ends some by the rules, cuts others.
        ("dakon", {"holes": 4, "max_plies": 14}),
        # Random games end by the quiet rule here: truncations.
        ("latrunculi", {"width": 5, "height": 5, "pieces": 3, "quiet_plies": 8}),
        # A board whose legal ids the engine finds with wider cell sets than 8 x 8's.
        ("latrunculi", {"width": 10, "height": 10, "pieces": 6, "quiet_plies": 10}),
    ],
)
def test_a_batch_is_its_games_stepped_one_by_one(name, params):
    game = arena_games.load(name, **params)
    n = 16
    batch = arena_games.Batch(game, n)
    states = [game.new_initial_state() for _ in range(n)]
    obs, masks, players = batch.reset()
    shape = tuple(game.observation_tensor_shape())
    assert obs.shape == (n,) + shape and masks.shape == (n, game.num_distinct_actions())
    rng = np.random.default_rng(1)
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(300):
        expected = observed(states)
        assert (obs.reshape(n, -1) == expected[0]).all()
        assert (masks == expected[1]).all() and (players == expected[2]).all()
        actions = (masks * rng.random(masks.shape)).argmax(axis=1)
        obs, masks, players, rewards, terminated, truncated = batch.step(actions)
        want = mirror_step(game, states, actions)
        assert (rewards == want[0]).all()
        assert (terminated == want[1]).all() and (truncated == want[2]).all()
        ended["terminated"] += terminated.sum()
        ended["truncated"] += truncated.sum()
    assert [str(batch.state(i)) for i in range(n)] == [str(s) for s in states]
    # The probe saw games end (and restart), both ways in Dakon.
    assert ended["truncated"] > 0
    if name == "dakon":
        assert ended["terminated"] > 0


def test_an_illegal_action_moves_no_game():
    game = arena_games.load("dakon", holes=4)
    batch = arena_games.Batch(game, 3)
    _, masks, _ = batch.reset()
    legal = masks.argmax(axis=1)
    illegal = legal.copy()
    illegal[2] = int(np.flatnonzero(masks[2] == 0)[0])
    with pytest.raises(arena_games.IllegalMoveError, match="game 2: action"):
        batch.step(illegal)
    assert all(str(batch.state(i)) == str(game.new_initial_state()) for i in range(3))
    with pytest.raises(ValueError, match="2 actions for a batch of 3"):
        batch.step(legal[:2])
    batch.step(list(legal))  # the control: legal actions, as a plain list, play
    assert str(batch.state(0)) != str(game.new_initial_state())


def test_the_benchs_random_choice_is_legal_and_uniform():
    """bench/batch.py's figures rest on random_legal: every pick legal, each legal action as likely."""
    path = pathlib.Path(__file__).parents[1] / "bench" / "batch.py"
    spec = importlib.util.spec_from_file_location("batch_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    game = arena_games.load("latrunculi", width=5, height=5, pieces=3, quiet_plies=8)
    batch = arena_games.Batch(game, 8)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(1)
    for _ in range(50):
        actions = bench.random_legal(masks, rng)
        assert (masks[np.arange(len(masks)), actions] == 1).all()
        _, masks, _, _, _, _ = batch.step(actions)
    # One row of 3 legal actions among 27 ids, another with all of them legal.
    masks = np.zeros((2, 27), np.int8)
    masks[0, [0, 13, 26]] = 1
    masks[1, :] = 1
    picks = np.array([bench.random_legal(masks, rng) for _ in range(5400)])
    counts = np.bincount(picks[:, 0], minlength=27)
    assert set(np.flatnonzero(counts)) == {0, 13, 26}
    assert counts[[0, 13, 26]].min() > 1650  # 1,800 expected each; sd about 35
    counts = np.bincount(picks[:, 1], minlength=27)
    assert counts.min() > 120 and counts.max() < 280  # 200 expected each; sd about 14


@pytest.mark.parametrize(
    "name, params",
    [
        ("dakon", {"holes": 4, "max_plies": 14}),
        ("latrunculi", {"width": 5, "height": 5, "pieces": 3, "quiet_plies": 8}),
        ("latrunculi", {}),
    ],
)
def test_legal_actions_are_the_ones_of_the_masks(name, params):
    """Batch.legal_actions lists each game's legal ids once: the masks' nonzero entries."""
    game = arena_games.load(name, **params)
    n = 8
    batch = arena_games.Batch(game, n)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(2)
    for _ in range(100):
        actions, offsets = batch.legal_actions()
        assert actions.dtype == np.int64 and offsets.dtype == np.int64
        assert offsets.shape == (n + 1,) and offsets[0] == 0 and offsets[-1] == len(actions)
        for i in range(n):
            ids = actions[offsets[i] : offsets[i + 1]]
            assert len(ids) == len(set(ids.tolist()))
            assert sorted(ids.tolist()) == np.flatnonzero(masks[i]).tolist()
            assert sorted(ids.tolist()) == batch.state(i).legal_actions()
        counts = np.diff(offsets)
        picks = actions[offsets[:-1] + (rng.random(n) * counts).astype(np.int64)]
        _, masks, _, _, _, _ = batch.step(picks)


def test_the_benchs_choice_from_legal_actions_is_legal_and_uniform():
    """bench/batch.py's random_of_ids: every pick legal, each legal action as likely."""
    path = pathlib.Path(__file__).parents[1] / "bench" / "batch.py"
    spec = importlib.util.spec_from_file_location("batch_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = np.random.default_rng(1)
    # Game 0 with 3 legal ids, game 1 with all 27 of them.
    actions = np.array([0, 13, 26] + list(range(27)), np.int64)
    offsets = np.array([0, 3, 30], np.int64)
    picks = np.array([bench.random_of_ids(actions, offsets, rng) for _ in range(5400)])
    counts = np.bincount(picks[:, 0], minlength=27)
    assert set(np.flatnonzero(counts)) == {0, 13, 26}
    assert counts[[0, 13, 26]].min() > 1650  # 1,800 expected each; sd about 35
    counts = np.bincount(picks[:, 1], minlength=27)
    assert counts.min() > 120 and counts.max() < 280  # 200 expected each; sd about 14
