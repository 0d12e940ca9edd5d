"""ProcessBot: bot programs that speak the protocol, as Python opponents.

The reference bots come from `cargo build --release` (the fixture builds arena-random if
it is missing); the misbehaving ones are bots/test/testbot.py's modes.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import arena_games
from arena_games import BotError, ProcessBot

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TESTBOT = os.path.join(ROOT, "bots", "test", "testbot.py")


@pytest.fixture(scope="module")
def arena_random():
    path = os.path.join(ROOT, "target", "release", "arena-random")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "arena-bots", "--bin", "arena-random"], cwd=ROOT, check=True)
    return path


def bot_mode(mode, *args):
    return [sys.executable, TESTBOT, "--mode", mode, *args]


def play(bot, bot_seat, rng):
    """One game, the other seat random; returns the final state."""
    state = bot.game.new_initial_state()
    bot.restart_at(state)
    while not state.is_terminal():
        player = state.current_player()
        if player == bot_seat:
            action = bot.step(state)
        else:
            action = int(rng.choice(state.legal_actions()))
            bot.inform_action(state, player, action)
        assert action in state.legal_actions()
        state.apply_action(action)
    return state


@pytest.mark.parametrize("name, params", [("dakon", {"holes": 5}), ("latrunculi", {"width": 5, "height": 5, "pieces": 3})])
def test_arena_random_plays_whole_games_in_both_seats(arena_random, name, params):
    rng = np.random.default_rng(0)
    with ProcessBot([arena_random, "--seed", "1"], name, movetime_ms=2000, **params) as bot:
        for game in range(4):
            state = play(bot, game % 2, rng)
            assert state.is_terminal()
        assert bot.ready  # the text of its `ready` line


def test_the_action_is_the_bots_move():
    """Bots that play the first and the last legal move: step returns those."""
    state = arena_games.load("dakon", holes=4).new_initial_state()
    with ProcessBot(bot_mode("last"), "dakon", holes=4) as bot:
        assert bot.step(state) == state.legal_actions()[-1]
    with ProcessBot(bot_mode("first"), "dakon", holes=4) as bot:
        assert bot.choose(state) == state.legal_moves()[0]


def test_evaluate_bots_runs_a_process_bot():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots import uniform_random

    import arena_games.openspiel as arena_openspiel

    game = arena_openspiel.load_game("dakon", holes=4)
    rng = np.random.RandomState(1)
    with ProcessBot(bot_mode("first"), "dakon", holes=4) as bot:
        for seat in (0, 1):
            bots = [uniform_random.UniformRandomBot(p, rng) for p in (0, 1)]
            bots[seat] = bot
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    assert pyspiel.PlayerId.TERMINAL == arena_games.TERMINAL


def test_a_process_bot_as_the_gymnasium_opponent(arena_random):
    gymnasium = pytest.importorskip("gymnasium")
    import arena_games.gymnasium  # noqa: F401

    with ProcessBot([arena_random, "--seed", "2"], "dakon", holes=4) as bot:
        env = gymnasium.make("arena_games/Dakon-v0", holes=4, opponent=bot)
        for seed in range(3):
            _, info = env.reset(seed=seed)
            done = False
            while not done:
                action = int(np.flatnonzero(info["action_mask"])[0])
                _, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            assert reward in (-1.0, 0.0, 1.0)


def test_a_bot_that_hangs_raises_a_timeout():
    with ProcessBot(bot_mode("timeout"), "dakon", holes=4, movetime_ms=200) as bot:
        state = bot.game.new_initial_state()
        start = time.monotonic()
        with pytest.raises(BotError, match="no move within 200 ms") as error:
            bot.step(state)
        assert error.value.reason == "timeout"
        assert time.monotonic() - start < 5
        with pytest.raises(ValueError, match="restart_at"):
            bot.step(state)
        bot.restart_at(state)  # a new game in a new process
        bot.movetime_ms = 1000
        with pytest.raises(BotError):
            bot.step(state)  # the same program hangs again


def test_a_bot_that_never_says_ready_raises_a_timeout():
    with pytest.raises(BotError, match="ready") as error:
        ProcessBot(bot_mode("hang-start"), "dakon", startup_ms=300).step(
            arena_games.load("dakon").new_initial_state()
        )
    assert error.value.reason == "timeout"


@pytest.mark.parametrize(
    "mode, reason, words",
    [
        ("illegal", "illegal", "z9"),
        ("crash", "crash", "exited (code 3)"),
        ("garbage", "protocol", "not `move`"),
        ("overlong", "protocol", "64 KiB"),
        ("nonutf8", "protocol", "UTF-8"),
    ],
)
def test_misbehaviour_raises_with_arenas_reason(mode, reason, words):
    with ProcessBot(bot_mode(mode), "dakon", holes=4) as bot:
        with pytest.raises(BotError, match=words.replace("(", r"\(").replace(")", r"\)")) as error:
            bot.step(bot.game.new_initial_state())
        assert error.value.reason == reason


def test_a_command_that_does_not_exist():
    bot = ProcessBot(["/nonexistent/bot"], "dakon")
    with pytest.raises(BotError, match="cannot start /nonexistent/bot") as error:
        bot.step(bot.game.new_initial_state())
    assert error.value.reason == "crash"


def test_a_position_the_bot_was_not_told_of_is_refused():
    with ProcessBot(bot_mode("first"), "dakon", holes=4) as bot:
        start = bot.game.new_initial_state()
        first = start.legal_actions()[0]
        state = start.clone()
        state.apply_action(first)
        with pytest.raises(ValueError, match="inform_action"):
            bot.step(state)
        bot.inform_action(start, 0, first)  # the control: told of the move, it plays on
        assert bot.step(state) in state.legal_actions()
