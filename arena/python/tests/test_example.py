"""The worked example (examples/learn_dakon.py) in its short form: it learns, and the
saved table plays through arena's protocol (examples/qtable_bot.py).

The floor: after 3000 training games (seed 1), the table's greedy policy wins at least
60% of 300 seeded games against the random opponent; a random agent wins about 37% of
them (draws are the rest), the control printed beside it.
"""

import json
import os
import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import arena_games  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
sys.path.insert(0, EXAMPLES)

import learn_dakon  # noqa: E402

FLOOR = 0.60


@pytest.fixture(scope="module")
def table():
    table = learn_dakon.Table(learn_dakon.GAME["holes"])
    learn_dakon.train(table, episodes=3000, seed=1)
    return table


def test_the_example_learns_to_beat_random(table):
    random_agent = learn_dakon.evaluate(learn_dakon.Table(3), 300, seed=1, rng=np.random.default_rng(1))
    trained = learn_dakon.evaluate(table, 300, seed=1)
    print("win rate against random: %.1f%% random agent, %.1f%% trained" % (100 * random_agent, 100 * trained))
    assert random_agent < FLOOR <= trained


def test_the_saved_table_plays_through_the_protocol(table, tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"game": "dakon", "params": learn_dakon.GAME, "values": table.values}))
    command = [sys.executable, os.path.join(EXAMPLES, "qtable_bot.py"), "--table", str(path)]
    game = arena_games.load("dakon", **learn_dakon.GAME)
    rng = np.random.default_rng(5)
    wins = 0
    with arena_games.ProcessBot(command, game, movetime_ms=2000) as bot:
        for n in range(20):
            seat = n % 2
            state = game.new_initial_state()
            bot.restart_at(state)
            while not state.is_terminal():
                player = state.current_player()
                if player == seat:
                    action = bot.step(state)
                else:
                    action = int(rng.choice(state.legal_actions()))
                    bot.inform_action(state, player, action)
                state.apply_action(action)
            wins += state.returns()[seat] > 0
    assert wins >= 10  # the table's play, not random play (about 7 of 20)
