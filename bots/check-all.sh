#!/usr/bin/env bash
# Checks every reference bot the way a tournament will use it, then shows that the
# time-managed bots never lose on time at 100 ms per move with two games at once.
#
#   bots/check-all.sh          (from anywhere; builds what it needs)
#
# 0. bots/test-kits.sh: the C, C++ and JavaScript kits answer a referee session with odd
#    lines, a choose that fails and two games exactly as expected.
# 1. `arena check-bot` for every bot in bots/ on both games, at the default 100 ms per
#    move, in the sandbox a tournament uses (bubblewrap where it works): handshake,
#    full games, odd positions, quit. Any FAIL fails the script.
# 2. Two `arena match` processes at once, --movetime 100, on this machine: the Rust
#    alpha-beta against the Rust MCTS (both time-managed), and the Python Dakon greedy
#    against the Python random bot; Dakon, then Latrunculi. No game may end in
#    `timeout`; the slowest answer of each bot (from games.jsonl) is printed.
#
# Exits non-zero on any failure. Output of the matches: reports/check-all/.
set -uo pipefail
cd "$(dirname "$0")/.."
# Some shells export PYTHONUNBUFFERED=1, which would hide a Python bot that forgets to
# flush; the referee's environment may not have it.
unset PYTHONUNBUFFERED

cargo build --release --workspace -q || { echo "FAIL: cargo build --release"; exit 1; }
make -s -C bots/c || { echo "FAIL: make -C bots/c"; exit 1; }
# Without a compiler the bot's line below says what is missing (as for Java).
if command -v g++ >/dev/null 2>&1; then
  make -s -C bots/cpp || { echo "FAIL: make -C bots/cpp"; exit 1; }
fi
if command -v javac >/dev/null 2>&1; then
  make -s -C bots/java || { echo "FAIL: make -C bots/java"; exit 1; }
fi

ARENA=target/release/arena
R=target/release
failures=0
summary=()

