//! `/games/{id}`: one game's replay, drawn by the HTML report's own viewer
//! (`report.js`, served as it is at `/static/report.js`), fed the game as
//! the report feeds it (`arena::report::html::replay_view`) with
//! `"view": "game"`; and a link to download the record.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use maud::{html, PreEscaped};
use serde_json::json;

use super::{session, when, PageResult};
use crate::api::ApiError;
use crate::app::App;
use crate::standing::version_name;

pub(super) async fn page(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> PageResult {
    let who = session::current(&app, &headers).await?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("There is no game `{id}`."),
        )
    };
    let id: i64 = id.parse().ok().filter(|n| *n >= 0).ok_or_else(not_found)?;
    let g = app.db.game(id).await?.ok_or_else(not_found)?;
    let labels = app.db.version_labels().await?;
    let seat = |v: i64| labels.get(&v).cloned();
    let record = match app.db.game_record(id).await? {
        Some(text) => serde_json::from_str::<arena_core::record::GameRecord>(&text).ok(),
        None => None,
    };
    let data = record.as_ref().map(|r| {
        arena::report::html::script_safe_json(&json!({
            "view": "game",
            "back": { "href": "/", "text": "\u{2190} leaderboard" },
            "games": [arena::report::html::replay_view(r)],
        }))
    });
    let body = html! {
        h1 { "Game " (g.id) }
        p class="facts" {
            @for (i, v) in [g.seat0_version, g.seat1_version].into_iter().enumerate() {
                @if i == 1 { " against " }
                @if let Some((bot, seq)) = seat(v) {
                    a href={ "/bots/" (bot) } class={ "seat" (i) "-name" } { (version_name(&bot, seq)) }
                } @else { "version " (v) }
                " (seat " (i) ")"
            }
            ". "
            @match g.status.as_str() {
                "done" => {
                    "Result " strong { (g.result.as_deref().unwrap_or("?")) }
                    " (" (g.reason.as_deref().unwrap_or("?")) ")"
                    @if let Some(t) = g.finished_at { ", finished " (when(t)) " UTC" } "."
                }
                "leased" => { "Being played now: " a href="/live" { "watch it live" } "." }
                _ => { "Waiting in the queue." }
            }
            @if !g.opening.is_empty() { " Opening: " code { (g.opening) } "." }
        }
        @if g.status == "done" {
            p { a href={ "/api/games/" (g.id) } download={ "game-" (g.id) ".json" } { "Download the record (JSON)" } }
        }
        @if let Some(data) = &data {
            div id="report" hidden {}
            div id="replay" class="replay-host" {
                noscript { p { "The replay viewer needs JavaScript; the record above has every move." } }
            }
            script type="application/json" id="data" { (PreEscaped(data)) }
            script src="/static/report.js" defer {}
        } @else if g.status == "done" {
            p class="muted" { "This game's record is no longer kept (the ladder keeps the newest ones); its result still counts." }
        }
    };
    Ok(super::page(
        &format!("Game {id}"),
        who.as_ref(),
        &["report.css"],
        body,
    ))
}
