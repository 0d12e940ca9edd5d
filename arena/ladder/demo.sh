#!/usr/bin/env bash
# A local ladder with the reference bots submitted: starts `arena serve` on
# ./ladder-demo/ (SQLite) at http://127.0.0.1:8080, adds an author `demo`, uploads four
# bots from bots/ (two C bots built in the sandbox, two Python bots) and leaves the
# server running in the foreground (Ctrl-C stops it; games in progress finish or go back
# to the queue). Run from the repository after
#   cargo build --release -p arena -p arena-ladder
# Extra arguments go to `arena serve` (e.g. --sandbox none where bubblewrap cannot run).
set -euo pipefail
cd "$(dirname "$0")/../.."
ARENA=${ARENA:-target/release/arena}
DATA=${DATA:-ladder-demo}
URL=http://127.0.0.1:8080
[ -x "$ARENA" ] && [ -x "$(dirname "$ARENA")/arena-ladder" ] || {
    echo "build first: cargo build --release -p arena -p arena-ladder" >&2
    exit 2
}
if [ ! -f "$DATA/token" ]; then
    "$ARENA" ladder author add demo --data "$DATA" | tail -1 >"$DATA.token"
    mv "$DATA.token" "$DATA/token"
fi
TOKEN=$(cat "$DATA/token")
"$ARENA" serve --data "$DATA" --listen 127.0.0.1:8080 "$@" &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER' INT TERM
until curl -sf "$URL/api/health" >/dev/null; do
    kill -0 $SERVER 2>/dev/null || exit 1
    sleep 0.2
done
PACK=$(mktemp -d)
pack() { # NAME FILES... : a directory with arena-bot.toml ($MANIFEST) and FILES, uploaded
    local name=$1; shift
    mkdir -p "$PACK/$name"
    cp "$@" "$PACK/$name/"
    printf '%b' "$MANIFEST" >"$PACK/$name/arena-bot.toml"
    tar -czf "$PACK/$name.tar.gz" -C "$PACK/$name" .
    curl -sS -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/gzip" \
        --data-binary "@$PACK/$name.tar.gz" "$URL/api/bots/$name/versions"
    echo
}
MANIFEST='command = ["./first_legal"]\nbuild = "cc -O2 -o first_legal first_legal.c"\n' \
    pack first-legal bots/c/first_legal.c
MANIFEST='command = ["./random_bot"]\nbuild = "cc -O2 -o random_bot random_bot.c arena.c"\n' \
    pack c-random bots/c/random_bot.c bots/c/arena.c bots/c/arena.h
MANIFEST='command = ["python3", "random_bot.py"]\n' \
    pack py-random bots/python/random_bot.py bots/python/arena_bot.py
MANIFEST='command = ["python3", "dakon_greedy.py"]\n' \
    pack greedy bots/python/dakon_greedy.py bots/python/arena_bot.py
rm -rf "$PACK"
echo "ladder at $URL: curl $URL/api/leaderboard (token of author demo in $DATA/token)"
wait $SERVER
