"""Type stubs of the native module (src/lib.rs); import the names from ``arena_games``."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

TERMINAL: int
"""What :meth:`State.current_player` returns once the game is over (-4, as OpenSpiel's
``pyspiel.PlayerId.TERMINAL``)."""

class GameError(ValueError):
    """Base class of every error arena_games raises for bad input (a ValueError)."""

class ParameterError(GameError):
    """An unknown game, or a parameter the game does not take or accept."""

class NotationError(GameError):
    """State or move text that is not in the game's notation (protocol.md)."""

class IllegalMoveError(GameError):
    """A well-formed move or action that is not legal in the position (or the game is over)."""

def games() -> List[str]:
    """The names of every game the engines know: ``['dakon', 'latrunculi']``."""

def entries() -> List[Dict[str, Any]]:
    """Every game the engines know, in registry order, as a dict: ``name``, ``long_name``,
    ``params`` (every parameter with its default), ``derived_defaults`` (the parameters
    whose default follows from another's, e.g. Dakon's ``seeds``), and with the default
    parameters ``num_distinct_actions``, ``max_game_length`` and ``observation_shape``
    (``None`` for a game without integer actions)."""

def load(name: str, **params: Union[int, bool, str]) -> Game:
    """The game ``name`` with these parameters; missing ones take their defaults.

    Parameters are those of protocol.md, e.g. ``load("dakon", holes=5)`` or
    ``load("latrunculi", width=8, height=8, pieces=16, quiet_plies=100)``.
    Raises :class:`ParameterError` for an unknown game, an unknown parameter or a value
    out of range.
    """

class Game:
    """A game with fixed parameters: the factory of its states. Immutable, hashable,
    picklable."""

    @property
    def name(self) -> str:
        """The game's name, as given to :func:`load`."""
    @property
    def params(self) -> Dict[str, Union[int, bool, str]]:
        """Every parameter, defaults included, in the game's canonical order."""
    def num_players(self) -> int:
        """2: both games are for two players; seat 0 moves first."""
    def new_initial_state(self) -> State:
        """The position before the first move."""
    def state_from_text(self, text: str) -> State:
        """The position in the protocol's state notation (a ``position`` line without
        the word ``position``). Raises :class:`NotationError` for text that is not a
        valid state of this game with these parameters.

        A Ludus latrunculorum state read from text starts a fresh repetition history
        (the text does not hold it): replay the moves from the initial state to keep it.
        """
    def num_distinct_actions(self) -> int:
        """The size of the integer action space (see :meth:`State.legal_actions`)."""
    def max_game_length(self) -> int:
        """An upper bound on the number of moves of a game (Dakon: ``max_plies``)."""
    def observation_tensor_shape(self) -> List[int]:
        """The shape of :meth:`State.observation_tensor`: ``[2 * holes + 4]`` for
        Dakon, ``[10, height, width]`` for Ludus latrunculorum."""
    def observation_tensor_bounds(self) -> Tuple[float, float]:
        """``(low, high)``: the least and the greatest number of an observation tensor,
        ``(0, 2 * holes * seeds)`` for Dakon (seed counts), ``(0, 1)`` for Ludus
        latrunculorum."""
    def move_to_action(self, move: str) -> int:
        """The action id of a move in notation (a jump chain: of its first and last
        square). Raises :class:`NotationError` if it is not a move of this board."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __str__(self) -> str:
        """OpenSpiel-style: ``dakon(holes=7,seeds=7,nembak_takes_lander=false,max_plies=1000)``."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

