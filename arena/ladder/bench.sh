#!/usr/bin/env bash
# The ladder's games per minute next to `arena tournament`, same machine, same run:
# four copies of bots/c/first_legal.c (instant bots, built with cc), Dakon at the
# ladder's default time control (100 ms a move), no sandbox in either, 2 games at once
# (the ladder's --workers 2, the tournament's --concurrency 2). The ladder is measured
# over SECONDS once its four bots are active; then the database's bytes per stored game.
# Run from the repository:
#   arena/ladder/bench.sh [SECONDS]        (default 60; binaries from $BIN, default target/debug)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_=${1:-60}
BIN=${BIN:-target/debug}
WORK=$(mktemp -d)
chmod 755 "$WORK" # bots run as an unprivileged user when arena is root
trap 'kill -TERM ${SERVER:-} 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
cc -O2 -o "$WORK/first_legal" bots/c/first_legal.c

# The tournament: a round robin of the four, 240 games per pairing (1,440 games).
cat >"$WORK/t.toml" <<EOF
game = "dakon"
seed = 1
format = "round-robin"
games = 240
[time_control]
movetime_ms = 100
[defaults]
sandbox = "none"
limits = { memory_mb = 512, processes = 64 }
EOF
for b in a b c d; do
    printf '[[bots]]\nname = "%s"\ncommand = ["%s/first_legal"]\n' "$b" "$WORK" >>"$WORK/t.toml"
done
# CPU seconds of process $1 and of the children it has reaped (its bots), from /proc.
cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15 + $16 + $17) / t }' "/proc/$1/stat"; }
# The tournament's, with its bots (/usr/bin/time: wait4's rusage of the whole tree).
start=$(date +%s.%N)
/usr/bin/time -o "$WORK/t.cpu" -f "%U %S" \
    "$BIN/arena" tournament "$WORK/t.toml" --out "$WORK/t" --concurrency 2 --quiet >/dev/null
end=$(date +%s.%N)
tcpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/t.cpu")
tgames=$(wc -l <"$WORK/t/games.jsonl")
echo "tournament: $tgames games in $(echo "$end - $start" | bc) s: $(echo "scale=0; $tgames * 60 / ($end - $start)" | bc) games/min; arena and its bots used ${tcpu} s of CPU: $(echo "scale=2; $tcpu * 1000 / $tgames" | bc) ms per game"

# The ladder.
DATA=$WORK/ladder
TOKEN=$("$BIN/arena-ladder" ladder author add bench --data "$DATA" | tail -1)
"$BIN/arena-ladder" serve --data "$DATA" --listen 127.0.0.1:0 --workers 2 --sandbox none \
    >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER=$!
until URL=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" 2>/dev/null); do sleep 0.2; done
mkdir -p "$WORK/pack"
cp bots/c/first_legal.c "$WORK/pack/"
printf 'command = ["./first_legal"]\nbuild = "cc -O2 -o first_legal first_legal.c"\n' \
    >"$WORK/pack/arena-bot.toml"
tar -czf "$WORK/bot.tar.gz" -C "$WORK/pack" .
for b in a b c d; do
    curl -sS -o /dev/null -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/gzip" \
        --data-binary "@$WORK/bot.tar.gz" "$URL/api/bots/$b/versions"
done
until [ "$(curl -s "$URL/api/leaderboard" | grep -o '"rank"' | wc -l)" = 4 ]; do sleep 0.5; done
done_now() { curl -s "$URL/api/health" | grep -o '"done":[0-9]*' | cut -d: -f2; }
g0=$(done_now)
c0=$(cpu $SERVER)
start=$(date +%s.%N)
sleep "$SECONDS_"
g1=$(done_now)
c1=$(cpu $SERVER)
end=$(date +%s.%N)
echo "ladder: $((g1 - g0)) games in $(echo "$end - $start" | bc) s: $(echo "scale=0; ($g1 - $g0) * 60 / ($end - $start)" | bc) games/min; the server and its bots used $(echo "$c1 - $c0" | bc) s of CPU: $(echo "scale=2; ($c1 - $c0) * 1000 / ($g1 - $g0)" | bc) ms per game"
kill -TERM $SERVER
wait $SERVER || true
SERVER=
sqlite3 "$DATA/ladder.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null 2>&1 || true
bytes=$(stat -c %s "$DATA/ladder.db")
n=$(sqlite3 "$DATA/ladder.db" "SELECT COUNT(*) FROM games WHERE status = 'done'" 2>/dev/null || echo "$g1")
rec=$(sqlite3 "$DATA/ladder.db" "SELECT AVG(LENGTH(record)) FROM games WHERE status = 'done'" 2>/dev/null || echo "?")
echo "database: $bytes bytes for $n finished games (with their records, mean record $rec bytes): $((bytes / n)) bytes per game"
