"""The protocol loop of arena_bot.py, driven in-process with hand-written sessions.

Run: python3 -m unittest discover -s bots/python
"""
import io
import unittest

import arena_bot

DAKON = (
    "arena 1\n"
    "newgame dakon seat=1 seed=18446744073709551615 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000\n"
    "played 0 10\n"
    "position pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1\n"
    "legal 0 1 2 5 6\n"
    "go time=60000 opptime=59000 inc=100 movetime=-\n"
    "played 1 6\n"
    "gameover win score 50 48\n"
    "quit\n"
)


def session(text, choose, **hooks):
    out = io.StringIO()
    arena_bot.run(choose, name="test bot", stdin=io.BytesIO(text.encode()), stdout=out, **hooks)
    return out.getvalue()


class Loop(unittest.TestCase):
    def test_a_whole_game(self):
        seen = {}

        def choose(state, legal, clock, game):
            seen.update(state=state, legal=legal, clock=clock, game=game)
            return legal[-1]

        events = []
        out = session(
            DAKON,
            choose,
            on_newgame=lambda g: events.append(("newgame", g.game)),
            on_played=lambda seat, move, g: events.append(("played", seat, move)),
            on_gameover=lambda outcome, reason, fields, g: events.append(("gameover", outcome, reason)),
        )
        self.assertEqual(out, "ready test bot\nmove 6\n")
        self.assertEqual(seen["state"], "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1")
        self.assertEqual(seen["legal"], ["0", "1", "2", "5", "6"])
        clock = seen["clock"]
        self.assertEqual((clock.time, clock.opptime, clock.inc, clock.movetime), (60000, 59000, 100, None))
        game = seen["game"]
        self.assertEqual((game.game, game.seat, game.seed), ("dakon", 1, 2**64 - 1))
        self.assertEqual(game.params, {"holes": 7, "seeds": 7, "nembak_takes_lander": False, "max_plies": 1000})
        self.assertEqual(game.played, [(0, "10"), (1, "6")])
        self.assertEqual(game.result[:2], ("win", "score"))
        self.assertEqual(
            events,
            [("newgame", "dakon"), ("played", 0, "10"), ("played", 1, "6"), ("gameover", "win", "score")],
        )

    def test_set_up_on_isready_is_asked_for_only_with_on_setup(self):
        text = (
            "arena 1\n"
            "newgame latrunculi seat=0 seed=3 width=8 height=8 pieces=16 quiet_plies=100\n"
            "isready\n"
            "position board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0\n"
            "legal a1 b1\n"
            "go time=- opptime=- inc=0 movetime=100\n"
        )
        loaded = []
        out = session(text, lambda state, legal, clock, game: legal[0], on_setup=lambda g: loaded.append(g.game))
        self.assertEqual(out, "ready test bot isready\nreadyok\nmove a1\n")
        self.assertEqual(loaded, ["latrunculi"])
        # Without it the `ready` line asks for nothing (an `isready` is still answered).
        out = session(text, lambda state, legal, clock, game: legal[0])
        self.assertEqual(out, "ready test bot\nreadyok\nmove a1\n")

    def test_crlf_empty_and_unknown_lines_and_eof(self):
        text = (
            "arena 1\r\n\r\n"
            "hello from a newer referee\r\n"
            "newgame latrunculi seat=0 seed=3 width=8 height=8 pieces=16 quiet_plies=100\r\n"
            "position board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0\r\n"
            "legal a1 b1\r\n"
            "go time=- opptime=- inc=0 movetime=100\r\n"
        )  # no quit: end of input must end the loop too
        out = session(text, lambda state, legal, clock, game: legal[1])
        self.assertEqual(out, "ready test bot\nmove b1\n")

    def test_bad_choice_falls_back_to_a_legal_move(self):
        def broken(state, legal, clock, game):
            raise RuntimeError("bug")

        out = session(DAKON, broken)
        self.assertEqual(out, "ready test bot\nmove 0\n")
        out = session(DAKON, lambda *args: "99")
        self.assertEqual(out, "ready test bot\nmove 0\n")

    def test_one_move_per_go_across_games(self):
        text = DAKON.replace("quit\n", "") + DAKON.split("\n", 1)[1]
        out = session(text, lambda state, legal, clock, game: legal[0])
        self.assertEqual(out, "ready test bot\nmove 0\nmove 0\n")

    def test_clock_reads_the_search_budget(self):
        clock = arena_bot.Clock.from_go("time=- opptime=- inc=0 movetime=500 playouts=2000 depth=4")
        self.assertEqual((clock.playouts, clock.depth, clock.nodes), (2000, 4, None))
        plain = arena_bot.Clock.from_go("time=- opptime=- inc=0 movetime=500")
        self.assertEqual((plain.playouts, plain.depth, plain.nodes), (None, None, None))

    def test_clock_budget(self):
        self.assertIsNone(arena_bot.Clock.from_go("time=- opptime=- inc=0 movetime=-").budget_ms())
        self.assertEqual(arena_bot.Clock.from_go("time=- opptime=- inc=0 movetime=1000").budget_ms(), 750)
        budget = arena_bot.Clock.from_go("time=30000 opptime=- inc=0 movetime=-").budget_ms()
        self.assertTrue(0 < budget < 1000)

    def test_info_is_one_line(self):
        out = io.StringIO()

        def choose(state, legal, clock, game):
            arena_bot.info("depth 3\nscore 5")
            return legal[0]

        arena_bot.run(choose, stdin=io.BytesIO(DAKON.encode()), stdout=out)
        self.assertEqual(out.getvalue().splitlines()[1], "info depth 3 score 5")

    def test_the_engine_is_offered_only_when_installed(self):
        """Standard library alone: no engine, and nothing else changes. With the
        arena_games package (arena/python/tests/test_bots.py tests it fully): the game."""
        game = arena_bot.GameInfo.from_newgame(DAKON.splitlines()[1].split(" ", 1)[1])
        state = "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1"
        game.played.append((0, "10"))
        if arena_bot.arena_games is None:
            self.assertIsNone(game.engine)
            self.assertIsNone(game.engine_state(state))
        else:
            self.assertEqual(game.engine.name, "dakon")
            self.assertEqual(game.engine_state(state).legal_moves(), ["0", "1", "2", "5", "6"])


if __name__ == "__main__":
    unittest.main()
