//! The running ladder: its shared state, the data directory, and `serve`
//! (the HTTP server, the builder, the scheduler and the built-in workers,
//! with SIGTERM handling).
//!
//! The data directory holds `ladder.db` (SQLite, unless `--db` names
//! another database), `versions/BOT-SHA256/bot/`, each version's unpacked
//! (and then built) directory, immutable once checked, `logs/`, the bots'
//! stderr per game, and `incoming/`, uploads while they are unpacked.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arena::process::{ResolvedSandbox, Sandbox};
use arena_core::games::AnyGame;
use tokio::sync::{watch, Notify};

use crate::api::ApiError;
use crate::archive::ArchiveKind;
use crate::config::LadderConfig;
use crate::db::Db;
use crate::ratings::RatingSettings;

/// Everything the handlers and tasks share.
pub struct App {
    /// The database.
    pub db: Db,
    /// The validated `ladder.toml`.
    pub config: LadderConfig,
    /// The ladder's game, with its parameters.
    pub game: Arc<dyn AnyGame>,
    /// The data directory (absolute).
    pub data: PathBuf,
    /// `bwrap`, or `none` when the organiser said `--sandbox none`.
    pub sandbox: ResolvedSandbox,
    /// Said in every response (the `arena-warning` header) and in health.
    pub warning: Option<String>,
    /// How every ladder game is played (one code path: `play::play`).
    pub play: crate::play::PlaySettings,
    /// Woken when a version is queued for building.
    pub builds: Notify,
    /// Woken when a game finishes: the scheduler fills the queue again at
    /// once instead of at its next tick (with instant bots the tick alone
    /// held the ladder to a ninth of a tournament's pace).
    pub game_done: Notify,
    /// Woken when games are queued: idle workers look for a lease at once.
    pub games_queued: Notify,
    /// Becomes true on SIGTERM or SIGINT.
    pub stopping: watch::Receiver<bool>,
    /// The leaderboard and ratings last computed from the games table.
    pub standing: crate::standing::Cache,
    /// The built-in workers' games in progress, move by move (`/live`).
    pub live: Arc<crate::live::Hub>,
    /// What never changes about a version, kept after its first read.
    pub fixed: FixedVersions,
    /// Versions stored before archives were kept: a remote worker could not
    /// download them, so their games are left to the built-in workers.
    /// Found once at start (every later upload keeps its archive).
    pub local_only: Vec<i64>,
    /// How many built-in workers play here (`--workers`).
    pub builtin_workers: usize,
}

/// What never changes about a version once uploaded: its bot and name,
/// its tree's hash, its command and limits (a new upload is a new
/// version; only its status moves). The worker API needs these for every
/// lease and every record; reading them once instead of twice per request
/// took two of five queries off each verified record (docs/performance.md).
#[derive(Clone, Debug)]
pub struct Fixed {
    /// The bot's row id.
    pub bot_id: i64,
    /// `bot#seq`, as the standing names it.
    pub name: String,
    /// The unpacked tree's sha256.
    pub sha256: String,
    /// Its argv (JSON array).
    pub command: String,
    /// Its limits (JSON object).
    pub limits: String,
}

/// [`Fixed`] by version id, filled on first use.
#[derive(Default)]
pub struct FixedVersions(std::sync::Mutex<std::collections::HashMap<i64, Arc<Fixed>>>);

impl FixedVersions {
    /// Version `id`'s fixed facts, or `None` if there is no such version.
    pub async fn get(&self, db: &Db, id: i64) -> Result<Option<Arc<Fixed>>, crate::db::DbError> {
        if let Some(f) = self.0.lock().expect("not poisoned").get(&id) {
            return Ok(Some(f.clone()));
        }
        let Some(v) = db.version(id).await? else {
            return Ok(None);
        };
        let f = Arc::new(Fixed {
            bot_id: v.bot_id,
            name: crate::standing::version_name(&v.bot, v.seq),
            sha256: v.sha256,
            command: v.command,
            limits: v.limits,
        });
        self.0.lock().expect("not poisoned").insert(id, f.clone());
        Ok(Some(f))
    }
}

