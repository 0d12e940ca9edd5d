#!/usr/bin/env python3
"""Monte Carlo tree search (UCT) for any game the arena_games package knows.

Each decision grows a search tree from the current position for most of the time the
clock allows (``Clock.budget_ms``; 1 s when nothing limits it), evaluating every new node
by one random playout run natively (``arena_games.State.playout``), and plays the most
visited move. Rewards are counted for the player who made the move into a node, so
Dakon's bonus moves (the same player moving twice) need nothing special.

Needs the arena_games package (arena/python/README.md): run it with the Python that has
it, e.g. ``.venv/bin/python bots/python/mcts_bot.py``. Deterministic given --seed and
--iterations.
"""
import argparse
import math
import random
import sys
import time

import arena_bot


class Node:
    __slots__ = ("parent", "move", "mover", "untried", "children", "visits", "reward")

    def __init__(self, state, parent=None, move=None, mover=None):
        self.parent, self.move, self.mover = parent, move, mover
        self.untried = state.legal_moves()  # empty once the game is over
        self.children = []
        self.visits = 0
        self.reward = 0.0  # summed returns of `mover`, the player who moved into this node

    def select(self, c):
        log_n = math.log(self.visits)
        return max(self.children, key=lambda ch: ch.reward / ch.visits + c * math.sqrt(log_n / ch.visits))


def search(root_state, legal, rng, deadline, iterations, c):
    """Grows a tree until the deadline (or `iterations` playouts); returns it and the playout count."""
    root = Node(root_state)
    root.untried = [move for move in root.untried if move in legal]  # the referee has the last word
    done = 0
    while done < iterations and (done == 0 or time.monotonic() < deadline):
        node, state = root, root_state.clone()
        while not node.untried and node.children:  # selection
            node = node.select(c)
            state.apply(node.move)
        if node.untried:  # expansion
            move = node.untried.pop(rng.randrange(len(node.untried)))
            mover = state.current_player()
            state.apply(move)
            child = Node(state, node, move, mover)
            node.children.append(child)
            node = child
        returns = state.playout(rng.getrandbits(64)).returns()  # simulation
        while node is not None:  # backpropagation
            node.visits += 1
            if node.mover is not None:
                node.reward += returns[node.mover]
            node = node.parent
        done += 1
    return root, done


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="bot seed, mixed with each game's seed (default 0)")
    parser.add_argument("--iterations", type=int, default=10**9,
                        help="playouts per move at most (default: as many as time allows)")
    parser.add_argument("--c", type=float, default=1.4, help="UCT exploration constant (default 1.4)")
    parser.add_argument("--share", type=float, default=0.7, help="share of the clock's budget to use (default 0.7)")
    args = parser.parse_args()
    if arena_bot.arena_games is None:
        arena_bot.log("mcts_bot: the arena_games package is not installed (see arena/python/README.md)")
        sys.exit(2)
    rng = random.Random(args.seed)

    def newgame(game):
        rng.seed(args.seed ^ game.seed)

    def choose(state_text, legal, clock, game):
        if len(legal) == 1:
            return legal[0]
        budget = clock.budget_ms()
        budget_s = (1000 if budget is None else budget) * args.share / 1000.0
        iterations = args.iterations
        if clock.playouts is not None:
            # Equal compute: exactly the playouts asked for; the clock's whole
            # budget is only a safety net.
            iterations = clock.playouts
            budget_s = (10**6 if budget is None else budget / 0.8) / 1000.0
        state = game.engine_state(state_text)
        root, done = search(state, set(legal), rng, clock.started + budget_s, iterations, args.c)
        best = max(root.children, key=lambda ch: (ch.visits, ch.reward))
        won = 50 + 50 * best.reward / best.visits
        arena_bot.info("playouts %d, best %s won %.0f%% of %d" % (done, best.move, won, best.visits))
        return best.move

    arena_bot.run(choose, name="mcts-py seed=%d" % args.seed, on_newgame=newgame)


if __name__ == "__main__":
    main()
