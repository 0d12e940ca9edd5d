//! `arena worker --server URL --token T`: a remote worker. It takes leases
//! from a ladder server, fetches each bot version once (its archive,
//! checked against the lease's sha256, unpacked by `archive::unpack`,
//! built by `builder::build_dir` in the sandbox as the server builds it,
//! cached under its data directory), plays each game with `play::play`
//! (the referee, sandbox and limits of a tournament), heartbeats while it
//! plays, and posts the record.
//!
//! It survives the server going away: every call is retried with backoff,
//! and a finished record is kept on disk (`pending/`) until the server has
//! answered it (accepted, or refused for good), heartbeating meanwhile. On
//! SIGTERM it stops taking leases, gives back those of games in progress
//! and exits 0; when its token is revoked (401) it exits with a message
//! that says so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arena::process::{ResolvedSandbox, Sandbox};
use tokio::sync::{watch, Mutex};

use crate::archive::{self, ArchiveKind, ArchiveLimits};
use crate::play::{self, Contestant, PlaySettings};
use crate::worker_api::{LeaseOffer, LeaseRequest, Machine, SeatOffer};

/// How `arena worker` was asked to run.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The server's base URL (`http://host:port` or `https://...`).
    pub server: String,
    /// The worker token (`wID.SECRET`).
    pub token: String,
    /// Games played at once.
    pub concurrency: usize,
    /// The name reported with the machine (default: the host name).
    pub name: Option<String>,
    /// Where versions are cached and pending records kept.
    pub data: PathBuf,
    /// `--sandbox none`: bots and builds unsandboxed (a warning).
    pub no_sandbox: bool,
}

/// The environment variable `arena worker` reads its token from when
/// neither `--token` nor `--token-file` is given.
pub const TOKEN_ENV: &str = "ARENA_WORKER_TOKEN";

/// Where the token comes from: exactly one of `--token`, `--token-file`
/// and [`TOKEN_ENV`].
///
/// `--token` is for a quick try only: a command line is seen by every user
/// of the machine (`ps`) and, under Slurm, by `squeue`/`scontrol show job`.
/// A token file must not be readable or writable by others (refused, as
/// ssh refuses a private key); a file the group can read is accepted with
/// a warning on stderr, since a Kubernetes Secret mounted with an `fsGroup`
/// is group-readable by design. Returns the token and that warning.
pub fn resolve_token(
    token: Option<String>,
    token_file: Option<&Path>,
    env: Option<std::ffi::OsString>,
) -> Result<(String, Option<String>), String> {
    let given: Vec<&str> = [
        token.as_ref().map(|_| "--token"),
        token_file.map(|_| "--token-file"),
        env.as_ref().map(|_| TOKEN_ENV),
    ]
    .into_iter()
    .flatten()
    .collect();
    let check = |t: String, from: &str| {
        let t = t.trim().to_string();
        if t.is_empty() {
            Err(format!("{from} holds no token"))
        } else if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            Err(format!(
                "{from} holds more than one word; it must hold the token alone \
                 (`arena ladder worker add NAME` prints it on its last line)"
            ))
        } else {
            Ok(t)
        }
    };
    match (given.len(), token, token_file, env) {
        (0, ..) => Err(format!(
            "no worker token: give --token-file PATH (a file only you can read), or set \
             {TOKEN_ENV}; `arena ladder worker add NAME` on the server prints one"
        )),
        (1, Some(t), _, _) => Ok((check(t, "--token")?, None)),
        (1, _, Some(path), _) => read_token_file(path).and_then(|(t, warning)| {
            Ok((
                check(t, &format!("--token-file {}", path.display()))?,
                warning,
            ))
        }),
        (1, _, _, Some(v)) => {
            let v = v
                .into_string()
                .map_err(|_| format!("{TOKEN_ENV} is not UTF-8"))?;
            Ok((check(v, TOKEN_ENV)?, None))
        }
        _ => Err(format!(
            "the worker token is given {} ways ({}): give exactly one",
            given.len(),
            given.join(", ")
        )),
    }
}