/// The uid (and gid) unpacked bots belong to when the server is root: a
/// sandboxed build runs as its directory's owner, never as root.
pub const BOT_OWNER: u32 = 65534;

impl App {
    /// Whether the ladder is paused (no new games are scheduled or started).
    pub async fn paused(&self) -> Result<bool, crate::db::DbError> {
        Ok(self.db.state("paused").await?.as_deref() == Some("true"))
    }

    /// `bwrap` or `none`.
    pub fn sandbox_name(&self) -> &'static str {
        match self.sandbox {
            ResolvedSandbox::None => "none",
            ResolvedSandbox::Bwrap => "bwrap",
        }
    }

    /// The Glicko-2 settings of the config.
    pub fn rating_settings(&self) -> RatingSettings {
        RatingSettings {
            period_games: self.config.matchmaking.period_games,
            ..RatingSettings::default()
        }
    }

    /// A fresh directory under `incoming/` for one upload, removed when dropped.
    pub fn staging_dir(&self) -> Result<tempfile::TempDir, ApiError> {
        tempfile::Builder::new()
            .prefix("upload-")
            .tempdir_in(self.data.join("incoming"))
            .map_err(|e| {
                eprintln!("arena-ladder: cannot make an upload directory: {e}");
                ApiError::new(
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "could not store the upload",
                )
            })
    }

    /// Where a version's bot directory lives: named by its bot and its
    /// content, so that it is put in place before the version's row exists
    /// (a server killed between the two leaves no row without files).
    pub fn version_dir(&self, bot_id: i64, sha256: &str) -> PathBuf {
        version_home(&self.data, bot_id, sha256).join("bot")
    }

    /// Moves a freshly unpacked bot into place, with its build command
    /// and the archive as uploaded beside it (not inside: the bot's build
    /// must not rewrite them; remote workers download the archive). The
    /// rename comes last, so a directory in place is always whole; one that
    /// is there already (the same content uploaded before) is kept.
    pub fn store_version(
        &self,
        bot_id: i64,
        sha256: &str,
        unpacked: &Path,
        build: Option<&str>,
        archive: (ArchiveKind, &[u8]),
    ) -> Result<(), ApiError> {
        let internal = |e: std::io::Error| {
            eprintln!("arena-ladder: storing an upload of bot {bot_id}: {e}");
            ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "could not store the upload",
            )
        };
        let parent = &version_home(&self.data, bot_id, sha256);
        let dir = parent.join("bot");
        if dir.is_dir() {
            return Ok(());
        }
        // What a server killed mid-upload left (no `bot/` yet) is replaced.
        let _ = std::fs::remove_dir_all(parent);
        std::fs::create_dir_all(parent).map_err(internal)?;
        if let Some(b) = build {
            std::fs::write(parent.join("build.sh"), b).map_err(internal)?;
        }
        std::fs::write(parent.join(archive_name(archive.0)), archive.1).map_err(internal)?;
        if nix::unistd::geteuid().is_root() {
            chown_tree(unpacked, BOT_OWNER).map_err(internal)?;
        }
        std::fs::rename(unpacked, &dir).map_err(internal)?;
        Ok(())
    }

    /// A version's archive as uploaded, and its kind; `None` for a version
    /// stored before archives were kept.
    pub fn version_archive(&self, bot_id: i64, sha256: &str) -> Option<(ArchiveKind, PathBuf)> {
        archive_in(&version_home(&self.data, bot_id, sha256))
    }

    /// Versions that no worker of this server can play: those without an
    /// archive when there are no built-in workers. Matchmaking leaves them
    /// out, so their games do not fill the queue and stall the ladder.
    pub fn unplayable(&self) -> &[i64] {
        if self.builtin_workers == 0 {
            &self.local_only
        } else {
            &[]
        }
    }

    /// The build command stored for a version.
    pub fn build_command(&self, bot_id: i64, sha256: &str) -> Option<String> {
        let path = version_home(&self.data, bot_id, sha256).join("build.sh");
        std::fs::read_to_string(path).ok()
    }
}

