"""Training-loop throughput: a per-step Python loop over one State against Batch.step over N
games, each step producing the next observation and mask (what an agent needs), with
uniformly random legal actions.

    python arena/python/bench/batch.py [--seconds S] [--game dakon|latrunculi] [--n 1,16,256]

Prints steps per second for each and the ratio to the loop; and, for scale, the steps per
second of the package's own PettingZoo environment (the AEC loop an agent written against
PettingZoo runs: `last()`, a random legal action from the mask, `step()`). One thread: Batch runs the
games one after another (without the GIL, so other Python threads may run meanwhile).
Times are the process's CPU time (time.process_time), so that other work on a shared
machine does not count; pin it to one core (taskset -c 0) for steady figures.
"Batch.step alone" leaves out the choice of actions in NumPy, which an agent replaces
with its own policy. The choice is made twice: from the masks (their nonzero entries), and
from Batch.legal_actions() (each game's legal ids, no mask to scan).
"""
import argparse
import random
import time

import numpy as np

import arena_games


def per_step_loop(game, seconds):
    """The loop a PettingZoo or Gymnasium environment runs per step."""
    rng = random.Random(1)
    state = game.new_initial_state()
    steps = 0
    start = time.process_time()
    while True:
        for _ in range(100):
            state.legal_actions_mask()
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal():
                state = game.new_initial_state()
            state.observation_tensor()
        steps += 100
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed


def pettingzoo_loop(name, seconds):
    """The AEC loop against arena_games.pettingzoo.env, random legal actions."""
    import arena_games.pettingzoo as pz

    env = pz.env(name)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    start = time.process_time()
    while True:
        for _ in range(100):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed


def random_legal(masks, rng):
    """A uniformly random legal action for each row of `masks`, in NumPy: the mask's nonzero
    entries, and a random one of each row's. The mask is read as bool, for which NumPy's
    nonzero is ten times faster than for int8; random keys over the whole mask
    (`(masks * rng.random(masks.shape)).argmax(1)`) cost 4,224 random numbers per game for
    Ludus latrunculorum, more than ten times the step itself."""
    n, width = masks.shape
    legal = np.flatnonzero(masks.view(np.bool_))
    counts = np.bincount(legal // width, minlength=n)
    starts = np.cumsum(counts) - counts
    return legal[starts + (rng.random(n) * counts).astype(np.int64)] - np.arange(n) * width


def random_of_ids(actions, offsets, rng):
    """The same uniform choice from `Batch.legal_actions()`: each game's legal ids in one flat
    array, a few dozen per game to read instead of a mask's 4,224 entries."""
    counts = np.diff(offsets)
    return actions[offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)]


def batched(game, n, seconds, ids=False):
    """Returns steps/s with NumPy choosing the actions (from the masks, or with `ids` from
    `Batch.legal_actions()`), and of Batch.step alone."""
    rng = np.random.default_rng(1)
    batch = arena_games.Batch(game, n)
    _, masks, _ = batch.reset()
    steps = 0
    in_step = 0.0
    start = time.process_time()
    while True:
        if ids:
            actions = random_of_ids(*batch.legal_actions(), rng)
        else:
            actions = random_legal(masks, rng)
        t = time.process_time()
        _, masks, _, _, _, _ = batch.step(actions)
        in_step += time.process_time() - t
        steps += n
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed, steps / in_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    parser.add_argument("--game", default="dakon", help="dakon (default) or latrunculi, default parameters")
    parser.add_argument("--n", default="1,16,256", help="batch sizes (default 1,16,256)")
    args = parser.parse_args()
    game = arena_games.load(args.game)
    print("%s, one thread, %.0f s per figure" % (game, args.seconds))
    loop = per_step_loop(game, args.seconds)
    print("%-40s %11.0f steps/s" % ("per-step Python loop (one State)", loop))
    env = pettingzoo_loop(args.game, args.seconds)
    print("%-40s %11.0f steps/s  %5.2fx" % ("PettingZoo AEC env loop", env, env / loop))
    for n in (int(x) for x in args.n.split(",")):
        total, step_only = batched(game, n, args.seconds)
        print(
            "%-40s %11.0f steps/s  %5.1fx   (Batch.step alone: %.0f steps/s, %.1fx)"
            % ("Batch n=%d, actions chosen in NumPy" % n, total, total / loop, step_only, step_only / loop)
        )
        total, step_only = batched(game, n, args.seconds, ids=True)
        print(
            "%-40s %11.0f steps/s  %5.1fx   (Batch.step alone: %.0f steps/s, %.1fx)"
            % ("Batch n=%d, chosen from legal_actions()" % n, total, total / loop, step_only, step_only / loop)
        )


if __name__ == "__main__":
    main()
