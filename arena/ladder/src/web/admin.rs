//! `/admin`: the organiser's page (authors with `--admin`): pause and
//! resume the ladder, retire a bot, build a version again. Each form
//! calls what the API's admin routes call.

use std::sync::Arc;

use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

use super::{session, when, Session};
use crate::api::{self, ApiError};
use crate::app::App;
use crate::standing::version_name;

fn forbidden() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "forbidden",
        "only an organiser (admin) may open this page: sign in on the submit page with an admin token",
    )
}

pub(super) async fn page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let s = match session::current(&app, &headers).await {
        Ok(Some(s)) if s.author.is_admin => s,
        Ok(who) => {
            let e = forbidden();
            return super::error_page(e.status(), e.message(), who.as_ref());
        }
        Err(e) => {
            let e = ApiError::from(e);
            return super::error_page(e.status(), e.message(), None);
        }
    };
    render(&app, &s, StatusCode::OK, None).await
}

async fn render(app: &App, s: &Session, status: StatusCode, note: Option<&str>) -> Response {
    let (paused, versions) = match (app.paused().await, app.db.all_versions().await) {
        (Ok(p), Ok(v)) => (p, v),
        (Err(e), _) | (_, Err(e)) => {
            let e = ApiError::from(e);
            return super::error_page(e.status(), e.message(), Some(s));
        }
    };
    let mut versions = versions;
    versions.sort_by(|a, b| a.bot.cmp(&b.bot).then(b.seq.cmp(&a.seq)));
    let body = html! {
        h1 { "Organiser" }
        @if let Some(n) = note { p class="error" role="alert" id="form-error" { (n) } }
        section {
            h2 { "The ladder" }
            p id="ladder-state" { "The ladder is " strong { (if paused { "paused" } else { "running" }) } "." }
            @if paused {
                form method="post" action="/admin/resume" {
                    input type="hidden" name="csrf" value=(s.csrf);
                    button type="submit" id="resume" { "Resume: schedule and start games again" }
                }
            } @else {
                form method="post" action="/admin/pause" {
                    input type="hidden" name="csrf" value=(s.csrf);
                    button type="submit" id="pause" { "Pause: start no new game (games in progress finish)" }
                }
            }
        }
        section {
            h2 { "Versions" }
            div class="scroll" {
                table class="data" id="admin-versions" {
                    thead { tr {
                        th scope="col" { "version" } th scope="col" { "status" } th scope="col" { "uploaded (UTC)" }
                        th scope="col" { "reason" } th scope="col" { "actions" }
                    } }
                    tbody {
                        @for v in &versions {
                            tr {
                                td { a href={ "/bots/" (v.bot) } { (version_name(&v.bot, v.seq)) } }
                                td { span class={ "status " (v.status) } { (v.status) } }
                                td { (when(v.created_at)) }
                                td { (v.reason.as_deref().unwrap_or("")) }
                                td class="actions" {
                                    form method="post" action="/admin/rebuild" {
                                        input type="hidden" name="csrf" value=(s.csrf);
                                        input type="hidden" name="version" value=(v.id);
                                        button type="submit" aria-label={ "build " (version_name(&v.bot, v.seq)) " again" } { "Build again" }
                                    }
                                    @if v.status == "active" {
                                        form method="post" action="/admin/retire" {
                                            input type="hidden" name="csrf" value=(s.csrf);
                                            input type="hidden" name="bot" value=(v.bot);
                                            button type="submit" class="danger" aria-label={ "retire bot " (v.bot) } { "Retire bot" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    super::page_with_status(status, "Organiser", Some(s), &[], body)
}

#[derive(Deserialize)]
pub(super) struct Action {
    csrf: String,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    version: Option<i64>,
}

type ActionForm = Result<Form<Action>, axum::extract::rejection::FormRejection>;

/// Checks the session (admin, CSRF), runs `what`, and goes back to the
/// page (or shows it with why it failed).
async fn act<F, Fut>(app: &App, headers: &HeaderMap, form: ActionForm, what: F) -> Response
where
    F: FnOnce(Action) -> Fut,
    Fut: std::future::Future<Output = Result<(), ApiError>>,
{
    let Ok(Form(form)) = form else {
        return super::error_page(StatusCode::BAD_REQUEST, "the form was incomplete", None);
    };
    let s = match session::for_post(app, headers, &form.csrf).await {
        Ok(s) if s.author.is_admin => s,
        Ok(s) => {
            let e = forbidden();
            return super::error_page(e.status(), e.message(), Some(&s));
        }
        Err(e) => return super::error_page(e.status(), e.message(), None),
    };
    match what(form).await {
        Ok(()) => Redirect::to("/admin").into_response(),
        Err(e) => render(app, &s, e.status(), Some(e.message())).await,
    }
}

fn missing(what: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "bad_form",
        format!("the form has no {what}"),
    )
}

pub(super) async fn pause(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: ActionForm,
) -> Response {
    act(&app, &headers, form, |_| api::set_paused(&app, true)).await
}

pub(super) async fn resume(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: ActionForm,
) -> Response {
    act(&app, &headers, form, |_| api::set_paused(&app, false)).await
}

pub(super) async fn retire(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: ActionForm,
) -> Response {
    let app = &*app;
    act(app, &headers, form, move |f| async move {
        let bot = f.bot.ok_or_else(|| missing("bot"))?;
        api::retire_bot(app, &bot).await
    })
    .await
}

pub(super) async fn rebuild(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    form: ActionForm,
) -> Response {
    let app = &*app;
    act(app, &headers, form, move |f| async move {
        let v = f.version.ok_or_else(|| missing("version"))?;
        api::rebuild_version(app, v).await
    })
    .await
}
