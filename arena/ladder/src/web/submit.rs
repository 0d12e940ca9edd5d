//! `/submit`: sign in with an author token, upload a bot's archive through
//! a form (the API's `add_upload`, the same checks and messages), and
//! follow the author's bots: each version's status, its reason when it
//! failed, and its build and check logs, refreshed while the page is open.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};

use super::{session, when, Session};
use crate::api::{self, ApiError, NAME_RULE};
use crate::app::App;
use crate::archive::ArchiveKind;
use crate::standing::version_name;

/// The sign-in form, with `error` said above it.
fn sign_in_form(error: Option<&str>) -> Markup {
    html! {
        h1 { "Submit a bot" }
        @if let Some(e) = error { p class="error" role="alert" id="form-error" { (e) } }
        p { "Sign in with the author token the organisers gave you. It is sent once, in this form; "
            "the site then keeps a session cookie (never the token)." }
        form method="post" action="/signin" class="stack" {
            label for="token" { "Author token" }
            input id="token" name="token" type="password" autocomplete="current-password" required;
            button type="submit" { "Sign in" }
        }
    }
}

/// The submit page for someone not signed in.
pub(super) fn signed_out(status: StatusCode, error: Option<&str>) -> Response {
    super::page_with_status(status, "Submit a bot", None, &[], sign_in_form(error))
}

pub(super) async fn page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match session::current(&app, &headers).await {
        Ok(Some(s)) => signed_in(&app, &s, StatusCode::OK, None).await,
        Ok(None) => signed_out(StatusCode::OK, None),
        Err(e) => {
            let e = ApiError::from(e);
            super::error_page(e.status(), e.message(), None)
        }
    }
}

/// The page of a signed-in author, with `error` (a refused upload) on top.
async fn signed_in(app: &App, s: &Session, status: StatusCode, error: Option<&str>) -> Response {
    let bots = match my_bots(app, s).await {
        Ok(m) => m,
        Err(e) => return super::error_page(e.status(), e.message(), Some(s)),
    };
    let max = app.config.uploads.max_compressed_bytes;
    let body = html! {
        h1 { "Submit a bot" }
        @if let Some(e) = error { p class="error" role="alert" id="form-error" { (e) } }
        form method="post" action="/submit/upload" enctype="multipart/form-data" class="stack" id="upload" {
            input type="hidden" name="csrf" value=(s.csrf);
            label for="bot" { "Bot name" }
            input id="bot" name="bot" type="text" required maxlength="32" pattern="[A-Za-z0-9][A-Za-z0-9_-]{0,31}"
                aria-describedby="bot-rule";
            small id="bot-rule" class="muted" { (NAME_RULE) ". A new name makes a new bot; one of yours, a new version of it." }
            label for="archive" { "Archive (.tar.gz or .zip, at most " (max) " bytes, with arena-bot.toml at its top)" }
            input id="archive" name="archive" type="file" required accept=".tar.gz,.tgz,.zip,application/gzip,application/zip";
            button type="submit" { "Upload" }
        }
        section {
            h2 { "Your bots" }
            div id="my-bots" data-refresh="3" { (bots) }
        }
        form method="post" action="/signout" {
            input type="hidden" name="csrf" value=(s.csrf);
            button type="submit" class="link" { "Sign out" }
        }
        script src="/static/ladder.js" defer {}
    };
    super::page_with_status(status, "Submit a bot", Some(s), &[], body)
}

/// The author's bots, each version's status and logs.
async fn my_bots(app: &App, s: &Session) -> Result<Markup, ApiError> {
    let mut out = Vec::new();
    for (id, name, retired) in app.db.bots_of(s.author.id).await? {
        out.push((name, retired, app.db.versions_of(id).await?));
    }
    Ok(html! {
        @if out.is_empty() { p class="muted" { "None yet." } }
        @for (name, retired, versions) in &out {
            article class="my-bot" data-bot=(name) {
                h3 { a href={ "/bots/" (name) } { (name) } @if retired.is_some() { " (retired)" } }
                ul class="versions" {
                    @for v in versions {
                        li data-version=(v.id) {
                            strong { (version_name(&v.bot, v.seq)) } " "
                            span class={ "status " (v.status) } { (v.status) }
                            " uploaded " (when(v.created_at)) " UTC"
                            @if let Some(r) = &v.reason { div class="reason" { (r) } }
                            details {
                                summary { "Build and check logs" }
                                pre class="log build-log" { (v.build_log.as_deref().unwrap_or("(no build log yet)")) }
                                pre class="log check-log" { (v.check_log.as_deref().unwrap_or("(no check log yet)")) }
                            }
                        }
                    }
                }
            }
        }
    })
}

