"""Both games as OpenSpiel games: registration, OpenSpiel's own API checks, its MCTS.

Needs the open_spiel wheel (``pip install open_spiel``); skipped without it.
"""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import arena_games  # noqa: E402
from arena_games import openspiel as arena_openspiel  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

SMALL = [
    "dakon(holes=4)",
    "dakon(holes=5,seeds=3,nembak_takes_lander=True)",
    "latrunculi(width=5,height=5,pieces=4,quiet_plies=10)",
    "latrunculi(width=6,height=7,pieces=8,quiet_plies=30)",
]
DEFAULT = ["dakon", "latrunculi"]


def test_both_games_are_registered_with_their_parameters():
    names = pyspiel.registered_names()
    assert "dakon" in names and "latrunculi" in names
    game = pyspiel.load_game("latrunculi(width=7,height=6,pieces=10)")
    assert game.get_parameters() == {"width": 7, "height": 6, "pieces": 10, "quiet_plies": 100}
    assert game.num_distinct_actions() == 42 * 44
    assert game.num_players() == 2
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert pyspiel.load_game("dakon").max_game_length() == 1000


def test_dakon_seeds_zero_means_as_many_as_holes():
    state = pyspiel.load_game("dakon(holes=5)").new_initial_state()
    assert str(state) == "pits=5,5,5,5,5,5,5,5,5,5 stores=0,0 turn=0 ply=0"
    state = arena_openspiel.load_game("dakon", holes=5, seeds=2).new_initial_state()
    assert str(state).startswith("pits=2,2,")


def test_bad_parameters_are_refused():
    with pytest.raises(arena_games.ParameterError):
        pyspiel.load_game("dakon(holes=12)")


@pytest.mark.parametrize("name", SMALL + DEFAULT)
def test_random_sim_test(name):
    """OpenSpiel's C++ consistency checks, with serialization, over random games."""
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", SMALL + DEFAULT)
def test_openspiels_python_game_sim(name):
    """OpenSpiel's generic Python-game test: clone, pickle, serialization, returns."""
    from open_spiel.python.tests import games_sim_test

    games_sim_test.GamesSimTest("test_breakthrough").sim_game(pyspiel.load_game(name))


def test_actions_strings_and_observations_match_the_package():
    game = pyspiel.load_game("latrunculi(width=6,height=6,pieces=6,quiet_plies=20)")
    arena = arena_games.load("latrunculi", width=6, height=6, pieces=6, quiet_plies=20)
    state, mirror = game.new_initial_state(), arena.new_initial_state()
    observation = make_observation(game)
    rng = np.random.RandomState(5)
    while not state.is_terminal():
        assert str(state) == str(mirror) == state.observation_string(0)
        assert state.legal_actions() == mirror.legal_actions()
        assert state.current_player() == mirror.current_player()
        for player in (0, 1):
            observation.set_from(state, player)
            assert observation.tensor.tolist() == mirror.observation_tensor(player).tolist()
        action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(state.current_player(), action) == mirror.action_to_move(action)
        state.apply_action(action)
        mirror.apply_action(action)
    assert mirror.is_terminal()
    assert state.returns() == mirror.returns()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL


def test_a_state_from_protocol_text():
    game = pyspiel.load_game("dakon")
    state = game.new_initial_state("pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0")
    state.apply_action(10)
    assert str(state) == "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1"


def _play(game, bots, seed):
    return evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))


@pytest.mark.parametrize("name", ["dakon(holes=4)", "latrunculi(width=5,height=5,pieces=3,quiet_plies=8)"])
def test_openspiel_mcts_with_its_own_rollouts_plays_full_games(name):
    """MCTSBot and RandomRolloutEvaluator exactly as OpenSpiel ships them."""
    game = pyspiel.load_game(name)
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=16, evaluator=evaluator, random_state=rng)
    for seat in (0, 1):
        bots = [uniform_random.UniformRandomBot(player, rng) for player in (0, 1)]
        bots[seat] = bot
        returns = _play(game, bots, seat)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("name", DEFAULT)
def test_openspiel_mcts_with_native_playouts_plays_full_default_games(name):
    game = pyspiel.load_game(name)
    rng = np.random.RandomState(2)
    evaluator = arena_openspiel.PlayoutEvaluator(random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=8, evaluator=evaluator, random_state=rng) for _ in range(2)]
    returns = _play(game, bots, 3)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
