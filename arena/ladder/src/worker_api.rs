//! The worker API (`/api/leases...`, `/api/versions/{id}/archive`): what
//! remote workers (`arena worker`) call with their worker token.
//!
//! A lease's id is its secret token: the worker names it in the path, and
//! the server checks that the lease is that worker's and still live. A
//! record is verified ([`crate::verify`]) before the one statement that
//! stores it under the live lease; a repeat, or a record for an expired,
//! foreign or unknown lease is a 409 with a code and changes nothing; a
//! record verification refuses is a 422 with the refusal's code, logged
//! against the worker, and its game goes back to the queue.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use arena::process::LimitSettings;
use arena::referee::TimeControl;
use arena_core::record::GameRecord;

use crate::api::{read_body, read_json, ApiError};
use crate::app::App;
use crate::config::BuildLimits;
use crate::db::{worker_owner, LeaseState, Worker};
use crate::verify::{self, Expected};

type ApiResult<T> = Result<T, ApiError>;

/// The machine a worker reports: stored with the worker and with every game
/// it plays.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// The worker's `--name` (or its host name).
    pub name: String,
    /// Cores it may use.
    pub cores: u32,
    /// The CPU model from /proc/cpuinfo.
    pub cpu_model: String,
    /// Random playouts of the ladder's game per second on one core (a
    /// speed benchmark of about 0.2 s).
    pub playouts_per_second: f64,
    /// How many games it plays at once.
    pub concurrency: u32,
}

/// The longest `name` or `cpu_model` a machine report may carry, in bytes:
/// it is stored with every game the worker plays.
pub const MAX_MACHINE_TEXT: usize = 256;

impl Machine {
    /// Why this report is refused, if it is: a name or CPU model longer than
    /// [`MAX_MACHINE_TEXT`] (a worker could otherwise store 64 kB with each
    /// game it plays).
    pub fn problem(&self) -> Option<String> {
        [("name", &self.name), ("cpu_model", &self.cpu_model)]
            .into_iter()
            .find(|(_, v)| v.len() > MAX_MACHINE_TEXT)
            .map(|(k, v)| {
                format!(
                    "machine.{k} is {} bytes; at most {MAX_MACHINE_TEXT}",
                    v.len()
                )
            })
    }
}

/// `POST /api/leases`'s body.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    /// The machine asking (sent with every request: a token shared by a
    /// fleet is used by many machines). Stored with the game leased, and as
    /// the worker's last machine; without it, the game records the worker's
    /// last machine.
    #[serde(default)]
    pub machine: Option<Machine>,
}

/// One seat's version, as a worker fetches, builds and runs it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SeatOffer {
    /// The version's id.
    pub version: i64,
    /// Its name in the record (`bot.vN`).
    pub name: String,
    /// The unpacked tree's sha256 (the worker checks it).
    pub sha256: String,
    /// Where to download its archive (a path on the server).
    pub archive: String,
    /// Its command (argv).
    pub command: Vec<String>,
    /// Its limits.
    pub limits: LimitSettings,
    /// Its build command, if it has one.
    pub build: Option<String>,
}

/// A lease, as `POST /api/leases` answers it: everything a worker needs to
/// play the game as the server would.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LeaseOffer {
    /// The lease's id (and secret): the path of heartbeat, record and return.
    pub lease: String,
    /// The game's id.
    pub game_id: i64,
    /// When the lease lapses unless renewed (seconds since the epoch).
    pub expires_at: i64,
    /// How long a heartbeat renews it for, in seconds.
    pub lease_seconds: i64,
    /// The game's wire name.
    pub game: String,
    /// Its parameters.
    pub params: Vec<(String, String)>,
    /// The opening's moves, played by the referee first.
    pub opening: Vec<String>,
    /// The seed told to both bots.
    pub seed: u64,
    /// The time control and clock.
    pub time_control: TimeControl,
    /// How builds are bounded.
    pub build_limits: BuildLimits,
    /// Seat 0 and seat 1.
    pub seats: [SeatOffer; 2],
}

