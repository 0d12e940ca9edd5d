//! `/live`: the games being played now. The page lists them from the
//! database (it reads without JavaScript); `live.js` draws their boards
//! with the report's drawers and moves them as `/live/events` says: a
//! stream of server-sent events from the hub (`crate::live`), sent as each
//! move is made: `snapshot` (every game in progress, on connecting and
//! after falling behind), `start`, `move` and `end`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use maud::{html, PreEscaped};
use tokio::sync::broadcast::error::RecvError;

use super::{session, PageResult};
use crate::app::App;
use crate::live::LiveGame;
use crate::standing::version_name;

pub(super) async fn page(State(app): State<Arc<App>>, headers: HeaderMap) -> PageResult {
    let who = session::current(&app, &headers).await?;
    let playing = app.db.leased_games().await?;
    let labels = app.db.version_labels().await?;
    let label = |v: i64| {
        labels
            .get(&v)
            .map_or_else(|| format!("version {v}"), |(b, s)| version_name(b, *s))
    };
    let body = html! {
        h1 { "Live games" }
        p class="muted" { "Boards move as the moves are made (this page listens to the server; no reload needed)." }
        p id="live-status" class="muted small" role="status" { "Connecting…" }
        div id="live-boards" class="live-grid" aria-live="polite" {}
        h2 { "Being played now" }
        @if playing.is_empty() {
            p id="none-playing" { "No game is being played at the moment." }
        } @else {
            table id="playing" class="data" {
                thead { tr { th scope="col" { "game" } th scope="col" { "seat 0" } th scope="col" { "seat 1" } } }
                tbody {
                    @for g in &playing {
                        tr {
                            td { a href={ "/games/" (g.id) } { (g.id) } }
                            td { (label(g.seat0_version)) }
                            td { (label(g.seat1_version)) }
                        }
                    }
                }
            }
        }
        script type="application/json" id="data" { (PreEscaped(r#"{"view":"live"}"#)) }
        script src="/static/report.js" defer {}
        script src="/static/live.js" defer {}
    };
    Ok(super::page(
        "Live games",
        who.as_ref(),
        &["report.css"],
        body,
    ))
}

fn snapshot(games: &[LiveGame]) -> Event {
    Event::default()
        .event("snapshot")
        .data(serde_json::to_string(games).expect("live games serialize"))
}

/// `/live/events`: the hub's events as they happen, until the server stops.
pub(super) async fn events(State(app): State<Arc<App>>) -> Response {
    let (games, rx) = app.live.watch();
    let hub = app.live.clone();
    let stopping = app.stopping.clone();
    let first = Some(snapshot(&games));
    let stream = futures_util::stream::unfold(
        (first, rx, stopping, hub),
        |(first, mut rx, mut stopping, hub)| async move {
            if let Some(e) = first {
                return Some((Ok::<_, Infallible>(e), (None, rx, stopping, hub)));
            }
            if *stopping.borrow() {
                return None;
            }
            let event = tokio::select! {
                got = rx.recv() => match got {
                    Ok(ev) => {
                        let kind = match &ev {
                            crate::live::LiveEvent::Start { .. } => "start",
                            crate::live::LiveEvent::Move { .. } => "move",
                            crate::live::LiveEvent::End { .. } => "end",
                        };
                        Event::default()
                            .event(kind)
                            .data(serde_json::to_string(&ev).expect("live events serialize"))
                    }
                    // Fell behind: the whole picture again, and on from there.
                    Err(RecvError::Lagged(_)) => {
                        let (games, fresh) = hub.watch();
                        rx = fresh;
                        snapshot(&games)
                    }
                    Err(RecvError::Closed) => return None,
                },
                // A stopping server ends the stream, so that it can stop.
                _ = stopping.wait_for(|s| *s) => return None,
            };
            Some((Ok(event), (None, rx, stopping, hub)))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
