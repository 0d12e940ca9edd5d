#!/usr/bin/env bash
# Smoke test of every non-Rust reference bot: pipe hand-written referee sessions into each
# one and check that what comes back on stdout is exactly `ready ...` and then one
# `move <m>` per `go`, with <m> taken from that decision's `legal` line (info lines and
# empty lines are allowed, as the referee allows them). The bot must also exit with
# status 0 within the time limit, after `quit` or at end of input.
#
#   bots/smoke.sh            (from anywhere; builds the C and C++ bots first)
#   bots/smoke.sh 'my-bot|python3|path/to/my_bot.py --seed 3' ...
#                            also checks the bots given as name|needed-command|argv
#                            (argv split on spaces, run from the repository root)
#
# Exits non-zero if any answer was wrong. A bot whose interpreter is missing is
# reported as SKIP and does not fail the run.
set -uo pipefail
cd "$(dirname "$0")/.."
# Some shells export PYTHONUNBUFFERED=1, which would hide a Python bot that forgets to
# flush; the referee's environment may not have it.
unset PYTHONUNBUFFERED

LIMIT=10 # seconds a bot may take for a whole session
failures=0
passes=0
skips=0

make -s -C bots/c || { echo "FAIL: make -C bots/c"; exit 1; }
if command -v g++ >/dev/null 2>&1; then
  make -s -C bots/cpp || { echo "FAIL: make -C bots/cpp"; exit 1; }
fi

# name | interpreter needed | argv
BOTS=(
  "python-random|python3|bots/python/random_bot.py --seed 1"
  "python-dakon-greedy|python3|bots/python/dakon_greedy.py --seed 1"
  "python-dakon-greedy-diff-first|python3|bots/python/dakon_greedy.py --seed 2 --diff-first"
  "c-first-legal|cc|bots/c/build/first_legal --seed 1"
  "c-first-legal-first|cc|bots/c/build/first_legal --first"
  "c-kit-random|cc|bots/c/build/random_bot --seed 1"
  "cpp-kit-random|g++|bots/cpp/build/random_bot --seed 1"
  "js-random|node|bots/js/random_bot.js --seed 1"
  "js-kit-example|node|bots/js/example_bot.js --seed 1"
  "$@"
)

DAKON_START="pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0"
DAKON_LEGAL_0="7 8 9 10 11 12 13"
DAKON_AFTER_10="pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=1"
DAKON_LEGAL_1="0 1 2 5 6"
LAT_STATE="board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=0 phase=move hand=0,0 quiet=8 ply=42"
LAT_LEGAL="a8-a7 b8-b7 b8-c8 d5-c5 d5-d4 d5-e5 d7-c7 d7-d8 d7-e7 xd6"
LAT_PLACE="board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3"
NEWGAME_DAKON="newgame dakon seat=0 seed=5 holes=7 seeds=7 nembak_takes_lander=false max_plies=1000"
NEWGAME_LAT="newgame latrunculi seat=0 seed=18446744073709551615 width=8 height=8 pieces=16 quiet_plies=100"
GO="go time=60000 opptime=60000 inc=0 movetime=1000"

# Placement squares of LAT_PLACE: every empty square (62 of them), a long-ish line.
lat_place_legal() {
  local f r out=""
  for r in 1 2 3 4 5 6 7 8; do
    for f in a b c d e f g h; do
      case "$f$r" in d5 | d3 | a1) ;; *) out+="$f$r " ;; esac
    done
  done
  echo "${out% }"
}
LAT_PLACE_LEGAL="$(lat_place_legal)"

# A legal line of about 60 KiB (the protocol's lines may reach 64 KiB).
long_legal() {
  local i out=""
  for ((i = 0; i < 6000; i++)); do out+="p$i-q$i "; done
  echo "${out% }"
}
LONG_LEGAL="$(long_legal)"

# Session 1: one Dakon decision, with noise a bot must ignore.
session_dakon() {
  printf 'arena 1\n'
  printf '\n'
  printf 'hello from a future referee version\n'
  printf '%s\n' "$NEWGAME_DAKON"
  printf 'position %s\n' "$DAKON_START"
  printf 'legal %s\n' "$DAKON_LEGAL_0"
  printf '%s\n' "$GO"
  printf 'played 0 7\n'
  printf 'gameover win score\n'
  printf 'quit\n'
}

# Session 2: one Latrunculi decision, every line ending in \r\n.
session_latrunculi() {
  {
    printf 'arena 1\n'
    printf '%s\n' "$NEWGAME_LAT"
    printf 'position %s\n' "$LAT_STATE"
    printf 'legal %s\n' "$LAT_LEGAL"
    printf 'go time=- opptime=- inc=0 movetime=500\n'
    printf 'quit\n'
  } | sed 's/$/\r/'
}

# Session 3: two games in one process (bots are kept across games), seat 1 in Dakon,
# a placement decision in Latrunculi, and no quit: end of input must end the bot.
session_two_games() {
  printf 'arena 1\n'
  printf '%s\n' "${NEWGAME_DAKON/seat=0/seat=1}"
  printf 'played 0 10\n'
  printf 'position %s\n' "$DAKON_AFTER_10"
  printf 'legal %s\n' "$DAKON_LEGAL_1"
  printf '%s\n' "$GO"
  printf 'gameover loss timeout\n'
  printf '%s\n' "${NEWGAME_LAT/seat=0/seat=1}"
  printf 'played 0 d5\nplayed 1 a1\nplayed 0 d3\n'
  printf 'position %s\n' "$LAT_PLACE"
  printf 'legal %s\n' "$LAT_PLACE_LEGAL"
  printf 'go time=- opptime=- inc=0 movetime=-\n'
}

