-- Remote workers (issue 29). A worker's token is kept as an author's is
-- (salt and hash), its machine (cores, CPU model, speed benchmark) as JSON,
-- as last reported, and copied into each game it plays.
CREATE TABLE workers (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_salt TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    revoked_at BIGINT,
    suspended_at BIGINT,
    machine TEXT,
    last_seen_at BIGINT,
    created_at BIGINT NOT NULL
);
ALTER TABLE games ADD COLUMN worker_id BIGINT REFERENCES workers(id);
ALTER TABLE games ADD COLUMN worker_machine TEXT;
-- The time control of a lease scaled to its worker's speed (`[leases] scale_to_playouts`).
ALTER TABLE games ADD COLUMN lease_time_control TEXT;
-- Records a worker posted that verification refused (never counted as games).
CREATE TABLE refusals (
    id BIGSERIAL PRIMARY KEY,
    worker_id BIGINT NOT NULL REFERENCES workers(id),
    game_id BIGINT NOT NULL,
    code TEXT NOT NULL,
    detail TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX refusals_by_worker ON refusals (worker_id);
CREATE INDEX games_by_worker ON games (worker_id);
-- A worker names its lease by its token: found without reading every game.
CREATE INDEX games_by_lease ON games (lease_token)
