//! Signing in on the pages: an author types their token once into the
//! submit page's form (a POST body, never a URL), and gets a session
//! cookie: `AUTHOR_ID.EXPIRY.MAC`, where MAC is an HMAC-SHA256 of the rest
//! under a server secret kept in `ladder_state` (so no sessions table, and
//! a server restart keeps everyone signed in). The cookie is `HttpOnly`,
//! `SameSite=Strict`, and `Secure` when the request came over TLS (a proxy
//! in front says `X-Forwarded-Proto: https`). The author is read again on
//! every request, so revoking their token ends their sessions at once.
//!
//! Every form that changes something carries a CSRF token bound to the
//! session (an HMAC of the cookie), checked on POST, and every POST must
//! come from this origin (`Origin` and `Sec-Fetch-Site`, which browsers
//! send).

use std::sync::Arc;

use axum::extract::{Form, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::api::{self, ApiError};
use crate::app::App;
use crate::db::{Author, DbError};

/// The cookie's name.
const COOKIE: &str = "arena_session";

/// How long a session lasts.
const LIFETIME_SECS: i64 = 7 * 86_400;

/// The `ladder_state` key of the secret sessions are signed with.
const SECRET_KEY: &str = "web_session_secret";

/// A signed-in author and the CSRF token of their session.
#[derive(Clone, Debug)]
pub struct Session {
    /// The author, read from the database on this request.
    pub author: Author,
    /// What every form of this session must send back.
    pub csrf: String,
}

/// The server's secret (made on first use; two servers starting at once
/// on one database agree, as only the first insert is kept).
async fn secret(app: &App) -> Result<Vec<u8>, DbError> {
    if let Some(s) = app.db.state(SECRET_KEY).await? {
        if let Ok(bytes) = hex::decode(&s) {
            return Ok(bytes);
        }
    }
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).expect("the system's random source");
    let kept = app
        .db
        .state_or_insert(SECRET_KEY, &hex::encode(fresh))
        .await?;
    Ok(hex::decode(kept).unwrap_or_else(|_| fresh.to_vec()))
}

fn mac(secret: &[u8], what: &str) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key");
    m.update(what.as_bytes());
    hex::encode(m.finalize().into_bytes())
}

fn cookie_value(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// The session the request's cookie names, if it is valid, unexpired and
/// its author not revoked.
pub async fn current(app: &App, headers: &HeaderMap) -> Result<Option<Session>, DbError> {
    let Some(value) = cookie_value(headers) else {
        return Ok(None);
    };
    let mut parts = value.splitn(3, '.');
    let (Some(id), Some(expiry), Some(given)) = (parts.next(), parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (Ok(id), Ok(expiry)) = (id.parse::<i64>(), expiry.parse::<i64>()) else {
        return Ok(None);
    };
    if expiry < crate::db::now() {
        return Ok(None);
    }
    let secret = secret(app).await?;
    let expected = mac(&secret, &format!("{id}.{expiry}"));
    if !bool::from(expected.as_bytes().ct_eq(given.as_bytes())) {
        return Ok(None);
    }
    // Revoked authors are not found here.
    let Some((author, _, _)) = app.db.author_credentials(id).await? else {
        return Ok(None);
    };
    Ok(Some(Session {
        author,
        csrf: mac(&secret, &format!("csrf:{value}")),
    }))
}

/// The request's session, which a POST must have, with its CSRF token
/// checked and its origin this server; an error page's error otherwise.
pub async fn for_post(app: &App, headers: &HeaderMap, csrf: &str) -> Result<Session, ApiError> {
    same_origin(headers)?;
    let s = current(app, headers).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "you are not signed in (or your session ended): sign in on the submit page",
        )
    })?;
    if !bool::from(s.csrf.as_bytes().ct_eq(csrf.as_bytes())) {
        return Err(csrf_refused());
    }
    Ok(s)
}

