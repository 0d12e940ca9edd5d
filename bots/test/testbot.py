#!/usr/bin/env python3
"""A test bot for arena's referee (Python 3, standard library only).

It plays any game by choosing among the moves of the `legal` line, and can
misbehave on purpose, to check that the referee records the right losing
reason. Usage:

    testbot.py [--mode MODE] [--after N] [--seed S] [--sleep-ms MS]

--after N: behave normally for N decisions (`go`s) of the process, then
misbehave (default 0: at the first decision).

--setup-ms MS: set up for MS at each game (a network to load): on `newgame`,
or, with --isready, on `isready` (asked for in its `ready` line), answering
`readyok` after. Modes:

    first        play the first legal move (default)
    last         play the last legal move
    random       a uniformly random legal move (seeded by --seed and the
                 `newgame` seed: deterministic)
    slow         sleep --sleep-ms before every move
    burn         use --sleep-ms of CPU time before every move (a busy loop)
    illegal      play a move that is not legal (one legal earlier, or
                 --illegal-move)
    timeout      stop answering (sleep for ever)
    crash        exit with code 3 instead of answering
    garbage      answer with a line that is not a message
    early        send an unasked `move` right after `newgame` or `played`
                 (racy: the referee may read it as the answer to the next `go`)
    double       answer `go` with two `move` lines in one write (the second
                 one is unasked, deterministically)
    overlong     send a 70000-byte line
    nonutf8      send a line with bytes that are not UTF-8
    noline       write without newline for ever (70 KB and more)
    exit-at-once exit before reading anything
    hang-start   never answer `arena 1`
    info         send 40 `info` lines before every move (kept, capped)
    info-escapes send 32 `info` lines of 300 control characters (\x01)
                 before every move (records must not grow 6x for it)
    flood        send `info` lines for ever
    fork-hold    fork a child that keeps the pipes open and sleeps, then exit
    stubborn     ignore `quit` and SIGTERM when asked to stop
    stderr-spam  write 3 MB to stderr at every decision, then move
    crash-start  exit with code 1 after reading `arena 1`, before `ready`
    premove      send `move` in the same write as `ready` (deterministically
                 before any `go`)
    late         answer each `go` 300 ms after its movetime (just too late)
    close-stdout close stdout after `ready` but keep running
    long-line    write one 100 MB line (`info xxx...`)
    stderr-flood write to stderr without end (gigabytes if allowed)
    fork-bomb    fork children (each sleeps) until fork fails or 200 exist,
                 then stop answering; bounded so it is safe even unlimited
    memory-hog   allocate and touch memory until allocation fails (at most
                 2 GB, then sleep), then stop answering
    info-sleep   send one `info` line, then sleep for ever
    setsid-escape fork a child that leaves the process group (setsid) and
                 sleeps, then exit: only a PID namespace (bwrap) catches it
    unflushed    never flush stdout (answers reach the referee only at exit)
    banner       print a greeting on stdout before `ready` (stdout noise)

Attacks on the referee, its run and the other bot (all play the first
legal move after attacking; what they managed goes to stderr as
`testbot: attack ...`, so tests can read it in the bot's log):

    escape-setsid      leave a sleeping child in a session of its own
    escape-setpgid     ... in a process group of its own
    escape-daemon      ... daemonized (double fork, setsid, chdir /)
    escape-double-fork ... orphaned by a double fork (same group)
    eof-ignorer        ignore `quit`, EOF, SIGTERM and SIGHUP: sleep for ever
    kill-parent        SIGTERM its parent and every process named arena
    stop-opponent      SIGSTOP every process whose command line holds
                       --victim TEXT
    cpu-thief          leave a child spinning on the CPU; report its CPU time
                       with each move (`info thief_cpu_ms=N`)
    symlink-planter    before every decision, make --plant PATH a link to
                       --victim FILE, then write to stderr
    trojan             overwrite --victim FILE and append to --append FILE
    remount            try `mount -o remount,rw /`, then --probe-write
    read-environ       read its parent's environment, and look for
                       --victim TEXT in every process's environment

    disk-filler        at its first decision, write up to --fill-mb MB
                       (default 256) of files into TMPDIR, then as much into
                       /dev/shm, and say how much each took
    memfd-hog          at its first decision, write --fill-mb MB into a
                       memfd it never maps (memory no process's RSS shows),
                       say how much it holds, and keep it
    private-probe      at its first decision, say whether files it leaves in
                       its working directory, HOME and TMPDIR are there
                       (from an earlier game), then leave them

Attacks on the clock and on CPU fairness (branch `clock`, issue 33):

    pipe-stall         shrink its input pipe to one page and keep it full, so
                       that the referee's `go` write blocks; think
                       --stall-ms (default 2000; 0: never stall, a control)
                       meanwhile, on its first --stalls (default 2) chances,
                       then drain the pipe and answer at once. It refills the pipe itself through
                       /proc/self/fd/0 where it may open it; otherwise it
                       never reads the last byte, so that the page fills
    starve-start       answer `ready` with --children (default 32) busy
                       children running, each in a session of its own,
                       until `newgame`; say how much CPU they got
    slow-start         burn --burn-ms (default 800) of CPU before `ready`
    spin-parked        spin from `gameover` until the next line (`newgame`
                       or `quit`) and say how much CPU it got meanwhile;
                       also spin --spin-ms (default 30) of CPU in each move (its
                       own time) and say how much CPU that got
    inode-hog          (branch sandbox) at its first decision, create empty
                       files in TMPDIR (and each --fill-dir DIR) until
                       creation fails or --fill-files N (default 300000)
                       exist, say how many each took, remove them, and play on
"""

