//! The ladder's web pages, served by the same process as the API: the
//! leaderboard (`/`), a bot's page (`/bots/{name}`), a game's replay
//! (`/games/{id}`), the games in progress (`/live`), uploads (`/submit`)
//! and the organiser's page (`/admin`).
//!
//! Pages are rendered on the server with maud, which escapes every value
//! it is given: a bot's name, `info` line or build log is text, never
//! markup. Tables work without JavaScript; the scripts (files under
//! `/static/`, never inline: the Content-Security-Policy forbids it) only
//! add sorting, the live boards and refreshing. Data a script needs is in
//! a `<script type="application/json">` block, written with arena's
//! `script_safe_json` so that no text can close it.
//!
//! The pages call the same functions as the API's handlers (`api::add_upload`,
//! `api::retire_bot`, ...) and read the same cached standing: one logic,
//! two faces. Signing in is in `session.rs`.

mod admin;
mod bot;
mod game;
mod leaderboard;
mod live;
mod session;
mod submit;

use std::sync::Arc;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use maud::{html, Markup, DOCTYPE};

use crate::api::ApiError;
use crate::app::App;

pub use session::Session;

/// The policy of every page: everything from this origin only, no inline
/// script or style, no framing, forms only to here.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; object-src 'none'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The pages' routes (not part of the API, so not in its OpenAPI document).
pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(leaderboard::page))
        .route("/bots/{name}", get(bot::page))
        .route("/games/{id}", get(game::page))
        .route("/live", get(live::page))
        .route("/live/events", get(live::events))
        .route("/submit", get(submit::page))
        .route("/submit/upload", post(submit::upload))
        .route("/signin", post(session::sign_in))
        .route("/signout", post(session::sign_out))
        .route("/admin", get(admin::page))
        .route("/admin/pause", post(admin::pause))
        .route("/admin/resume", post(admin::resume))
        .route("/admin/retire", post(admin::retire))
        .route("/admin/rebuild", post(admin::rebuild))
        .route("/static/{file}", get(asset))
        .layer(axum::middleware::from_fn(gzip))
}

/// Pages and assets gzipped for browsers that take it: a leaderboard of a
/// thousand bots is mostly repeated markup (docs/performance.md has its
/// weight both ways). The event stream is left alone.
async fn gzip(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let takes_gzip = req
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| e.split(';').next().unwrap_or("").trim() == "gzip");
    let r = next.run(req).await;
    let text = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.starts_with("text/html")
                || ct.starts_with("text/css")
                || ct.starts_with("text/javascript")
        });
    if !takes_gzip || !text || r.headers().contains_key(header::CONTENT_ENCODING) {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    // Pages are made whole in memory already: this reads no stream.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the page could not be sent",
            None,
        );
    };
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let packed = z.write_all(&bytes).and_then(|_| z.finish());
    let Ok(packed) = packed else {
        return Response::from_parts(parts, axum::body::Body::from(bytes));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts
        .headers
        .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    Response::from_parts(parts, axum::body::Body::from(packed))
}

/// The files under `/static/`: (name, content type, text).
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "ladder.css",
        "text/css; charset=utf-8",
        include_str!("assets/ladder.css"),
    ),
    (
        "ladder.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/ladder.js"),
    ),
    (
        "live.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/live.js"),
    ),
    // The HTML report's own style, reused as it is (its script, built with
    // the games' drawers, is `report.js` in `asset`).
    (
        "report.css",
        "text/css; charset=utf-8",
        arena::report::html::CSS,
    ),
];

async fn asset(axum::extract::Path(file): axum::extract::Path<String>) -> Response {
    // The HTML report's own viewer, as the report has it.
    let report_js = (
        "report.js",
        "text/javascript; charset=utf-8",
        arena::report::html::js(),
    );
    let found = ASSETS
        .iter()
        .chain(std::iter::once(&report_js))
        .find(|(name, _, _)| *name == file);
    match found {
        Some((_, ct, text)) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(ct)),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=300"),
                ),
            ],
            *text,
        )
            .into_response(),
        None => error_page(StatusCode::NOT_FOUND, "There is no such file.", None),
    }
}

