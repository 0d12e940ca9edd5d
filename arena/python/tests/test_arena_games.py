"""The arena_games package: the protocol's notation, the rules' worked examples, errors.

Run: pytest arena/python/tests (after installing the package, see arena/python/README.md).
Expectations come from /work/shared/rules/*.md (docs/rules/ in the repository) and
protocol.md, never from the engines themselves.
"""

import copy
import pickle
import random

import pytest

import arena_games
from arena_games import IllegalMoveError, NotationError, ParameterError


def dakon(**params):
    return arena_games.load("dakon", **params)


def latrunculi(**params):
    return arena_games.load("latrunculi", **params)


def play_random(game, rng, check=None, max_plies=10_000):
    """Plays a random game, calling check(state) before every move and at the end."""
    state = game.new_initial_state()
    for _ in range(max_plies):
        if check:
            check(state)
        if state.is_terminal():
            return state
        state.apply(rng.choice(state.legal_moves()))
    raise AssertionError("no end after %d plies" % max_plies)


# --- loading games -------------------------------------------------------------------


def test_games_lists_both():
    assert arena_games.games() == ["dakon", "latrunculi"]


def test_load_fills_defaults_in_canonical_order():
    assert list(dakon().params.items()) == [
        ("holes", 7),
        ("seeds", 7),
        ("nembak_takes_lander", False),
        ("max_plies", 1000),
    ]
    game = latrunculi(width=7, height=6, pieces=10)
    assert game.params == {"width": 7, "height": 6, "pieces": 10, "quiet_plies": 100}
    assert game.name == "latrunculi"
    assert str(game) == "latrunculi(width=7,height=6,pieces=10,quiet_plies=100)"
    assert dakon(holes=5).params["seeds"] == 5  # seeds default to holes
    assert dakon(nembak_takes_lander=True).params["nembak_takes_lander"] is True


def test_games_compare_hash_and_pickle_by_parameters():
    assert dakon(holes=7) == dakon()
    assert dakon(holes=6) != dakon()
    assert len({dakon(), dakon(holes=7), dakon(holes=6)}) == 2
    game = latrunculi(width=9)
    assert pickle.loads(pickle.dumps(game)) == game
    assert eval(repr(game), {"arena_games": arena_games}) == game


@pytest.mark.parametrize(
    "name, params, words",
    [
        ("chess", {}, ["unknown game `chess`", "dakon, latrunculi"]),
        ("dakon", {"pits": 7}, ["unknown parameter `pits`", "holes"]),
        ("dakon", {"holes": 99}, ["holes", "`99`", "3 to 9"]),
        ("dakon", {"holes": "seven"}, ["holes", "`seven`"]),
        ("dakon", {"holes": 2.5}, ["holes", "float"]),
        ("latrunculi", {"width": 5, "height": 5}, ["pieces"]),
    ],
)
def test_bad_parameters_raise_parameter_error(name, params, words):
    with pytest.raises(ParameterError) as error:
        arena_games.load(name, **params)
    for word in words:
        assert word in str(error.value)
    assert isinstance(error.value, ValueError)


# --- the protocol's notation ---------------------------------------------------------


def test_initial_states_are_the_protocols():
    assert str(dakon().new_initial_state()) == "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0"
    assert (
        str(latrunculi().new_initial_state())
        == "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"
    )


