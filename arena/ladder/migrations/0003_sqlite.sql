-- The standing reads every finished game's result after each burst of results.
-- Without this index that read scans the games table, records and all (about 2 KB
-- a game), so its cost grew with every record stored. The index holds exactly the
-- columns the read wants, in its order, and the read never touches a record.
CREATE INDEX games_results ON games (status, id, pair_id, seat0_version, seat1_version, points0);
