"""A bot program that speaks arena's protocol (protocol.md), as a Python opponent.

    bot = arena_games.ProcessBot("target/release/arena-random", "dakon", holes=5)
    state = bot.game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 1:
            action = bot.step(state)           # the bot's choice, an action id
        else:
            action = my_policy(state)
            bot.inform_action(state, 0, action)  # the bot must hear the other moves
        state.apply_action(action)
    bot.close()

It has OpenSpiel's bot methods (``step``, ``restart_at``, ``inform_action``, ``restart``),
so ``open_spiel.python.algorithms.evaluate_bots`` and :mod:`arena_games.gymnasium` use it
as they use any OpenSpiel bot; it takes an :class:`arena_games.State` or an OpenSpiel
state of :mod:`arena_games.openspiel`.

The referee's side of the protocol as arena speaks it: ``arena 1`` and ``ready`` within
the start-up limit; ``newgame`` with the seat (the player to move at the bot's first
decision), the seed and every parameter; ``played`` for every move, the bot's own echoed
with its next ``position``; ``position``, ``legal``, ``go`` with ``movetime``; ``gameover``
when a finished game is followed by another (the same process plays every game, as
``arena match --keep-bots``) and ``quit`` at :meth:`close`.

A bot that misbehaves raises :class:`BotError`, with arena's forfeit reason: ``timeout``
(no ``ready`` within ``startup_ms``, no ``move`` within ``movetime_ms`` plus arena's 50 ms
margin), ``illegal`` (a move not in the ``legal`` line), ``crash`` (it exited or closed its
output; the end of its standard error is quoted), ``protocol`` (a line that is not a
message, over 64 KiB or not UTF-8, more than 4 MiB for one decision). The process is then
killed; the next game starts a new one.

What arena's referee does and this class does not: **no sandbox** (the program runs as
you, with your files and network), no memory or process limits, wall-clock time only (no
CPU clock, no game clock). For a bot you do not trust, evaluate it with ``arena match``
or wrap the command yourself (``bwrap ...``, ``systemd-run --user --scope -p
MemoryMax=...``).
"""

import collections
import os
import queue
import shlex
import subprocess
import threading
import time

import arena_games

MAX_LINE = 65536  # protocol.md: a longer line from a bot is a violation
MAX_OUTPUT = 4 << 20  # per decision: more is a flood
MARGIN_MS = 50  # arena's default tolerance past the limit


class BotError(RuntimeError):
    """A bot program misbehaved. ``reason`` is arena's forfeit reason (``timeout``,
    ``illegal``, ``crash``, ``protocol``), ``detail`` says what happened."""

    def __init__(self, name, reason, detail):
        super().__init__("bot %s: %s: %s" % (name, reason, detail))
        self.reason = reason
        self.detail = detail