/// A version's own directory under the data directory: its unpacked tree
/// (`bot/`), its build command and its archive as uploaded.
fn version_home(data: &Path, bot_id: i64, sha256: &str) -> PathBuf {
    data.join("versions").join(format!("{bot_id}-{sha256}"))
}

/// The archive kept in a version's directory `home`, if any.
fn archive_in(home: &Path) -> Option<(ArchiveKind, PathBuf)> {
    [ArchiveKind::TarGz, ArchiveKind::Zip]
        .into_iter()
        .map(|k| (k, home.join(archive_name(k))))
        .find(|(_, p)| p.is_file())
}

/// The file name a version's uploaded archive is kept under.
fn archive_name(kind: ArchiveKind) -> &'static str {
    match kind {
        ArchiveKind::TarGz => "upload.tar.gz",
        ArchiveKind::Zip => "upload.zip",
    }
}

/// Gives `dir` and everything in it to `uid` (no link is followed: there
/// are none in an unpacked upload, and `lchown` would not follow one).
pub(crate) fn chown_tree(dir: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(dir, Some(uid), Some(uid))?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        if ty.is_dir() {
            chown_tree(&entry.path(), uid)?;
        } else {
            std::os::unix::fs::lchown(entry.path(), Some(uid), Some(uid))?;
        }
    }
    Ok(())
}

/// How `serve` was asked to run.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The data directory.
    pub data: PathBuf,
    /// The database URL (default: SQLite in the data directory).
    pub db: Option<String>,
    /// Where to listen.
    pub listen: SocketAddr,
    /// Built-in workers.
    pub workers: usize,
    /// `ladder.toml`.
    pub config: Option<PathBuf>,
    /// `--sandbox none`: run strangers' code unsandboxed (a warning everywhere).
    pub no_sandbox: bool,
}