/// What the upload form sent.
#[derive(Default)]
struct UploadForm {
    csrf: String,
    bot: String,
    archive: Option<Bytes>,
}

/// Reads the form, the archive at most `limit` bytes (413 past it).
async fn read_form(mut m: Multipart, limit: u64) -> Result<UploadForm, ApiError> {
    let bad = |msg: String| ApiError::new(StatusCode::BAD_REQUEST, "bad_form", msg);
    let mut form = UploadForm::default();
    while let Some(mut field) = m
        .next_field()
        .await
        .map_err(|e| bad(format!("the form could not be read: {e}")))?
    {
        let name = field.name().unwrap_or("").to_string();
        // Text fields are short; the archive is bounded by the ladder's limit.
        let cap = if name == "archive" { limit } else { 4096 };
        let mut buf = Vec::new();
        while let Some(chunk) = field
            .chunk()
            .await
            .map_err(|e| bad(format!("the form could not be read: {e}")))?
        {
            if (buf.len() + chunk.len()) as u64 > cap {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "too_large",
                    format!("the {name} field is larger than {cap} bytes"),
                ));
            }
            buf.extend_from_slice(&chunk);
        }
        match name.as_str() {
            "csrf" => form.csrf = String::from_utf8_lossy(&buf).into_owned(),
            "bot" => form.bot = String::from_utf8_lossy(&buf).trim().to_string(),
            "archive" => form.archive = Some(Bytes::from(buf)),
            _ => {}
        }
    }
    Ok(form)
}

/// An archive's kind from its first bytes (a browser's idea of a file's
/// type is not to be relied on).
fn kind_of(bytes: &[u8]) -> Option<ArchiveKind> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        Some(ArchiveKind::TarGz)
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some(ArchiveKind::Zip)
    } else {
        None
    }
}

pub(super) async fn upload(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    // Who first (a stranger's upload is not read), then the form.
    if let Err(e) = session::same_origin(&headers) {
        return super::error_page(e.status(), e.message(), None);
    }
    let s = match session::current(&app, &headers).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return signed_out(
                StatusCode::UNAUTHORIZED,
                Some("you are not signed in (or your session ended): sign in, then upload again"),
            )
        }
        Err(e) => {
            let e = ApiError::from(e);
            return super::error_page(e.status(), e.message(), None);
        }
    };
    let (app, s) = (&*app, &s);
    let refused =
        move |e: ApiError| async move { signed_in(app, s, e.status(), Some(e.message())).await };
    let Ok(m) = form else {
        return refused(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_form",
            "the form must be sent as multipart/form-data",
        ))
        .await;
    };
    let form = match read_form(m, app.config.uploads.max_compressed_bytes).await {
        Ok(f) => f,
        Err(e) => return refused(e).await,
    };
    if session::for_post(app, &headers, &form.csrf).await.is_err() {
        return refused(ApiError::new(
            StatusCode::FORBIDDEN,
            "csrf",
            "this form is stale or did not come from this site: reload the page and try again",
        ))
        .await;
    }
    let result = async {
        api::may_upload(app, &s.author, &form.bot).await?;
        let bytes = form
            .archive
            .clone()
            .filter(|b| !b.is_empty())
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_form",
                    "choose an archive to upload",
                )
            })?;
        let kind = kind_of(&bytes).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "bad_archive",
                "the file is neither a .tar.gz nor a .zip",
            )
        })?;
        api::add_upload(app, &s.author, &form.bot, kind, bytes).await
    }
    .await;
    match result {
        // See the page (and its status) rather than a form to send again.
        Ok(_) => Redirect::to("/submit").into_response(),
        Err(e) => refused(e).await,
    }
}
