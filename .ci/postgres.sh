#!/usr/bin/env bash
# A throwaway PostgreSQL server for the ladder's tests, run as `nobody` in a temporary
# directory on a Unix socket and a local port (Debian's packages; installed if missing).
#   eval "$(.ci/postgres.sh start)"   # exports ARENA_TEST_POSTGRES_URL and ARENA_PG_DIR
#   .ci/postgres.sh stop "$ARENA_PG_DIR"
set -euo pipefail
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
case "${1:-}" in
start)
    if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
        { apt-get update && apt-get install -y postgresql; } >&2
        BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    fi
    DIR=$(mktemp -d /tmp/arena-pg.XXXXXX)
    chown nobody "$DIR"
    PORT=${ARENA_PG_PORT:-55432}
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
    as_nobody "$BIN/initdb" -D "$DIR/data" -U arena --auth=trust >"$DIR/initdb.log" 2>&1 \
        || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_nobody "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w \
        -o "-k $DIR -p $PORT -c listen_addresses=127.0.0.1" start >&2 \
        || { cat "$DIR/server.log" >&2; exit 1; }
    echo "export ARENA_PG_DIR=$DIR"
    echo "export ARENA_TEST_POSTGRES_URL=postgres://arena@127.0.0.1:$PORT/postgres"
    ;;
stop)
    DIR=${2:?usage: postgres.sh stop DIR}
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
        "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >&2 || true
    rm -rf "$DIR"
    ;;
*)
    echo "usage: $0 start | stop DIR" >&2
    exit 2
    ;;
esac
