//! `/`: the leaderboard, from the cached standing (never computed here).
//! One row per active version; a script sorts it by any column, and the
//! table reads the same without it. Rows are kept terse: a thousand of
//! them must stay well under 200 KB (docs/performance.md).

use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use maud::html;

use super::{rating_help, session, when, PageResult};
use crate::app::App;

/// A version that joined within this long is marked new.
const NEW_SECS: i64 = 86_400;

pub(super) async fn page(State(app): State<Arc<App>>, headers: HeaderMap) -> PageResult {
    let who = session::current(&app, &headers).await?;
    let s = app.standing.current().await;
    let paused = app.paused().await?;
    let provisional = app.config.matchmaking.provisional_games;
    let now = crate::db::now();
    let body = html! {
        h1 { "Leaderboard" }
        p class="muted" {
            (s.rows.len()) " bots, " (s.games) " games rated; computed " (when(s.computed_at)) " UTC."
            @if paused { " " strong { "The ladder is paused: no new games start." } }
        }
        div class="scroll" {
            table id="leaderboard" class="data sortable" {
                caption class="sr" { "Bots by rating; the column buttons sort the table." }
                thead { tr {
                    th scope="col" class="num" { button type="button" { "#" } }
                    th scope="col" { button type="button" { "bot" } }
                    th scope="col" { button type="button" { "author" } }
                    th scope="col" class="num" { button type="button" { "rating ± dev." } }
                    th scope="col" class="num" { button type="button" { "95% interval" } }
                    th scope="col" class="num" { button type="button" { "games" } }
                    th scope="col" class="num" { button type="button" { "W-D-L" } }
                    th scope="col" class="num" { button type="button" { "last game" } }
                } }
                tbody {
                    @for r in &s.rows {
                        tr {
                            td { (r.rank) }
                            td {
                                a href={ "/bots/" (r.bot) } { (r.bot) }
                                @if r.games < provisional { " " i class="p" title="provisional: few games yet" { "prov." } }
                                @if r.active_at.is_some_and(|t| now - t < NEW_SECS) { " " i class="n" title="joined in the last day" { "new" } }
                            }
                            td { (r.author) }
                            td { (format!("{:.0} ±{:.0}", r.rating, r.deviation)) }
                            td { @if let Some([lo, hi]) = r.interval { (format!("{lo:.0}–{hi:.0}")) } }
                            td { (r.games) }
                            td { (r.wins) "-" (r.draws) "-" (r.losses) }
                            td { @if let Some(g) = r.last_game { a href={ "/games/" (g) } { (g) } } }
                        }
                    }
                }
            }
        }
        @if s.rows.is_empty() {
            p { "No bot has joined yet. " a href="/submit" { "Submit one." } }
        }
        (rating_help())
        p class="muted small" {
            "Machine-readable: " a href="/api/leaderboard" { "/api/leaderboard" } ", every game: "
            a href="/api/games.jsonl" { "/api/games.jsonl" } "."
        }
        script src="/static/ladder.js" defer {}
    };
    Ok(super::page("Leaderboard", who.as_ref(), &[], body))
}
