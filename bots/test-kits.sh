#!/usr/bin/env bash
# Checks the C, C++ and JavaScript kits (bots/c/arena.h, bots/cpp/arena.hpp,
# bots/js/arena.js) on what their random example bots never do: each kit's probe
# (bots/*/test_kit.*) gets one referee session and must answer it exactly as written
# below, the three kits alike:
#   - `arena 2` (a newer protocol) is still answered `ready`;
#   - blank lines, leading blanks, tabs, `\r\n`, a message no kit knows: ignored;
#   - a choose that throws (C: returns NULL), then one that returns a move not in
#     `legal`: the kit plays the first legal move, and says so on stderr;
#   - the parsed `newgame` (seat, a seed of 2^64-1, parameters), `played` count,
#     `position` text and `go` fields (`-` = no limit), and the clock budget, as the
#     probe reports them in an `info` line (newlines in it are flattened);
#   - a second game in the same process starts afresh;
#   - nothing is answered after `quit`, and the exit status is 0, also at end of input;
#   - without a set-up hook the `ready` line has no `isready` (above); with one (the
#     probe's --setup), `ready probe kit isready`, and `isready` calls the hook with the
#     game so far, then is answered `readyok`.
#
#   bots/test-kits.sh     (from anywhere; builds the C and C++ probes)
#
# Exits non-zero on any difference. A kit whose compiler or interpreter is missing
# fails (check-all.sh runs this; CI installs g++ and nodejs).
set -uo pipefail
cd "$(dirname "$0")/.."

failures=0
make -s -C bots/c build/test_kit || { echo "FAIL: make -C bots/c"; exit 1; }
if command -v g++ >/dev/null 2>&1; then
  make -s -C bots/cpp build/test_kit || { echo "FAIL: make -C bots/cpp"; exit 1; }
fi

NEWGAME="newgame dakon seat=1 seed=18446744073709551615 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000"
session() {
  printf 'arena 2\n'
  printf '\n   \n'
  printf '  %s\r\n' "$NEWGAME"
  printf 'played 0 10\n'
  printf 'position pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1\n'
  printf 'legal 0 1 2 5 6\n'
  printf 'go time=- opptime=- inc=0 movetime=100\n'
  printf 'legal 0 1\n'
  printf 'go time=- opptime=- inc=0 movetime=100\n'
  printf 'hello from a future referee version=2\n'
  printf 'played 1 0\n'
  printf 'position\tpits=1,2 stores=0,0 turn=1 ply=3\r\n'
  printf 'legal 5\t6  7\r\n'
  printf 'go time=6000 opptime=5000 inc=10 movetime=-\n'
  printf 'gameover loss normal scores=1,2 plies=4\n'
  printf 'newgame latrunculi seat=0 seed=3 width=8 height=8 pieces=16 quiet_plies=100\n'
  printf 'position board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0\n'
  printf 'legal a1 a2\n'
  printf 'go time=- opptime=- inc=0 movetime=-\n'
  if [[ ${1:-} == quit ]]; then
    printf 'quit\n'
    printf 'legal b1\ngo time=- opptime=- inc=0 movetime=100\n'
  fi
}

# The untimed set-up: `isready` after `newgame` and the opening's `played`.
setup_session() {
  printf 'arena 1\n'
  printf '%s\n' "$NEWGAME"
  printf 'played 0 10\n'
  printf 'isready\n'
  printf 'position pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1\n'
  printf 'legal 0 1 2 5 6\n'
  printf 'go time=- opptime=- inc=0 movetime=100\n'
  printf 'quit\n'
}

setup_expected() {
  cat <<'OUT'
ready probe kit isready
info setup game=dakon seat=1 played=1
readyok
move 0
OUT
}

expected() {
  cat <<'OUT'
ready probe kit
move 0
move 0
info n=3 game=dakon seat=1 seed=18446744073709551615 holes=7 params=4 played=2 time=6000 opptime=5000 inc=10 movetime=- budget=118 legal=3 state=pits=1,2 stores=0,0 turn=1 ply=3
move 7
info n=4 game=latrunculi seat=0 seed=3 holes=- params=4 played=0 time=- opptime=- inc=0 movetime=- budget=- legal=2 state=board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0
move a2
OUT
}

# name | needed command | argv
KITS=(
  "c|cc|bots/c/build/test_kit"
  "cpp|g++|bots/cpp/build/test_kit"
  "js|node|node bots/js/test_kit.js"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expected >"$tmp/expected"
setup_expected >"$tmp/setup_expected"
for entry in "${KITS[@]}"; do
  IFS='|' read -r name needs argv <<<"$entry"
  if ! command -v "$needs" >/dev/null 2>&1; then
    echo "FAIL  $name kit: '$needs' not found"
    failures=$((failures + 1))
    continue
  fi
  read -r -a cmd <<<"$argv"
  for ending in quit eof; do
    session "$ending" | timeout 10 "${cmd[@]}" >"$tmp/out" 2>"$tmp/err"
    status=$?
    problem=""
    if ((status != 0)); then
      problem="exit status $status"
    elif ! cmp -s "$tmp/out" "$tmp/expected"; then
      problem="stdout differs from the expected answers:
$(diff "$tmp/expected" "$tmp/out" | sed 's/^/        /')"
    elif ! grep -q 'zz' "$tmp/err" || ! grep -q 'protocol' "$tmp/err"; then
      problem="stderr does not report the illegal choice and the protocol version:
$(sed 's/^/        /' "$tmp/err")"
    fi
    if [[ -n $problem ]]; then
      echo "FAIL  $name kit [$ending]: $problem"
      failures=$((failures + 1))
    else
      echo "ok    $name kit [$ending]"
    fi
  done
  setup_session | timeout 10 "${cmd[@]}" --setup >"$tmp/out" 2>"$tmp/err"
  status=$?
  if ((status != 0)); then
    echo "FAIL  $name kit [setup]: exit status $status"
    failures=$((failures + 1))
  elif ! cmp -s "$tmp/out" "$tmp/setup_expected"; then
    echo "FAIL  $name kit [setup]: stdout differs from the expected answers:"
    diff "$tmp/setup_expected" "$tmp/out" | sed 's/^/        /'
    failures=$((failures + 1))
  else
    echo "ok    $name kit [setup]"
  fi
done
if ((failures == 0)); then
  echo "test-kits: every kit answers as expected"
else
  echo "test-kits: $failures failure(s)"
fi
((failures == 0))