/// `time` scaled for a worker `speed` playouts a second against the
/// ladder's `reference` (`[leases] scale_to_playouts`): a machine half as
/// fast gets twice the time, within a quarter to four times. The margin
/// (pipes and scheduling, not thinking) is not scaled.
pub fn scaled_time(time: TimeControl, reference: f64, speed: f64) -> TimeControl {
    let factor = if speed > 0.0 && speed.is_finite() {
        (reference / speed).clamp(0.25, 4.0)
    } else {
        1.0
    };
    let scale = |ms: u64| ((ms as f64 * factor).round() as u64).max(1);
    TimeControl {
        movetime_ms: time.movetime_ms.map(scale),
        time_ms: time.time_ms.map(scale),
        inc_ms: if time.inc_ms == 0 {
            0
        } else {
            scale(time.inc_ms)
        },
        ceiling_ms: time.ceiling_ms.map(scale),
        ..time
    }
}

/// The worker a worker token names; 401 without one, with a bad one or a
/// revoked one, 403 when the worker is suspended. An author's token is
/// never a worker's (and the reverse: see [`crate::token::parse_worker`]).
async fn worker(app: &App, headers: &HeaderMap) -> ApiResult<Worker> {
    let unauthorized = |m: &str| ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", m);
    let text = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| unauthorized("this needs `Authorization: Bearer WORKER-TOKEN`"))?;
    let token = text
        .strip_prefix("Bearer ")
        .ok_or_else(|| unauthorized("the Authorization header must be `Bearer WORKER-TOKEN`"))?;
    let bad = || {
        unauthorized("the worker token is not valid (wrong, malformed, revoked, or an author's)")
    };
    let (id, secret) = crate::token::parse_worker(token.trim()).ok_or_else(bad)?;
    let (w, salt, hash) = app.db.worker_credentials(id).await?.ok_or_else(bad)?;
    if !crate::token::verify(&salt, &hash, secret) {
        return Err(bad());
    }
    if w.suspended_at.is_some() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "suspended",
            format!("worker `{}` is suspended by the organiser", w.name),
        ));
    }
    Ok(w)
}

/// The 409 for a lease that is not this worker's live one.
fn not_live(state: &LeaseState) -> ApiError {
    let (code, message) = match state {
        LeaseState::Live(_) => ("lease_live", "the lease is live".to_string()),
        LeaseState::Recorded(g) => (
            "already_recorded",
            format!("game {g} was recorded under this lease already"),
        ),
        LeaseState::Expired => (
            "lease_expired",
            "the lease lapsed without a heartbeat; its game is played again".into(),
        ),
        LeaseState::Foreign => ("foreign_lease", "the lease is another worker's".into()),
        LeaseState::Unknown => (
            "unknown_lease",
            "no game has this lease (never given, or lapsed and leased again)".into(),
        ),
    };
    ApiError::new(StatusCode::CONFLICT, code, message)
}

/// This worker's live lease `id`, or the 409 that says what it is instead.
async fn live(app: &App, w: &Worker, id: &str) -> ApiResult<crate::db::Lease> {
    match app.db.lease_state(id, &worker_owner(w.id)).await? {
        LeaseState::Live(lease) => Ok(*lease),
        other => Err(not_live(&other)),
    }
}