@pytest.mark.parametrize(
    "game",
    [dakon(), dakon(holes=3), dakon(holes=9, seeds=2, nembak_takes_lander=True), latrunculi(),
     latrunculi(width=5, height=6, pieces=5, quiet_plies=12), latrunculi(width=11, height=7, pieces=20)],
    ids=str,
)
def test_random_games_round_trip_through_the_notation(game):
    """Every state reads back from its text; every legal move maps to an action and back."""
    seen = []

    def check(state):
        text = str(state)
        again = game.state_from_text(text)
        assert str(again) == text and again == state
        assert again.legal_moves() == state.legal_moves()
        assert again.current_player() == state.current_player()
        actions = state.legal_actions()
        assert actions == sorted(set(actions))
        assert all(0 <= a < game.num_distinct_actions() for a in actions)
        assert sorted(set(map(state.move_to_action, state.legal_moves()))) == actions
        for action in actions:
            assert state.move_to_action(state.action_to_move(action)) == action
        assert len(state.observation_tensor(0)) == _product(game.observation_tensor_shape())
        seen.append(text)

    end = play_random(game, random.Random(7), check)
    assert end.is_terminal() and end.legal_moves() == [] and end.legal_actions() == []
    assert end.current_player() == arena_games.TERMINAL
    assert len(seen) - 1 <= game.max_game_length()


def _product(shape):
    out = 1
    for n in shape:
        out *= n
    return out


def test_apply_action_plays_the_move_it_stands_for():
    game = latrunculi(width=6, height=6, pieces=8, quiet_plies=30)
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        by_move = state.clone()
        by_move.apply(state.action_to_move(action))
        state.apply_action(action)
        assert state == by_move


def test_dakon_session_of_protocol_md():
    """The 3-hole session of protocol.md: positions and legal lists, in protocol order."""
    state = dakon(holes=3).new_initial_state()
    script = [
        ("pits=3,3,3,3,3,3 stores=0,0 turn=0 ply=0", ["3", "4", "5"], "5"),
        ("pits=4,0,0,4,4,1 stores=5,0 turn=1 ply=1", ["0"], "0"),
        ("pits=0,1,1,5,0,0 stores=5,6 turn=0 ply=2", ["3"], "3"),
        ("pits=0,0,2,1,1,1 stores=7,6 turn=1 ply=3", ["2"], "2"),
        ("pits=1,1,0,0,1,1 stores=7,7 turn=0 ply=4", ["4", "5"], "5"),
        ("pits=1,1,0,0,1,0 stores=8,7 turn=0 ply=5", ["4"], "4"),
        ("pits=1,1,0,0,0,1 stores=8,7 turn=1 ply=6", ["0", "1"], "1"),
        ("pits=0,0,0,1,0,1 stores=8,8 turn=0 ply=7", ["3", "5"], "5"),
        ("pits=0,0,0,1,0,0 stores=9,8 turn=0 ply=8", ["3"], "3"),
    ]
    for text, legal, move in script:
        assert str(state) == text
        assert state.legal_moves() == legal
        assert state.current_player() == int(text.split("turn=")[1][0])
        state.apply(move)
    assert state.is_terminal()
    assert state.outcome() == _outcome(state, (10, 8), 0, None)
    assert state.returns() == [1.0, -1.0]


def test_latrunculi_session_of_protocol_md():
    """The 5 x 5 session of protocol.md, ended by quiet_plies=4: a draw, 3 pieces each."""
    state = latrunculi(width=5, height=5, pieces=3, quiet_plies=4).new_initial_state()
    assert state.legal_moves() == [f + r for f in "abcde" for r in "12345"]
    for move in ["e5", "e4", "e3", "e2", "e1", "d5"]:
        state.apply(move)
    assert str(state) == "board=3OX/4O/4X/4O/4X turn=0 phase=move hand=0,0 quiet=0 ply=6"
    assert state.legal_moves() == ["e1-d1", "e3-d3", "e5-c5"]
    state.apply("e5-c5")
    state.apply("e4-e5")
    assert str(state) == "board=2XOO/5/4X/4O/4X turn=0 phase=move hand=0,0 quiet=2 ply=8"
    assert state.legal_moves() == ["c5-b5", "c5-c4", "e1-d1", "e3-d3", "e3-e4"]
    state.apply("e3-e4")
    state.apply("e5-e3")
    assert state.is_terminal()
    assert state.outcome() == _outcome(state, (3, 3), None, "quiet_plies")
    assert state.returns() == [0.0, 0.0]


