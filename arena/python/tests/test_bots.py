"""The Python bot kit with the package installed, and the search bots on real sessions.

(`bots/check-all.sh` runs the bots through `arena check-bot` and matches; these tests
need no referee.)
"""

import os
import subprocess
import sys

import pytest

import arena_games

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BOTS = os.path.join(ROOT, "bots", "python")
sys.path.insert(0, BOTS)

import arena_bot  # noqa: E402

NEWGAME = "latrunculi seat=1 seed=5 width=5 height=5 pieces=2 quiet_plies=100"


def test_the_kit_offers_the_engine():
    assert arena_bot.arena_games is arena_games
    game = arena_bot.GameInfo.from_newgame(NEWGAME)
    assert game.engine == arena_games.load("latrunculi", width=5, height=5, pieces=2)
    assert arena_bot.GameInfo.from_newgame("chess seat=0 seed=1").engine is None


def test_engine_state_replays_the_played_moves_and_keeps_repetitions():
    """After the same shuffle twice, a replayed state knows the next repetition ends the
    game; a state read from the same text would not."""
    game = arena_bot.GameInfo.from_newgame(NEWGAME)
    moves = ["a1", "e5", "e1", "a5"] + ["a1-b1", "e5-d5", "b1-a1", "d5-e5"] * 2
    state = game.engine.new_initial_state()
    for move in moves[:-1]:
        game.played.append((state.current_player(), move))
        state.apply(move)
    text = str(state)
    replayed = game.engine_state(text)
    assert str(replayed) == text
    replayed.apply(moves[-1])
    assert replayed.outcome().adjudicated == "repetition"
    fresh = game.engine.state_from_text(text)
    fresh.apply(moves[-1])
    assert not fresh.is_terminal()


def test_engine_state_reads_the_text_when_the_game_began_elsewhere():
    game = arena_bot.GameInfo.from_newgame("dakon seat=0 seed=1 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000")
    start = "pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=12"
    assert str(game.engine_state(start)) == start
    game.played.append((0, "13"))  # played from that position, not from the initial one
    after = "pits=1,1,1,1,0,0,0,1,1,1,1,1,1,0 stores=43,45 turn=1 ply=13"
    assert str(game.engine_state(after)) == after
    with pytest.raises(arena_games.NotationError):
        game.engine_state("pits=1")


def session(bot, lines, *args):
    """Runs a bot on a referee session; returns its stdout lines."""
    result = subprocess.run(
        [sys.executable, os.path.join(BOTS, bot), *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.splitlines()


DAKON_SESSION = [
    "arena 1",
    "newgame dakon seat=1 seed=9 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000",
    "played 0 10",
    "position pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1",
    "legal 0 1 2 5 6",
    "go time=- opptime=- inc=0 movetime=200",
    "quit",
]

LATRUNCULI_SESSION = [
    "arena 1",
    "newgame latrunculi seat=0 seed=9 width=8 height=8 pieces=16 quiet_plies=100",
    "position board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
    "legal a8-a7 b8-b7 b8-c8 d5-c5 d5-d4 d5-e5 d7-c7 d7-d8 d7-e7 xd6",
    "go time=- opptime=- inc=0 movetime=300",
    "quit",
]


@pytest.mark.parametrize("bot", ["mcts_bot.py", "openspiel_bot.py"])
@pytest.mark.parametrize("lines", [DAKON_SESSION, LATRUNCULI_SESSION], ids=["dakon", "latrunculi"])
def test_search_bots_answer_with_a_legal_move(bot, lines):
    if bot == "openspiel_bot.py":
        pytest.importorskip("pyspiel")
    out = session(bot, lines, "--seed", "3")
    assert out[0].startswith("ready ")
    moves = [line.split(" ", 1)[1] for line in out if line.startswith("move ")]
    legal = [line for line in lines if line.startswith("legal ")][0].split()[1:]
    assert len(moves) == 1 and moves[0] in legal
    assert all(line.split(" ")[0] in ("ready", "move", "info") for line in out)