/// `POST /api/leases`: a lease on the oldest queued game, or 204.
pub async fn take(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let w = worker(&app, &headers).await?;
    let req: LeaseRequest = read_json(&headers, body).await?;
    if let Some(why) = req.machine.as_ref().and_then(Machine::problem) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_machine", why));
    }
    let machine = req
        .machine
        .as_ref()
        .map(|m| serde_json::to_string(m).expect("machines serialize"));
    // The worker's row is written only when its machine changes, not at
    // every lease.
    if let Some(m) = machine
        .as_deref()
        .filter(|m| w.machine.as_deref() != Some(*m))
    {
        app.db.set_worker_machine(w.id, m).await?;
    }
    if app.paused().await? {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let token = crate::token::lease_token();
    let owner = worker_owner(w.id);
    let Some(lease) = app
        .db
        .take_lease(&owner, &token, app.config.lease_seconds, &app.local_only)
        .await?
    else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let g = &lease.game;
    let mut seats = Vec::new();
    for id in [g.seat0_version, g.seat1_version] {
        let Some(v) = app.fixed.get(&app.db, id).await? else {
            app.db.return_lease(g.id, &token).await?;
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("version {id} of game {} cannot be read", g.id),
            ));
        };
        seats.push(SeatOffer {
            version: id,
            name: v.name.clone(),
            sha256: v.sha256.clone(),
            archive: format!("/api/versions/{id}/archive"),
            command: serde_json::from_str(&v.command).unwrap_or_default(),
            limits: serde_json::from_str(&v.limits).unwrap_or_default(),
            build: app.build_command(v.bot_id, &v.sha256),
        });
    }
    let seats: [SeatOffer; 2] = seats.try_into().expect("two seats");
    let c = &app.config;
    // Scaled to the machine's speed when the ladder asks for it; the
    // lease keeps the time control its record is checked against.
    let mut time_control = c.game.time_control;
    let mut scaled = None;
    if let Some(reference) = c.scale_to_playouts {
        let speed = req
            .machine
            .as_ref()
            .map(|m| m.playouts_per_second)
            .or_else(|| {
                let m: Machine = serde_json::from_str(w.machine.as_deref()?).ok()?;
                Some(m.playouts_per_second)
            })
            .unwrap_or(reference);
        time_control = scaled_time(time_control, reference, speed);
        scaled = Some(serde_json::to_string(&time_control).expect("time controls serialize"));
    }
    // Both facts of this lease in one statement (taking a lease cleared
    // an earlier lease's).
    let machine = machine.as_deref().or(w.machine.as_deref());
    if machine.is_some() || scaled.is_some() {
        app.db
            .set_lease_facts(g.id, &token, machine, scaled.as_deref())
            .await?;
    }
    let offer = LeaseOffer {
        lease: lease.token.clone(),
        game_id: g.id,
        expires_at: lease.expires_at,
        lease_seconds: c.lease_seconds,
        game: c.game.game.clone(),
        params: c.game.params.clone(),
        opening: g.opening.split_whitespace().map(str::to_string).collect(),
        seed: g.seed as u64,
        time_control,
        build_limits: c.build.clone(),
        seats,
    };
    Ok(axum::Json(offer).into_response())
}

/// `POST /api/leases/{id}/heartbeat`: renews the lease.
pub async fn heartbeat(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let w = worker(&app, &headers).await?;
    let lease = live(&app, &w, &id).await?;
    let secs = app.config.lease_seconds;
    if !app.db.heartbeat(lease.game.id, &id, secs).await? {
        return Err(not_live(&LeaseState::Expired));
    }
    Ok(axum::Json(json!({ "expires_at": crate::db::now() + secs })).into_response())
}

/// `POST /api/leases/{id}/return`: gives the game back (a worker stopping).
pub async fn give_back(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let w = worker(&app, &headers).await?;
    let lease = live(&app, &w, &id).await?;
    if !app.db.return_lease(lease.game.id, &id).await? {
        return Err(not_live(&LeaseState::Expired));
    }
    app.games_queued.notify_waiters();
    Ok(axum::Json(json!({ "returned": lease.game.id })).into_response())
}

