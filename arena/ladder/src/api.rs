//! The HTTP API (`/api/...`): JSON in, JSON out, errors as
//! `{ "error": { "code": "...", "message": "..." } }` with a 4xx status
//! for every bad input. Bodies are read here with a bound (never by an
//! extractor that answers in plain text), JSON bodies refuse unknown
//! fields, and names are checked against [`NAME_RULE`]. Handlers never
//! write SQL: they call [`crate::db::Db`].

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::app::App;
use crate::archive::{self, ArchiveKind, ArchiveLimits};
use crate::db::{Author, Version};
use crate::standing;
use crate::worker_api;

/// What a bot or author name must be, as users read it in errors.
pub const NAME_RULE: &str =
    "1 to 32 characters: ASCII letters, digits, `-` and `_`, starting with a letter or digit";

/// Whether `name` follows [`NAME_RULE`].
pub fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_')
}

/// An API error: HTTP status, a stable code, and a message for people.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// An error with this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
    /// Its HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
    /// Its message, for people.
    pub fn message(&self) -> &str {
        &self.message
    }
    fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    fn not_found(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    fn forbidden(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": { "code": self.code, "message": self.message } });
        (self.status, axum::Json(body)).into_response()
    }
}

impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> ApiError {
        // The server's own trouble: logged in full, shown in short.
        eprintln!("arena-ladder: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "database",
            "the database could not answer; try again",
        )
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// Every route the server answers, as (method, path) in the router's
/// syntax: the OpenAPI document must list exactly these (a test checks).
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/api/health"),
    ("get", "/api/openapi.json"),
    ("get", "/api/leaderboard"),
    ("get", "/api/bots/{name}"),
    ("post", "/api/bots/{name}/versions"),
    ("post", "/api/bots/{name}/retire"),
    ("post", "/api/versions/{id}/rebuild"),
    ("post", "/api/admin/pause"),
    ("post", "/api/admin/resume"),
    ("get", "/api/games/{id}"),
    ("get", "/api/games.jsonl"),
    ("get", "/api/games.csv"),
    ("post", "/api/leases"),
    ("post", "/api/leases/{id}/heartbeat"),
    ("post", "/api/leases/{id}/record"),
    ("post", "/api/leases/{id}/return"),
    ("get", "/api/versions/{id}/archive"),
];

/// The OpenAPI document served at `/api/openapi.json`.
pub const OPENAPI: &str = include_str!("../openapi.json");

/// The router, over the shared state.
pub fn router(app: Arc<App>) -> Router {
    let warning = app.warning.clone();
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/bots/{name}", get(bot))
        .route("/api/bots/{name}/versions", post(upload))
        .route("/api/bots/{name}/retire", post(retire))
        .route("/api/versions/{id}/rebuild", post(rebuild))
        .route("/api/admin/pause", post(pause))
        .route("/api/admin/resume", post(resume))
        .route("/api/games/{id}", get(game))
        .route("/api/games.jsonl", get(games_jsonl))
        .route("/api/games.csv", get(games_csv))
        .route("/api/leases", post(worker_api::take))
        .route("/api/leases/{id}/heartbeat", post(worker_api::heartbeat))
        .route("/api/leases/{id}/record", post(worker_api::record))
        .route("/api/leases/{id}/return", post(worker_api::give_back))
        .route("/api/versions/{id}/archive", get(worker_api::archive))
        .merge(crate::web::router())
        .fallback(|| async { ApiError::not_found("no such route (see /api/openapi.json)") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "this route does not take that method (see /api/openapi.json)",
            )
        })
        .layer(axum::middleware::map_response(move |mut r: Response| {
            let warning = warning.clone();
            async move {
                let h = r.headers_mut();
                h.insert(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                );
                // Pages set their own (crate::web); the API's loads nothing.
                if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
                    h.insert(
                        header::CONTENT_SECURITY_POLICY,
                        HeaderValue::from_static("default-src 'none'"),
                    );
                }
                if let Some(w) = &warning {
                    if let Ok(v) = HeaderValue::from_str(w) {
                        h.insert("arena-warning", v);
                    }
                }
                r
            }
        }))
        // Bodies are read by the handlers with their own bound.
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(app)
}

