"""arena_bot: a one-module, standard-library-only kit for writing arena bots in Python 3.

The kit runs the line protocol between the referee and your bot; you write one function::

    def choose(state_text, legal_moves, clock, game_info):
        return legal_moves[0]

    arena_bot.run(choose, name="my-bot")

``choose`` receives the latest ``position`` text (without the word ``position``), the
moves of the latest ``legal`` line as a list of strings, a :class:`Clock` built from the
``go`` line, and a :class:`GameInfo` for the current game. It returns one of the legal
moves as a string. The kit sends ``move <that move>`` and flushes.

What the kit does for you:
- answers ``arena 1`` with ``ready <name>`` at once (do heavy set-up later, never
  before ``run``: in ``on_setup``, which runs off the clock at the start of every game,
  or in the first ``choose``);
- tolerates ``\\r\\n`` line ends, ignores empty lines and lines it does not know;
- flushes stdout after every line; everything else you want to say goes to stderr
  (:func:`log`) or, as protocol ``info`` lines, through :func:`info`;
- answers every ``go`` with exactly one ``move``; if ``choose`` raises or returns
  something that is not in the legal list, it logs the problem to stderr and plays the
  first legal move instead, so a bug costs a bad move rather than a forfeit;
- exits cleanly (``run`` returns) on ``quit`` or end of input.

The rules engines, when the ``arena_games`` package is installed (arena/python/README.md;
the kit itself needs only the standard library): :attr:`GameInfo.engine` is the game as an
``arena_games.Game`` and :meth:`GameInfo.engine_state` the position as an
``arena_games.State`` (legal moves, apply, clone, native random playouts), so a bot can
search without its own copy of the rules. Both are ``None`` without the package;
:data:`arena_games` is the module or ``None``.

Nothing here runs on import, so the module is also usable as a library, e.g. to parse
states in tests.
"""

import argparse
import sys
import time

try:  # the rules engines, optional: pip install ./arena/python
    import arena_games
except ImportError:
    arena_games = None

__all__ = [
    "Clock",
    "GameInfo",
    "arena_games",
    "parse_fields",
    "parse_value",
    "parse_args",
    "log",
    "info",
    "run",
]

PROTOCOL_VERSION = "1"

# The output stream lines go to; ``run`` may point it elsewhere (tests).
_out = sys.stdout