/// The largest record a worker may post.
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// `POST /api/leases/{id}/record`: a `games.jsonl` line's JSON, verified,
/// then stored once under the live lease.
pub async fn record(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let w = worker(&app, &headers).await?;
    let bytes = read_body(body, MAX_RECORD_BYTES).await?;
    let lease = live(&app, &w, &id).await?;
    let g = lease.game.clone();
    let mut names = [String::new(), String::new()];
    for (name, id) in names.iter_mut().zip([g.seat0_version, g.seat1_version]) {
        if let Some(v) = app.fixed.get(&app.db, id).await? {
            name.clone_from(&v.name);
        }
    }
    let opening: Vec<String> = g.opening.split_whitespace().map(str::to_string).collect();
    // The lease's own time control when it was scaled to the worker.
    let mut time = app.config.game.time_control;
    if app.config.scale_to_playouts.is_some() {
        if let Some(text) = app.db.lease_time_control(g.id).await? {
            time = serde_json::from_str(&text).unwrap_or(time);
        }
    }
    // Reading, replaying and writing a long game again is CPU work: off
    // the async threads, in parallel with other records.
    let checked = {
        let game = app.game.clone();
        let (seed, index, pair) = (g.seed as u64, g.id as u64, g.pair_id as u64);
        tokio::task::spawn_blocking(
            move || -> Result<Result<(GameRecord, String), verify::Refusal>, ApiError> {
                let mut de = serde_json::Deserializer::from_slice(&bytes);
                let mut rec: GameRecord =
                    serde_path_to_error::deserialize(&mut de).map_err(|e| {
                        ApiError::new(
                            StatusCode::BAD_REQUEST,
                            "bad_json",
                            format!("{}: {}", e.path(), e.inner()),
                        )
                    })?;
                let expected = Expected {
                    game: &*game,
                    time,
                    opening: &opening,
                    seed,
                    names: [&names[0], &names[1]],
                };
                if let Err(refusal) = verify::verify(&expected, &rec) {
                    return Ok(Err(refusal));
                }
                // The record as the export shows it: the game's ids, no paths
                // of the worker's machine.
                rec.index = index;
                rec.pair = pair;
                rec.round = 0;
                for s in &mut rec.seats {
                    s.log = None;
                    s.transcript = None;
                }
                let text = serde_json::to_string(&rec).expect("records serialize");
                Ok(Ok((rec, text)))
            },
        )
        .await
        .map_err(|e| {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
        })??
    };
    let (rec, text) = match checked {
        Ok(done) => done,
        Err(refusal) => {
            let message = refusal.to_string();
            eprintln!(
                "arena-ladder: worker `{}`: game {}: record refused ({}): {message}",
                w.name,
                g.id,
                refusal.code()
            );
            app.db
                .refuse_record(w.id, g.id, &id, refusal.code(), &message)
                .await?;
            app.games_queued.notify_waiters();
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                refusal.code(),
                format!("the record was refused: {message}; the game is played again"),
            ));
        }
    };
    // The machine is the one stored with the lease when it was taken.
    let stored = app
        .db
        .post_worker_result(
            g.id,
            &id,
            &worker_owner(w.id),
            w.id,
            rec.result.points(0),
            rec.result.as_str(),
            rec.reason.as_str(),
            &text,
        )
        .await?;
    if !stored {
        // It lapsed (or was recorded) while it was being verified.
        let state = app.db.lease_state(&id, &worker_owner(w.id)).await?;
        return Err(not_live(&state));
    }
    app.standing.results_changed();
    app.game_done.notify_one();
    Ok(axum::Json(json!({ "accepted": true, "game": g.id })).into_response())
}

/// `GET /api/versions/{id}/archive`: a version's archive as uploaded, for
/// workers (with a worker token).
pub async fn archive(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    worker(&app, &headers).await?;
    let id: i64 = id.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_id",
            format!("`{}` is not a version id", id.escape_debug()),
        )
    })?;
    let not_found = |m: String| ApiError::new(StatusCode::NOT_FOUND, "not_found", m);
    let v = app
        .db
        .version(id)
        .await?
        .ok_or_else(|| not_found(format!("no version {id}")))?;
    let (kind, path) = app.version_archive(v.bot_id, &v.sha256).ok_or_else(|| {
        not_found(format!(
            "version {id} was uploaded before archives were kept: upload it again"
        ))
    })?;
    let bytes = tokio::fs::read(&path).await.map_err(|e| {
        eprintln!("arena-ladder: {}: {e}", path.display());
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the archive cannot be read",
        )
    })?;
    let ct = match kind {
        crate::archive::ArchiveKind::TarGz => "application/gzip",
        crate::archive::ArchiveKind::Zip => "application/zip",
    };
    Ok(([(header::CONTENT_TYPE, ct)], bytes).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slower_machine_gets_more_time_within_bounds() {
        let tc = TimeControl {
            movetime_ms: Some(100),
            time_ms: Some(10_000),
            inc_ms: 100,
            margin_ms: 50,
            clock: Default::default(),
            ceiling_ms: None,
        };
        let half = scaled_time(tc, 1000.0, 500.0);
        assert_eq!(
            (half.movetime_ms, half.time_ms, half.inc_ms, half.margin_ms),
            (Some(200), Some(20_000), 200, 50)
        );
        assert_eq!(scaled_time(tc, 1000.0, 1000.0), tc);
        assert_eq!(scaled_time(tc, 1000.0, 1.0).movetime_ms, Some(400));
        assert_eq!(scaled_time(tc, 1000.0, 1e9).movetime_ms, Some(25));
        assert_eq!(scaled_time(tc, 1000.0, 0.0), tc);
    }
}