# Session 4: a legal line of about 60 KiB.
session_long_line() {
  printf 'arena 1\n'
  printf '%s\n' "$NEWGAME_LAT"
  printf 'position %s\n' "$LAT_STATE"
  printf 'legal %s\n' "$LONG_LEGAL"
  printf '%s\n' "$GO"
  printf 'quit\n'
}

# Session 5, interactive: each answer must arrive while the referee waits for it, which
# only happens if the bot flushes stdout after every line (piped sessions above cannot
# tell: everything gets flushed at exit anyway). Writes what it read to $tmp/out and
# returns the bot's exit status, or 125 when an answer did not come within 5 s.
interactive() {
  local line status=0 in out pid
  coproc BOT { timeout "$LIMIT" "$@" 2>"$tmp/err"; }
  exec {in}>&"${BOT[1]}" {out}<&"${BOT[0]}"
  pid=$BOT_PID
  : >"$tmp/out"
  # read_answer WORD: read lines until one starting with WORD (info lines pass by)
  read_answer() {
    while IFS= read -r -t 5 line <&"$out"; do
      printf '%s\n' "$line" >>"$tmp/out"
      [[ $line == "$1"* ]] && return 0
      [[ -z $line || $line == info* ]] || return 0
    done
    return 1
  }
  # say ARGS: printf to the bot; in a subshell, so a bot that died takes the SIGPIPE
  # out of the subshell only, not out of this script
  say() { (printf "$@" >&"$in") 2>/dev/null; }
  say 'arena 1\n'
  if read_answer ready; then
    say '%s\nposition %s\nlegal %s\n%s\n' "$NEWGAME_DAKON" "$DAKON_START" "$DAKON_LEGAL_0" "$GO"
    read_answer move || status=125
  else
    status=125
  fi
  say 'quit\n'
  exec {in}>&-
  while IFS= read -r -t 5 line <&"$out"; do printf '%s\n' "$line" >>"$tmp/out"; done
  exec {out}<&-
  wait "$pid"
  local exit_status=$?
  ((status != 0)) && return $status
  return $exit_status
}

# check NAME SESSION_LABEL OUTPUT_FILE STATUS LEGAL_LIST...
# Passes when the output is `ready ...` then one `move` per given legal list, each move
# from its list, nothing else but info/empty lines, and the bot exited with status 0.
check() {
  local name=$1 label=$2 file=$3 status=$4
  shift 4
  local -a lines=()
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line || $line == info || $line == "info "* ]] && continue
    lines+=("$line")
  done <"$file"
  local problem=""
  if ((status != 0)); then
    problem="exit status $status"
    ((status == 124)) && problem+=" (still running ${LIMIT}s after the session began)"
    ((status == 125)) && problem+=" (an answer did not come within 5 s: is stdout flushed?)"
  elif ((${#lines[@]} != $# + 1)); then
    problem="expected 1 ready and $# move line(s), got ${#lines[@]} line(s)"
  elif ! [[ ${lines[0]} =~ ^ready(\ .*)?$ ]]; then
    problem="first line is not 'ready ...': '${lines[0]:0:100}'"
  else
    local i=1 legal move
    for legal in "$@"; do
      if ! [[ ${lines[i]} =~ ^move\ ([^ ]+)$ ]]; then
        problem="line $((i + 1)) is not 'move <m>': '${lines[i]:0:100}'"
        break
      fi
      move=${BASH_REMATCH[1]}
      if [[ " $legal " != *" $move "* ]]; then
        problem="move '$move' is not in the legal list of decision $i"
        break
      fi
      i=$((i + 1))
    done
  fi
  if [[ -n $problem ]]; then
    echo "FAIL  $name [$label]: $problem"
    echo "      stdout was:"
    head -c 400 "$file" | sed 's/^/        /'
    failures=$((failures + 1))
  else
    echo "ok    $name [$label]: $(grep -v '^info' "$file" | tr '\n' '|' | head -c 80)"
    passes=$((passes + 1))
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run ARGV... with the session on stdin; output to $tmp/out, status echoed
  timeout "$LIMIT" "$@" >"$tmp/out" 2>"$tmp/err"
}

for entry in "${BOTS[@]}"; do
  IFS='|' read -r name needs argv <<<"$entry"
  if ! command -v "$needs" >/dev/null 2>&1; then
    echo "SKIP  $name: '$needs' not found"
    skips=$((skips + 1))
    continue
  fi
  read -r -a cmd <<<"$argv"

  session_dakon | run "${cmd[@]}"
  check "$name" dakon "$tmp/out" $? "$DAKON_LEGAL_0"

  session_latrunculi | run "${cmd[@]}"
  check "$name" "latrunculi crlf" "$tmp/out" $? "$LAT_LEGAL"

  session_two_games | run "${cmd[@]}"
  check "$name" "two games, eof" "$tmp/out" $? "$DAKON_LEGAL_1" "$LAT_PLACE_LEGAL"
  cp "$tmp/out" "$tmp/first"
  session_two_games | run "${cmd[@]}"
  if cmp -s "$tmp/out" "$tmp/first"; then
    echo "ok    $name [same seeds, same moves]"
    passes=$((passes + 1))
  else
    echo "FAIL  $name [same seeds, same moves]: two runs differ"
    failures=$((failures + 1))
  fi

  session_long_line | run "${cmd[@]}"
  check "$name" "60 KiB legal line" "$tmp/out" $? "$LONG_LEGAL"

  interactive "${cmd[@]}"
  check "$name" "interactive, flushed" "$tmp/out" $? "$DAKON_LEGAL_0"
done

echo "smoke: $passes passed, $failures failed, $skips skipped"
((failures == 0))