/// Reads a body of at most `limit` bytes; more is a 413 that says the limit.
pub(crate) async fn read_body(body: Body, limit: u64) -> ApiResult<Bytes> {
    axum::body::to_bytes(body, limit as usize)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("the request body is larger than {limit} bytes"),
            )
        })
}

/// A JSON body with no unknown fields; an empty body is `{}`.
pub(crate) async fn read_json<T: for<'de> Deserialize<'de>>(
    headers: &HeaderMap,
    body: Body,
) -> ApiResult<T> {
    let bytes = read_body(body, 64 << 10).await?;
    let bytes: &[u8] = if bytes.is_empty() { b"{}" } else { &bytes };
    if bytes != b"{}" {
        let ct = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ct.starts_with("application/json") {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "content_type",
                format!(
                    "expected Content-Type: application/json, got `{}`",
                    ct.escape_debug()
                ),
            ));
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| ApiError::bad("bad_json", format!("{}: {}", e.path(), e.inner())))
}

/// The author a `Bearer` token names; 401 without one or with a bad one.
/// The token itself never reaches a log or a message.
async fn author(app: &App, headers: &HeaderMap) -> ApiResult<Author> {
    let unauthorized = |m: &str| ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", m);
    let text = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| unauthorized("this needs `Authorization: Bearer TOKEN`"))?;
    let token = text
        .strip_prefix("Bearer ")
        .ok_or_else(|| unauthorized("the Authorization header must be `Bearer TOKEN`"))?;
    author_by_token(app, token).await
}

/// The author an author token names (the API's `Bearer` header, the web
/// pages' sign-in form); 401 for a wrong, malformed or revoked one.
pub async fn author_by_token(app: &App, token: &str) -> ApiResult<Author> {
    let unauthorized = |m: &str| ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", m);
    let bad = || unauthorized("the token is not valid (wrong, malformed or revoked)");
    let (id, secret) = crate::token::parse(token.trim()).ok_or_else(bad)?;
    let (author, salt, hash) = app.db.author_credentials(id).await?.ok_or_else(bad)?;
    if !crate::token::verify(&salt, &hash, secret) {
        return Err(bad());
    }
    Ok(author)
}

async fn admin(app: &App, headers: &HeaderMap) -> ApiResult<Author> {
    let a = author(app, headers).await?;
    if !a.is_admin {
        return Err(ApiError::forbidden("only an organiser (admin) may do this"));
    }
    Ok(a)
}

fn checked_name(name: &str, what: &str) -> ApiResult<()> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(ApiError::bad(
            "bad_name",
            format!(
                "{what} `{}` is not a valid name: {NAME_RULE}",
                name.escape_debug()
            ),
        ))
    }
}

fn json_ok(value: Value) -> Response {
    axum::Json(value).into_response()
}

async fn health(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let counts = app.db.game_counts().await?;
    let n = |s: &str| counts.get(s).copied().unwrap_or(0);
    Ok(json_ok(json!({
        "status": "ok",
        "game": app.config.game.game,
        "schema_version": app.db.schema_version().await?,
        "paused": app.paused().await?,
        "sandbox": app.sandbox_name(),
        "games": { "queued": n("queued"), "leased": n("leased"), "done": n("done") },
        "leaderboard": app.standing.peek().map(|s| json!({
            "computed_at": s.computed_at,
            "games": s.games,
        })),
        "warning": app.warning,
    })))
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// A version as the API shows it; its logs only to its author or an admin.
fn version_json(v: &Version, with_logs: bool) -> Value {
    let mut o = json!({
        "id": v.id,
        "seq": v.seq,
        "sha256": v.sha256,
        "status": v.status,
        "reason": v.reason,
        "command": serde_json::from_str::<Value>(&v.command).unwrap_or(Value::Null),
        "limits": serde_json::from_str::<Value>(&v.limits).unwrap_or(Value::Null),
        "created_at": v.created_at,
        "active_at": v.active_at,
    });
    if with_logs {
        o["build_log"] = json!(v.build_log);
        o["check_log"] = json!(v.check_log);
    }
    o
}

async fn upload(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let who = author(&app, &headers).await?;
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let kind = ArchiveKind::from_content_type(ct).ok_or_else(|| {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content_type",
            format!(
                "expected Content-Type: application/gzip (a .tar.gz) or application/zip, got `{}`",
                ct.escape_debug()
            ),
        )
    })?;
    // The name is checked before the body is read: a stranger's bot name
    // costs nothing, their archive a bounded read.
    may_upload(&app, &who, &name).await?;
    let bytes = read_body(body, app.config.uploads.max_compressed_bytes).await?;
    let up = add_upload(&app, &who, &name, kind, bytes).await?;
    let status = if up.new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut body = version_json(&up.version, true);
    body["bot"] = json!(name);
    body["new"] = json!(up.new);
    body["files"] = json!(up.files);
    body["bytes"] = json!(up.bytes);
    Ok((status, axum::Json(body)).into_response())
}