/// A token file's text, refused when others may read or change it.
fn read_token_file(path: &Path) -> Result<(String, Option<String>), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("--token-file {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("--token-file {shown} is not a file"));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o007 != 0 {
        return Err(format!(
            "--token-file {shown} is open to other users (mode {mode:03o}); anyone who reads \
             the token can post records as this worker: `chmod 600 {shown}`"
        ));
    }
    let warning = (mode & 0o070 != 0).then(|| {
        format!(
            "warning: --token-file {shown} is open to its group (mode {mode:03o}); \
             `chmod 600` it unless the group is this worker's alone"
        )
    });
    let text = std::fs::read_to_string(path).map_err(|e| format!("--token-file {shown}: {e}"))?;
    Ok((text, warning))
}

/// Why the worker stopped other than by SIGTERM.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WorkerError {
    /// 401: the token is wrong or was revoked.
    #[error(
        "the server refused this worker's token ({0}): it was revoked or is wrong; \
         ask the organiser for a new one (`arena ladder worker add NAME`)"
    )]
    Revoked(String),
    /// 403: the organiser suspended this worker.
    #[error("the organiser suspended this worker ({0}); it stops")]
    Suspended(String),
    /// The data directory or the sandbox.
    #[error("{0}")]
    Setup(String),
}

/// One HTTP answer: status and body.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

impl Answer {
    /// The `error.code` and `error.message` of a JSON error body.
    fn error(&self) -> (String, String) {
        let v: serde_json::Value = serde_json::from_slice(&self.body).unwrap_or_default();
        let s = |k: &str| v["error"][k].as_str().unwrap_or("").to_string();
        (s("code"), s("message"))
    }
}

/// The largest body the worker reads (an archive).
const MAX_BODY: u64 = 512 << 20;

/// The server, through one HTTP agent (connections kept alive).
#[derive(Clone)]
struct Client {
    agent: ureq::Agent,
    base: String,
    auth: String,
}

impl Client {
    fn new(server: &str, token: &str) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        Client {
            agent,
            base: server.trim_end_matches('/').to_string(),
            auth: format!("Bearer {token}"),
        }
    }

    /// One call (on a blocking thread: ureq blocks); `Err` when the server
    /// could not be reached at all.
    async fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Answer, String> {
        let me = self.clone();
        let (method, url) = (method.to_string(), format!("{}{path}", self.base));
        tokio::task::spawn_blocking(move || {
            let resp = match (method.as_str(), body) {
                ("GET", _) => me.agent.get(&url).header("Authorization", &me.auth).call(),
                (_, Some(b)) => me
                    .agent
                    .post(&url)
                    .header("Authorization", &me.auth)
                    .header("Content-Type", "application/json")
                    .send(&b[..]),
                (_, None) => me
                    .agent
                    .post(&url)
                    .header("Authorization", &me.auth)
                    .send_empty(),
            };
            let mut resp = resp.map_err(|e| e.to_string())?;
            let status = resp.status().as_u16();
            let body = resp
                .body_mut()
                .with_config()
                .limit(MAX_BODY)
                .read_to_vec()
                .map_err(|e| e.to_string())?;
            Ok(Answer { status, body })
        })
        .await
        .map_err(|e| e.to_string())?
    }
}

/// What every slot shares.
struct Shared {
    opts: WorkerOptions,
    client: Client,
    machine: Machine,
    /// Each version's prepared directory, by sha256 (prepared once).
    versions: Mutex<HashMap<String, Arc<Mutex<Option<PathBuf>>>>>,
    stopping: watch::Receiver<bool>,
    stop: watch::Sender<bool>,
    /// The fatal error that stopped the worker, if one did.
    fatal: std::sync::Mutex<Option<WorkerError>>,
    sandbox: ResolvedSandbox,
}

