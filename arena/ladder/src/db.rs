//! The ladder's database: the one module that writes SQL.
//!
//! One schema on SQLite (the default, a file in the data directory, WAL) or
//! PostgreSQL (`--db postgres://...`), through sqlx's `Any` driver so that
//! every query is written once (`$1` placeholders work in both). Where the
//! two dialects differ (key columns, floating point), each migration has a
//! text per backend. Everything that must not be lost or doubled is one
//! statement or one transaction: a lease taken, a result accepted, a version
//! activated.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};

/// A database error, with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The driver's error, with the operation.
    #[error("database: {what}: {source}")]
    Sql {
        /// What was being done.
        what: &'static str,
        /// The driver's error.
        source: sqlx::Error,
    },
    /// The database was written by a newer arena.
    #[error(
        "database {url}: schema version {found} is newer than this arena's ({known}); \
         use the arena that wrote it, or a copy of the data directory"
    )]
    TooNew {
        /// Where (password removed).
        url: String,
        /// Its schema version.
        found: i64,
        /// The newest this arena knows.
        known: i64,
    },
    /// A URL this arena cannot use.
    #[error("--db {0}: expected sqlite://PATH or postgres://...")]
    BadUrl(String),
}

fn sql(what: &'static str) -> impl FnOnce(sqlx::Error) -> DbError {
    move |source| DbError::Sql { what, source }
}

/// Seconds since the epoch (the unit of every `*_at` column).
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Which SQL dialect a migration is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// The migrations, in order: (version, SQLite text, PostgreSQL text). A
/// migration is never edited once released; a change is a new one.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        include_str!("../migrations/0001_sqlite.sql"),
        include_str!("../migrations/0001_postgres.sql"),
    ),
    (
        2,
        include_str!("../migrations/0002_sqlite.sql"),
        include_str!("../migrations/0002_postgres.sql"),
    ),
    (
        3,
        include_str!("../migrations/0003_sqlite.sql"),
        include_str!("../migrations/0003_postgres.sql"),
    ),
];

/// The newest schema this arena knows.
pub const SCHEMA_VERSION: i64 = 3;

/// The ladder's database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
}

/// One author, as the API shows it (never the token's hash).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Author {
    /// Row id.
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// Organiser: may retire bots, re-run builds, pause the ladder.
    pub is_admin: bool,
    /// When the token was revoked (seconds since the epoch).
    pub revoked_at: Option<i64>,
    /// When the author was added.
    pub created_at: i64,
}

/// One version of a bot.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Version {
    /// Row id (the version number the ladder rates).
    pub id: i64,
    /// The bot's row id.
    pub bot_id: i64,
    /// The bot's name.
    pub bot: String,
    /// 1, 2, ... per bot.
    pub seq: i64,
    /// The unpacked tree's sha256.
    pub sha256: String,
    /// `queued|building|checking|active|failed|retired`.
    pub status: String,
    /// Why it failed.
    pub reason: Option<String>,
    /// Its build's output.
    #[serde(skip)]
    pub build_log: Option<String>,
    /// Its check-bot report.
    #[serde(skip)]
    pub check_log: Option<String>,
    /// Its argv (JSON array).
    pub command: String,
    /// Its limits (JSON object).
    pub limits: String,
    /// Uploaded at.
    pub created_at: i64,
    /// Joined the ladder at.
    pub active_at: Option<i64>,
}

/// One game row (the record left out: see [`Db::game_record`]).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Game {
    /// Row id: the order games were scheduled in.
    pub id: i64,
    /// The pair: two games on one opening, seats swapped.
    pub pair_id: i64,
    /// 1 or 2.
    pub game_in_pair: i64,
    /// The opening's moves, space separated.
    pub opening: String,
    /// Version in seat 0.
    pub seat0_version: i64,
    /// Version in seat 1.
    pub seat1_version: i64,
    /// The game's seed.
    pub seed: i64,
    /// `queued|leased|done`.
    pub status: String,
    /// Leases taken so far.
    pub attempts: i64,
    /// Seat 0's points: 1, 0.5, 0.
    pub points0: Option<f64>,
    /// `0-1`, ... as in records.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// Finished at.
    pub finished_at: Option<i64>,
}

/// A lease on one game: what a worker needs to play it and post it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Lease {
    /// The game.
    pub game: Game,
    /// The secret that names this lease (and no later one).
    pub token: String,
    /// When it lapses unless renewed.
    pub expires_at: i64,
}

/// What became of a posted result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Posted {
    /// Stored now.
    Accepted,
    /// The same lease had already posted it: nothing changed.
    AlreadyStored,
    /// The lease is not (or no longer) the game's: refused.
    NotCurrent,
}

fn version_of(r: &AnyRow) -> Result<Version, sqlx::Error> {
    Ok(Version {
        id: r.try_get("id")?,
        bot_id: r.try_get("bot_id")?,
        bot: r.try_get("bot")?,
        seq: r.try_get("seq")?,
        sha256: r.try_get("sha256")?,
        status: r.try_get("status")?,
        reason: r.try_get("reason")?,
        build_log: r.try_get("build_log")?,
        check_log: r.try_get("check_log")?,
        command: r.try_get("command")?,
        limits: r.try_get("limits")?,
        created_at: r.try_get("created_at")?,
        active_at: r.try_get("active_at")?,
    })
}

const VERSION_COLUMNS: &str =
    "v.id, v.bot_id, b.name AS bot, v.seq, v.sha256, v.status, v.reason, \
     v.build_log, v.check_log, v.command, v.limits, v.created_at, v.active_at";

const GAME_COLUMNS: &str = "id, pair_id, game_in_pair, opening, seat0_version, seat1_version, \
     seed, status, attempts, points0, result, reason, finished_at";

fn game_of(r: &AnyRow) -> Result<Game, sqlx::Error> {
    Ok(Game {
        id: r.try_get("id")?,
        pair_id: r.try_get("pair_id")?,
        game_in_pair: r.try_get("game_in_pair")?,
        opening: r.try_get("opening")?,
        seat0_version: r.try_get("seat0_version")?,
        seat1_version: r.try_get("seat1_version")?,
        seed: r.try_get("seed")?,
        status: r.try_get("status")?,
        attempts: r.try_get("attempts")?,
        points0: r.try_get("points0")?,
        result: r.try_get("result")?,
        reason: r.try_get("reason")?,
        finished_at: r.try_get("finished_at")?,
    })
}