# name | interpreter needed | argv (run from the repository root)
BOTS=(
  "rust-random|$R/arena-random|$R/arena-random --seed 1"
  "rust-greedy|$R/arena-greedy|$R/arena-greedy --seed 1"
  "rust-alphabeta|$R/arena-alphabeta|$R/arena-alphabeta --seed 1"
  "rust-mcts|$R/arena-mcts|$R/arena-mcts --seed 1"
  "python-random|python3|python3 bots/python/random_bot.py --seed 1"
  "python-dakon-greedy|python3|python3 bots/python/dakon_greedy.py --seed 1"
  # The search bots on the arena_games package, in the .venv that arena/python/venv.sh builds.
  "python-mcts|.venv/bin/python|.venv/bin/python bots/python/mcts_bot.py --seed 1"
  "python-openspiel-mcts|.venv/bin/python|.venv/bin/python bots/python/openspiel_bot.py --seed 1"
  "c-first-legal|bots/c/build/first_legal|bots/c/build/first_legal --seed 1"
  "c-kit-random|bots/c/build/random_bot|bots/c/build/random_bot --seed 1"
  "cpp-kit-random|bots/cpp/build/random_bot|bots/cpp/build/random_bot --seed 1"
  "js-random|node|node bots/js/random_bot.js --seed 1"
  "js-kit-example|node|node bots/js/example_bot.js --seed 1"
  "java-random|javac|java -cp bots/java/build RandomBot --seed 1"
  # 1.5 s of set-up at each game through the kit's isready hook: nothing lost on time.
  "java-random-setup|javac|java -cp bots/java/build RandomBot --seed 1 --setup-ms 1500"
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== the C, C++ and JavaScript kits (bots/test-kits.sh)"
if bots/test-kits.sh >"$log" 2>&1; then
  line="PASS  kits: $(tail -1 "$log")"
else
  line="FAIL  kits (bots/test-kits.sh)"
  failures=$((failures + 1))
  sed 's/^/      /' "$log"
fi
echo "$line"
summary+=("$line")

echo "== arena check-bot, every bot, both games, movetime 100 ms"
for entry in "${BOTS[@]}"; do
  IFS='|' read -r name needs argv <<<"$entry"
  if ! command -v "$needs" >/dev/null 2>&1; then
    echo "FAIL  $name: '$needs' not found$([[ $needs == .venv/* ]] && echo ' (build it: arena/python/venv.sh)')"
    failures=$((failures + 1))
    continue
  fi
  read -r -a cmd <<<"$argv"
  for game in dakon latrunculi; do
    "$ARENA" check-bot --game "$game" -- "${cmd[@]}" >"$log" 2>&1
    status=$?
    # Lost on time only while the machine was busier than its cores (check-bot says so
    # in the FAIL line): run it once more, and say so. Any other FAIL stands.
    if ((status == 1)) && ! grep '^FAIL' "$log" | grep -qv 'note: load average'; then
      echo "      (re-run: only late moves on an overloaded machine:)"
      grep '^FAIL' "$log" | sed 's/^/      /'
      "$ARENA" check-bot --game "$game" -- "${cmd[@]}" >"$log" 2>&1
      status=$?
    fi
    times=$(grep -o 'time per move: [^(]*' "$log" | head -1)
    if ((status == 0)); then
      line="PASS  $name $game ($times; $(grep -c '^WARN' "$log") warnings)"
    else
      line="FAIL  $name $game (exit $status)"
      failures=$((failures + 1))
      sed 's/^/      /' "$log"
    fi
    grep '^WARN' "$log" | sed 's/^/      /'
    echo "$line"
    summary+=("$line")
  done
done

# Two matches on two cores share the machine with the referees and with whatever else CI
# runs, so a wall clock would turn the scheduler's delays into losses on time (seen: one
# move in a few hundred past 150 ms). The cpu clock charges each bot only its own work,
# which is what this section checks: that every bot keeps to its limit while it shares.
echo "== two matches at once, movetime 100 ms on the cpu clock, on $(nproc) cores (load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
OUT=reports/check-all
rm -rf "$OUT"
match() { # match GAME GAMES TAG BOT BOT
  "$ARENA" match --game "$1" --games "$2" --movetime 100 --clock cpu --quiet --seed 7 \
    --out "$OUT/$3-$1" --bot "$4" --bot "$5"
}
for spec in "dakon 4" "latrunculi 2"; do
  read -r game games <<<"$spec"
  match "$game" "$games" rust "alphabeta=$R/arena-alphabeta --seed 1" "mcts=$R/arena-mcts --seed 2" \
    >"$OUT.rust-$game.txt" 2>&1 &
  rust=$!
  match "$game" "$games" python "greedy=python3 bots/python/dakon_greedy.py --seed 1" \
    "random=python3 bots/python/random_bot.py --seed 2" >"$OUT.python-$game.txt" 2>&1 &
  py=$!
  wait $rust || { echo "FAIL  match rust $game:"; cat "$OUT.rust-$game.txt"; failures=$((failures + 1)); }
  wait $py || { echo "FAIL  match python $game:"; cat "$OUT.python-$game.txt"; failures=$((failures + 1)); }
done
# Every game's reason, and each bot's answer times, from the records.
if ! python3 - "$OUT" <<'PY'; then
import csv, glob, json, sys
out = sys.argv[1]
bad = 0
for d in sorted(glob.glob(out + "/*-*")):
    with open(d + "/games.csv") as f:
        rows = list(csv.DictReader(f))
    reasons = [r["reason"] for r in rows]
    details = []
    times = {}
    with open(d + "/games.jsonl") as f:
        for line in f:
            g = json.loads(line)
            if g.get("reason") not in ("normal", "adjudicated"):
                details.append("      game %s: %s %s" % (g.get("index"), g.get("reason"), g.get("detail") or ""))
            for m in g["moves"]:
                times.setdefault(g["seats"][m["seat"]]["name"], []).append(m["ms"])
    shown = []
    for name, ms in sorted(times.items()):
        ms.sort()
        shown.append("%s max %.1f ms, median %.1f ms over %d moves" % (name, ms[-1], ms[len(ms) // 2], len(ms)))
    timeouts = reasons.count("timeout")
    forfeits = sum(r not in ("normal", "adjudicated") for r in reasons)
    tag = "PASS" if forfeits == 0 else "FAIL"
    bad += forfeits
    print("%s  %s: %d games (%s), %d timeouts; %s" % (tag, d.split("/")[-1], len(rows),
          " ".join(sorted(set(reasons))), timeouts, "; ".join(shown)))
    for line in details:
        print(line)
sys.exit(1 if bad else 0)
PY
  failures=$((failures + 1))
fi
rm -f "$OUT".*.txt
echo "      load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (a machine busier than its cores delays every bot)"

echo "== summary"
printf '%s\n' "${summary[@]}"
if ((failures == 0)); then
  echo "check-all: every bot passes"
else
  echo "check-all: $failures failure(s)"
fi
((failures == 0))