def _outcome(state, scores, winner, adjudicated):
    """An Outcome to compare with, built the only way the package builds them."""
    out = state.outcome()
    assert (out.scores, out.winner, out.adjudicated) == (scores, winner, adjudicated)
    return out


# --- the worked examples of the rules files --------------------------------------------

DAKON_EXAMPLES = [
    # (before, move, after, bonus move: the mover moves again)
    ("pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0", "7",
     "pits=7,7,7,7,7,7,7,0,8,8,8,8,8,8 stores=1,0 turn=0 ply=1"),
    ("pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0", "10",
     "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1"),
    ("pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=12", "13",
     "pits=1,1,1,1,0,0,0,1,1,1,1,1,1,0 stores=43,45 turn=1 ply=13"),
    ("pits=0,0,0,0,0,0,0,0,0,0,0,0,0,16 stores=40,42 turn=0 ply=30", "13",
     "pits=1,1,1,1,1,1,1,1,1,1,1,1,1,1 stores=42,42 turn=0 ply=31"),
]


@pytest.mark.parametrize("before, move, after", DAKON_EXAMPLES, ids=["1-bonus", "2-nembak", "3-mikul", "4-long-lap"])
def test_dakon_worked_examples(before, move, after):
    state = dakon().state_from_text(before)
    assert move in state.legal_moves()
    state.apply(move)
    assert str(state) == after
    assert not state.is_terminal()
    assert state.current_player() == int(after.split("turn=")[1][0])


def test_dakon_worked_example_5_ends_the_game():
    state = dakon().state_from_text("pits=2,0,0,0,0,0,0,0,0,0,0,0,0,1 stores=50,45 turn=0 ply=40")
    state.apply("13")
    assert state.is_terminal()
    assert "stores=51,47" in str(state)
    assert state.outcome().scores == (51, 47) and state.outcome().winner == 0
    assert state.returns() == [1.0, -1.0]


LAT = {
    "1": "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3",
    "2": "board=XX4OO/3X4/3O4/2X5/8/8/8/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
    "3": "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42",
    "4": "board=XX4OO/8/8/8/8/1O6/O7/X7 turn=0 phase=move hand=0,0 quiet=7 ply=40",
    "5a": "board=XX4OO/8/8/8/2O5/1X6/2O5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
    "5b": "board=XX4OO/8/8/8/2O5/1X1OX3/2O5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
    "6": "board=2O2O2/3OOxOX/1O1X2X1/1X2X1X1/XoX4O/OxO1X2O/OX5X/3X1X2 turn=1 phase=move hand=0,0 quiet=5 ply=50",
    "7": "board=XX4OO/8/8/8/2O5/1O1O4/1XO5/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
}


@pytest.mark.parametrize(
    "example, move, after",
    [
        ("1", "d4", "board=8/8/8/3X4/3O4/3X4/8/O7 turn=0 phase=place hand=14,14 quiet=0 ply=4"),
        ("2", "c5-d5", "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"),
        ("3", "xd6", "board=XX4OO/3X4/8/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=0 ply=43"),
        ("4", "a1-a3-c3", "board=XX4OO/8/8/8/8/1OX5/O7/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"),
        ("5b", "b3-c3", "board=XX4OO/8/8/8/2O5/2XoX3/2O5/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"),
        ("6", "a3-a5-c5",
         "board=2O2O2/3OOxOX/1O1X2X1/1XO1X1X1/XOx4O/1XO1X2O/OX5X/3X1X2 turn=0 phase=move hand=0,0 quiet=6 ply=51"),
        ("7", "b2-b4-d4", "board=XX4OO/8/8/8/2OX4/1O1O4/2O5/8 turn=1 phase=move hand=0,0 quiet=8 ply=41"),
    ],
)
def test_latrunculi_worked_examples(example, move, after):
    state = latrunculi().state_from_text(LAT[example])
    state.apply(move)
    assert str(state) == after