import argparse
import os
import random
import signal
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="first")
    ap.add_argument("--after", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sleep-ms", type=int, default=0)
    ap.add_argument("--illegal-move", default="z9")
    ap.add_argument("--setup-ms", type=int, default=0, help="set-up time at each game")
    ap.add_argument("--isready", action="store_true", help="set up on `isready`, untimed")
    ap.add_argument("--score", type=int, default=None,
                    help="say `info depth 1 score cp N` before each move (its own view)")
    ap.add_argument("--probe-connect", type=int, default=0,
                    help="at start, try a TCP connection to 127.0.0.1:PORT and log the result")
    ap.add_argument("--probe-write", default="",
                    help="at start, try to create the file PATH and log the result")
    ap.add_argument("--marker", default="", help="ignored (found in the process table by tests)")
    ap.add_argument("--victim", default="", help="what an attack mode aims at")
    ap.add_argument("--fill-mb", type=int, default=256, help="what disk-filler tries to write")
    ap.add_argument("--plant", default="", help="symlink-planter: where to plant the link")
    ap.add_argument("--append", default="", help="trojan: a file to append a forged line to")
    ap.add_argument("--stall-ms", type=int, default=2000, help="pipe-stall: thinking per stall")
    ap.add_argument("--stalls", type=int, default=2, help="pipe-stall: moves to stall")
    ap.add_argument("--children", type=int, default=32, help="starve-start: busy children")
    ap.add_argument("--burn-ms", type=int, default=800, help="slow-start: CPU before ready")
    ap.add_argument("--spin-ms", type=int, default=30, help="spin-parked: spin in each move")
    # branch sandbox: inode-hog
    ap.add_argument("--fill-files", type=int, default=300000, help="what inode-hog tries to make")
    ap.add_argument("--fill-dir", action="append", default=[], help="inode-hog: also fill DIR")
    args = ap.parse_args()
    mode = args.mode
    if mode in CLOCK_MODES:
        return clock_main(mode, args)

    out = sys.stdout.buffer
    inp = sys.stdin.buffer

    def send(text):
        out.write(text.encode() + b"\n")
        if mode != "unflushed":
            out.flush()

    if mode == "exit-at-once":
        sys.exit(0)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "eof-ignorer":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    if args.probe_connect:
        import socket
        try:
            socket.create_connection(("127.0.0.1", args.probe_connect), 2).close()
            result = "ok"
        except OSError as e:
            result = "failed (%s)" % e
        sys.stderr.write("testbot: probe connect %s\n" % result)
    if args.probe_write:
        try:
            with open(args.probe_write, "w") as f:
                f.write("escaped\n")
            result = "ok"
        except OSError as e:
            result = "failed (%s)" % e
        sys.stderr.write("testbot: probe write %s\n" % result)
    sys.stderr.flush()

    rng = random.Random(args.seed)
    decisions = 0
    legal = []
    seen = set()
    log = sys.stderr

    for raw in inp:
        line = raw.decode().rstrip("\r\n")
        words = line.split(" ")
        cmd = words[0]
        misbehave = decisions >= args.after
        if cmd == "arena":
            if mode == "hang-start":
                time.sleep(3600)
            if mode == "crash-start":
                sys.exit(1)
            if mode == "premove":
                out.write(b"ready testbot premove\nmove 0\n")
                out.flush()
                continue
            if mode == "banner":
                send("Hello! testbot starting up")
            send("ready testbot " + mode + (" isready" if args.isready else ""))
            if mode == "close-stdout":
                out.close()
                os.close(1)
                time.sleep(3600)
        elif cmd == "isready":
            time.sleep(args.setup_ms / 1000)
            send("readyok")
        elif cmd == "newgame":
            log.write("testbot: " + line + "\n")
            log.flush()
            if not args.isready:
                time.sleep(args.setup_ms / 1000)
            for w in words[1:]:
                if w.startswith("seed="):
                    rng = random.Random(args.seed * 1_000_003 + int(w[5:]))
            if mode == "early" and misbehave:
                send("move 0")
        elif cmd == "played":
            if mode == "early" and misbehave:
                send("move " + words[2])
        elif cmd == "legal":
            seen.update(legal)
            legal = words[1:]
        elif cmd == "go":
            log.write("testbot: " + line + "\n")
            log.flush()
            if args.score is not None:
                send("info depth 1 score cp %d" % args.score)
            if mode in ATTACKS and misbehave:
                info = attack(mode, args, decisions, log)
                if info:
                    send("info " + info)
                send("move " + legal[0])
                decisions += 1
                continue
            decisions += 1
            if not misbehave:
                send("move " + legal[0])
                continue
            if mode == "last":
                send("move " + legal[-1])
            elif mode == "random":
                send("move " + rng.choice(legal))
            elif mode == "slow":
                time.sleep(args.sleep_ms / 1000)
                send("move " + legal[0])
            elif mode == "burn":
                # --sleep-ms of CPU time (not wall time) per move.
                until = time.process_time() + args.sleep_ms / 1000
                while time.process_time() < until:
                    pass
                send("move " + legal[0])
            elif mode == "illegal":
                old = sorted(seen - set(legal))
                send("move " + (old[0] if old else args.illegal_move))
            elif mode == "timeout":
                time.sleep(3600)
            elif mode == "double":
                out.write(("move %s\nmove %s\n" % (legal[0], legal[0])).encode())
                out.flush()
            elif mode == "crash":
                sys.exit(3)
            elif mode == "garbage":
                send("hello referee, I think " + legal[0] + " is best")
            elif mode == "overlong":
                send("info " + "x" * 70000)
            elif mode == "nonutf8":
                out.write(b"move \xff\xfe\n")
                out.flush()
            elif mode == "noline":
                while True:
                    out.write(b"y" * 8192)
                    out.flush()
            elif mode == "info":
                for i in range(40):
                    send("info thinking %d" % i)
                send("move " + legal[0])
            elif mode == "info-escapes":
                # Control characters, which JSON escapes in six bytes each.
                for i in range(32):
                    send("info " + "\x01" * 300)
                send("move " + legal[0])
            elif mode == "flood":
                chunk = ("info " + "f" * 200 + "\n") * 100
                while True:
                    out.write(chunk.encode())
                    out.flush()
            elif mode == "fork-hold":
                if os.fork() == 0:
                    time.sleep(3600)
                    os._exit(0)
                os._exit(0)
            elif mode == "late":
                ms = 1000
                for w in words[1:]:
                    if w.startswith("movetime=") and w[9:].isdigit():
                        ms = int(w[9:])
                time.sleep((ms + 300) / 1000)
                send("move " + legal[0])
            elif mode == "long-line":
                out.write(b"info ")
                chunk = b"x" * (1 << 20)
                for _ in range(100):
                    out.write(chunk)
                out.write(b"\n")
                out.flush()
                time.sleep(3600)
            elif mode == "stderr-flood":
                block = b"E" * 65535 + b"\n"
                err = sys.stderr.buffer
                while True:
                    err.write(block)
            elif mode == "fork-bomb":
                children = 0
                while children < 200:
                    try:
                        pid = os.fork()
                    except OSError as e:
                        log.write("testbot: fork failed after %d: %s\n" % (children, e))
                        break
                    if pid == 0:
                        time.sleep(3600)
                        os._exit(0)
                    children += 1
                log.write("testbot: %d children\n" % children)
                log.flush()
                time.sleep(3600)
            elif mode == "memory-hog":
                hoard = []
                try:
                    for _ in range(32):
                        block = bytearray(64 << 20)
                        block[::4096] = b"\x01" * len(range(0, len(block), 4096))
                        hoard.append(block)
                except MemoryError:
                    log.write("testbot: out of memory after %d MB\n" % (64 * len(hoard)))
                    log.flush()
                time.sleep(3600)
            elif mode == "setsid-escape":
                if os.fork() == 0:
                    os.setsid()
                    time.sleep(3600)
                    os._exit(0)
                os._exit(0)
            elif mode == "info-sleep":
                send("info thinking")
                time.sleep(3600)
            elif mode == "stderr-spam":
                block = "e" * 1023 + "\n"
                for _ in range(3 * 1024):
                    log.write(block)
                log.flush()
                send("move " + legal[0])
            else:
                send("move " + legal[0])
        elif cmd == "quit":
            if mode in ("stubborn", "eof-ignorer"):
                continue
            return
        # position, gameover and unknown lines need no answer.
    if mode in ("stubborn", "eof-ignorer"):
        time.sleep(3600)


ATTACKS = {
    "escape-setsid", "escape-setpgid", "escape-daemon", "escape-double-fork",
    "eof-ignorer", "kill-parent", "stop-opponent", "cpu-thief",
    "symlink-planter", "trojan", "remount", "read-environ", "private-probe",
    "disk-filler", "memfd-hog",
    "inode-hog",  # branch sandbox
}

THIEF = {}
HOARD = []


def report(log, text):
    log.write("testbot: attack " + text + "\n")
    log.flush()


def sleeper(setup):
    """Forks a child that runs `setup` and then sleeps for an hour."""
    if os.fork() == 0:
        try:
            setup()
        finally:
            time.sleep(3600)
            os._exit(0)


def daemonize():
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")


def orphan():
    if os.fork() > 0:
        os._exit(0)


def pids_matching(text, where="cmdline"):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/%s" % (entry, where), "rb") as f:
                data = f.read()
        except OSError:
            continue
        if text.encode() in data:
            found.append(int(entry))
    return found


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf("SC_CLK_TCK")


def attack(mode, args, decisions, log):
    """One attack (the first decision, or every one for some); returns an
    `info` text or None."""
    first = decisions == 0
    if mode == "escape-setsid" and first:
        sleeper(os.setsid)
        report(log, "escape-setsid started")
    elif mode == "escape-setpgid" and first:
        sleeper(lambda: os.setpgid(0, 0))
        report(log, "escape-setpgid started")
    elif mode == "escape-daemon" and first:
        sleeper(daemonize)
        report(log, "escape-daemon started")
    elif mode == "escape-double-fork" and first:
        sleeper(orphan)
        report(log, "escape-double-fork started")
    elif mode == "kill-parent" and first:
        targets = set(pids_matching("arena"))
        if os.getppid() > 1:
            targets.add(os.getppid())
        hit = []
        for pid in sorted(targets):
            try:
                os.kill(pid, signal.SIGTERM)
                hit.append(pid)
            except OSError:
                pass
        report(log, "kill-parent signalled %d of %d" % (len(hit), len(targets)))
    elif mode == "stop-opponent":
        hit = 0
        for pid in pids_matching(args.victim):
            try:
                os.kill(pid, signal.SIGSTOP)
                hit += 1
            except OSError:
                pass
        report(log, "stop-opponent stopped %d" % hit)
    elif mode == "cpu-thief":
        if first:
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            THIEF["pid"] = pid
        return "thief_cpu_ms=%d" % cpu_ms(THIEF["pid"])
    elif mode == "symlink-planter":
        try:
            if os.path.lexists(args.plant):
                os.unlink(args.plant)
            os.symlink(args.victim, args.plant)
            report(log, "symlink-planter planted")
        except OSError as e:
            report(log, "symlink-planter failed (%s)" % e)
        log.write("testbot: this line must not reach the victim\n")
        log.flush()
    elif mode == "trojan" and first:
        for path, how in ((args.victim, "w"), (args.append, "a")):
            if not path:
                continue
            try:
                with open(path, how) as f:
                    f.write('{"forged": true}\n')
                report(log, "trojan wrote %s" % path)
            except OSError as e:
                report(log, "trojan failed on %s (%s)" % (path, e))
    elif mode == "remount" and first:
        import subprocess
        r = subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True)
        report(log, "remount exit %d" % r.returncode)
        try:
            with open(args.probe_write, "w") as f:
                f.write("escaped\n")
            report(log, "remount wrote %s" % args.probe_write)
        except OSError as e:
            report(log, "remount could not write (%s)" % e)
    elif mode == "private-probe" and first:
        places = {"cwd": ".", "home": os.environ.get("HOME", "?"),
                  "tmpdir": os.environ.get("TMPDIR", "?")}
        for what, where in places.items():
            path = os.path.join(where, "probe-" + what)
            before = os.path.exists(path)
            try:
                with open(path, "w") as f:
                    f.write("left by an earlier game\n")
                wrote = "wrote"
            except OSError as e:
                wrote = "could not write (%s)" % e
            report(log, "private-probe %s %s: %s, %s" % (
                what, where, "FOUND" if before else "fresh", wrote))
    elif mode == "disk-filler" and first:
        chunk = b"\xa5" * (1 << 20)
        for where in (os.environ.get("TMPDIR", "/tmp"), "/dev/shm"):
            wrote = 0
            try:
                while wrote < args.fill_mb:
                    with open(os.path.join(where, "fill%d" % wrote), "wb") as f:
                        f.write(chunk)
                    wrote += 1
            except OSError:
                pass
            report(log, "disk-filler wrote %d MB to %s" % (wrote, where))
    elif mode == "memfd-hog" and first:
        fd = os.memfd_create("hoard")
        chunk = b"\x5a" * (1 << 20)
        held = 0
        while held < args.fill_mb and os.write(fd, chunk) == len(chunk):
            held += 1
        HOARD.append(fd)
        report(log, "memfd-hog held %d MB" % held)
    # --- branch sandbox: empty files cost the host kernel memory, which no
    # limit counts: how many the bot may make (TMPDIR first, then each
    # --fill-dir), removed again before it plays on.
    elif mode == "inode-hog" and first:
        for where in [os.environ.get("TMPDIR", "/tmp")] + args.fill_dir:
            made = []
            try:
                while len(made) < args.fill_files:
                    path = os.path.join(where, "hog%d" % len(made))
                    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
                    made.append(path)
            except OSError as e:
                why = e.strerror
            else:
                why = "enough"
            report(log, "inode-hog made %d files in %s (%s)" % (len(made), where, why))
            for path in made:
                os.unlink(path)
    # --- end of branch sandbox
    elif mode == "read-environ" and first:
        try:
            with open("/proc/%d/environ" % os.getppid(), "rb") as f:
                report(log, "read-environ parent: %r" % f.read()[:2000])
        except OSError as e:
            report(log, "read-environ parent failed (%s)" % e)
        found = pids_matching(args.victim, "environ") if args.victim else []
        if args.victim and any(args.victim in v for v in os.environ.values()):
            found.append(os.getpid())
        report(log, "read-environ found the secret in %d processes" % len(found))
    return None