impl Shared {
    fn fail(&self, e: WorkerError) {
        eprintln!("arena worker: {e}");
        self.fatal.lock().unwrap().get_or_insert(e);
        let _ = self.stop.send(true);
    }

    fn stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// A fatal status (401, 403) stops the worker; true if it was one.
    fn fatal_status(&self, a: &Answer) -> bool {
        let (code, message) = a.error();
        match a.status {
            401 => self.fail(WorkerError::Revoked(message)),
            403 if code == "suspended" => self.fail(WorkerError::Suspended(message)),
            _ => return false,
        }
        true
    }

    /// Sleeps `d`, or less if the worker is stopping.
    async fn pause(&self, d: Duration) {
        let mut s = self.stopping.clone();
        tokio::select! {
            _ = tokio::time::sleep(d) => {}
            _ = s.wait_for(|s| *s) => {}
        }
    }
}

/// Backoff between retries: 0.5 s doubling to 30 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(500u64.saturating_mul(1 << attempt.min(6))).min(Duration::from_secs(30))
}

/// The machine: cores, CPU model, and a short speed benchmark (random
/// playouts of the ladder's game on one core for about 0.2 s).
pub fn machine(name: &str, concurrency: usize, game: &dyn arena_core::games::AnyGame) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let start = Instant::now();
    let mut playouts = 0u64;
    while start.elapsed() < Duration::from_millis(200) {
        let mut s = game.initial_state();
        s.random_playout(playouts);
        playouts += 1;
    }
    Machine {
        name: name.to_string(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()) as u32,
        cpu_model,
        playouts_per_second: (playouts as f64 / start.elapsed().as_secs_f64()).round(),
        concurrency: concurrency as u32,
    }
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "worker".into())
}

/// Runs the worker until SIGTERM (Ok) or a fatal answer (Err).
pub async fn run(opts: WorkerOptions) -> Result<(), WorkerError> {
    let setup = |what: &str, e: &dyn std::fmt::Display| WorkerError::Setup(format!("{what}: {e}"));
    for sub in ["versions", "pending", "logs", "incoming"] {
        std::fs::create_dir_all(opts.data.join(sub))
            .map_err(|e| setup(&opts.data.join(sub).display().to_string(), &e))?;
    }
    let data = opts
        .data
        .canonicalize()
        .map_err(|e| setup(&opts.data.display().to_string(), &e))?;
    // bubblewrap or nothing, decided as every way in decides a sandbox
    // (never `auto`: a worker runs strangers' code).
    let (sandbox, _) = arena::process::sandbox::resolve(if opts.no_sandbox {
        Sandbox::None
    } else {
        Sandbox::Bwrap
    })
    .map_err(|e| setup("the sandbox", &e.0))?;
    if !sandbox.is_bwrap() {
        eprintln!("arena worker: warning: bots and builds run without a sandbox (--sandbox none)");
    }
    let opts = WorkerOptions { data, ..opts };
    let (stop, stopping) = watch::channel(false);
    let name = opts.name.clone().unwrap_or_else(host_name);
    let client = Client::new(&opts.server, &opts.token);
    // The benchmark is of the ladder's game, as its health says (with its
    // default parameters); Dakon's when the server cannot say yet.
    let game_name = match client.call("GET", "/api/health", None).await {
        Ok(a) if a.status == 200 => serde_json::from_slice::<serde_json::Value>(&a.body)
            .ok()
            .and_then(|v| v["game"].as_str().map(str::to_string)),
        _ => None,
    };
    let bench_game = game_name
        .and_then(|g| arena_core::games::new_game(&g, &[]).ok())
        .map_or_else(|| arena_core::games::new_game("dakon", &[]), Ok)
        .map_err(|e| setup("benchmark", &e))?;
    let shared = Arc::new(Shared {
        client,
        machine: machine(&name, opts.concurrency, &*bench_game),
        opts,
        versions: Mutex::new(HashMap::new()),
        stopping,
        stop,
        fatal: std::sync::Mutex::new(None),
        sandbox,
    });
    eprintln!(
        "arena worker: {} on {} ({} cores, {}, {} playouts/s), {} at once",
        shared.machine.name,
        shared.client.base,
        shared.machine.cores,
        shared.machine.cpu_model,
        shared.machine.playouts_per_second,
        shared.opts.concurrency
    );
    {
        let stop = shared.stop.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
            let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            eprintln!("arena worker: stopping: games in progress go back to the server");
            let _ = stop.send(true);
        });
    }
    // Records a previous run finished but could not post.
    post_pending(&shared).await;
    let mut slots = tokio::task::JoinSet::new();
    for i in 0..shared.opts.concurrency.max(1) {
        slots.spawn(slot(shared.clone(), i));
    }
    while slots.join_next().await.is_some() {}
    let fatal = shared.fatal.lock().unwrap().take();
    match fatal {
        Some(e) => Err(e),
        None => {
            eprintln!("arena worker: stopped");
            Ok(())
        }
    }
}