def test_latrunculi_worked_example_3_legal_actions():
    state = latrunculi().state_from_text(LAT["3"])
    listed = "a8-a7 b8-b7 b8-c8 d5-c5 d5-d4 d5-e5 d7-c7 d7-d8 d7-e7 xd6".split()
    assert state.legal_moves() == listed  # by start square, file first; removals last


def _ends(moves):
    """(start, final square) of each move: what identifies a chain under either ruling."""
    return {(m.split("-")[0], m.split("-")[-1]) for m in moves}


@pytest.mark.parametrize(
    "example, listed",
    [
        ("4", "a1-a3 a1-a3-c3 a1-b1 a8-a7 b8-b7 b8-c8"),
        ("7", "a8-a7 b8-b7 b8-c8 b2-a2 b2-b1 b2-b4 b2-b4-d4 b2-d2"),
    ],
)
def test_latrunculi_worked_example_chains(example, listed):
    """The legal moves are exactly the listed ones: one chain per final square, the
    canonical one (so the action ids are exactly the listed ones too)."""
    listed = listed.split()
    state = latrunculi().state_from_text(LAT[example])
    assert set(state.legal_moves()) == set(listed)
    assert _ends(state.legal_moves()) == _ends(listed)
    assert state.legal_actions() == sorted(state.move_to_action(m) for m in listed)


def test_latrunculi_worked_example_7_refuses_the_other_chain():
    """b2-d2-d4 also ends on d4, but b2-b4-d4 is the canonical chain (up before right)."""
    state = latrunculi().state_from_text(LAT["7"])
    with pytest.raises(IllegalMoveError, match="b2-b4-d4"):
        state.apply("b2-d2-d4")
    assert str(state) == LAT["7"]


def test_latrunculi_suicide_rule():
    state = latrunculi().state_from_text(LAT["5a"])
    assert "b3-c3" not in state.legal_moves()
    with pytest.raises(IllegalMoveError, match="b3-c3"):
        state.apply("b3-c3")
    assert "b3-c3" in latrunculi().state_from_text(LAT["5b"]).legal_moves()


def test_latrunculi_repetition_is_kept_through_play_not_text():
    """The third occurrence of a position ends the game; a state read from text has
    forgotten the history (the rules leave it to the referee)."""
    game = latrunculi(width=5, height=5, pieces=2)
    start = "board=X3O/5/5/5/O3X turn=0 phase=move hand=0,0 quiet=0 ply=4"
    state = game.state_from_text(start)
    shuffle = ["a5-b5", "a1-a2", "b5-a5", "a2-a1"] * 2
    for move in shuffle:
        state.apply(move)
    assert state.is_terminal()
    assert state.outcome().adjudicated == "repetition"
    assert not game.state_from_text(str(state)).is_terminal()


# --- errors ---------------------------------------------------------------------------


def test_illegal_and_malformed_moves_leave_the_state_unchanged():
    state = dakon().new_initial_state()
    before = str(state)
    with pytest.raises(IllegalMoveError, match="`3`"):
        state.apply("3")  # seat 1's pit
    with pytest.raises(NotationError):
        state.apply("seven")
    with pytest.raises(NotationError):
        state.apply("")
    with pytest.raises(IllegalMoveError):
        state.apply_action(3)
    with pytest.raises(IllegalMoveError):
        state.apply_action(-1)
    with pytest.raises(IllegalMoveError):
        state.action_to_move(10_000)
    with pytest.raises(TypeError):
        state.apply(7)
    assert str(state) == before

    board = latrunculi().new_initial_state()
    for bad in ["z9", "a0", "a9", "d4-", "-d4", "xx", "d4 d5", "a01"]:
        with pytest.raises(NotationError):
            board.apply(bad)
    with pytest.raises(IllegalMoveError):
        board.apply("d4-d5")  # a step during placement
    assert str(board) == "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"
    with pytest.raises(NotationError):
        latrunculi().move_to_action("q1")