# ---------------------------------------------------------------------------
# Branch `clock` (issue 33): attacks on the clock and on CPU fairness. These
# modes read their input with os.read (they need to know what is in the pipe).

CLOCK_MODES = {"pipe-stall", "starve-start", "slow-start", "spin-parked"}
F_SETPIPE_SZ = 1031


class RawLines:
    """Lines from fd 0 without Python's buffering. With `hold`, never reads
    the last byte in the pipe (the newline of the referee's last write), so
    the pipe is never empty and its one page fills up."""

    def __init__(self, hold=False):
        self.buf = b""
        self.hold = hold
        self.page = 0  # bytes written into the pipe's current page
        self.eof = False

    def available(self):
        import fcntl
        import termios
        import array
        n = array.array("i", [0])
        fcntl.ioctl(0, termios.FIONREAD, n)
        return n[0]

    def fill(self):
        import select
        select.select([0], [], [])
        if not self.hold:
            data = os.read(0, 65536)
            self.eof = not data
            self.buf += data
            return
        n = self.available()
        if n == 0:
            self.eof = not os.read(0, 1)  # readable and empty: end of input
            return
        if n > 1:
            data = os.read(0, n - 1)
            self.page += len(data) + (1 if self.page == 0 else 0)
            self.buf += data
        else:
            time.sleep(0.001)

    def release(self):
        """Reads the held byte: the page is free again, and a write the
        full pipe held up goes through."""
        if self.hold and self.available() >= 1:
            self.buf += os.read(0, 1)
            self.page = 0

    def line(self):
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return line.decode()
            # Held back, the newline of a complete write is still in the
            # pipe: what is buffered is a whole line.
            if self.hold and self.buf and self.available() == 1:
                line, self.buf = self.buf, b""
                self.skip_newline = True
                return line.decode()
            if self.eof:
                return None
            self.fill()
            if getattr(self, "skip_newline", False) and self.buf.startswith(b"\n"):
                self.buf = self.buf[1:]
                self.skip_newline = False