/// One game at a time, until the worker stops.
async fn slot(shared: Arc<Shared>, n: usize) {
    let mut failures = 0u32;
    let mut idle = 0u32;
    // Games given back in a row because they could not be played here.
    let mut given_back = 0u32;
    while !shared.stopping() {
        let req = LeaseRequest {
            // With every request: a token shared by a fleet is used by
            // many machines, and each game records the one that played it.
            machine: Some(shared.machine.clone()),
        };
        let body = serde_json::to_vec(&req).expect("requests serialize");
        let a = match shared.client.call("POST", "/api/leases", Some(body)).await {
            Ok(a) => a,
            Err(e) => {
                eprintln!("arena worker: slot {n}: the server cannot be reached ({e}); retrying");
                shared.pause(backoff(failures)).await;
                failures += 1;
                continue;
            }
        };
        failures = 0;
        if shared.fatal_status(&a) {
            return;
        }
        match a.status {
            200 => {
                idle = 0;
                match serde_json::from_slice::<LeaseOffer>(&a.body) {
                    Ok(offer) => {
                        if play_lease(&shared, offer).await {
                            // The server offers the oldest queued game first:
                            // most likely the same one again (a version with
                            // no archive, a build that fails here). Backing
                            // off keeps that from becoming a loop of leases
                            // as fast as the network allows.
                            shared.pause(backoff(given_back)).await;
                            given_back += 1;
                        } else {
                            given_back = 0;
                        }
                    }
                    Err(e) => {
                        eprintln!("arena worker: slot {n}: the lease does not read ({e})");
                        shared.pause(backoff(3)).await;
                    }
                }
            }
            204 => {
                // No work: ask again soon, less often while it stays so.
                shared
                    .pause(Duration::from_millis(200 * u64::from(idle.min(10) + 1)))
                    .await;
                idle += 1;
            }
            s => {
                let (code, message) = a.error();
                eprintln!("arena worker: slot {n}: lease refused ({s} {code}: {message})");
                shared.pause(backoff(failures.max(2))).await;
            }
        }
    }
}

/// Gives a lease back (best effort: a lease not returned lapses anyway).
async fn give_back(shared: &Shared, offer: &LeaseOffer, why: &str) {
    eprintln!(
        "arena worker: game {}: {why}; it goes back to the server",
        offer.game_id
    );
    let path = format!("/api/leases/{}/return", offer.lease);
    if let Ok(a) = shared.client.call("POST", &path, None).await {
        shared.fatal_status(&a);
    }
}

