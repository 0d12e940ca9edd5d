"""The Python Dakon simulation of dakon_greedy.py against the rules' worked examples.

Run: python3 -m unittest discover -s bots/python
"""
import random
import unittest

from dakon_greedy import DakonState, greedy_choice, parse_state

START = "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0"


def played(text, pit, **options):
    state = parse_state(text)
    bonus = state.play(pit, **options)
    return state, bonus


class WorkedExamples(unittest.TestCase):
    """The five examples of /work/shared/rules/dakon.md, 'Worked examples'."""

    def test_1_lap_into_own_store_earns_a_bonus_move(self):
        state, bonus = played(START, 7)
        self.assertEqual(state.notation(), "pits=7,7,7,7,7,7,7,0,8,8,8,8,8,8 stores=1,0 turn=0 ply=1")
        self.assertTrue(bonus)
        self.assertFalse(state.over)

    def test_2_relay_then_nembak_leaves_the_lander(self):
        state, bonus = played(START, 10)
        self.assertEqual(state.notation(), "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1")
        self.assertFalse(bonus)

    def test_3_mikul_takes_both_neighbours_and_the_lander(self):
        state, bonus = played("pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=12", 13)
        self.assertEqual(state.notation(), "pits=1,1,1,1,0,0,0,1,1,1,1,1,1,0 stores=43,45 turn=1 ply=13")
        self.assertFalse(bonus)

    def test_4_long_lap_does_not_skip_the_origin_pit(self):
        state, bonus = played("pits=0,0,0,0,0,0,0,0,0,0,0,0,0,16 stores=40,42 turn=0 ply=30", 13)
        self.assertEqual(state.notation(), "pits=1,1,1,1,1,1,1,1,1,1,1,1,1,1 stores=42,42 turn=0 ply=31")
        self.assertTrue(bonus)
        self.assertFalse(state.over)

    def test_5_bonus_move_with_an_empty_side_ends_the_game(self):
        state, bonus = played("pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40", 13)
        self.assertTrue(bonus)
        self.assertTrue(state.over)
        self.assertFalse(state.adjudicated)
        self.assertEqual(state.stores, [51, 47])
        self.assertEqual(sum(state.pits), 0)


class MoreRules(unittest.TestCase):
    def test_nembak_takes_lander_option(self):
        state, _ = played(START, 10, nembak_takes_lander=True)
        self.assertEqual(state.notation(), "pits=8,8,8,0,0,8,8,8,8,8,0,8,8,8 stores=10,0 turn=1 ply=1")

    def test_nembak_on_empty_opposite_captures_nothing(self):
        # Player 0 plays 8 (1 seed) into empty pit 9; pit 2 opposite is empty.
        for takes in (False, True):
            state, bonus = played("pits=1,1,0,1,1,1,1,1,1,0,1,1,1,1 stores=0,0 turn=0 ply=5", 8, nembak_takes_lander=takes)
            self.assertEqual(state.notation(), "pits=1,1,0,1,1,1,1,1,0,1,1,1,1,1 stores=0,0 turn=1 ply=6")
            self.assertFalse(bonus)

    def test_mikul_unequal_neighbours_take_nothing(self):
        # Player 0 plays 13 (3 seeds): store, 6, 5; pit 5 was empty, neighbours 4 and 6
        # are compared after pit 6 got its seed: 2 and 3, nothing taken.
        state, _ = played("pits=1,1,1,1,2,0,2,1,1,1,1,1,1,3 stores=0,0 turn=0 ply=9", 13)
        self.assertEqual(state.notation(), "pits=1,1,1,1,2,1,3,1,1,1,1,1,1,0 stores=1,0 turn=1 ply=10")
        # 3 and 2: nothing taken either
        state, _ = played("pits=1,1,1,1,3,0,1,1,1,1,1,1,1,3 stores=0,0 turn=0 ply=9", 13)
        self.assertEqual(state.notation(), "pits=1,1,1,1,3,1,2,1,1,1,1,1,1,0 stores=1,0 turn=1 ply=10")

    def test_mikul_never_at_the_end_of_a_row(self):
        # Player 0 plays 13 (8 seeds): store, 6, 5, 4, 3, 2, 1, 0; pit 0 was empty and is
        # the end of player 1's row: one neighbour only, no mikul.
        state, _ = played("pits=0,2,1,1,1,1,1,1,1,1,1,1,1,8 stores=0,0 turn=0 ply=3", 13)
        self.assertEqual(state.pits[0], 1)
        self.assertEqual(state.stores, [1, 0])
        self.assertEqual(state.turn, 1)

    def test_player_one_sows_into_store_one_and_skips_store_zero(self):
        # Player 1 plays 0 (3 seeds): store 1, 7, 8: pit 8 empty and player 0's (mikul
        # check: 7 holds 2, 9 holds 0: nothing).
        state, bonus = played("pits=3,1,1,1,1,1,1,1,0,0,1,1,1,1 stores=0,0 turn=1 ply=2", 0)
        self.assertEqual(state.notation(), "pits=0,1,1,1,1,1,1,2,1,0,1,1,1,1 stores=0,1 turn=0 ply=3")
        self.assertFalse(bonus)
        # Player 1 plays 6 (7 seeds): 5,4,3,2,1,0,store 1: bonus.
        state, bonus = played("pits=1,1,1,1,1,1,7,1,1,1,1,1,1,1 stores=0,0 turn=1 ply=2", 6)
        self.assertTrue(bonus)
        self.assertEqual(state.notation(), "pits=2,2,2,2,2,2,0,1,1,1,1,1,1,1 stores=0,1 turn=1 ply=3")
        # Player 1 plays 0 (10 seeds): store 1, 7..13, store 0 skipped, 6, 5; pit 5 was
        # empty and is player 1's: nembak takes pit 12's seed.
        state, bonus = played("pits=10,1,1,1,1,0,1,1,1,1,1,1,0,1 stores=0,0 turn=1 ply=2", 0)
        self.assertFalse(bonus)
        self.assertEqual(state.notation(), "pits=0,1,1,1,1,1,2,2,2,2,2,2,0,2 stores=0,2 turn=0 ply=3")

    def test_max_plies_adjudication(self):
        state, _ = played(START, 10, max_plies=1)
        self.assertTrue(state.over)
        self.assertTrue(state.adjudicated)
        # player 1's row: 8+8+8+0+0+8+8 = 40; player 0's: 8*6 + 1 = 49, store 9
        self.assertEqual(state.stores, [9 + 49, 40])

    def test_illegal_moves_are_refused(self):
        state = parse_state(START)
        with self.assertRaises(ValueError):
            state.play(3)  # player 1's pit on player 0's turn

    def test_random_games_terminate_and_conserve_seeds(self):
        """Long relays end (each lap chain passes the store); seeds are never lost."""
        for holes in (3, 5, 7, 9):
            for game_seed in range(60):
                rng = random.Random(game_seed * 31 + holes)
                state = DakonState([holes] * (2 * holes), [0, 0])
                total = 2 * holes * holes
                while not state.over:
                    state.play(rng.choice(state.legal_moves()), max_plies=1000)
                    self.assertEqual(sum(state.pits) + sum(state.stores), total)
                self.assertEqual(sum(state.stores), total)
                self.assertEqual(sum(state.pits), 0)