/// Whether `who` may upload a version of bot `name`: a valid name, new or
/// theirs, not retired.
pub async fn may_upload(app: &App, who: &Author, name: &str) -> ApiResult<()> {
    checked_name(name, "bot")?;
    if let Some((_, owner, retired)) = app.db.bot(name).await? {
        if owner != who.name {
            return Err(ApiError::forbidden(format!(
                "bot `{name}` belongs to another author"
            )));
        }
        if retired.is_some() {
            return Err(ApiError::forbidden(format!("bot `{name}` was retired")));
        }
    }
    Ok(())
}

/// An upload stored: its version, whether it is new, and what it unpacked to.
pub struct Uploaded {
    /// The version (new, or the one with the same content).
    pub version: Version,
    /// Whether it was added now (else the same content was there).
    pub new: bool,
    /// Files unpacked.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// Unpacks, checks and stores an upload of bot `name` by `who` (after
/// [`may_upload`]), and queues its build: the API's and the submit page's
/// one way in.
pub async fn add_upload(
    app: &App,
    who: &Author,
    name: &str,
    kind: ArchiveKind,
    bytes: Bytes,
) -> ApiResult<Uploaded> {
    checked_name(name, "bot")?;
    let limits = &app.config.uploads;
    if bytes.len() as u64 > limits.max_compressed_bytes {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!(
                "the archive is larger than {} bytes",
                limits.max_compressed_bytes
            ),
        ));
    }
    let staged = app.staging_dir()?;
    let dest = staged.path().join("bot");
    let archive_limits = ArchiveLimits {
        max_compressed: limits.max_compressed_bytes,
        max_unpacked: limits.max_unpacked_bytes,
        max_files: limits.max_files,
        max_path: limits.max_path,
    };
    let raw = bytes.clone();
    let unpacked = {
        let dest = dest.clone();
        tokio::task::spawn_blocking(move || archive::unpack(&bytes, kind, &archive_limits, &dest))
            .await
            .map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
            })?
            .map_err(|e| match e {
                archive::ArchiveError::Io { .. } => {
                    eprintln!("arena-ladder: unpacking an upload: {e}");
                    ApiError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        "could not store the upload",
                    )
                }
                archive::ArchiveError::TooLarge { .. } => {
                    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", e.to_string())
                }
                _ => ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "bad_archive",
                    e.to_string(),
                ),
            })?
    };
    let manifest = archive::read_manifest(&dest, &app.config.limits).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_manifest",
            e.to_string(),
        )
    })?;
    let (bot, owner) = app.db.bot_for(name, who.id).await?;
    if owner != who.id {
        // Someone else took the name between our look and our write.
        return Err(ApiError::forbidden(format!(
            "bot `{name}` belongs to another author"
        )));
    }
    let command = serde_json::to_string(&manifest.command).expect("strings serialize");
    let limits_json = serde_json::to_string(&manifest.limits).expect("limits serialize");
    app.store_version(
        bot,
        &unpacked.sha256,
        &dest,
        manifest.build.as_deref(),
        (kind, &raw),
    )?;
    let (version, new) = app
        .db
        .add_version(bot, &unpacked.sha256, &command, &limits_json)
        .await?;
    if new {
        app.builds.notify_one();
    }
    Ok(Uploaded {
        version,
        new,
        files: unpacked.files,
        bytes: unpacked.bytes,
    })
}

