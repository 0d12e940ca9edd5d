#!/usr/bin/env python3
"""A test bot for arena's referee (Python 3, standard library only).

It plays any game by choosing among the moves of the `legal` line, and can
misbehave on purpose, to check that the referee records the right losing
reason. Usage:

    testbot.py [--mode MODE] [--after N] [--seed S] [--sleep-ms MS]

--after N: behave normally for N decisions (`go`s) of the process, then
misbehave (default 0: at the first decision). Modes:

    first        play the first legal move (default)
    last         play the last legal move
    random       a uniformly random legal move (seeded by --seed and the
                 `newgame` seed: deterministic)
    slow         sleep --sleep-ms before every move
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
    flood        send `info` lines for ever
    fork-hold    fork a child that keeps the pipes open and sleeps, then exit
    stubborn     ignore `quit` and SIGTERM when asked to stop
    stderr-spam  write 3 MB to stderr at every decision, then move
    unflushed    never flush stdout (answers reach the referee only at exit)
    banner       print a greeting on stdout before `ready` (stdout noise)
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
    args = ap.parse_args()
    mode = args.mode

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
            if mode == "banner":
                send("Hello! testbot starting up")
            send("ready testbot " + mode)
        elif cmd == "newgame":
            log.write("testbot: " + line + "\n")
            log.flush()
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
            elif mode == "stderr-spam":
                block = "e" * 1023 + "\n"
                for _ in range(3 * 1024):
                    log.write(block)
                log.flush()
                send("move " + legal[0])
            else:
                send("move " + legal[0])
        elif cmd == "quit":
            if mode == "stubborn":
                continue
            return
        # position, gameover and unknown lines need no answer.
    if mode == "stubborn":
        time.sleep(3600)


if __name__ == "__main__":
    main()
