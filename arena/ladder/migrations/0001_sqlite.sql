-- The ladder's first schema (SQLite). Times are seconds since the epoch.
CREATE TABLE authors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    token_salt TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    is_admin BIGINT NOT NULL DEFAULT 0,
    revoked_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    author_id BIGINT NOT NULL REFERENCES authors(id),
    retired_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bot_id BIGINT NOT NULL REFERENCES bots(id),
    seq BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    build_log TEXT,
    check_log TEXT,
    command TEXT NOT NULL,
    limits TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    active_at BIGINT,
    UNIQUE (bot_id, sha256),
    UNIQUE (bot_id, seq)
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pair_id BIGINT NOT NULL,
    game_in_pair BIGINT NOT NULL,
    opening TEXT NOT NULL,
    seat0_version BIGINT NOT NULL REFERENCES versions(id),
    seat1_version BIGINT NOT NULL REFERENCES versions(id),
    seed BIGINT NOT NULL,
    status TEXT NOT NULL,
    lease_owner TEXT,
    lease_token TEXT,
    lease_expires_at BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    points0 REAL,
    result TEXT,
    reason TEXT,
    record TEXT,
    finished_at BIGINT,
    UNIQUE (pair_id, game_in_pair)
);
CREATE INDEX games_by_status ON games (status, id);
CREATE TABLE ladder_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