/// Why the ladder could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The config.
    #[error("{0}")]
    Config(#[from] arena::run::config::ConfigError),
    /// The database.
    #[error("{0}")]
    Db(#[from] crate::db::DbError),
    /// The sandbox.
    #[error(
        "the sandbox cannot be set up here ({0}); a ladder runs strangers' code, so it \
         refuses to start without one: fix it, or pass --sandbox none to run unsandboxed \
         (every API response then carries a warning)"
    )]
    Sandbox(String),
    /// The data directory or the listening socket.
    #[error("{what}: {source}")]
    Io {
        /// What failed.
        what: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The database URL `serve` and `ladder` use: `--db`, else SQLite in DATA.
pub fn db_url(data: &Path, db: Option<&str>) -> String {
    match db {
        Some(url) => url.to_string(),
        None => format!("sqlite://{}?mode=rwc", data.join("ladder.db").display()),
    }
}

/// Creates the data directory (private) and opens the database.
pub async fn open(data: &Path, db: Option<&str>) -> Result<(PathBuf, Db), ServeError> {
    let io = |what: String| move |source| ServeError::Io { what, source };
    std::fs::create_dir_all(data).map_err(io(format!("cannot create {}", data.display())))?;
    let data = data
        .canonicalize()
        .map_err(io(format!("cannot resolve {}", data.display())))?;
    arena::store::private_dir(&data).map_err(|e| ServeError::Io {
        what: format!("{}", data.display()),
        source: std::io::Error::other(e.to_string()),
    })?;
    for sub in ["incoming", "versions"] {
        std::fs::create_dir_all(data.join(sub))
            .map_err(io(format!("cannot create {}", data.join(sub).display())))?;
    }
    let db = Db::open(&db_url(&data, db)).await?;
    Ok((data, db))
}

/// The ids of the versions whose archive is not on disk (uploaded before
/// archives were kept beside the unpacked tree).
async fn archiveless_versions(db: &Db, data: &Path) -> Result<Vec<i64>, ServeError> {
    Ok(db
        .all_versions()
        .await?
        .into_iter()
        .filter(|v| archive_in(&version_home(data, v.bot_id, &v.sha256)).is_none())
        .map(|v| v.id)
        .collect())
}

/// Runs the ladder until SIGTERM or SIGINT; then workers finish or return
/// their games and it returns (exit 0).
pub async fn serve(opts: ServeOptions) -> Result<(), ServeError> {
    let config = LadderConfig::load(opts.config.as_deref())?;
    // A ladder runs strangers' code: bubblewrap or nothing, decided as
    // every way in decides a sandbox (never `auto`).
    let setting = if opts.no_sandbox {
        Sandbox::None
    } else {
        Sandbox::Bwrap
    };
    let (sandbox, _) = arena::process::sandbox::resolve(setting)
        .map_err(|e| ServeError::Sandbox(e.0.to_string()))?;
    let warning = (!sandbox.is_bwrap()).then(|| {
        "this ladder runs bots without a sandbox (--sandbox none): do not submit code you would not run yourself".to_string()
    });
    let (data, db) = open(&opts.data, opts.db.as_deref()).await?;
    let requeued = db.requeue_unfinished_builds().await?;
    if requeued > 0 {
        eprintln!(
            "arena-ladder: {requeued} build(s) interrupted by the last stop are queued again"
        );
    }
    // Validated with the config, so it cannot fail here.
    let game: Arc<dyn AnyGame> =
        arena_core::games::new_game(&config.game.game, &config.game.params)
            .expect("a game the config validated")
            .into();
    let (play, _) = crate::play::PlaySettings::new(
        &config.game.game,
        &config.game.params,
        config.game.time_control,
        sandbox.into(),
        data.join("logs"),
    )
    .map_err(|e| ServeError::Sandbox(e.to_string()))?;
    let local_only = archiveless_versions(&db, &data).await?;
    if !local_only.is_empty() {
        eprintln!(
            "arena-ladder: {} version(s) were stored before archives were kept ({}): \
             only built-in workers (--workers) play their games{}",
            local_only.len(),
            local_only
                .iter()
                .map(|v| format!("v{v}"))
                .collect::<Vec<_>>()
                .join(", "),
            if opts.workers == 0 {
                ", and there are none: they are left out of matchmaking"
            } else {
                ""
            }
        );
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let app = Arc::new(App {
        db,
        config,
        game,
        data,
        sandbox,
        warning,
        play,
        builds: Notify::new(),
        game_done: Notify::new(),
        games_queued: Notify::new(),
        stopping: stop_rx,
        standing: crate::standing::Cache::new(),
        live: Default::default(),
        fixed: Default::default(),
        local_only,
        builtin_workers: opts.workers,
    });
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .map_err(|source| ServeError::Io {
            what: format!("cannot listen on {}", opts.listen),
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ServeError::Io {
        what: "the listening socket".into(),
        source,
    })?;

    let mut tasks = tokio::task::JoinSet::new();
    tasks.spawn(crate::standing::keep_fresh(app.clone()));
    tasks.spawn(crate::builder::run(app.clone()));
    tasks.spawn(crate::games::scheduler(app.clone()));
    for i in 0..opts.workers {
        tasks.spawn(crate::games::worker(app.clone(), i));
    }

    tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        eprintln!("arena-ladder: stopping: games in progress finish or go back to the queue");
        let _ = stop_tx.send(true);
    });

    // The line tests and scripts wait for (the port may have been 0).
    println!("arena-ladder: listening on http://{addr}");
    let mut stopping = app.stopping.clone();
    let server =
        axum::serve(listener, crate::api::router(app.clone())).with_graceful_shutdown(async move {
            let _ = stopping.wait_for(|s| *s).await;
        });
    server.await.map_err(|source| ServeError::Io {
        what: "serving HTTP".into(),
        source,
    })?;
    // Workers and the builder see the same signal; wait for them.
    let deadline = tokio::time::sleep(Duration::from_secs(60));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            next = tasks.join_next() => if next.is_none() { break },
            _ = &mut deadline => {
                eprintln!("arena-ladder: tasks did not stop within 60 s; leaving");
                break;
            }
        }
    }
    app.db.close().await;
    eprintln!("arena-ladder: stopped");
    Ok(())
}