async fn bot(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    checked_name(&name, "bot")?;
    let (id, owner, retired) = app
        .db
        .bot(&name)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot `{name}`")))?;
    // Logs are for the author (and admins); anyone may read the rest.
    let with_logs = if headers.contains_key(header::AUTHORIZATION) {
        let who = author(&app, &headers).await?;
        who.is_admin || who.name == owner
    } else {
        false
    };
    let versions = app.db.versions_of(id).await?;
    let mine: Vec<i64> = versions.iter().map(|v| v.id).collect();
    let names = standing::version_names(&app.db).await?;
    let s = app.standing.current().await;
    let results: Vec<Value> = standing::bot_results(&s, &mine)
        .iter()
        .map(|(other, [w, d, l])| {
            let opp = names
                .get(other)
                .cloned()
                .unwrap_or_else(|| other.to_string());
            json!({ "opponent": opp, "wins": w, "draws": d, "losses": l })
        })
        .collect();
    Ok(json_ok(json!({
        "bot": name,
        "author": owner,
        "retired_at": retired,
        "versions": versions.iter().map(|v| version_json(v, with_logs)).collect::<Vec<_>>(),
        "results": results,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn retire(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    admin(&app, &headers).await?;
    let _: Empty = read_json(&headers, body).await?;
    retire_bot(&app, &name).await?;
    Ok(json_ok(json!({ "bot": name, "retired": true })))
}

/// Retires bot `name` (an admin's doing; the caller checked): off the
/// leaderboard by the time this returns.
pub async fn retire_bot(app: &App, name: &str) -> ApiResult<()> {
    checked_name(name, "bot")?;
    let (id, _, _) = app
        .db
        .bot(name)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot `{name}`")))?;
    app.db.retire_bot(id).await?;
    app.standing
        .refresh(&app.db, &app.rating_settings())
        .await?;
    Ok(())
}

async fn rebuild(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    admin(&app, &headers).await?;
    let _: Empty = read_json(&headers, body).await?;
    let id: i64 = id.parse().map_err(|_| {
        ApiError::bad(
            "bad_id",
            format!("`{}` is not a version id", id.escape_debug()),
        )
    })?;
    rebuild_version(&app, id).await?;
    Ok(json_ok(json!({ "version": id, "status": "queued" })))
}

/// Queues version `id` to be built and checked again (an admin's doing;
/// the caller checked); 409 while it is being built or checked.
pub async fn rebuild_version(app: &App, id: i64) -> ApiResult<()> {
    app.db
        .version(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no version {id}")))?;
    if !app.db.rebuild(id).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "busy",
            format!("version {id} is being built or checked already"),
        ));
    }
    app.builds.notify_one();
    // A version built again leaves the leaderboard until it passes again.
    app.standing
        .refresh(&app.db, &app.rating_settings())
        .await?;
    Ok(())
}

async fn pause(State(app): State<Arc<App>>, headers: HeaderMap, body: Body) -> ApiResult<Response> {
    admin(&app, &headers).await?;
    let _: Empty = read_json(&headers, body).await?;
    set_paused(&app, true).await?;
    Ok(json_ok(json!({ "paused": true })))
}

async fn resume(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    admin(&app, &headers).await?;
    let _: Empty = read_json(&headers, body).await?;
    set_paused(&app, false).await?;
    Ok(json_ok(json!({ "paused": false })))
}

/// Pauses or resumes the ladder (an admin's doing; the caller checked).
pub async fn set_paused(app: &App, paused: bool) -> ApiResult<()> {
    app.db
        .set_state("paused", if paused { "true" } else { "false" })
        .await?;
    Ok(())
}

fn parse_id(text: &str) -> ApiResult<i64> {
    text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
        ApiError::bad(
            "bad_id",
            format!("`{}` is not a game id", text.escape_debug()),
        )
    })
}

async fn game(State(app): State<Arc<App>>, Path(id): Path<String>) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let g = app
        .db
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
    let record = match app.db.game_record(id).await? {
        Some(text) => serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
        None => Value::Null,
    };
    let names = standing::version_names(&app.db).await?;
    let mut o = serde_json::to_value(&g).expect("games serialize");
    o["seat0"] = json!(names.get(&g.seat0_version));
    o["seat1"] = json!(names.get(&g.seat1_version));
    o["record"] = record;
    // A game a remote worker played names it and the machine it reported.
    if let Some((worker, machine)) = app.db.game_worker(id).await? {
        o["worker"] = json!(worker);
        o["machine"] = machine
            .and_then(|m| serde_json::from_str::<Value>(&m).ok())
            .unwrap_or(Value::Null);
    }
    Ok(json_ok(o))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Since {
    #[serde(default)]
    since: i64,
    limit: Option<i64>,
}

/// Records one export answers at most (page on with `since`).
const EXPORT_PAGE: i64 = 100_000;

async fn export_records(app: &App, q: &Since) -> ApiResult<Vec<arena_core::record::GameRecord>> {
    let limit = q.limit.unwrap_or(EXPORT_PAGE).clamp(1, EXPORT_PAGE);
    let rows = app.db.records_since(q.since.max(0), limit).await?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, text) in rows {
        let r = serde_json::from_str(&text).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("game {id}: stored record does not read: {e}"),
            )
        })?;
        out.push(r);
    }
    Ok(out)
}

