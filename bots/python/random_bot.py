#!/usr/bin/env python3
"""Plays a uniformly random legal move, in any game. Deterministic given --seed."""
import random

import arena_bot


def main():
    args = arena_bot.parse_args(description=__doc__)
    rng = random.Random(args.seed)

    def newgame(game):
        rng.seed(args.seed ^ game.seed)  # same seeds, same game: reproducible

    def choose(state, legal, clock, game):
        return rng.choice(legal)

    arena_bot.run(choose, name="random-py seed=%d" % args.seed, on_newgame=newgame)


if __name__ == "__main__":
    main()