class State:
    """A position of a game. Mutable (:meth:`apply`); :meth:`clone` copies it.
    ``str(state)`` is the protocol's state text. Picklable (as its text)."""

    def game(self) -> Game:
        """The game this state belongs to."""
    def current_player(self) -> int:
        """The seat to move, 0 or 1; :data:`TERMINAL` (-4) once the game is over."""
    def is_terminal(self) -> bool:
        """Whether the game is over."""
    def legal_moves(self) -> List[str]:
        """Every legal move in the protocol's notation and order (the ``legal`` line);
        empty once the game is over."""
    def apply(self, move: str) -> None:
        """Plays ``move`` (protocol notation) for the player to move. Raises
        :class:`NotationError` for text that is not a move, :class:`IllegalMoveError`
        for a move not legal here; the state is then unchanged."""
    def legal_actions(self) -> List[int]:
        """The legal moves as integer action ids, in increasing order (OpenSpiel's
        convention). Dakon: the pit number. Ludus latrunculorum, with ``S = width *
        height`` and a square's index ``(rank - 1) * width + file``: a placement is its
        square, a removal ``S + square``, a step or jump chain ``2 * S + from * S + to``."""
    def apply_action(self, action: int) -> None:
        """Plays the legal move with this action id; :class:`IllegalMoveError` if none."""
    def action_to_move(self, action: int) -> str:
        """The legal move (notation) an action id stands for here; :class:`IllegalMoveError`
        if it is not legal."""
    def move_to_action(self, move: str) -> int:
        """The action id of a move in notation (:meth:`Game.move_to_action`)."""
    def returns(self) -> List[float]:
        """Each seat's result: ``[1.0, -1.0]`` if seat 0 won, ``[-1.0, 1.0]`` if seat 1
        won, ``[0.0, 0.0]`` for a draw or a game not over."""
    def outcome(self) -> Optional[Outcome]:
        """How the game ended (scores, winner, adjudication), or None while it goes on."""
    def observation_tensor(self, player: Optional[int] = None) -> "np.ndarray":
        """The position as numbers seen by ``player`` (0 or 1; by default the player to
        move, and then a finished game raises :class:`GameError`): a flat float32 array
        of :meth:`Game.observation_tensor_shape` (row-major). "Mine" and "the
        opponent's" take the place of seat 0 and seat 1, so one network can play either
        seat; player 0's view is the board as the notation gives it.

        Dakon (``n = holes``): 0 I am to move, 1 the opponent is to move; then the
        ``2n`` pits, as seed counts, with the player's own row where the notation has
        seat 0's (pits ``n .. 2n-1``): player 0 sees them in notation order, player 1
        the board turned round, its entry ``k`` being pit ``(k + n) % 2n`` (an action
        id is a pit number: player 1's view entry ``k`` is action ``(k + n) % 2n``);
        then my store, the opponent's store.

        Ludus latrunculorum: planes of ``height x width`` squares, ranks from the top
        as in the notation, the same squares for both players (no side owns a row): 0
        my free and 1 my trapped pieces, 2 the opponent's free and 3 trapped pieces, 4
        empty squares, then constant planes: 5 the opponent to move, 6 placement phase,
        7 my hand and 8 the opponent's as fractions of ``pieces``, 9 the quiet count as
        a fraction of ``quiet_plies``."""
    def legal_actions_mask(self) -> "np.ndarray":
        """The legal actions as an int8 array of 0/1, one entry per action id
        (:meth:`Game.num_distinct_actions`); all zeros once the game is over."""
    def material(self, player: int) -> float:
        """``player``'s material less the opponent's, the measure of arena's reference
        search: seeds in the stores (Dakon), pieces on the board and in hand (Ludus
        latrunculorum)."""
    def draw(self) -> str:
        """The board drawn for the terminal, as ``arena show`` draws it."""
    def playout(self, seed: int = 0) -> State:
        """A copy of this state played to the end with uniformly random legal moves (a
        ChaCha8 generator seeded with ``seed``), in native code without the GIL. This
        state is unchanged."""
    def clone(self) -> State:
        """An independent copy."""
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any) -> State: ...
    def __eq__(self, other: object) -> bool:
        """Same game, same parameters, same state text."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

class Outcome:
    """How a finished game came out."""

    @property
    def scores(self) -> Tuple[int, int]:
        """Each seat's score: seeds in its store (Dakon), its pieces on the board
        (Ludus latrunculorum)."""
    @property
    def winner(self) -> Optional[int]:
        """The winning seat, or None for a draw."""
    @property
    def adjudicated(self) -> Optional[str]:
        """None if the rules ended the game, else the safeguard that did:
        ``"max_plies"``, ``"quiet_plies"`` or ``"repetition"``."""
    def __eq__(self, other: object) -> bool: ...

class Batch:
    """``n`` games of one game stepped in one call, for training loops: the moves and
    the next observations run in native code without the GIL. Each game is played by
    its player to move and starts again at once when it ends."""

    def __init__(self, game: Game, n: int) -> None:
        """``n`` games of ``game``, all at the initial position."""
    def __len__(self) -> int: ...
    def reset(self) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
        """Every game back to the initial position; returns :meth:`observe`."""
    def observe(self) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
        """``(observations, masks, players)``: each game's observation seen by its
        player to move, float32 ``[n, *Game.observation_tensor_shape()]``; its legal
        actions, int8 ``[n, Game.num_distinct_actions()]``; that player, int64 ``[n]``."""
    def step(
        self, actions: Sequence[int]
    ) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]:
        """Plays ``actions[i]`` in game ``i`` for its player to move.

        Returns ``(observations, masks, players, rewards, terminated, truncated)``: the
        first three as :meth:`observe` after the moves; ``rewards``, float32 ``[n, 2]``,
        each seat's result in the games that just ended (1 win, -1 loss, 0 draw), zeros
        elsewhere; ``terminated`` (bool ``[n]``) where the rules ended the game,
        ``truncated`` where a safeguard did (``max_plies``, ``quiet_plies``,
        repetition). A game that ended has restarted: its observation and mask are of
        the new game's first position. An action that is not legal raises
        :class:`IllegalMoveError` naming the game, and no game moves."""
    def legal_actions(self) -> Tuple["np.ndarray", "np.ndarray"]:
        """``(actions, offsets)``: every game's legal action ids in one flat int64
        array, game ``i``'s in ``actions[offsets[i]:offsets[i + 1]]`` (``offsets``,
        int64 ``[n + 1]``), each id once, in no particular order: the ones of the
        masks, without scanning them. A uniformly random legal action of each game is
        ``actions[offsets[:-1] + (u * np.diff(offsets)).astype(np.int64)]`` with ``u``
        uniform in [0, 1)."""
    def state(self, i: int) -> State:
        """A copy of game ``i``'s position."""