/// Heartbeats a lease every third of its length until aborted; sends
/// `true` on `lost` when the server says the lease is gone.
fn heartbeats(
    shared: Arc<Shared>,
    offer: &LeaseOffer,
    lost: watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let path = format!("/api/leases/{}/heartbeat", offer.lease);
    let every = Duration::from_millis((offer.lease_seconds.max(1) as u64 * 1000) / 3);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match shared.client.call("POST", &path, None).await {
                Ok(a) if a.status == 200 => {}
                Ok(a) if a.status == 409 => {
                    let _ = lost.send(true);
                    return;
                }
                Ok(a) => {
                    if shared.fatal_status(&a) {
                        return;
                    }
                }
                // The server is away: try again at the next beat.
                Err(_) => {}
            }
        }
    })
}

/// Plays one leased game and posts it; true if it gave the game back.
async fn play_lease(shared: &Arc<Shared>, offer: LeaseOffer) -> bool {
    eprintln!(
        "arena worker: game {}: leased ({} vs {}, {} ms a move)",
        offer.game_id,
        offer.seats[0].name,
        offer.seats[1].name,
        offer
            .time_control
            .movetime_ms
            .map_or("no limit on".into(), |m| m.to_string())
    );
    let (lost_tx, mut lost) = watch::channel(false);
    let beat = heartbeats(shared.clone(), &offer, lost_tx);
    let outcome = play_offer(shared, &offer, &mut lost).await;
    let gave_back = matches!(outcome, Played::GiveBack(_));
    match outcome {
        Played::Record(text) => {
            // Kept until the server has answered it.
            let file = shared
                .opts
                .data
                .join("pending")
                .join(format!("{}.json", offer.lease));
            if let Err(e) = std::fs::write(&file, &text) {
                eprintln!("arena worker: {}: {e}", file.display());
            }
            let what = format!("game {}", offer.game_id);
            post_record(shared, &offer.lease, &what, text, &file).await;
        }
        Played::GiveBack(why) => give_back(shared, &offer, &why).await,
        Played::Lost => eprintln!(
            "arena worker: game {}: the lease lapsed on the server; the game is abandoned",
            offer.game_id
        ),
    }
    beat.abort();
    gave_back
}

enum Played {
    Record(Vec<u8>),
    GiveBack(String),
    Lost,
}

async fn play_offer(
    shared: &Arc<Shared>,
    offer: &LeaseOffer,
    lost: &mut watch::Receiver<bool>,
) -> Played {
    let mut seats = Vec::new();
    for s in &offer.seats {
        match prepare(shared, offer, s).await {
            Ok(dir) => seats.push(Contestant {
                name: s.name.clone(),
                dir,
                command: s.command.clone(),
                limits: s.limits.clone(),
            }),
            Err(e) => {
                return Played::GiveBack(format!("version {} cannot be prepared: {e}", s.name))
            }
        }
    }
    let settings = match PlaySettings::new(
        &offer.game,
        &offer.params,
        offer.time_control,
        shared.sandbox.into(),
        shared.opts.data.join("logs"),
    ) {
        Ok((s, _)) => s,
        Err(e) => return Played::GiveBack(e.to_string()),
    };
    let mut stopping = shared.stopping.clone();
    let game = play::play(&settings, &seats[0], &seats[1], &offer.opening, offer.seed);
    tokio::select! {
        r = game => match r {
            Ok(rec) => Played::Record(serde_json::to_vec(&rec).expect("records serialize")),
            Err(e) => Played::GiveBack(e.to_string()),
        },
        _ = stopping.wait_for(|s| *s) => Played::GiveBack("the worker is stopping".into()),
        _ = lost.wait_for(|l| *l) => Played::Lost,
    }
}

