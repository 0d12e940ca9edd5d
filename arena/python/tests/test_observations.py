"""Per-player observation tensors and legal-action masks, as NumPy arrays.

Expectations are read off the state text (protocol.md's notation) and the layout the
package documents (State.observation_tensor), never off the tensor code itself.
"""

import random

import numpy as np
import pytest

import arena_games


def dakon_view(text, player, holes):
    """The documented Dakon view, built from the notation by hand."""
    fields = dict(token.split("=") for token in text.split())
    pits = [int(n) for n in fields["pits"].split(",")]
    stores = [int(n) for n in fields["stores"].split(",")]
    turn = int(fields["turn"])
    rotated = pits if player == 0 else pits[holes:] + pits[:holes]
    return [float(turn == player), float(turn != player)] + rotated + [stores[player], stores[1 - player]]


def test_dakon_views_of_one_state_differ_as_documented():
    game = arena_games.load("dakon", holes=4, seeds=3)
    state = game.state_from_text("pits=1,2,3,4,5,6,0,0 stores=3,0 turn=1 ply=3")
    mine = state.observation_tensor(1)
    theirs = state.observation_tensor(0)
    assert isinstance(mine, np.ndarray) and mine.dtype == np.float32
    # Player 1 owns pits 0..3: its own row comes where seat 0's stands, the board turned round.
    assert mine.tolist() == [1, 0, 5, 6, 0, 0, 1, 2, 3, 4, 0, 3]
    assert theirs.tolist() == [0, 1, 1, 2, 3, 4, 5, 6, 0, 0, 3, 0]
    # The default is the player to move.
    assert state.observation_tensor().tolist() == mine.tolist()


def test_dakon_stores_are_mine_then_the_opponents():
    game = arena_games.load("dakon", holes=3, seeds=3)
    state = game.state_from_text("pits=0,1,2,3,4,0 stores=5,3 turn=0 ply=9")
    assert state.observation_tensor(0).tolist()[-2:] == [5, 3]
    assert state.observation_tensor(1).tolist()[-2:] == [3, 5]


@pytest.mark.parametrize("holes", [3, 5, 7])
def test_dakon_views_match_the_notation_over_random_games(holes):
    game = arena_games.load("dakon", holes=holes)
    rng = random.Random(holes)
    for _ in range(5):
        state = game.new_initial_state()
        while True:
            text = str(state)
            for player in (0, 1):
                assert state.observation_tensor(player).tolist() == dakon_view(text, player, holes)
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))


def latrunculi_planes(text, player, width, height, pieces, quiet_plies):
    """The documented Ludus latrunculorum view, built from the notation by hand."""
    fields = dict(token.split("=") for token in text.split())
    out = np.zeros((10, height, width), np.float32)
    # Planes 0-3: my free and trapped pieces, then the opponent's.
    order = "XxOo" if player == 0 else "OoXx"
    for row, rank in enumerate(fields["board"].split("/")):
        col = 0
        digits = ""
        for c in rank + "/":
            if c.isdigit():
                digits += c
                continue
            col += int(digits or 0)
            digits = ""
            if c == "/":
                break
            out[order.index(c), row, col] = 1
            col += 1
    out[4] = out[:4].sum(axis=0) == 0
    hand = [int(n) for n in fields["hand"].split(",")]
    out[5] = float(int(fields["turn"]) != player)
    out[6] = float(fields["phase"] == "place")
    out[7] = hand[player] / pieces
    out[8] = hand[1 - player] / pieces
    out[9] = int(fields["quiet"]) / quiet_plies
    return out


def test_latrunculi_views_swap_the_sides_and_keep_the_squares():
    game = arena_games.load("latrunculi")
    text = "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42"
    state = game.state_from_text(text)
    zero = state.observation_tensor(0).reshape(10, 8, 8)
    one = state.observation_tensor(1).reshape(10, 8, 8)
    # a8 (top left): seat 0's free piece; d6: seat 1's trapped one.
    assert zero[0, 0, 0] == 1 and one[2, 0, 0] == 1
    assert zero[3, 2, 3] == 1 and one[1, 2, 3] == 1
    assert (zero[[0, 1, 2, 3]] == one[[2, 3, 0, 1]]).all()
    assert (zero[4] == one[4]).all()  # empty squares: nobody's
    assert zero[5].max() == 0 and one[5].min() == 1  # seat 0 to move: player 1's opponent
    assert zero[9, 0, 0] == pytest.approx(0.08)


def test_latrunculi_views_match_the_notation_over_random_games():
    params = dict(width=6, height=5, pieces=5, quiet_plies=12)
    game = arena_games.load("latrunculi", **params)
    rng = random.Random(3)
    for _ in range(3):
        state = game.new_initial_state()
        while True:
            for player in (0, 1):
                expected = latrunculi_planes(str(state), player, **params)
                assert (state.observation_tensor(player).reshape(expected.shape) == expected).all()
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))


@pytest.mark.parametrize(
    "name, params",
    [("dakon", {"holes": 5}), ("latrunculi", {"width": 5, "height": 6, "pieces": 4, "quiet_plies": 10})],
)
def test_the_mask_is_the_legal_actions(name, params):
    game = arena_games.load(name, **params)
    rng = random.Random(1)
    state = game.new_initial_state()
    while True:
        mask = state.legal_actions_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.num_distinct_actions(),)
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        if state.is_terminal():
            assert mask.sum() == 0
            break
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_finished_game_needs_the_player_named():
    game = arena_games.load("dakon", holes=3, seeds=1)
    state = game.new_initial_state().playout(seed=1)
    assert state.is_terminal()
    with pytest.raises(arena_games.GameError, match="give the player"):
        state.observation_tensor()
    assert state.observation_tensor(1).shape == (10,)
    with pytest.raises(arena_games.GameError, match="player 2"):
        state.observation_tensor(2)


def test_material_is_stores_or_pieces_and_hands():
    dakon = arena_games.load("dakon").state_from_text(
        "pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=12"
    )
    assert (dakon.material(0), dakon.material(1)) == (-10, 10)
    latrunculi = arena_games.load("latrunculi").state_from_text(
        "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3"
    )
    assert latrunculi.material(0) == (2 + 14) - (1 + 15)


def test_bounds_hold_every_observation():
    for game in (arena_games.load("dakon", holes=4, seeds=2), arena_games.load("latrunculi", width=5, height=5, pieces=3)):
        low, high = game.observation_tensor_bounds()
        state = game.new_initial_state()
        rng = random.Random(2)
        while not state.is_terminal():
            tensor = state.observation_tensor()
            assert low <= tensor.min() and tensor.max() <= high
            state.apply_action(rng.choice(state.legal_actions()))
    assert arena_games.load("dakon", holes=4, seeds=2).observation_tensor_bounds() == (0, 16)


def test_draw_is_the_terminal_board():
    state = arena_games.load("dakon").new_initial_state()
    board = state.draw()
    assert "7" in board and "\n" in board and board != str(state)
