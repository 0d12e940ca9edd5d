#!/usr/bin/env python3
"""Any OpenSpiel bot as an arena bot: MCTS by default, on the games arena_games registers.

    .venv/bin/python bots/python/openspiel_bot.py [--bot mcts|random|NAME] [--seed N]

- ``mcts`` (default): ``open_spiel.python.algorithms.mcts.MCTSBot`` as OpenSpiel ships it,
  with leaf evaluation by native random playouts (``arena_games.openspiel.PlayoutEvaluator``)
  or, with ``--evaluator random-rollout``, by OpenSpiel's own ``RandomRolloutEvaluator``.
  MCTSBot counts simulations, not time: the bot measures how many fit in the clock's budget
  (``Clock.budget_ms``) and sets ``max_simulations`` before each search.
- ``random``: OpenSpiel's ``UniformRandomBot``.
- any other NAME: ``pyspiel.load_bot(NAME, game, seat)`` (see ``pyspiel.registered_bots()``).

To wrap another OpenSpiel bot from Python, call :func:`play` with a factory
``make_bot(game, seat, rng) -> pyspiel.Bot``.

Needs the arena_games package and open_spiel (``pip install ./arena/python[openspiel]``);
run it with that Python, e.g. ``.venv/bin/python``.
"""
import argparse
import sys
import time

import arena_bot


def play(make_bot, name, seed=0, share=0.4, sims_per_second=None):
    """Runs the protocol loop with a fresh OpenSpiel bot per game from ``make_bot``.

    A bot with a ``max_simulations`` attribute (MCTSBot) gets it set before each move so
    that the search takes about ``share`` of the clock's budget.
    """
    import numpy as np
    import pyspiel
    from arena_games import openspiel as arena_openspiel

    current = {}
    # Simulations per second, measured as we go (MCTS); the start is about half what both
    # games run at on one core here, corrected from the first move on.
    speed = {"rate": sims_per_second or 4000.0, "evaluations": 0}

    def newgame(game):
        rng = np.random.RandomState((seed ^ game.seed) % 2**32)
        params = {k: v for k, v in game.params.items() if v is not None}
        os_game = arena_openspiel.load_game(game.game, **params)
        bot = make_bot(os_game, game.seat, rng)
        if hasattr(bot, "max_simulations") and hasattr(bot, "evaluator"):
            count_evaluations(bot.evaluator)
        current.update(game=os_game, bot=bot)

    def count_evaluations(evaluator):
        # A search that solves the position stops early: time the evaluations it made.
        evaluate = evaluator.evaluate

        def counted(state):
            speed["evaluations"] += 1
            return evaluate(state)

        evaluator.evaluate = counted

    def choose(state_text, legal, clock, game):
        os_game, bot = current["game"], current["bot"]
        state = arena_openspiel.ArenaState(os_game, game.engine_state(state_text))
        timed = hasattr(bot, "max_simulations") and clock.playouts is None
        if hasattr(bot, "max_simulations") and clock.playouts is not None:
            # Equal compute: the simulations the referee asks for.
            bot.max_simulations = max(2, clock.playouts)
        if timed:
            budget = clock.budget_ms()
            seconds = (1000 if budget is None else budget) * share / 1000.0
            bot.max_simulations = max(2, int(speed["rate"] * seconds))
            speed["evaluations"] = 0
        started = time.monotonic()
        action = bot.step(state)
        elapsed = time.monotonic() - started
        if timed:
            done = speed["evaluations"]
            arena_bot.info("simulations %d of %d in %.0f ms" % (done, bot.max_simulations, elapsed * 1000))
            if done >= 8 and elapsed > 0.001:
                # Slower at once (the next search must not overrun), faster step by step.
                rate = done / elapsed
                speed["rate"] = rate if rate < speed["rate"] else min(2 * speed["rate"], (speed["rate"] + rate) / 2)
        return state.arena.action_to_move(action)

    out = sys.stdout
    sys.stdout = sys.stderr  # whatever a library prints must not reach the referee
    arena_bot.run(choose, name=name, on_newgame=newgame, stdout=out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="bot seed, mixed with each game's seed (default 0)")
    parser.add_argument("--bot", default="mcts", help="mcts (default), random, or a pyspiel registered bot")
    parser.add_argument("--evaluator", choices=["playout", "random-rollout"], default="playout",
                        help="MCTS leaf evaluation: native playouts (default) or OpenSpiel's RandomRolloutEvaluator")
    parser.add_argument("--uct-c", type=float, default=2.0, help="MCTS exploration constant (default 2)")
    parser.add_argument("--share", type=float, default=0.4,
                        help="share of the clock's budget MCTS aims at (default 0.4: a search cannot stop early)")
    args = parser.parse_args()
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
        from open_spiel.python.bots import uniform_random
        from arena_games import openspiel as arena_openspiel
    except ImportError as error:
        arena_bot.log("openspiel_bot: %s (pip install ./arena/python[openspiel], see arena/python/README.md)" % error)
        sys.exit(2)

    def make_bot(game, seat, rng):
        if args.bot == "mcts":
            if args.evaluator == "playout":
                evaluator = arena_openspiel.PlayoutEvaluator(random_state=rng)
            else:
                evaluator = mcts.RandomRolloutEvaluator(random_state=rng)
            return mcts.MCTSBot(game, args.uct_c, max_simulations=100, evaluator=evaluator, random_state=rng)
        if args.bot == "random":
            return uniform_random.UniformRandomBot(seat, rng)
        return pyspiel.load_bot(args.bot, game, seat)

    play(make_bot, name="openspiel-%s seed=%d" % (args.bot, args.seed), seed=args.seed, share=args.share)


if __name__ == "__main__":
    main()
