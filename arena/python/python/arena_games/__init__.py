"""arena_games: the arena rules engines (Rust) for Python, in the OpenSpiel style.

    >>> import arena_games
    >>> game = arena_games.load("dakon", holes=7)
    >>> state = game.new_initial_state()
    >>> state.legal_moves()
    ['7', '8', '9', '10', '11', '12', '13']
    >>> state.apply("7")        # the last seed falls into the store: a bonus move
    >>> str(state)
    'pits=7,7,7,7,7,7,7,0,8,8,8,8,8,8 stores=1,0 turn=0 ply=1'
    >>> state.current_player()
    0

Moves and states are the texts of arena's bot protocol (protocol.md), so a position
from a game record or a ``position`` line goes straight into
:meth:`Game.state_from_text`. Integer actions (:meth:`State.legal_actions`) and
per-player observation tensors and masks (NumPy arrays) serve OpenSpiel-style algorithms;
:class:`Batch` steps N games in one call. :mod:`arena_games.openspiel` registers both
games with OpenSpiel, :mod:`arena_games.pettingzoo` and :mod:`arena_games.gymnasium` make
them environments, and :class:`ProcessBot` makes any bot program speaking arena's
protocol an opponent.
"""

from arena_games._engine import (
    TERMINAL,
    Batch,
    Game,
    GameError,
    IllegalMoveError,
    NotationError,
    Outcome,
    ParameterError,
    State,
    entries,
    games,
    load,
)
from arena_games.process_bot import BotError, ProcessBot

__version__ = "0.1.0"

__all__ = [
    "TERMINAL",
    "Batch",
    "BotError",
    "Game",
    "GameError",
    "IllegalMoveError",
    "NotationError",
    "Outcome",
    "ParameterError",
    "ProcessBot",
    "State",
    "entries",
    "games",
    "load",
]