class Greedy(unittest.TestCase):
    def test_diff_first_picks_the_best_store_difference(self):
        state = parse_state(START)
        legal = [str(p) for p in range(7, 14)]
        best = max(_diff(_after(state, pit)) for pit in range(7, 14))
        self.assertGreaterEqual(best, 9)  # example 2: playing 10 nets 9
        for seed in range(5):
            move = greedy_choice(state, legal, random.Random(seed), bonus_first=False)
            self.assertEqual(_diff(_after(state, int(move))), best)

    def test_bonus_first_takes_the_best_bonus_move(self):
        state = parse_state(START)
        legal = [str(p) for p in range(7, 14)]
        bonus_moves = [p for p in range(7, 14) if state.copy().play(p)]
        self.assertIn(7, bonus_moves)  # example 1
        best = max(_diff(_after(state, pit)) for pit in bonus_moves)
        for seed in range(5):
            move = int(greedy_choice(state, legal, random.Random(seed)))
            self.assertIn(move, bonus_moves)
            self.assertEqual(_diff(_after(state, move)), best)

    def test_beats_random_play(self):
        wins = 0
        for game in range(20):
            rngs = [random.Random(game), random.Random(game + 1000)]
            greedy_seat = game % 2
            state = parse_state(START)
            while not state.over:
                legal = [str(m) for m in state.legal_moves()]
                if state.turn == greedy_seat:
                    move = greedy_choice(state, legal, rngs[0])
                else:
                    move = rngs[1].choice(legal)
                state.play(int(move))
            wins += state.stores[greedy_seat] > state.stores[1 - greedy_seat]
        self.assertGreaterEqual(wins, 17)

    def test_deterministic_given_the_rng(self):
        state = parse_state(START)
        legal = [str(p) for p in range(7, 14)]
        a = [greedy_choice(state, legal, random.Random(seed)) for seed in range(10)]
        b = [greedy_choice(state, legal, random.Random(seed)) for seed in range(10)]
        self.assertEqual(a, b)

    def test_prefers_the_won_ending(self):
        # Example 5's move ends the game won (51-47): it is the only move, and ranked top.
        state = parse_state("pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40")
        self.assertEqual(greedy_choice(state, ["13"], random.Random(0)), "13")


def _after(state, pit):
    after = state.copy()
    after.play(pit)
    return after


def _diff(state):
    return state.stores[0] - state.stores[1]


if __name__ == "__main__":
    unittest.main()