def test_moves_after_the_end_are_illegal():
    end = dakon(holes=3).new_initial_state().playout(5)
    assert end.is_terminal()
    with pytest.raises(IllegalMoveError, match="over"):
        end.apply("3")
    with pytest.raises(IllegalMoveError):
        end.apply_action(3)


@pytest.mark.parametrize(
    "game, text",
    [
        (dakon(), "pits=7,7 stores=0,0 turn=0 ply=0"),  # wrong number of pits
        (dakon(), "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=2 ply=0"),
        (dakon(), "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0"),
        (dakon(), ""),
        (dakon(), "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"),
        (latrunculi(), "board=8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"),
        (latrunculi(), "board=9/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0"),
        (latrunculi(), "board=8/8/8/8/8/8/8/8  turn=0 phase=place hand=16,16 quiet=0 ply=0"),
        (latrunculi(), "board=8/8/8/8/8/8/8/8 turn=0 phase=fly hand=16,16 quiet=0 ply=0"),
        (latrunculi(), "x" * 100_000),
    ],
)
def test_bad_state_text_raises_notation_error(game, text):
    with pytest.raises(NotationError) as error:
        game.state_from_text(text)
    assert len(str(error.value)) < 400  # the offending text is cut short


# --- states as Python objects ---------------------------------------------------------


def test_clone_copy_and_pickle_are_independent():
    state = latrunculi().new_initial_state()
    state.apply("d4")
    for other in (state.clone(), copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert other == state and other is not state
        other.apply("e5")
        assert other != state
    assert str(state) == "board=8/8/8/8/3X4/8/8/8 turn=1 phase=place hand=15,16 quiet=0 ply=1"
    assert state.game() == latrunculi()


def test_playout_is_seeded_and_leaves_the_state_alone():
    state = latrunculi(width=6, height=6, pieces=8, quiet_plies=40).new_initial_state()
    first, again, other = state.playout(1), state.playout(1), state.playout(2)
    assert first.is_terminal() and first == again
    assert str(state).endswith("ply=0")
    seeds = {str(state.playout(seed)) for seed in range(20)}
    assert len(seeds) > 10  # different seeds, different games
    assert other.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_observation_tensors():
    """Player 0's view: the board as the notation gives it (tests/test_observations.py
    has both players' views)."""
    game = dakon(holes=3)
    state = game.state_from_text("pits=1,2,3,1,2,3 stores=2,4 turn=1 ply=9")
    assert game.observation_tensor_shape() == [10]
    assert state.observation_tensor(0).tolist() == [0, 1, 1, 2, 3, 1, 2, 3, 2, 4]

    game = latrunculi(width=5, height=5, pieces=4, quiet_plies=10)
    assert game.observation_tensor_shape() == [10, 5, 5]
    state = game.state_from_text("board=1XoX1/5/1OxO1/5/5 turn=1 phase=move hand=0,0 quiet=5 ply=20")
    planes = state.observation_tensor(0).tolist()

    def plane(i):
        return [planes[i * 25 + r * 5:i * 25 + r * 5 + 5] for r in range(5)]  # rank 5 first

    assert plane(0) == [[0, 1, 0, 1, 0]] + [[0] * 5] * 4  # X on b5 and d5
    assert plane(1)[2] == [0, 0, 1, 0, 0] and sum(planes[25:50]) == 1  # trapped x on c3
    assert plane(2)[2] == [0, 1, 0, 1, 0] and sum(planes[50:75]) == 2  # O on b3 and d3
    assert plane(3)[0] == [0, 0, 1, 0, 0] and sum(planes[75:100]) == 1  # trapped o on c5
    assert sum(planes[4 * 25:5 * 25]) == 19  # empty squares
    assert set(planes[5 * 25:6 * 25]) == {1.0}  # seat 1 to move
    assert set(planes[6 * 25:7 * 25]) == {0.0}  # movement phase
    assert set(planes[9 * 25:10 * 25]) == {0.5}  # quiet 5 of 10
