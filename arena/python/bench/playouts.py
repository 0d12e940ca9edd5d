"""Random Dakon playouts: pure Python (bots/python/dakon_greedy.py's simulation) against
the arena_games package, per move from Python and in one native call.

    python arena/python/bench/playouts.py [--seconds S]

Prints games per second for each and the ratios. Standard 7-hole board, default rules.
"""
import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bots", "python"))

import arena_games  # noqa: E402
import dakon_greedy  # noqa: E402

START = "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0"


def pure_python(rng):
    state = dakon_greedy.parse_state(START)
    plies = 0
    while True:
        legal = state.legal_moves()
        if not legal:
            return plies
        state.play(rng.choice(legal))
        plies += 1


def package_per_move(rng, game):
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
        plies += 1
    return plies


def package_native(rng, game):
    state = game.new_initial_state().playout(rng.getrandbits(64))
    return int(str(state).rsplit("ply=", 1)[1])


def measure(name, playout, seconds):
    rng = random.Random(1)
    games = plies = 0
    start = time.perf_counter()
    while True:
        plies += playout(rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    rate = games / elapsed
    print("%-34s %9.0f games/s  %6.1f moves/game  (%d games in %.1f s)" % (name, rate, plies / games, games, elapsed))
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    args = parser.parse_args()
    game = arena_games.load("dakon")
    python = measure("pure Python (dakon_greedy.py)", pure_python, args.seconds)
    per_move = measure("arena_games, a Python loop", lambda rng: package_per_move(rng, game), args.seconds)
    native = measure("arena_games, State.playout()", lambda rng: package_native(rng, game), args.seconds)
    print("speed-up: %.1fx (Python loop over the package), %.1fx (State.playout)" % (per_move / python, native / python))


if __name__ == "__main__":
    main()
