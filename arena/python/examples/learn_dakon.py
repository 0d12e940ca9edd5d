"""Tabular Q-learning on a small Dakon, with Gymnasium, until it beats the random bot.

    .venv/bin/python arena/python/examples/learn_dakon.py [--episodes N] [--out FILE]

The agent plays ``arena_games/Dakon-v0`` (3 holes, 3 seeds: a board small enough for a
table) against the uniformly random opponent, in both seats (drawn at each reset). One
table serves both seats because the observation is the position seen by the agent
(``State.observation_tensor(seat)``: its own row always in the same place); an action
index of the table is a pit of that view, turned back into the game's pit number with
:func:`pit`. Then it plays ``--eval-games`` seeded games against the random bot with
the greedy policy of the table and prints the win rate, saves the table as JSON
(``--out``), and exits 1 if the win rate is below ``--floor``.

``qtable_bot.py`` plays a saved table through arena's protocol;
``dakon-qlearning.toml`` (beside this file) is a tournament of it against the reference
bots. The package README gives the figures.
"""
import argparse
import json
import sys
import time

import gymnasium
import numpy as np

import arena_games.gymnasium  # noqa: F401  (registers the ids)

GAME = {"holes": 3, "seeds": 3}


def pit(k, seat, holes):
    """The pit number of entry ``k`` of ``seat``'s view (see State.observation_tensor)."""
    return (k + holes * seat) % (2 * holes)


def key(observation):
    return ",".join(str(int(x)) for x in observation)


class Table:
    """Q-values per observed position, one per pit of the view."""

    def __init__(self, holes, values=None):
        self.holes = holes
        self.values = values if values is not None else {}

    def row(self, observation):
        return self.values.setdefault(key(observation), [0.0] * (2 * self.holes))

    def best(self, observation, mask, seat, rng=None):
        """The legal view index with the highest value (ties at random with ``rng``)."""
        row = self.values.get(key(observation))
        legal = [k for k in range(2 * self.holes) if mask[pit(k, seat, self.holes)]]
        if row is None:
            return legal[0] if rng is None else int(rng.choice(legal))
        top = max(row[k] for k in legal)
        best = [k for k in legal if row[k] == top]
        return best[0] if rng is None else int(rng.choice(best))


def train(table, episodes, seed, alpha=0.2, epsilon=0.2):
    env = gymnasium.make("arena_games/Dakon-v0", **GAME)
    rng = np.random.default_rng(seed)
    holes = table.holes
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        seat = info["seat"]
        done = False
        while not done:
            if rng.random() < epsilon:
                legal = np.flatnonzero(info["action_mask"])
                k = pit(int(rng.choice(legal)), seat, holes)  # a pit is its own inverse map
            else:
                k = table.best(observation, info["action_mask"], seat, rng)
            row = table.row(observation)
            observation, reward, terminated, truncated, info = env.step(pit(k, seat, holes))
            done = terminated or truncated
            target = reward
            if not done:
                nxt = table.row(observation)
                target += max(nxt[j] for j in range(2 * holes) if info["action_mask"][pit(j, seat, holes)])
            row[k] += alpha * (target - row[k])


def evaluate(table, games, seed, rng=None):
    """The greedy policy's win rate against the random opponent over seeded games (with
    an empty table and ``rng``: a random agent's)."""
    env = gymnasium.make("arena_games/Dakon-v0", **GAME)
    wins = 0
    for game in range(games):
        observation, info = env.reset(seed=10**6 + seed + game)
        done = False
        while not done:
            k = table.best(observation, info["action_mask"], info["seat"], rng)
            observation, reward, terminated, truncated, info = env.step(pit(k, info["seat"], table.holes))
            done = terminated or truncated
        wins += reward > 0
    return wins / games


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=30000, help="training games (default 30000)")
    parser.add_argument("--eval-games", type=int, default=1000, help="seeded games against random (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor", type=float, default=0.0, help="exit 1 below this win rate")
    parser.add_argument("--out", help="where to save the table (JSON)")
    args = parser.parse_args()
    table = Table(GAME["holes"])
    before = evaluate(table, args.eval_games, args.seed, np.random.default_rng(args.seed))
    start = time.perf_counter()
    train(table, args.episodes, args.seed)
    seconds = time.perf_counter() - start
    after = evaluate(table, args.eval_games, args.seed)
    print(
        "dakon(holes=%d,seeds=%d): %d training games in %.1f s, %d positions; win rate against random "
        "over %d games: %.1f%% for a random agent, %.1f%% trained"
        % (GAME["holes"], GAME["seeds"], args.episodes, seconds, len(table.values), args.eval_games, 100 * before, 100 * after)
    )
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"game": "dakon", "params": GAME, "values": table.values}, f)
        print("saved to %s" % args.out)
    if after < args.floor:
        print("FAIL: win rate %.1f%% below the floor %.1f%%" % (100 * after, 100 * args.floor))
        sys.exit(1)


if __name__ == "__main__":
    main()
