#!/usr/bin/env python3
"""Plays a table saved by learn_dakon.py through arena's protocol (bots/python/arena_bot.py).

    .venv/bin/python arena/python/examples/qtable_bot.py --table FILE [--seed N]

The greedy move of the table in positions it has seen, a random legal move in the others.
Needs the arena_games package (for the observation of a position): run it with the
Python that has it.
"""
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bots", "python"))
sys.path.insert(0, HERE)

import arena_bot  # noqa: E402
from learn_dakon import Table, pit  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True, help="a JSON file written by learn_dakon.py --out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with open(args.table) as f:
        saved = json.load(f)
    table = Table(saved["params"]["holes"], saved["values"])
    rng = random.Random(args.seed)

    def choose(state_text, legal, clock, game):
        params = {k: int(v) for k, v in game.params.items() if k in ("holes", "seeds")}
        if game.game != "dakon" or params != saved["params"]:
            arena_bot.log("qtable_bot: trained for dakon %s, not %s %s" % (saved["params"], game.game, params))
            return rng.choice(legal)
        state = game.engine_state(state_text)
        seat = state.current_player()
        k = table.best(state.observation_tensor(seat), state.legal_actions_mask(), seat, rng)
        return state.action_to_move(pit(k, seat, table.holes))

    arena_bot.run(choose, name="qtable-dakon seed=%d" % args.seed)


if __name__ == "__main__":
    main()
