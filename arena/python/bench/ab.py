"""Batch.step of two or more builds of the package, compared in one process: on a shared
machine separate runs vary more (up to 30%) than a change to the step often does.

    python arena/python/bench/ab.py DIR NAME[,NAME...] [--game G] [--rounds R] [--slice S]
                                    [--ids]

DIR/NAME/_engine.abi3.so is one build's extension (copy it from
arena/python/python/arena_games/ after `maturin develop --release`), with an empty
DIR/NAME/__init__.py beside it; each is imported as NAME._engine. Every round runs each
build for S seconds of CPU time (default 0.4) in a random order, 256 games of the bench's
loop (bench/batch.py: uniformly random legal actions, from the masks, or with --ids from
Batch.legal_actions(), which every build must then have); the median and the minimum over
the rounds of the microseconds per game-step are printed, of Batch.step alone and with the
choice. Pin it to one core (taskset -c 0).
"""
import argparse
import importlib
import pathlib
import random
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from batch import random_legal, random_of_ids  # noqa: E402


def one_slice(engine, game_name, n, seconds, ids, seed):
    """Microseconds per game-step of Batch.step alone, and with the choice."""
    batch = engine.Batch(engine.load(game_name), n)
    rng = np.random.default_rng(seed)
    _, masks, _ = batch.reset()

    def choose():
        return random_of_ids(*batch.legal_actions(), rng) if ids else random_legal(masks, rng)

    for _ in range(20):  # the caches and the buffers warm
        _, masks, _, _, _, _ = batch.step(choose())
    steps, in_step, start = 0, 0.0, time.process_time()
    while time.process_time() - start < seconds:
        actions = choose()
        t = time.process_time()
        _, masks, _, _, _, _ = batch.step(actions)
        in_step += time.process_time() - t
        steps += 1
    total = time.process_time() - start
    return in_step / steps / n * 1e6, total / steps / n * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="the folder holding one package folder per build")
    parser.add_argument("names", help="the builds' folder names, comma-separated")
    parser.add_argument("--game", default="latrunculi", help="default latrunculi")
    parser.add_argument("--n", type=int, default=256, help="games per batch (default 256)")
    parser.add_argument("--rounds", type=int, default=20, help="default 20")
    parser.add_argument("--slice", type=float, default=0.4, help="seconds per build and round")
    parser.add_argument("--ids", action="store_true", help="choose from Batch.legal_actions()")
    args = parser.parse_args()
    sys.path.insert(0, args.dir)
    names = args.names.split(",")
    engines = {name: importlib.import_module(name + "._engine") for name in names}
    figures = {name: ([], []) for name in names}
    order = random.Random(0)
    for r in range(args.rounds):
        for name in order.sample(names, len(names)):
            alone, total = one_slice(engines[name], args.game, args.n, args.slice, args.ids, r)
            figures[name][0].append(alone)
            figures[name][1].append(total)
    print("%s, n=%d, %d rounds of %.1f s, choice from %s" % (
        args.game, args.n, args.rounds, args.slice, "legal_actions()" if args.ids else "the masks"))
    for name in names:
        alone, total = figures[name]
        print("%-12s Batch.step alone: median %.3f min %.3f us/game-step;  with the choice: "
              "median %.3f min %.3f" % (name, statistics.median(alone), min(alone),
                                        statistics.median(total), min(total)))


if __name__ == "__main__":
    main()