/// A page: its `<head>`, the navigation and `body`, with the security
/// headers (CSP; no caching of pages that may show a signed-in author's
/// data).
pub fn page(title: &str, who: Option<&Session>, extra_css: &[&str], body: Markup) -> Response {
    page_with_status(StatusCode::OK, title, who, extra_css, body)
}

/// [`page`] with another status (an error page, a refused form).
pub fn page_with_status(
    status: StatusCode,
    title: &str,
    who: Option<&Session>,
    extra_css: &[&str],
    body: Markup,
) -> Response {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · arena ladder" }
                @for css in extra_css {
                    link rel="stylesheet" href={ "/static/" (css) };
                }
                link rel="stylesheet" href="/static/ladder.css";
            }
            body {
                header class="site" {
                    nav aria-label="site" {
                        a href="/" class="brand" { "arena ladder" }
                        a href="/live" { "live games" }
                        a href="/submit" { "submit a bot" }
                        @if who.is_some_and(|s| s.author.is_admin) {
                            a href="/admin" { "organiser" }
                        }
                        @if let Some(s) = who {
                            span class="who" { "signed in as " strong { (s.author.name) } }
                        }
                    }
                }
                main id="main" { (body) }
            }
        }
    };
    let mut r = (status, Html(markup.into_string())).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// An error as a page (the API answers JSON; a person reads this).
pub fn error_page(status: StatusCode, message: &str, who: Option<&Session>) -> Response {
    page_with_status(
        status,
        status.canonical_reason().unwrap_or("error"),
        who,
        &[],
        html! {
            h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or("")) }
            p class="error" role="alert" { (message) }
            p { a href="/" { "Back to the leaderboard" } }
        },
    )
}

/// A page handler's result: a page, or an error page.
pub type PageResult = Result<Response, PageError>;

/// An error shown as a page.
#[derive(Debug)]
pub struct PageError(pub ApiError);

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> PageError {
        PageError(e)
    }
}

impl From<crate::db::DbError> for PageError {
    fn from(e: crate::db::DbError) -> PageError {
        PageError(ApiError::from(e))
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        error_page(self.0.status(), self.0.message(), None)
    }
}

/// A time (seconds since the epoch) as UTC text, `2026-12-03 14:05`.
pub fn when(at: i64) -> String {
    let days = at.div_euclid(86_400);
    let secs = at.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// What the rating columns mean, said under the leaderboard and on bot
/// pages.
pub fn rating_help() -> Markup {
    html! {
        details class="help" {
            summary { "What the numbers mean" }
            dl {
                dt { "Rating" }
                dd { "A Glicko-2 rating computed from every finished game: about 1500 for a new bot; "
                     "a bot 200 points above another is expected to score about 76% against it." }
                dt { "± deviation" }
                dd { "Glicko-2's rating deviation: how unsure the rating still is. The true strength "
                     "is within about twice the deviation of the rating, 95 times out of 100. It shrinks "
                     "as the bot plays, and grows back a little when a new version replaces the old." }
                dt { "Interval" }
                dd { "A 95% interval from a Bradley-Terry fit of all games (with the seat advantage), "
                     "when the games can bound it; a narrower interval means a surer place." }
                dt { "provisional" }
                dd { "A bot with fewer games than the ladder's provisional count: its rating may still move a lot." }
                dt { "new" }
                dd { "A version that joined the ladder in the last day." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_utc() {
        assert_eq!(when(0), "1970-01-01 00:00");
        assert_eq!(when(1_796_307_900), "2026-12-03 14:25");
        assert_eq!(when(951_782_400), "2000-02-29 00:00");
    }

    /// The game pages' report.js is the report's, with the games' drawers
    /// put in (not the bare asset, whose boards are empty).
    #[tokio::test]
    async fn report_js_is_served_with_the_games_drawers() {
        let res = asset(axum::extract::Path("report.js".to_string())).await;
        assert_eq!(res.status(), StatusCode::OK);
        let body = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(body, arena::report::html::js().as_bytes());
        assert!(arena::report::html::js().contains("DRAWERS[\"dakon\"] = ("));
        let res = asset(axum::extract::Path("nope.js".to_string())).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
    }
}