fn since_of(q: Result<Query<Since>, axum::extract::rejection::QueryRejection>) -> ApiResult<Since> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError::bad("bad_query", e.body_text()))
}

async fn games_jsonl(
    State(app): State<Arc<App>>,
    q: Result<Query<Since>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = since_of(q)?;
    let mut body = Vec::new();
    for r in export_records(&app, &q).await? {
        body.extend(arena::store::jsonl_line(&r));
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

async fn games_csv(
    State(app): State<Arc<App>>,
    q: Result<Query<Since>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = since_of(q)?;
    let records = export_records(&app, &q).await?;
    let refs: Vec<&arena_core::record::GameRecord> = records.iter().collect();
    let body = arena::store::csv_bytes(&refs, true);
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response())
}

/// One row of `GET /api/leaderboard`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoardRow {
    /// 1 is the best.
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// Its author's name.
    pub author: String,
    /// The active version's number (`seq`, 1, 2, ...).
    pub version: i64,
    /// The active version's id (as in games).
    pub version_id: i64,
    /// Glicko-2 rating.
    pub rating: f64,
    /// Glicko-2 rating deviation.
    pub deviation: f64,
    /// Bradley-Terry Elo and its interval, when fitted.
    pub bt_elo: Option<f64>,
    /// Interval `[low, high]` of the Bradley-Terry Elo.
    pub interval: Option<[f64; 2]>,
    /// Games of this version.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Id of its last game.
    pub last_game: Option<i64>,
    /// When this version joined the ladder (seconds since the epoch).
    pub active_at: Option<i64>,
}

/// The cached standing (never computed here): the array of rows, with
/// when it was computed and from how many games in the headers
/// `Arena-Computed-At` and `Arena-Games` (also in `/api/health`).
async fn leaderboard(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let s = app.standing.current().await;
    let mut r = json_ok(serde_json::to_value(&s.rows).expect("rows serialize"));
    let h = r.headers_mut();
    h.insert("arena-computed-at", HeaderValue::from(s.computed_at));
    h.insert("arena-games", HeaderValue::from(s.games));
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_documented_rule() {
        for ok in ["a", "Alpha-2", "x_y", "9lives", &"a".repeat(32)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "_a",
            "a b",
            "a\u{7}",
            "a\u{202e}b",
            "é",
            "a/b",
            "a.b",
            &"a".repeat(33),
        ] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }

    /// Every route of the router is in the OpenAPI document, and every
    /// path of the document is a route.
    #[test]
    fn the_openapi_document_lists_exactly_the_routes() {
        let doc: Value = serde_json::from_str(OPENAPI).unwrap();
        let mut documented = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                documented.push((method.clone(), path.clone()));
            }
        }
        documented.sort();
        let mut routed: Vec<(String, String)> = ROUTES
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        routed.sort();
        assert_eq!(documented, routed);
        // And the router serves what ROUTES says (the source is the check:
        // each ROUTES entry appears as a `.route(` call).
        let src = include_str!("api.rs");
        let calls = src.matches("        .route(\"/api/").count();
        let distinct_paths: std::collections::BTreeSet<&str> =
            ROUTES.iter().map(|(_, p)| *p).collect();
        assert_eq!(calls, distinct_paths.len());
        for p in distinct_paths {
            assert!(
                src.contains(&format!(".route(\"{p}\"")),
                "{p} is not routed"
            );
        }
    }
}