def children_cpu_ms(pids):
    total = 0
    for pid in pids:
        try:
            total += cpu_ms(pid)
        except OSError:
            pass
    return total


def burn_cpu(ms):
    end = time.process_time() + ms / 1000
    x = 0
    while time.process_time() < end:
        x += 1
    return x


def clock_main(mode, args):
    log = sys.stderr

    def send(text):
        os.write(1, text.encode() + b"\n")

    def say(text):
        report(log, mode + " " + text)

    writer = None
    hold = False
    if mode == "pipe-stall":
        import fcntl
        try:
            fcntl.fcntl(0, F_SETPIPE_SZ, 4096)
        except OSError as e:
            say("cannot shrink its input pipe (%s)" % e)
        try:
            writer = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)
            say("refills its own pipe")
        except OSError as e:
            hold = True
            say("cannot reopen its input (%s): holds back the last byte" % e)
    if hold:
        # SIGCONT, collected with sigtimedwait, says when it was thawed.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCONT})
    lines = RawLines(hold)
    legal = []
    moves = 0
    stalls = 0
    kids = []
    parked = None
    page_at_go = 0
    per_turn = 0
    while True:
        line = lines.line()
        if line is None:
            break
        if parked is not None:
            cpu0, wall0 = parked
            parked = None
            say("got %d ms of CPU while parked (%d ms wall), until `%s`"
                % ((time.process_time() - cpu0) * 1000, (time.monotonic() - wall0) * 1000,
                   line.split(" ")[0]))
        words = line.split(" ")
        cmd = words[0]
        if cmd == "arena":
            if mode == "slow-start":
                t0 = time.monotonic()
                burn_cpu(args.burn_ms)
                log.write("testbot: slow-start burnt %d ms of CPU in %d ms\n"
                          % (args.burn_ms, (time.monotonic() - t0) * 1000))
                log.flush()
            if mode == "starve-start":
                # Started just before `ready`, so that they are running by
                # the time the referee reads it (and freezes what it can).
                for _ in range(args.children):
                    pid = os.fork()
                    if pid == 0:
                        os.setsid()
                        while True:
                            pass
                    kids.append(pid)
            send("ready testbot " + mode)
        if cmd in ("newgame", "quit"):
            if kids:
                for pid in kids:
                    os.kill(pid, signal.SIGSTOP)
                say("children got %d ms of CPU between `ready` and `%s`"
                    % (children_cpu_ms(kids), cmd))
                for pid in kids:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                kids = []
        if cmd == "legal":
            legal = words[1:]
        elif cmd == "gameover" and mode == "spin-parked":
            parked = (time.process_time(), time.monotonic())
            import select
            # Spin until the next line is in the pipe.
            while not lines.buf and not select.select([0], [], [], 0)[0]:
                pass
        elif cmd == "go":
            if mode == "spin-parked" and args.spin_ms:
                # spin_ms of CPU, not of the wall clock: on a busy machine a
                # wall-clock spin gets less, and the control would fail for the
                # load, not for a freeze (bounded at 4x on the wall clock).
                c0 = time.process_time()
                end = time.monotonic() + 4 * args.spin_ms / 1000
                while (time.process_time() - c0 < args.spin_ms / 1000
                       and time.monotonic() < end):
                    pass
                say("got %d ms of CPU in its own move" % ((time.process_time() - c0) * 1000))
            moves += 1
            stall = mode == "pipe-stall" and args.stall_ms > 0 and stalls < args.stalls
            if hold:
                # What the referee wrote since the last `go`: about what it
                # will write before the next.
                if lines.page > page_at_go:
                    per_turn = max(per_turn, lines.page - page_at_go)
                page_at_go = lines.page
            if stall and writer is not None:
                # Fill the pipe before answering: the next `go` finds it full.
                filled = 0
                try:
                    while True:
                        filled += os.write(writer, b"\n" * 4096)
                except BlockingIOError:
                    pass
                send("move " + legal[0])
                stalls += 1
                time.sleep(args.stall_ms / 1000)
                t0 = time.monotonic()
                while True:  # drain the filler, to the referee's write
                    line = lines.line()
                    if line is None or line.strip():
                        break
                waited = (time.monotonic() - t0) * 1000
                say("thought %d ms with its input full (%d filler bytes); the next line "
                    "came %d ms after it drained" % (args.stall_ms, filled, waited))
                if line is None:
                    break
                lines.buf = line.encode() + b"\n" + lines.buf
                continue
            if hold and per_turn and 4096 - lines.page < 2 * per_turn:
                # The next write may not fit the page: it waits for the byte
                # held back (released at once when not stalling, the
                # control).
                if not stall:
                    send("move " + legal[0])
                    lines.release()
                    continue
                # Frozen while the opponent thinks, it is thawed (SIGCONT)
                # just before the referee writes: then the write either fits
                # (the page grows) or waits for the held byte.
                while signal.sigtimedwait({signal.SIGCONT}, 0):
                    pass
                send("move " + legal[0])
                waited = 0
                while lines.available() <= 1 and waited < 20:
                    if signal.sigtimedwait({signal.SIGCONT}, 0.05):
                        time.sleep(0.005)
                        break
                    waited += 1  # not frozen (a quick opponent): 1 s at most
                if lines.available() > 1:
                    continue  # it fitted: next time
                stalls += 1
                time.sleep(args.stall_ms / 1000)
                blocked = lines.available() == 1
                say("thought %d ms while the referee's write %s (page at %d bytes)"
                    % (args.stall_ms, "was blocked" if blocked else "had gone through",
                       lines.page))
                lines.release()
                continue
            send("move " + legal[0])
        elif cmd == "quit":
            break


if __name__ == "__main__":
    main()