def _quote(text, limit=200):
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ProcessBot:
    """The bot program ``command`` (a string split as a shell would, without a shell, or
    an argument list) playing ``game`` (a name with its parameters as keywords, or an
    :class:`arena_games.Game`)."""

    def __init__(self, command, game, *, movetime_ms=1000, startup_ms=10000, seed=1, cwd=None, name=None, **params):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("ProcessBot: an empty command")
        if isinstance(game, arena_games.Game):
            if params:
                raise arena_games.ParameterError("give parameters to arena_games.load, not with a Game")
            self.game = game
        else:
            self.game = arena_games.load(game, **params)
        self.name = name or os.path.basename(self.argv[0])
        self.movetime_ms = movetime_ms
        self.startup_ms = startup_ms
        self.seed = seed
        self.cwd = cwd
        self.ready = None  # the text of the bot's `ready` line
        self.info = []  # the `info` lines of the last decision
        self._process = None
        self._games = 0
        self.restart()

    # --- OpenSpiel's bot interface ----------------------------------------------------

    def restart(self):
        """A new game from the initial position."""
        self.restart_at(self.game.new_initial_state())

    def restart_at(self, state):
        """A new game from ``state`` (the bot then sees a first ``position`` without the
        moves that led to it, as protocol.md allows)."""
        self._finish_game()
        self._known = _arena(state).clone()  # the position the bot will be told of
        self._unsent = []  # (seat, move) not yet sent as `played`
        self._seat = None  # until the first decision

    def inform_action(self, state, player, action):
        """``player`` played ``action`` in ``state`` (before it was applied)."""
        self._inform(_arena(state).action_to_move(int(action)), player)

    def inform_move(self, move):
        """The player to move played ``move`` (protocol notation) in the known position."""
        self._inform(move, self._known.current_player())

    def step(self, state):
        """The bot's action id in ``state``, where it is to move."""
        return _arena(state).move_to_action(self.choose(state))

    # --- plain use ---------------------------------------------------------------------

    def choose(self, state):
        """The bot's move (protocol notation) in ``state``, where it is to move."""
        state = _arena(state)
        if self._known is None:
            raise ValueError("ProcessBot %s failed in this game: start another with restart_at" % self.name)
        if str(state) != str(self._known):
            raise ValueError(
                "ProcessBot %s: `%s` is not the position it was told of (`%s`): tell it every "
                "move with inform_action or inform_move, or start again with restart_at"
                % (self.name, state, self._known)
            )
        player = state.current_player()
        if self._seat is None:
            self._start_game(player)
        elif player != self._seat:
            raise ValueError("ProcessBot %s plays seat %d, not %d" % (self.name, self._seat, player))
        legal = state.legal_moves()
        lines = ["played %d %s" % played for played in self._unsent]
        lines += ["position %s" % state, "legal " + " ".join(legal)]
        lines.append("go time=- opptime=- inc=0 movetime=%d" % self.movetime_ms)
        self._unsent = []
        self._send(lines)
        move = self._await_move(legal)
        self._inform(move, player)
        return move

    def close(self):
        """Sends ``quit`` (after ``gameover`` if the game is over) and ends the process."""
        self._finish_game()
        self._stop(quit=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_process", None) is not None:
            self._stop(quit=False)

    # --- the process -------------------------------------------------------------------

    def _inform(self, move, seat):
        if self._known is None:
            raise ValueError("ProcessBot %s failed in this game: start another with restart_at" % self.name)
        self._known.apply(move)
        self._unsent.append((seat, move))

    def _start_game(self, seat):
        if self._process is None:
            self._launch()
        params = " ".join("%s=%s" % (k, _text(v)) for k, v in self.game.params.items())
        self._games += 1
        seed = self.seed + self._games - 1
        self._send(["newgame %s seat=%d seed=%d %s" % (self.game.name, seat, seed, params)])
        self._seat = seat

    def _finish_game(self):
        """Tells a bot in a finished game how it ended; a game left unfinished costs
        the process (the protocol has no way to abandon a game)."""
        if self._process is None or getattr(self, "_seat", None) is None or self._known is None:
            return
        outcome = self._known.outcome()
        if outcome is None:
            self._stop(quit=True)
            return
        result = "draw" if outcome.winner is None else ("win" if outcome.winner == self._seat else "loss")
        reason = "adjudicated" if outcome.adjudicated else "normal"
        plies = str(self._known).rsplit("ply=", 1)[-1]
        lines = ["played %d %s" % played for played in self._unsent]
        lines.append("gameover %s %s scores=%d,%d plies=%s" % ((result, reason) + outcome.scores + (plies,)))
        self._unsent = []
        self._seat = None
        try:
            self._send(lines)
        except BotError:
            self._stop(quit=False)  # it left after its last move: the next game starts anew

    def _launch(self):
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
            )
        except OSError as e:
            raise BotError(self.name, "crash", "cannot start %s: %s" % (self.argv[0], e)) from None
        self._lines = queue.Queue()
        self._stderr = collections.deque(maxlen=20)
        threading.Thread(target=self._read_stdout, args=(self._process.stdout,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._process.stderr,), daemon=True).start()
        self._output = 0
        self._send(["arena 1"])
        deadline = time.monotonic() + self.startup_ms / 1000
        line = self._next_line(deadline, "did not answer `arena 1` with `ready` within %d ms" % self.startup_ms)
        if line.split(" ")[0] != "ready":
            self._fail("protocol", "answered `arena 1` with %s, not `ready`" % _quote(line))
        self.ready = line[len("ready") :].strip()

    def _read_stdout(self, pipe):
        """Queues ("line", text, bytes) for each line, ("violation", detail, bytes) for
        a line the protocol forbids, then None at the end of the output."""
        while True:
            raw = pipe.readline(MAX_LINE + 2)
            if not raw:
                self._lines.put(None)
                return
            text = raw.rstrip(b"\n").rstrip(b"\r")
            if len(text) > MAX_LINE:
                self._lines.put(("violation", "a line over 64 KiB", len(raw)))
                return
            try:
                self._lines.put(("line", text.decode("utf-8"), len(raw)))
            except UnicodeDecodeError:
                self._lines.put(("violation", "a line that is not UTF-8: %s" % _quote(repr(text)), len(raw)))
                return

    def _read_stderr(self, pipe):
        for line in pipe:
            self._stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    def _next_line(self, deadline, late):
        """The next non-blank line before ``deadline``; a violation raises."""
        while True:
            try:
                item = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._fail("timeout", late)
            if item is None:
                self._process.wait(timeout=5)
                tail = " / ".join(self._stderr)
                self._fail(
                    "crash",
                    "exited (code %s)%s" % (self._process.returncode, "; stderr: " + tail if tail else ""),
                )
            kind, line, size = item
            if kind == "violation":
                self._fail("protocol", line)
            self._output += size
            if self._output > MAX_OUTPUT:
                self._fail("protocol", "more than 4 MiB of output for one decision")
            if line.split():
                return line

    def _await_move(self, legal):
        self.info = []
        self._output = 0
        deadline = time.monotonic() + (self.movetime_ms + MARGIN_MS) / 1000
        late = "no move within %d ms" % self.movetime_ms
        while True:
            line = self._next_line(deadline, late)
            tokens = line.split()
            if tokens[0] == "info":
                self.info.append(line.split(None, 1)[1] if len(tokens) > 1 else "")
            elif tokens[0] == "move" and len(tokens) == 2:
                move = tokens[1]
                if move not in legal:
                    self._fail("illegal", "move %s is not one of the legal moves" % _quote(move))
                return move
            else:
                self._fail("protocol", "sent %s, not `move` or `info`" % _quote(line))

    def _send(self, lines):
        if self._process is None:
            return
        try:
            self._process.stdin.write("".join(line + "\n" for line in lines).encode("utf-8"))
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._fail("crash", "closed its input")

    def _fail(self, reason, detail):
        self._stop(quit=False)
        self._seat = None
        self._known = None  # that game is lost to the bot: restart_at starts another
        raise BotError(self.name, reason, detail)

    def _stop(self, quit):
        process, self._process = self._process, None
        if process is None:
            return
        if quit:
            try:
                process.stdin.write(b"quit\n")
                process.stdin.flush()
                process.wait(timeout=0.2)  # protocol.md: exit within 200 ms of quit
            except (OSError, subprocess.TimeoutExpired):
                pass
        if process.poll() is None:
            process.kill()
            process.wait()
        for pipe in (process.stdin, process.stdout, process.stderr):
            try:
                pipe.close()
            except OSError:
                pass


def _arena(state):
    """The arena_games.State of an arena_games state or of an OpenSpiel one."""
    return getattr(state, "arena", state)


def _text(value):
    """A parameter value as the protocol writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