/// A version's directory, built: from the cache, or downloaded (once),
/// checked against its sha256, unpacked and built.
async fn prepare(
    shared: &Arc<Shared>,
    offer: &LeaseOffer,
    s: &SeatOffer,
) -> Result<PathBuf, String> {
    if s.sha256.len() != 64 || !s.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{}` is not a sha256", s.sha256.escape_debug()));
    }
    let cell = shared
        .versions
        .lock()
        .await
        .entry(s.sha256.clone())
        .or_default()
        .clone();
    let mut cell = cell.lock().await;
    if let Some(dir) = &*cell {
        return Ok(dir.clone());
    }
    let root = shared.opts.data.join("versions").join(&s.sha256);
    let dir = root.join("bot");
    if root.join("built").is_file() && dir.is_dir() {
        *cell = Some(dir.clone());
        return Ok(dir);
    }
    let a = shared.client.call("GET", &s.archive, None).await?;
    if shared.fatal_status(&a) || a.status != 200 {
        let (code, message) = a.error();
        return Err(format!("download: {} {code}: {message}", a.status));
    }
    let kind = if a.body.starts_with(b"PK") {
        ArchiveKind::Zip
    } else {
        ArchiveKind::TarGz
    };
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    let staged = tempfile::Builder::new()
        .prefix("v-")
        .tempdir_in(shared.opts.data.join("incoming"))
        .map_err(|e| e.to_string())?;
    let dest = staged.path().join("bot");
    let limits = ArchiveLimits {
        max_compressed: MAX_BODY,
        max_unpacked: 4 << 30,
        max_files: 100_000,
        max_path: 4096,
    };
    let unpacked = {
        let dest = dest.clone();
        tokio::task::spawn_blocking(move || archive::unpack(&a.body, kind, &limits, &dest))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?
    };
    if unpacked.sha256 != s.sha256 {
        return Err(format!(
            "the archive unpacks to sha256 {}, the lease says {}",
            unpacked.sha256, s.sha256
        ));
    }
    if nix::unistd::geteuid().is_root() {
        // A sandboxed build runs as its directory's owner, never as root.
        crate::app::chown_tree(&dest, crate::app::BOT_OWNER).map_err(|e| e.to_string())?;
    }
    if let Some(line) = &s.build {
        crate::builder::build_dir(&dest, line, &offer.build_limits, shared.sandbox)
            .await
            .map_err(|e| format!("build failed: {}", e.lines().next().unwrap_or("")))?;
    }
    std::fs::rename(&dest, &dir).map_err(|e| e.to_string())?;
    std::fs::write(root.join("built"), b"").map_err(|e| e.to_string())?;
    eprintln!("arena worker: {} ({}) is ready", s.name, &s.sha256[..12]);
    *cell = Some(dir.clone());
    Ok(dir)
}

/// Posts a record until the server answers it for good; then forgets it.
/// `what` names the game in messages (`game ID`, or `lease ID` for a
/// record kept by a previous run).
async fn post_record(shared: &Shared, lease: &str, what: &str, text: Vec<u8>, file: &Path) {
    let path = format!("/api/leases/{lease}/record");
    let mut attempt = 0u32;
    loop {
        match shared.client.call("POST", &path, Some(text.clone())).await {
            Ok(a) if a.status == 200 => {
                eprintln!("arena worker: {what}: recorded");
                break;
            }
            Ok(a) if shared.fatal_status(&a) => return,
            // A retry after a lost answer: the first post was stored.
            Ok(a) if a.status == 409 && a.error().0 == "already_recorded" => {
                eprintln!("arena worker: {what}: recorded (an earlier post was stored)");
                break;
            }
            Ok(a) if (400..500).contains(&a.status) => {
                let (code, message) = a.error();
                eprintln!(
                    "arena worker: {what}: not recorded ({} {code}: {message})",
                    a.status
                );
                break;
            }
            Ok(a) => eprintln!(
                "arena worker: {what}: the server answered {}; retrying",
                a.status
            ),
            Err(e) => {
                eprintln!("arena worker: {what}: the server cannot be reached ({e}); retrying")
            }
        }
        // Stopping does not drop a finished game: it is kept on disk and
        // posted by the next run.
        if shared.stopping() && attempt >= 2 {
            eprintln!(
                "arena worker: {what}: kept in {} for the next run",
                file.display()
            );
            return;
        }
        tokio::time::sleep(backoff(attempt)).await;
        attempt += 1;
    }
    let _ = std::fs::remove_file(file);
}

/// Posts the records a previous run kept (`pending/LEASE.json`).
async fn post_pending(shared: &Shared) {
    let dir = shared.opts.data.join("pending");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(lease) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        if let Ok(text) = std::fs::read(&path) {
            let what = format!("lease {lease}");
            post_record(shared, &lease, &what, text, &path).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn the_token_comes_from_exactly_one_place() {
        let tmp = tempfile::tempdir().unwrap();
        let f = file(tmp.path(), "t", "w1.secret\n", 0o600);
        let env = || Some(std::ffi::OsString::from("w1.fromenv"));
        assert_eq!(
            resolve_token(Some("w1.x".into()), None, None).unwrap(),
            ("w1.x".into(), None)
        );
        assert_eq!(
            resolve_token(None, Some(&f), None).unwrap(),
            ("w1.secret".into(), None),
            "the file's newline is not part of the token"
        );
        assert_eq!(resolve_token(None, None, env()).unwrap().0, "w1.fromenv");
        let none = resolve_token(None, None, None).unwrap_err();
        assert!(
            none.contains("no worker token") && none.contains(TOKEN_ENV),
            "{none}"
        );
        let two = resolve_token(Some("a".into()), Some(&f), None).unwrap_err();
        assert!(two.contains("2 ways (--token, --token-file)"), "{two}");
        let three = resolve_token(Some("a".into()), Some(&f), env()).unwrap_err();
        assert!(
            three.contains("3 ways") && three.contains("exactly one"),
            "{three}"
        );
        let file_and_env = resolve_token(None, Some(&f), env()).unwrap_err();
        assert!(file_and_env.contains(TOKEN_ENV), "{file_and_env}");
    }

    #[test]
    fn a_token_file_others_can_read_is_refused_like_an_ssh_key() {
        let tmp = tempfile::tempdir().unwrap();
        for mode in [0o644, 0o604, 0o602, 0o666] {
            let f = file(tmp.path(), "open", "w1.s", mode);
            let e = resolve_token(None, Some(&f), None).unwrap_err();
            assert!(
                e.contains("open to other users") && e.contains("chmod 600"),
                "{e}"
            );
        }
        // A group-readable file (a Kubernetes Secret with an fsGroup): a warning.
        let f = file(tmp.path(), "group", "w1.s", 0o640);
        let (t, warning) = resolve_token(None, Some(&f), None).unwrap();
        assert_eq!(t, "w1.s");
        assert!(warning.unwrap().contains("open to its group (mode 640)"));
        let f = file(tmp.path(), "ro", "w1.s", 0o400);
        assert_eq!(resolve_token(None, Some(&f), None).unwrap().1, None);
    }

    #[test]
    fn a_bad_token_source_says_what_is_wrong() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = resolve_token(None, Some(&tmp.path().join("nope")), None).unwrap_err();
        assert!(
            missing.contains("--token-file") && missing.contains("nope"),
            "{missing}"
        );
        let dir = resolve_token(None, Some(tmp.path()), None).unwrap_err();
        assert!(dir.contains("is not a file"), "{dir}");
        let empty = file(tmp.path(), "empty", "\n", 0o600);
        let e = resolve_token(None, Some(&empty), None).unwrap_err();
        assert!(e.contains("holds no token"), "{e}");
        // The whole output of `worker add` pasted into the file.
        let pasted = file(
            tmp.path(),
            "pasted",
            "added worker `w1`; its token (shown once, keep it secret):\nw1.s\n",
            0o600,
        );
        let e = resolve_token(None, Some(&pasted), None).unwrap_err();
        assert!(e.contains("more than one word"), "{e}");
        let e = resolve_token(None, None, Some("".into())).unwrap_err();
        assert!(e.contains("ARENA_WORKER_TOKEN holds no token"), "{e}");
    }
}