def log(*parts):
    """Write a line to stderr, the bot's free channel. Never use stdout for logging."""
    try:
        print(*parts, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _send(line):
    """Write one protocol line to stdout and flush it."""
    _out.write(line + "\n")
    _out.flush()


def info(text):
    """Send an ``info <text>`` line to the referee (free text, one line)."""
    text = " ".join(str(text).split())  # no newlines or control whitespace
    _send("info " + text if text else "info")


def parse_value(text):
    """Turn a parameter value into int or bool where it obviously is one, else keep str."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text == "-":
        return None
    try:
        return int(text)
    except ValueError:
        return text


def parse_fields(text):
    """Split ``key=value key=value`` tokens into a dict of strings.

    Tokens without ``=`` are stored with the value ``None``. Works for state notations
    (``pits=... stores=... turn=0``), ``newgame`` parameters and ``go`` fields.
    """
    fields = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        fields[key] = value if sep else None
    return fields


class Clock:
    """The limits of one decision, from the ``go`` line. Every field is ms or None.

    - ``time``: this bot's remaining game time (None: no game clock);
    - ``opptime``: the opponent's remaining game time;
    - ``inc``: increment added after each move (0 if none);
    - ``movetime``: hard limit for this one move (None: no per-move limit);
    - ``nodes``, ``playouts``, ``depth``: the search budget the referee asks for (equal
      compute; None when not set): search that much, whatever the time, which stays a
      safety net.
    ``started`` is the ``time.monotonic()`` at which the ``go`` line was read: measure your
    thinking time from it, not from when ``choose`` was called.
    """

    def __init__(self, time_ms=None, opptime=None, inc=0, movetime=None, started=None,
                 nodes=None, playouts=None, depth=None):
        self.time = time_ms
        self.opptime = opptime
        self.inc = inc if inc is not None else 0
        self.movetime = movetime
        self.started = started if started is not None else time.monotonic()
        self.nodes = nodes
        self.playouts = playouts
        self.depth = depth

    @classmethod
    def from_go(cls, rest, started=None):
        fields = parse_fields(rest)

        def ms(key):
            value = fields.get(key)
            if value is None or value == "-" or value == "":
                return None
            try:
                return max(0, int(value))
            except ValueError:
                return None

        return cls(ms("time"), ms("opptime"), ms("inc"), ms("movetime"), started,
                   ms("nodes"), ms("playouts"), ms("depth"))

    def budget_ms(self, moves_to_go=30, safety=0.8, reserve_ms=50):
        """A suggested thinking time in ms for this move, or None when nothing limits it.

        Takes ``safety`` of the per-move limit, and about 1/moves_to_go of the remaining
        game time plus the increment, whichever is smaller, keeping ``reserve_ms`` for the
        pipes and the process scheduler.
        """
        limits = []
        if self.movetime is not None:
            limits.append(self.movetime * safety - reserve_ms)
        if self.time is not None:
            limits.append((self.time / max(1, moves_to_go) + self.inc) * safety - reserve_ms)
            limits.append(self.time * 0.5 - reserve_ms)
        if not limits:
            return None
        return max(0, int(min(limits)))

    def elapsed_ms(self):
        """Milliseconds since the ``go`` line arrived."""
        return (time.monotonic() - self.started) * 1000.0

    def __repr__(self):
        return "Clock(time=%r, opptime=%r, inc=%r, movetime=%r)" % (
            self.time,
            self.opptime,
            self.inc,
            self.movetime,
        )


class GameInfo:
    """What the ``newgame`` line said, plus the moves ``played`` since.

    - ``game``: ``"dakon"`` or ``"latrunculi"`` (or a newer game's name);
    - ``seat``: 0 or 1 (seat 0 moves first);
    - ``seed``: the game's seed (int), e.g. for ``random.Random(my_seed ^ info.seed)``;
    - ``params``: every game parameter, values converted by :func:`parse_value`;
    - ``played``: list of ``(seat, move)`` in order;
    - ``result``: None during the game, then ``(outcome, reason, extra_fields)``;
    - ``engine``: the game as an ``arena_games.Game``, or None when the package is not
      installed (or does not know the game); see :meth:`engine_state`.
    """

    def __init__(self, game, seat, seed, params):
        self.game = game
        self.seat = seat
        self.seed = seed
        self.params = params
        self.played = []
        self.result = None
        self._engine = False  # not built yet
        self._replay = None  # (moves replayed, arena_games.State)

    @property
    def engine(self):
        if self._engine is False:
            self._engine = None
            if arena_games is not None:
                params = {key: value for key, value in self.params.items() if value is not None}
                try:
                    self._engine = arena_games.load(self.game, **params)
                except arena_games.GameError as error:
                    log("arena_bot: no engine for %s: %s" % (self.game, error))
        return self._engine

    def engine_state(self, state_text):
        """The position ``state_text`` as an ``arena_games.State`` (None without the package).

        When the ``played`` moves lead from the initial position to ``state_text``, the
        state is their replay, so it keeps what the text cannot hold (the repetition
        history of Ludus latrunculorum); otherwise (a game started from another position)
        it is read from the text. The caller owns the returned state.
        """
        engine = self.engine
        if engine is None:
            return None
        done, state = self._replay or (0, engine.new_initial_state())
        try:
            for _, move in self.played[done:]:
                state.apply(move)
        except arena_games.GameError:
            state = None
        if state is None or str(state) != state_text:
            state = engine.state_from_text(state_text)  # and replay on from here
        self._replay = (len(self.played), state)
        return state.clone()

    @classmethod
    def from_newgame(cls, rest):
        tokens = rest.split()
        game = tokens[0] if tokens else ""
        fields = parse_fields(" ".join(tokens[1:]))
        seat = parse_value(fields.pop("seat", "0") or "0")
        seed = parse_value(fields.pop("seed", "0") or "0")
        params = {key: parse_value(value) if value is not None else None for key, value in fields.items()}
        return cls(game, seat if isinstance(seat, int) else 0, seed if isinstance(seed, int) else 0, params)

    def __repr__(self):
        return "GameInfo(game=%r, seat=%r, seed=%r, params=%r)" % (self.game, self.seat, self.seed, self.params)


def parse_args(argv=None, description=None):
    """The command line every reference bot accepts: ``--seed N`` (default 0)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, default=0, help="bot seed, mixed with each game's seed (default 0)")
    return parser.parse_args(argv)


def _readlines(stream):
    """Yield decoded lines without their line end; ``\\r\\n`` and ``\\n`` both end a line."""
    binary = getattr(stream, "buffer", stream)
    while True:
        raw = binary.readline()
        if not raw:
            return
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        if raw.endswith("\n"):
            raw = raw[:-1]
        if raw.endswith("\r"):
            raw = raw[:-1]
        yield raw


def run(choose, name="python-bot", on_newgame=None, on_played=None, on_gameover=None, stdin=None, stdout=None, on_setup=None):
    """Run the protocol loop until ``quit`` or end of input, then return.

    ``choose(state_text, legal_moves, clock, game_info) -> move`` is called on every ``go``.
    Optional hooks: ``on_newgame(game_info)``, ``on_played(seat, move, game_info)`` and
    ``on_gameover(outcome, reason, fields, game_info)``. ``on_setup(game_info)``, if given,
    is the untimed set-up of each game: the kit asks for ``isready`` in its ``ready`` line
    and calls it on ``isready`` (after ``newgame`` and the opening's moves), then answers
    ``readyok``; it has the start-up limit (10 s by default), on no clock. ``stdin``/``stdout``
    default to the process's streams (pass others to test a bot in-process).
    """
    global _out
    _out = stdout if stdout is not None else sys.stdout
    stream = stdin if stdin is not None else sys.stdin
    game = None
    state_text = None
    legal = None
    try:
        for line in _readlines(stream):
            started = time.monotonic()
            command, _, rest = line.strip().partition(" ")
            rest = rest.strip()
            if not command:
                continue
            if command == "arena":
                if rest.split()[:1] != [PROTOCOL_VERSION]:
                    log("arena_bot: referee speaks protocol %r, kit knows %s; answering anyway" % (rest, PROTOCOL_VERSION))
                ready = " ".join(str(name).split()) + (" isready" if on_setup is not None else "")
                _send(("ready " + ready).rstrip())
            elif command == "isready":
                if on_setup is not None and game is not None:
                    on_setup(game)
                _send("readyok")
            elif command == "newgame":
                game = GameInfo.from_newgame(rest)
                state_text = None
                legal = None
                if on_newgame is not None:
                    on_newgame(game)
            elif command == "position":
                state_text = rest
            elif command == "legal":
                legal = rest.split()
            elif command == "go":
                clock = Clock.from_go(rest, started)
                _send("move " + _decide(choose, state_text, legal, clock, game))
                state_text = None
                legal = None
            elif command == "played":
                parts = rest.split()
                if len(parts) >= 2 and game is not None:
                    seat = parse_value(parts[0])
                    game.played.append((seat, parts[1]))
                    if on_played is not None:
                        on_played(seat, parts[1], game)
            elif command == "gameover":
                parts = rest.split()
                outcome = parts[0] if parts else ""
                reason = parts[1] if len(parts) > 1 else ""
                fields = parse_fields(" ".join(parts[2:]))
                if game is not None:
                    game.result = (outcome, reason, fields)
                if on_gameover is not None:
                    on_gameover(outcome, reason, fields, game)
            elif command == "quit":
                return
            # Anything else: a newer referee's message. Ignore it.
    except BrokenPipeError:
        # The referee went away; nothing left to say to anyone.
        return


def _decide(choose, state_text, legal, clock, game):
    """Call ``choose`` and make sure what comes back is a legal move."""
    if game is None:
        game = GameInfo("", 0, 0, {})
    if not legal:
        log("arena_bot: 'go' without a 'legal' list; asking choose anyway")
    try:
        move = choose(state_text or "", list(legal or []), clock, game)
    except Exception as error:  # a bug in the bot must not kill the game
        log("arena_bot: choose raised %s: %s" % (type(error).__name__, error))
        move = None
    if move is not None:
        move = str(move).strip()
    if legal and move not in legal:
        log("arena_bot: choose returned %r, not a legal move; playing %s" % (move, legal[0]))
        move = legal[0]
    return move or ""