fn author_of(r: &AnyRow) -> Result<Author, sqlx::Error> {
    Ok(Author {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        is_admin: r.try_get::<i64, _>("is_admin")? != 0,
        revoked_at: r.try_get("revoked_at")?,
        created_at: r.try_get("created_at")?,
    })
}

/// A URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = &url[s + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &url[..s + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

impl Db {
    /// Opens (creating a SQLite file if need be) and migrates the database
    /// at `url`; refuses one written by a newer arena.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(DbError::BadUrl(redact(url)));
        };
        let sqlite = backend == Backend::Sqlite;
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 4 } else { 8 })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        // In WAL mode NORMAL syncs at checkpoints, not at
                        // every commit: a commit survives the server's
                        // crash or `kill -9` (it is in the OS's cache), and
                        // only a power cut can lose the last ones; their
                        // games then lapse and are played again, never
                        // counted twice. FULL held verified submissions to
                        // one fsync each (docs/performance.md).
                        sqlx::Executor::execute(conn, "PRAGMA synchronous = NORMAL").await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .map_err(sql("connect"))?;
        if backend == Backend::Sqlite {
            // WAL: readers (the API) do not wait for the writer (a result);
            // kept in the file, so once is enough.
            sqlx::query("PRAGMA journal_mode=WAL")
                .fetch_all(&pool)
                .await
                .map_err(sql("set WAL"))?;
        }
        let db = Db { pool };
        db.migrate(backend, url).await?;
        Ok(db)
    }

    async fn migrate(&self, backend: Backend, url: &str) -> Result<(), DbError> {
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )
        .execute(&self.pool)
        .await
        .map_err(sql("create schema_migrations"))?;
        let found: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM schema_migrations")
            .fetch_one(&self.pool)
            .await
            .map_err(sql("read schema version"))?;
        let found = found.unwrap_or(0);
        if found > SCHEMA_VERSION {
            return Err(DbError::TooNew {
                url: redact(url),
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (version, sqlite, postgres) in MIGRATIONS {
            if *version <= found {
                continue;
            }
            let text = match backend {
                Backend::Sqlite => sqlite,
                Backend::Postgres => postgres,
            };
            let mut tx = self.pool.begin().await.map_err(sql("begin migration"))?;
            for statement in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                sqlx::query(statement)
                    .execute(&mut *tx)
                    .await
                    .map_err(sql("apply migration"))?;
            }
            sqlx::query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)")
                .bind(version)
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(sql("record migration"))?;
            tx.commit().await.map_err(sql("commit migration"))?;
        }
        Ok(())
    }

    /// The schema version the database is at.
    pub async fn schema_version(&self) -> Result<i64, DbError> {
        let v: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM schema_migrations")
            .fetch_one(&self.pool)
            .await
            .map_err(sql("read schema version"))?;
        Ok(v.unwrap_or(0))
    }

    /// Closes the pool (waits for connections to be returned).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    // ---- authors

    /// Adds an author with a token's salt and hash; `None` when the name is taken.
    pub async fn add_author(
        &self,
        name: &str,
        salt: &str,
        hash: &str,
        is_admin: bool,
    ) -> Result<Option<i64>, DbError> {
        let id: Option<i64> = sqlx::query_scalar(
            "INSERT INTO authors (name, token_salt, token_hash, is_admin, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING RETURNING id",
        )
        .bind(name)
        .bind(salt)
        .bind(hash)
        .bind(i64::from(is_admin))
        .bind(now())
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("add author"))?;
        Ok(id)
    }

    /// Revokes an author's token; false when there is no such author.
    pub async fn revoke_author(&self, name: &str) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE authors SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL",
        )
        .bind(now())
        .bind(name)
        .execute(&self.pool)
        .await
        .map_err(sql("revoke author"))?;
        if done.rows_affected() > 0 {
            return Ok(true);
        }
        // Already revoked is still "there is such an author".
        Ok(self.author_by_name(name).await?.is_some())
    }

    /// Every author, by name.
    pub async fn authors(&self) -> Result<Vec<Author>, DbError> {
        let rows = sqlx::query(
            "SELECT id, name, is_admin, revoked_at, created_at FROM authors ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list authors"))?;
        rows.iter()
            .map(author_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read author"))
    }

    /// One author by name.
    pub async fn author_by_name(&self, name: &str) -> Result<Option<Author>, DbError> {
        let row = sqlx::query(
            "SELECT id, name, is_admin, revoked_at, created_at FROM authors WHERE name = $1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read author"))?;
        row.as_ref()
            .map(author_of)
            .transpose()
            .map_err(sql("read author"))
    }

    /// An author and their token's (salt, hash), by id, when not revoked.
    pub async fn author_credentials(
        &self,
        id: i64,
    ) -> Result<Option<(Author, String, String)>, DbError> {
        let row = sqlx::query(
            "SELECT id, name, is_admin, revoked_at, created_at, token_salt, token_hash \
             FROM authors WHERE id = $1 AND revoked_at IS NULL",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read credentials"))?;
        let Some(row) = row else { return Ok(None) };
        let author = author_of(&row).map_err(sql("read credentials"))?;
        let salt: String = row.try_get("token_salt").map_err(sql("read credentials"))?;
        let hash: String = row.try_get("token_hash").map_err(sql("read credentials"))?;
        Ok(Some((author, salt, hash)))
    }

    // ---- bots and versions

    /// The bot `name`'s (id, author id), creating it for `author` if new.
    pub async fn bot_for(&self, name: &str, author: i64) -> Result<(i64, i64), DbError> {
        sqlx::query(
            "INSERT INTO bots (name, author_id, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(author)
        .bind(now())
        .execute(&self.pool)
        .await
        .map_err(sql("add bot"))?;
        let row = sqlx::query("SELECT id, author_id FROM bots WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await
            .map_err(sql("read bot"))?;
        Ok((
            row.try_get("id").map_err(sql("read bot"))?,
            row.try_get("author_id").map_err(sql("read bot"))?,
        ))
    }

    /// A bot's (id, author name, retired_at), by name.
    pub async fn bot(&self, name: &str) -> Result<Option<(i64, String, Option<i64>)>, DbError> {
        let row = sqlx::query(
            "SELECT b.id, a.name AS author, b.retired_at FROM bots b \
             JOIN authors a ON a.id = b.author_id WHERE b.name = $1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read bot"))?;
        let Some(r) = row else { return Ok(None) };
        let f = || -> Result<_, sqlx::Error> {
            Ok((
                r.try_get("id")?,
                r.try_get("author")?,
                r.try_get("retired_at")?,
            ))
        };
        f().map(Some).map_err(sql("read bot"))
    }

    /// Every bot's author name, by bot id (one query, for the leaderboard).
    pub async fn bot_authors(&self) -> Result<HashMap<i64, String>, DbError> {
        let rows = sqlx::query(
            "SELECT b.id, a.name AS author FROM bots b JOIN authors a ON a.id = b.author_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("read bots"))?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("author")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read bot"))
    }

    /// Adds a `queued` version of `bot` with this content, or finds the one
    /// that has it already (a version is content-addressed): (version, new?).
    pub async fn add_version(
        &self,
        bot: i64,
        sha256: &str,
        command: &str,
        limits: &str,
    ) -> Result<(Version, bool), DbError> {
        // One statement, writing first: SQLite cannot turn a transaction
        // that read into one that writes while another writer is busy.
        let inserted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO versions (bot_id, seq, sha256, status, command, limits, created_at) \
             VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM versions WHERE bot_id = $1), \
             $2, 'queued', $3, $4, $5) ON CONFLICT (bot_id, sha256) DO NOTHING RETURNING id",
        )
        .bind(bot)
        .bind(sha256)
        .bind(command)
        .bind(limits)
        .bind(now())
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("add version"))?;
        let (id, new) = match inserted {
            Some(id) => (id, true),
            None => (
                sqlx::query_scalar("SELECT id FROM versions WHERE bot_id = $1 AND sha256 = $2")
                    .bind(bot)
                    .bind(sha256)
                    .fetch_one(&self.pool)
                    .await
                    .map_err(sql("find version"))?,
                false,
            ),
        };
        let v = self.version(id).await?.expect("the version just written");
        Ok((v, new))
    }

    /// One version by id.
    pub async fn version(&self, id: i64) -> Result<Option<Version>, DbError> {
        let row = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read version"))?;
        row.as_ref()
            .map(version_of)
            .transpose()
            .map_err(sql("read version"))
    }

    /// A bot's versions, newest first.
    pub async fn versions_of(&self, bot: i64) -> Result<Vec<Version>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM versions v JOIN bots b ON b.id = v.bot_id \
             WHERE v.bot_id = $1 ORDER BY v.seq DESC"
        ))
        .bind(bot)
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list versions"))?;
        rows.iter()
            .map(version_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read version"))
    }

    /// Every version with this status, oldest first.
    pub async fn versions_with(&self, status: &str) -> Result<Vec<Version>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM versions v JOIN bots b ON b.id = v.bot_id \
             WHERE v.status = $1 ORDER BY v.id"
        ))
        .bind(status)
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list versions"))?;
        rows.iter()
            .map(version_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read version"))
    }

    /// Every version (for ratings: who precedes whom).
    pub async fn all_versions(&self) -> Result<Vec<Version>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM versions v JOIN bots b ON b.id = v.bot_id ORDER BY v.id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list versions"))?;
        rows.iter()
            .map(version_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read version"))
    }

    /// Moves a version from one status to the next (`queued` -> `building`
    /// -> `checking`), with a log; false if it was not in `from`.
    pub async fn advance(
        &self,
        id: i64,
        from: &str,
        to: &str,
        build_log: Option<&str>,
    ) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE versions SET status = $1, build_log = COALESCE($2, build_log) \
             WHERE id = $3 AND status = $4",
        )
        .bind(to)
        .bind(build_log)
        .bind(id)
        .bind(from)
        .execute(&self.pool)
        .await
        .map_err(sql("advance version"))?;
        Ok(done.rows_affected() == 1)
    }

    /// A version failed (build or check), with the reason and logs.
    pub async fn fail_version(
        &self,
        id: i64,
        reason: &str,
        build_log: Option<&str>,
        check_log: Option<&str>,
    ) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE versions SET status = 'failed', reason = $1, \
             build_log = COALESCE($2, build_log), check_log = COALESCE($3, check_log) WHERE id = $4",
        )
        .bind(reason)
        .bind(build_log)
        .bind(check_log)
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(sql("fail version"))?;
        Ok(())
    }

    /// A version passed its checks: one transaction makes it the bot's
    /// active version and retires the one it replaces (whose games stay).
    pub async fn activate(&self, id: i64, check_log: &str) -> Result<(), DbError> {
        // Each statement writes (SQLite: a transaction that starts by
        // reading cannot always start writing).
        let mut tx = self.pool.begin().await.map_err(sql("begin activation"))?;
        sqlx::query(
            "UPDATE versions SET status = 'retired' WHERE status = 'active' AND id <> $1 \
             AND bot_id = (SELECT bot_id FROM versions WHERE id = $1)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(sql("retire previous version"))?;
        sqlx::query(
            "UPDATE versions SET status = 'active', check_log = $1, active_at = $2 WHERE id = $3",
        )
        .bind(check_log)
        .bind(now())
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(sql("activate version"))?;
        tx.commit().await.map_err(sql("commit activation"))?;
        Ok(())
    }

    /// Versions left `building` or `checking` by a server that stopped go
    /// back to `queued` (their work is redone from the start).
    pub async fn requeue_unfinished_builds(&self) -> Result<u64, DbError> {
        let done = sqlx::query(
            "UPDATE versions SET status = 'queued' WHERE status IN ('building', 'checking')",
        )
        .execute(&self.pool)
        .await
        .map_err(sql("requeue builds"))?;
        Ok(done.rows_affected())
    }

    /// Retires a bot (admin): its active version leaves the ladder and its
    /// queued games are dropped (none was played).
    pub async fn retire_bot(&self, bot: i64) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await.map_err(sql("begin retire"))?;
        sqlx::query("UPDATE bots SET retired_at = $1 WHERE id = $2 AND retired_at IS NULL")
            .bind(now())
            .bind(bot)
            .execute(&mut *tx)
            .await
            .map_err(sql("retire bot"))?;
        sqlx::query(
            "UPDATE versions SET status = 'retired' WHERE bot_id = $1 AND status = 'active'",
        )
        .bind(bot)
        .execute(&mut *tx)
        .await
        .map_err(sql("retire versions"))?;
        sqlx::query(
            "DELETE FROM games WHERE status = 'queued' AND (seat0_version IN \
             (SELECT id FROM versions WHERE bot_id = $1) OR seat1_version IN \
             (SELECT id FROM versions WHERE bot_id = $1))",
        )
        .bind(bot)
        .execute(&mut *tx)
        .await
        .map_err(sql("drop queued games"))?;
        tx.commit().await.map_err(sql("commit retire"))?;
        Ok(())
    }

    /// Puts a version back to `queued` to build again (admin).
    pub async fn rebuild(&self, id: i64) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE versions SET status = 'queued', reason = NULL WHERE id = $1 AND status IN ('failed', 'active', 'retired')",
        )
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(sql("rebuild version"))?;
        Ok(done.rows_affected() == 1)
    }

    // ---- ladder state

    /// A value of `ladder_state`.
    pub async fn state(&self, key: &str) -> Result<Option<String>, DbError> {
        sqlx::query_scalar("SELECT value FROM ladder_state WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(sql("read ladder state"))
    }

    /// Sets a value of `ladder_state`.
    pub async fn set_state(&self, key: &str, value: &str) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO ladder_state (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await
        .map_err(sql("write ladder state"))?;
        Ok(())
    }

    // ---- games

    /// Games queued or leased per version (the matchmaker's `in_flight`),
    /// and the number queued in all.
    /// Games of a version in `skip` are left out (they wait for a worker
    /// this server does not have, and hold no one's place).
    pub async fn in_flight(&self, skip: &[i64]) -> Result<(HashMap<i64, u32>, u64), DbError> {
        let rows = sqlx::query(
            "SELECT seat0_version, seat1_version, status FROM games WHERE status <> 'done'",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("read queue"))?;
        let mut per = HashMap::new();
        let mut queued = 0;
        for r in &rows {
            let seats: [i64; 2] = [
                r.try_get("seat0_version").map_err(sql("read queue"))?,
                r.try_get("seat1_version").map_err(sql("read queue"))?,
            ];
            if seats.iter().any(|v| skip.contains(v)) {
                continue;
            }
            for v in seats {
                *per.entry(v).or_insert(0) += 1;
            }
            let status: String = r.try_get("status").map_err(sql("read queue"))?;
            if status == "queued" {
                queued += 1;
            }
        }
        Ok((per, queued))
    }

    /// The last game of each unordered pair of versions: (min, max) -> id.
    pub async fn last_played(&self) -> Result<HashMap<(i64, i64), i64>, DbError> {
        let rows = sqlx::query(
            "SELECT seat0_version, seat1_version, MAX(id) AS last FROM games \
             GROUP BY seat0_version, seat1_version",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("read last games"))?;
        let mut out: HashMap<(i64, i64), i64> = HashMap::new();
        for r in &rows {
            let a: i64 = r.try_get("seat0_version").map_err(sql("read last games"))?;
            let b: i64 = r.try_get("seat1_version").map_err(sql("read last games"))?;
            let last: i64 = r.try_get("last").map_err(sql("read last games"))?;
            let e = out.entry((a.min(b), a.max(b))).or_insert(last);
            *e = (*e).max(last);
        }
        Ok(out)
    }

    /// Queues one pair: two games on `opening`, seats swapped, in one
    /// transaction (a pair is never half scheduled). Returns the pair id.
    pub async fn schedule_pair(
        &self,
        a: i64,
        b: i64,
        opening: impl Fn(i64) -> String,
        seed: impl Fn(i64) -> i64,
    ) -> Result<i64, DbError> {
        // The first statement writes (SQLite: a transaction that starts by
        // reading cannot always start writing); the pair's opening and seed
        // are set once its id is known.
        let mut tx = self.pool.begin().await.map_err(sql("begin schedule"))?;
        let pair: i64 = sqlx::query_scalar(
            "INSERT INTO games (pair_id, game_in_pair, opening, seat0_version, seat1_version, seed, status, attempts) \
             VALUES ((SELECT COALESCE(MAX(pair_id), 0) + 1 FROM games), 1, '', $1, $2, 0, 'queued', 0) \
             RETURNING pair_id",
        )
        .bind(a)
        .bind(b)
        .fetch_one(&mut *tx)
        .await
        .map_err(sql("schedule game"))?;
        sqlx::query(
            "INSERT INTO games (pair_id, game_in_pair, opening, seat0_version, seat1_version, seed, status, attempts) \
             VALUES ($1, 2, '', $2, $3, 0, 'queued', 0)",
        )
        .bind(pair)
        .bind(b)
        .bind(a)
        .execute(&mut *tx)
        .await
        .map_err(sql("schedule game"))?;
        sqlx::query("UPDATE games SET opening = $1, seed = $2 WHERE pair_id = $3")
            .bind(opening(pair))
            .bind(seed(pair))
            .bind(pair)
            .execute(&mut *tx)
            .await
            .map_err(sql("schedule game"))?;
        tx.commit().await.map_err(sql("commit schedule"))?;
        Ok(pair)
    }

    /// Takes a lease on the oldest queued game for `owner`, for `seconds`;
    /// `None` when nothing is queued. One statement: two workers never hold
    /// the same game. Games of a version in `skip_versions` are passed over.
    pub async fn take_lease(
        &self,
        owner: &str,
        token: &str,
        seconds: i64,
        skip_versions: &[i64],
    ) -> Result<Option<Lease>, DbError> {
        // The games of `skip_versions` are not for this taker (a remote
        // worker cannot fetch a version without an archive). Integers only,
        // so they are written into the text; usually there are none.
        let skip = if skip_versions.is_empty() {
            String::new()
        } else {
            let ids = skip_versions
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            format!(" AND seat0_version NOT IN ({ids}) AND seat1_version NOT IN ({ids})")
        };
        for _ in 0..5 {
            let expires = now() + seconds;
            let row = sqlx::query(&format!(
                "UPDATE games SET status = 'leased', lease_owner = $1, lease_token = $2, \
                 lease_expires_at = $3, attempts = attempts + 1, \
                 worker_machine = NULL, lease_time_control = NULL \
                 WHERE id = (SELECT id FROM games WHERE status = 'queued'{skip} ORDER BY id LIMIT 1) \
                 AND status = 'queued' RETURNING {GAME_COLUMNS}"
            ))
            .bind(owner)
            .bind(token)
            .bind(expires)
            .fetch_optional(&self.pool)
            .await
            .map_err(sql("take lease"))?;
            match row {
                Some(r) => {
                    return Ok(Some(Lease {
                        game: game_of(&r).map_err(sql("read leased game"))?,
                        token: token.to_string(),
                        expires_at: expires,
                    }))
                }
                None => {
                    // Nothing queued, or another worker took that row first.
                    let queued: i64 = sqlx::query_scalar(&format!(
                        "SELECT COUNT(*) FROM games WHERE status = 'queued'{skip}"
                    ))
                    .fetch_one(&self.pool)
                    .await
                    .map_err(sql("count queue"))?;
                    if queued == 0 {
                        return Ok(None);
                    }
                }
            }
        }
        Ok(None)
    }

    /// Renews a live lease; false if it is no longer the game's.
    pub async fn heartbeat(&self, game: i64, token: &str, seconds: i64) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE games SET lease_expires_at = $1 WHERE id = $2 AND status = 'leased' AND lease_token = $3",
        )
        .bind(now() + seconds)
        .bind(game)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(sql("heartbeat"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Gives a leased game back to the queue (a worker that stops).
    pub async fn return_lease(&self, game: i64, token: &str) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE games SET status = 'queued', lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL \
             WHERE id = $1 AND status = 'leased' AND lease_token = $2",
        )
        .bind(game)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(sql("return lease"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Removes a game that cannot be played (never a bot's doing: an
    /// opening the game refuses, say) under its live lease; false if the
    /// lease is not current. It was never played, so nothing is lost.
    pub async fn drop_unplayable(&self, game: i64, token: &str) -> Result<bool, DbError> {
        let done = sqlx::query(
            "DELETE FROM games WHERE id = $1 AND status = 'leased' AND lease_token = $2",
        )
        .bind(game)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(sql("drop game"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Expired leases go back to the queue; returns how many.
    pub async fn expire_leases(&self) -> Result<u64, DbError> {
        let done = sqlx::query(
            "UPDATE games SET status = 'queued', lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL \
             WHERE status = 'leased' AND lease_expires_at < $1",
        )
        .bind(now())
        .execute(&self.pool)
        .await
        .map_err(sql("expire leases"))?;
        Ok(done.rows_affected())
    }

    /// Stores a game's result under its lease, once: one statement that
    /// only matches the live lease; the same lease posting again is told
    /// it was already stored (and changes nothing).
    pub async fn post_result(
        &self,
        game: i64,
        token: &str,
        points0: f64,
        result: &str,
        reason: &str,
        record: &str,
    ) -> Result<Posted, DbError> {
        let done = sqlx::query(
            "UPDATE games SET status = 'done', points0 = $1, result = $2, reason = $3, record = $4, \
             finished_at = $5, lease_expires_at = NULL WHERE id = $6 AND status = 'leased' AND lease_token = $7",
        )
        .bind(points0)
        .bind(result)
        .bind(reason)
        .bind(record)
        .bind(now())
        .bind(game)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(sql("store result"))?;
        if done.rows_affected() == 1 {
            return Ok(Posted::Accepted);
        }
        let same: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM games WHERE id = $1 AND status = 'done' AND lease_token = $2",
        )
        .bind(game)
        .bind(token)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("check result"))?;
        Ok(if same.is_some() {
            Posted::AlreadyStored
        } else {
            Posted::NotCurrent
        })
    }

    /// One game by id.
    pub async fn game(&self, id: i64) -> Result<Option<Game>, DbError> {
        let row = sqlx::query(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(sql("read game"))?;
        row.as_ref()
            .map(game_of)
            .transpose()
            .map_err(sql("read game"))
    }

    /// A finished game's record (compact JSON), if kept.
    pub async fn game_record(&self, id: i64) -> Result<Option<String>, DbError> {
        let v: Option<Option<String>> =
            sqlx::query_scalar("SELECT record FROM games WHERE id = $1 AND status = 'done'")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(sql("read record"))?;
        Ok(v.flatten())
    }

    /// Finished games with id > `since`, in id order, at most `limit`.
    pub async fn finished_games(&self, since: i64, limit: i64) -> Result<Vec<Game>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'done' AND id > $1 ORDER BY id LIMIT $2"
        ))
        .bind(since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list games"))?;
        rows.iter()
            .map(game_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read game"))
    }

    /// Finished games' records with id > `since`, in id order, at most
    /// `limit`: (id, record) for those whose record is kept.
    pub async fn records_since(
        &self,
        since: i64,
        limit: i64,
    ) -> Result<Vec<(i64, String)>, DbError> {
        let rows = sqlx::query(
            "SELECT id, record FROM games WHERE status = 'done' AND id > $1 AND record IS NOT NULL \
             ORDER BY id LIMIT $2",
        )
        .bind(since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list records"))?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("record")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read record"))
    }

    /// Every finished game's (id, pair, seat0, seat1, points0), in id order:
    /// what ratings are computed from.
    pub async fn results(&self) -> Result<Vec<(i64, i64, i64, i64, f64)>, DbError> {
        let rows = sqlx::query(
            "SELECT id, pair_id, seat0_version, seat1_version, points0 FROM games WHERE status = 'done' ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("read results"))?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("id")?,
                    r.try_get("pair_id")?,
                    r.try_get("seat0_version")?,
                    r.try_get("seat1_version")?,
                    r.try_get("points0")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read result"))
    }

    /// Drops the records (not the results) of finished games older than the
    /// newest `keep`; returns how many were dropped.
    pub async fn apply_retention(&self, keep: i64) -> Result<u64, DbError> {
        let done = sqlx::query(
            "UPDATE games SET record = NULL WHERE status = 'done' AND record IS NOT NULL AND id <= \
             (SELECT COALESCE(MAX(id), 0) FROM games WHERE status = 'done') - $1",
        )
        .bind(keep)
        .execute(&self.pool)
        .await
        .map_err(sql("apply retention"))?;
        Ok(done.rows_affected())
    }

    /// Counts of games by status (health, tests).
    pub async fn game_counts(&self) -> Result<HashMap<String, i64>, DbError> {
        let rows = sqlx::query("SELECT status, COUNT(*) AS n FROM games GROUP BY status")
            .fetch_all(&self.pool)
            .await
            .map_err(sql("count games"))?;
        rows.iter()
            .map(|r| Ok((r.try_get("status")?, r.try_get("n")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("count games"))
    }

    // ---- the web pages (issue 28)

    /// Finished games lost by a forfeit: (seat0, seat1, points0, reason),
    /// in id order; the loser is the offender.
    pub async fn forfeits(&self) -> Result<Vec<(i64, i64, f64, String)>, DbError> {
        let rows = sqlx::query(
            "SELECT seat0_version, seat1_version, points0, reason FROM games \
             WHERE status = 'done' AND reason NOT IN ('normal', 'adjudicated') ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("read forfeits"))?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("seat0_version")?,
                    r.try_get("seat1_version")?,
                    r.try_get("points0")?,
                    r.try_get("reason")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read forfeits"))
    }

    /// The newest `limit` finished games with any of `versions` in a seat,
    /// newest first. Read backwards along `games_by_status`, so a bot's
    /// last games cost about `limit` x (games / its games) rows.
    pub async fn recent_games_of(
        &self,
        versions: &[i64],
        limit: i64,
    ) -> Result<Vec<Game>, DbError> {
        if versions.is_empty() {
            return Ok(Vec::new());
        }
        // Ids are integers from the database: written into the text, they
        // cannot be anything else.
        let list = versions
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'done' \
             AND (seat0_version IN ({list}) OR seat1_version IN ({list})) ORDER BY id DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list a bot's games"))?;
        rows.iter()
            .map(game_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read game"))
    }

    /// The value of `ladder_state` at `key`, setting it to `value` first
    /// if it has none (the first writer wins; every caller gets its value).
    pub async fn state_or_insert(&self, key: &str, value: &str) -> Result<String, DbError> {
        sqlx::query(
            "INSERT INTO ladder_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await
        .map_err(sql("write ladder state"))?;
        Ok(self.state(key).await?.unwrap_or_else(|| value.to_string()))
    }

    /// Every version's (bot name, seq), by id: names for pages, without
    /// reading any log.
    pub async fn version_labels(&self) -> Result<HashMap<i64, (String, i64)>, DbError> {
        let rows = sqlx::query(
            "SELECT v.id, b.name AS bot, v.seq FROM versions v JOIN bots b ON b.id = v.bot_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list version names"))?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, (r.try_get("bot")?, r.try_get("seq")?))))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read version names"))
    }

    /// An author's bots: (id, name, retired_at), by name.
    pub async fn bots_of(&self, author: i64) -> Result<Vec<(i64, String, Option<i64>)>, DbError> {
        let rows =
            sqlx::query("SELECT id, name, retired_at FROM bots WHERE author_id = $1 ORDER BY name")
                .bind(author)
                .fetch_all(&self.pool)
                .await
                .map_err(sql("list an author's bots"))?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("id")?,
                    r.try_get("name")?,
                    r.try_get("retired_at")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(sql("read bot"))
    }

    /// Games being played now (leased), oldest first.
    pub async fn leased_games(&self) -> Result<Vec<Game>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'leased' ORDER BY id"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list leased games"))?;
        rows.iter()
            .map(game_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read game"))
    }

    // ---- remote workers (issue 29): their tokens, their leases, their
    // results and what verification refused of them.

    /// Adds a worker with a token's salt and hash; `None` when the name is taken.
    pub async fn add_worker(
        &self,
        name: &str,
        salt: &str,
        hash: &str,
    ) -> Result<Option<i64>, DbError> {
        let id: Option<i64> = sqlx::query_scalar(
            "INSERT INTO workers (name, token_salt, token_hash, created_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id",
        )
        .bind(name)
        .bind(salt)
        .bind(hash)
        .bind(now())
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("add worker"))?;
        Ok(id)
    }

    /// Revokes a worker's token (final); false when there is no such worker.
    pub async fn revoke_worker(&self, name: &str) -> Result<bool, DbError> {
        sqlx::query("UPDATE workers SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL")
            .bind(now())
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(sql("revoke worker"))?;
        Ok(self.workers().await?.iter().any(|w| w.name == name))
    }

    /// Suspends a worker (no new leases, no records) or lifts the
    /// suspension; false when there is no such worker.
    pub async fn suspend_worker(&self, name: &str, suspend: bool) -> Result<bool, DbError> {
        let done = sqlx::query("UPDATE workers SET suspended_at = $1 WHERE name = $2")
            .bind(suspend.then(now))
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(sql("suspend worker"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Every worker, by name.
    pub async fn workers(&self) -> Result<Vec<Worker>, DbError> {
        let rows = sqlx::query(&format!(
            "SELECT {WORKER_COLUMNS} FROM workers ORDER BY name"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(sql("list workers"))?;
        rows.iter()
            .map(worker_of)
            .collect::<Result<_, _>>()
            .map_err(sql("read worker"))
    }

    /// A worker and its token's (salt, hash), by id, when not revoked.
    pub async fn worker_credentials(
        &self,
        id: i64,
    ) -> Result<Option<(Worker, String, String)>, DbError> {
        let row = sqlx::query(&format!(
            "SELECT {WORKER_COLUMNS}, token_salt, token_hash FROM workers \
             WHERE id = $1 AND revoked_at IS NULL"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read worker credentials"))?;
        let Some(row) = row else { return Ok(None) };
        let w = worker_of(&row).map_err(sql("read worker credentials"))?;
        let salt: String = row
            .try_get("token_salt")
            .map_err(sql("read worker credentials"))?;
        let hash: String = row
            .try_get("token_hash")
            .map_err(sql("read worker credentials"))?;
        Ok(Some((w, salt, hash)))
    }

    /// Stores the machine a worker reports (JSON) and when it was seen.
    pub async fn set_worker_machine(&self, id: i64, machine: &str) -> Result<(), DbError> {
        sqlx::query("UPDATE workers SET machine = $1, last_seen_at = $2 WHERE id = $3")
            .bind(machine)
            .bind(now())
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(sql("store worker machine"))?;
        Ok(())
    }

    /// What the lease `token` is to the worker `owner` (a lease's owner is
    /// its worker's [`worker_owner`] name).
    pub async fn lease_state(&self, token: &str, owner: &str) -> Result<LeaseState, DbError> {
        let row = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS}, lease_owner, lease_expires_at FROM games WHERE lease_token = $1"
        ))
        .bind(token)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read lease"))?;
        let Some(row) = row else {
            return Ok(LeaseState::Unknown);
        };
        let game = game_of(&row).map_err(sql("read lease"))?;
        let lease_owner: Option<String> = row.try_get("lease_owner").map_err(sql("read lease"))?;
        let expires: Option<i64> = row.try_get("lease_expires_at").map_err(sql("read lease"))?;
        Ok(if lease_owner.as_deref() != Some(owner) {
            LeaseState::Foreign
        } else if game.status == "done" {
            LeaseState::Recorded(game.id)
        } else if game.status != "leased" || expires.is_none_or(|e| e < now()) {
            LeaseState::Expired
        } else {
            LeaseState::Live(Box::new(Lease {
                game,
                token: token.to_string(),
                expires_at: expires.unwrap_or(0),
            }))
        })
    }

    /// Stores a verified result under a worker's live lease, once: one
    /// statement that matches only the lease's own worker before it lapses,
    /// and records the worker with the game (its machine was stored when the
    /// lease was taken).
    #[allow(clippy::too_many_arguments)]
    pub async fn post_worker_result(
        &self,
        game: i64,
        token: &str,
        owner: &str,
        worker: i64,
        points0: f64,
        result: &str,
        reason: &str,
        record: &str,
    ) -> Result<bool, DbError> {
        let t = now();
        let done = sqlx::query(
            "UPDATE games SET status = 'done', points0 = $1, result = $2, reason = $3, record = $4, \
             finished_at = $5, lease_expires_at = NULL, worker_id = $6 \
             WHERE id = $7 AND status = 'leased' AND lease_token = $8 AND lease_owner = $9 \
             AND lease_expires_at >= $5",
        )
        .bind(points0)
        .bind(result)
        .bind(reason)
        .bind(record)
        .bind(t)
        .bind(worker)
        .bind(game)
        .bind(token)
        .bind(owner)
        .execute(&self.pool)
        .await
        .map_err(sql("store worker result"))?;
        Ok(done.rows_affected() == 1)
    }

    /// A record verification refused: logged against its worker, and its
    /// game back in the queue for another worker, in one transaction.
    pub async fn refuse_record(
        &self,
        worker: i64,
        game: i64,
        token: &str,
        code: &str,
        detail: &str,
    ) -> Result<(), DbError> {
        let mut tx = self.pool.begin().await.map_err(sql("begin refusal"))?;
        sqlx::query(
            "INSERT INTO refusals (worker_id, game_id, code, detail, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(worker)
        .bind(game)
        .bind(code)
        .bind(detail)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(sql("log refusal"))?;
        sqlx::query(
            "UPDATE games SET status = 'queued', lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL \
             WHERE id = $1 AND status = 'leased' AND lease_token = $2",
        )
        .bind(game)
        .bind(token)
        .execute(&mut *tx)
        .await
        .map_err(sql("requeue refused game"))?;
        tx.commit().await.map_err(sql("commit refusal"))?;
        Ok(())
    }

    /// Sets what a live lease was given for: the machine that took it
    /// (JSON; recorded with the game's result) and its time control scaled
    /// to that machine's speed (JSON; None: the ladder's own).
    pub async fn set_lease_facts(
        &self,
        game: i64,
        token: &str,
        machine: Option<&str>,
        time_control: Option<&str>,
    ) -> Result<(), DbError> {
        sqlx::query(
            "UPDATE games SET worker_machine = $1, lease_time_control = $2 \
             WHERE id = $3 AND lease_token = $4",
        )
        .bind(machine)
        .bind(time_control)
        .bind(game)
        .bind(token)
        .execute(&self.pool)
        .await
        .map_err(sql("set lease facts"))?;
        Ok(())
    }

    /// The scaled time control (JSON) of a game's lease, if it has one.
    pub async fn lease_time_control(&self, game: i64) -> Result<Option<String>, DbError> {
        let v: Option<Option<String>> =
            sqlx::query_scalar("SELECT lease_time_control FROM games WHERE id = $1")
                .bind(game)
                .fetch_optional(&self.pool)
                .await
                .map_err(sql("read lease time control"))?;
        Ok(v.flatten())
    }

    /// Per worker id: its finished games by reason, and its refused records by code.
    pub async fn worker_stats(&self) -> Result<HashMap<i64, WorkerStats>, DbError> {
        let mut out: HashMap<i64, WorkerStats> = HashMap::new();
        let rows = sqlx::query(
            "SELECT worker_id, reason, COUNT(*) AS n FROM games \
             WHERE status = 'done' AND worker_id IS NOT NULL GROUP BY worker_id, reason",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("count worker games"))?;
        for r in &rows {
            let id: i64 = r.try_get("worker_id").map_err(sql("count worker games"))?;
            let reason: String = r.try_get("reason").map_err(sql("count worker games"))?;
            let n: i64 = r.try_get("n").map_err(sql("count worker games"))?;
            out.entry(id).or_default().games.insert(reason, n);
        }
        let rows = sqlx::query(
            "SELECT worker_id, code, COUNT(*) AS n FROM refusals GROUP BY worker_id, code",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(sql("count refusals"))?;
        for r in &rows {
            let id: i64 = r.try_get("worker_id").map_err(sql("count refusals"))?;
            let code: String = r.try_get("code").map_err(sql("count refusals"))?;
            let n: i64 = r.try_get("n").map_err(sql("count refusals"))?;
            out.entry(id).or_default().refusals.insert(code, n);
        }
        Ok(out)
    }

    /// The worker (name) and machine (JSON) a finished game was played on,
    /// when a remote worker played it.
    pub async fn game_worker(
        &self,
        game: i64,
    ) -> Result<Option<(String, Option<String>)>, DbError> {
        let row = sqlx::query(
            "SELECT w.name, g.worker_machine FROM games g JOIN workers w ON w.id = g.worker_id WHERE g.id = $1",
        )
        .bind(game)
        .fetch_optional(&self.pool)
        .await
        .map_err(sql("read game worker"))?;
        row.map(|r| Ok((r.try_get("name")?, r.try_get("worker_machine")?)))
            .transpose()
            .map_err(sql("read game worker"))
    }
}

/// The lease owner a remote worker's leases carry (built-in workers are
/// `builtin-N`).
pub fn worker_owner(worker: i64) -> String {
    format!("worker-{worker}")
}

/// A remote worker, as the organiser sees it (never the token's hash).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Worker {
    /// Row id (the token's prefix).
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// When its token was revoked.
    pub revoked_at: Option<i64>,
    /// When it was suspended (no leases, no records until lifted).
    pub suspended_at: Option<i64>,
    /// The machine it last reported (JSON).
    pub machine: Option<String>,
    /// When it last took a lease.
    pub last_seen_at: Option<i64>,
    /// When it was added.
    pub created_at: i64,
}

const WORKER_COLUMNS: &str =
    "id, name, revoked_at, suspended_at, machine, last_seen_at, created_at";

fn worker_of(r: &AnyRow) -> Result<Worker, sqlx::Error> {
    Ok(Worker {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        revoked_at: r.try_get("revoked_at")?,
        suspended_at: r.try_get("suspended_at")?,
        machine: r.try_get("machine")?,
        last_seen_at: r.try_get("last_seen_at")?,
        created_at: r.try_get("created_at")?,
    })
}

/// A worker's finished games by reason and refused records by code.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Reason (`normal`, `timeout`, ...) -> games.
    pub games: std::collections::BTreeMap<String, i64>,
    /// Refusal code -> records refused.
    pub refusals: std::collections::BTreeMap<String, i64>,
}

/// What a lease id is to the worker presenting it.
#[derive(Clone, Debug, PartialEq)]
pub enum LeaseState {
    /// Its worker's, current: the game to play or record.
    Live(Box<Lease>),
    /// Its game was recorded under it already (the game's id).
    Recorded(i64),
    /// It lapsed (its game is, or is about to be, queued again).
    Expired,
    /// Another worker's.
    Foreign,
    /// No game has it: never given, or lapsed and its game leased anew.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn temp_db() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("l.db").display());
        let db = Db::open(&url).await.unwrap();
        (dir, db)
    }

    #[tokio::test]
    async fn a_database_from_a_newer_arena_is_refused() {
        let (dir, db) = temp_db().await;
        assert_eq!(db.schema_version().await.unwrap(), SCHEMA_VERSION);
        sqlx::query("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)")
            .execute(&db.pool)
            .await
            .unwrap();
        db.close().await;
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("l.db").display());
        let e = Db::open(&url).await.unwrap_err().to_string();
        assert!(e.contains("schema version 99 is newer"), "{e}");
    }

    #[tokio::test]
    async fn a_lease_posts_once_and_a_stale_one_is_refused() {
        let (_dir, db) = temp_db().await;
        let a = db
            .add_author("ann", "s", "h", false)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(db.add_author("ann", "s", "h", false).await.unwrap(), None);
        let (bot, _) = db.bot_for("b1", a).await.unwrap();
        let (bot2, _) = db.bot_for("b2", a).await.unwrap();
        let (v1, new) = db.add_version(bot, "x", "[]", "{}").await.unwrap();
        assert!(new);
        let (again, new) = db.add_version(bot, "x", "[]", "{}").await.unwrap();
        assert!(!new);
        assert_eq!(again.id, v1.id);
        let (v2, _) = db.add_version(bot2, "y", "[]", "{}").await.unwrap();
        db.schedule_pair(v1.id, v2.id, |_| "a b".into(), |p| p)
            .await
            .unwrap();
        let l1 = db.take_lease("w1", "t1", 60, &[]).await.unwrap().unwrap();
        let l2 = db.take_lease("w2", "t2", 60, &[]).await.unwrap().unwrap();
        assert_ne!(l1.game.id, l2.game.id);
        assert!(db.take_lease("w3", "t3", 60, &[]).await.unwrap().is_none());
        // Lease 1 lapses and goes back to the queue; w3 takes it.
        sqlx::query("UPDATE games SET lease_expires_at = 0 WHERE id = $1")
            .bind(l1.game.id)
            .execute(&db.pool)
            .await
            .unwrap();
        assert_eq!(db.expire_leases().await.unwrap(), 1);
        let l3 = db.take_lease("w3", "t3", 60, &[]).await.unwrap().unwrap();
        assert_eq!(l3.game.id, l1.game.id);
        assert_eq!(l3.game.attempts, 2);
        let post = |t: &'static str| db.post_result(l1.game.id, t, 1.0, "1-0", "normal", "{}");
        assert_eq!(post("t1").await.unwrap(), Posted::NotCurrent);
        assert_eq!(post("t3").await.unwrap(), Posted::Accepted);
        assert_eq!(post("t3").await.unwrap(), Posted::AlreadyStored);
        assert_eq!(post("t1").await.unwrap(), Posted::NotCurrent);
        assert_eq!(db.results().await.unwrap().len(), 1);
        assert!(!db.heartbeat(l1.game.id, "t3", 60).await.unwrap());
        assert!(db.heartbeat(l2.game.id, "t2", 60).await.unwrap());
        assert!(db.return_lease(l2.game.id, "t2").await.unwrap());
        assert_eq!(db.game_counts().await.unwrap().get("queued"), Some(&1));
        let l4 = db.take_lease("w4", "t4", 60, &[]).await.unwrap().unwrap();
        assert!(!db.drop_unplayable(l4.game.id, "t2").await.unwrap());
        assert!(db.drop_unplayable(l4.game.id, "t4").await.unwrap());
        assert_eq!(db.game_counts().await.unwrap().get("queued"), None);
    }

    #[tokio::test]
    async fn retention_drops_old_records_and_keeps_results() {
        let (_dir, db) = temp_db().await;
        let a = db
            .add_author("ann", "s", "h", false)
            .await
            .unwrap()
            .unwrap();
        let (b1, _) = db.bot_for("b1", a).await.unwrap();
        let (b2, _) = db.bot_for("b2", a).await.unwrap();
        let (v1, _) = db.add_version(b1, "x", "[]", "{}").await.unwrap();
        let (v2, _) = db.add_version(b2, "y", "[]", "{}").await.unwrap();
        for _ in 0..2 {
            db.schedule_pair(v1.id, v2.id, |_| String::new(), |p| p)
                .await
                .unwrap();
        }
        for i in 0..4 {
            let l = db
                .take_lease("w", &format!("t{i}"), 60, &[])
                .await
                .unwrap()
                .unwrap();
            let posted = db
                .post_result(l.game.id, &l.token, 1.0, "1-0", "normal", "{}")
                .await
                .unwrap();
            assert_eq!(posted, Posted::Accepted);
        }
        assert_eq!(db.apply_retention(1).await.unwrap(), 3);
        assert_eq!(db.records_since(0, 10).await.unwrap().len(), 1);
        assert_eq!(db.results().await.unwrap().len(), 4, "results stay");
        assert_eq!(db.apply_retention(1).await.unwrap(), 0);
    }
}