fn csrf_refused() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "csrf",
        "this form is stale or did not come from this site: reload the page and try again",
    )
}

/// Refuses a POST that a browser says came from another site.
pub fn same_origin(headers: &HeaderMap) -> Result<(), ApiError> {
    let get = |h: &str| headers.get(h).and_then(|v| v.to_str().ok());
    if let Some(site) = get("sec-fetch-site") {
        if site != "same-origin" && site != "none" {
            return Err(csrf_refused());
        }
    }
    if let (Some(origin), Some(host)) = (get("origin"), get("host")) {
        let origin_host = origin.split_once("://").map_or(origin, |(_, h)| h);
        if origin_host != host {
            return Err(csrf_refused());
        }
    }
    Ok(())
}

/// Whether the request came over TLS (as a proxy in front tells).
fn over_tls(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

fn set_cookie(headers: &HeaderMap, value: &str, max_age: i64) -> HeaderValue {
    let secure = if over_tls(headers) { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}"
    ))
    .expect("a cookie of digits, dots and hex")
}

#[derive(Deserialize)]
pub(super) struct SignIn {
    token: String,
}

/// `POST /signin`: the token checked as the API checks it; a session
/// cookie and back to the submit page, or the page again with the reason.
pub(super) async fn sign_in(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: Result<Form<SignIn>, axum::extract::rejection::FormRejection>,
) -> Response {
    if let Err(e) = same_origin(&headers) {
        return super::error_page(e.status(), e.message(), None);
    }
    let Ok(Form(form)) = form else {
        return super::submit::signed_out(StatusCode::BAD_REQUEST, Some("the form was incomplete"));
    };
    let author = match api::author_by_token(&app, form.token.trim()).await {
        Ok(a) => a,
        Err(e) => return super::submit::signed_out(e.status(), Some(e.message())),
    };
    let secret = match secret(&app).await {
        Ok(s) => s,
        Err(e) => {
            let e = ApiError::from(e);
            return super::error_page(e.status(), e.message(), None);
        }
    };
    let expiry = crate::db::now() + LIFETIME_SECS;
    let body = format!("{}.{expiry}", author.id);
    let value = format!("{body}.{}", mac(&secret, &body));
    let mut r = Redirect::to("/submit").into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        set_cookie(&headers, &value, LIFETIME_SECS),
    );
    r
}

#[derive(Deserialize)]
pub(super) struct CsrfOnly {
    csrf: String,
}

/// `POST /signout`: the cookie cleared.
pub(super) async fn sign_out(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: Result<Form<CsrfOnly>, axum::extract::rejection::FormRejection>,
) -> Response {
    let csrf = form.map(|Form(f)| f.csrf).unwrap_or_default();
    if let Err(e) = for_post(&app, &headers, &csrf).await {
        return super::error_page(e.status(), e.message(), None);
    }
    let mut r = Redirect::to("/submit").into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&headers, "", 0));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_from_another_site_is_refused() {
        let mut h = HeaderMap::new();
        h.insert("host", HeaderValue::from_static("ladder.example:8080"));
        assert!(same_origin(&h).is_ok());
        h.insert(
            "origin",
            HeaderValue::from_static("http://ladder.example:8080"),
        );
        assert!(same_origin(&h).is_ok());
        h.insert("origin", HeaderValue::from_static("https://evil.example"));
        assert!(same_origin(&h).is_err());
        h.remove("origin");
        h.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert!(same_origin(&h).is_err());
    }

    #[test]
    fn the_cookie_is_http_only_strict_and_secure_behind_tls() {
        let mut h = HeaderMap::new();
        let c = set_cookie(&h, "1.2.ab", 60);
        let c = c.to_str().unwrap();
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Strict") && !c.contains("Secure"));
        h.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(set_cookie(&h, "1.2.ab", 60)
            .to_str()
            .unwrap()
            .ends_with("; Secure"));
    }
}
