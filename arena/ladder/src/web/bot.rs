//! `/bots/{name}`: a bot's versions (status, build and check result, and
//! their logs for the author and organisers, as the API shows them), its
//! rating over time (an SVG drawn here), its results against each
//! opponent, its recent games and its forfeits by reason. Everything but
//! the recent games comes from the cached standing.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use maud::{html, Markup};

use super::{rating_help, session, when, PageResult};
use crate::api::{valid_name, ApiError};
use crate::app::App;
use crate::ratings::LadderRating;
use crate::standing::{self, version_name};

/// Recent games listed.
const RECENT: i64 = 20;

pub(super) async fn page(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> PageResult {
    let who = session::current(&app, &headers).await?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("There is no bot `{name}`."),
        )
    };
    if !valid_name(&name) {
        return Err(not_found().into());
    }
    let (id, owner, retired) = app.db.bot(&name).await?.ok_or_else(not_found)?;
    let versions = app.db.versions_of(id).await?;
    let with_logs = who
        .as_ref()
        .is_some_and(|s| s.author.is_admin || s.author.name == owner);
    let mine: Vec<i64> = versions.iter().map(|v| v.id).collect();
    let s = app.standing.current().await;
    let labels = app.db.version_labels().await?;
    let label = |v: &i64| {
        labels
            .get(v)
            .map_or_else(|| format!("version {v}"), |(b, seq)| version_name(b, *seq))
    };
    let bot_of = |v: &i64| labels.get(v).map(|(b, _)| b.clone());
    let row = s.rows.iter().find(|r| r.bot == name);
    let results = standing::bot_results(&s, &mine);
    let recent = app.db.recent_games_of(&mine, RECENT).await?;
    let mut forfeits: BTreeMap<&str, u64> = BTreeMap::new();
    for v in &mine {
        for (reason, n) in s.forfeits.get(v).into_iter().flatten() {
            *forfeits.entry(reason.as_str()).or_default() += n;
        }
    }
    let histories: Vec<(String, &LadderRating)> = versions
        .iter()
        .rev()
        .filter_map(|v| {
            s.ratings
                .get(&v.id)
                .map(|r| (version_name(&v.bot, v.seq), r))
        })
        .collect();
    let body = html! {
        h1 { "Bot " span class="botname" { (name) } }
        p {
            "By " strong { (owner) } "."
            @if let Some(t) = retired { " " strong { "Retired " (when(t)) " UTC." } }
        }
        @if let Some(r) = row {
            p class="big" {
                "Rank " strong { (r.rank) } " of " (s.rows.len()) ", rating "
                strong { (format!("{:.0}", r.rating)) } (format!(" ±{:.0}", r.deviation))
                @if let Some([lo, hi]) = r.interval { (format!(" (95% interval {lo:.0}–{hi:.0})")) }
                ", " (r.games) " games: " (r.wins) " won, " (r.draws) " drawn, " (r.losses) " lost."
                @if r.games < app.config.matchmaking.provisional_games { " " i class="p" { "provisional" } }
            }
        } @else {
            p class="muted" { "Not on the leaderboard now (no active version)." }
        }
        section {
            h2 { "Rating over time" }
            (plot(&histories))
        }
        section {
            h2 { "Versions" }
            div class="scroll" {
                table id="versions" class="data" {
                    thead { tr {
                        th scope="col" { "version" } th scope="col" { "status" } th scope="col" { "result of build and check" }
                        th scope="col" { "uploaded (UTC)" } th scope="col" { "joined (UTC)" } th scope="col" class="num" { "games" }
                    } }
                    tbody {
                        @for v in &versions {
                            tr {
                                td { (version_name(&v.bot, v.seq)) br; code class="small" title="content sha256" { (v.sha256.get(..12).unwrap_or(&v.sha256)) } }
                                td { span class={ "status " (v.status) } { (v.status) } }
                                td {
                                    @if let Some(reason) = &v.reason { span class="reason" { (reason) } }
                                    @else if v.status == "active" || v.status == "retired" && v.active_at.is_some() { "built and passed its check" }
                                    @else { "in progress" }
                                }
                                td { (when(v.created_at)) }
                                td { @if let Some(t) = v.active_at { (when(t)) } }
                                td { (s.ratings.get(&v.id).map_or(0, |r| r.games)) }
                            }
                        }
                    }
                }
            }
            @if with_logs {
                @for v in &versions {
                    details class="logs" {
                        summary { "Logs of " (version_name(&v.bot, v.seq)) }
                        h3 { "Build" }
                        pre class="log build-log" { (v.build_log.as_deref().unwrap_or("(none)")) }
                        h3 { "Check" }
                        pre class="log check-log" { (v.check_log.as_deref().unwrap_or("(none)")) }
                    }
                }
            } @else {
                p class="muted small" { "Build and check logs are shown to the bot's author and the organisers, signed in." }
            }
        }
        section {
            h2 { "Against each opponent" }
            @if results.is_empty() { p class="muted" { "No games yet." } } @else {
                div class="scroll" {
                    table id="opponents" class="data sortable" {
                        thead { tr {
                            th scope="col" { button type="button" { "opponent" } }
                            th scope="col" class="num" { button type="button" { "won" } }
                            th scope="col" class="num" { button type="button" { "drawn" } }
                            th scope="col" class="num" { button type="button" { "lost" } }
                            th scope="col" class="num" { button type="button" { "score %" } }
                        } }
                        tbody {
                            @for (other, [w, d, l]) in &results {
                                tr {
                                    td { @if let Some(b) = bot_of(other) { a href={ "/bots/" (b) } { (label(other)) } } @else { (label(other)) } }
                                    td { (w) } td { (d) } td { (l) }
                                    td { (format!("{:.0}", 100.0 * (*w as f64 + 0.5 * *d as f64) / ((w + d + l).max(1) as f64))) }
                                }
                            }
                        }
                    }
                }
            }
        }
        section {
            h2 { "Recent games" }
            @if recent.is_empty() { p class="muted" { "No finished game yet." } } @else {
                div class="scroll" {
                    table id="recent" class="data" {
                        thead { tr {
                            th scope="col" { "game" } th scope="col" { "seat 0" } th scope="col" { "seat 1" }
                            th scope="col" { "result" } th scope="col" { "why it ended" } th scope="col" { "finished (UTC)" }
                        } }
                        tbody {
                            @for g in &recent {
                                tr {
                                    td { a href={ "/games/" (g.id) } { (g.id) } }
                                    td { (label(&g.seat0_version)) }
                                    td { (label(&g.seat1_version)) }
                                    td { (g.result.as_deref().unwrap_or("")) }
                                    td { (g.reason.as_deref().unwrap_or("")) }
                                    td { @if let Some(t) = g.finished_at { (when(t)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
        section {
            h2 { "Forfeits by reason" }
            @if forfeits.is_empty() { p id="forfeits" { "None: every game it lost, it lost by play." } } @else {
                table id="forfeits" class="data" {
                    thead { tr { th scope="col" { "reason" } th scope="col" class="num" { "games lost" } } }
                    tbody { @for (reason, n) in &forfeits { tr { td { (reason) } td class="num" { (n) } } } }
                }
                p class="muted small" { "timeout: out of time; crash: its process died; illegal: an illegal move; protocol: a broken line." }
            }
        }
        (rating_help())
        p class="muted small" { "As JSON: " a href={ "/api/bots/" (name) } { "/api/bots/" (name) } }
        script src="/static/ladder.js" defer {}
    };
    Ok(super::page(&format!("Bot {name}"), who.as_ref(), &[], body))
}

/// The rating of each version over time, as an SVG: one line per version
/// (its Glicko-2 rating after each rating period it played in) over a
/// band of ± one deviation; x is the ladder's game count.
fn plot(histories: &[(String, &LadderRating)]) -> Markup {
    let points: Vec<(i64, f64, f64)> = histories
        .iter()
        .flat_map(|(_, r)| r.history.iter().copied())
        .collect();
    if points.is_empty() {
        return html! { p class="muted" id="rating-plot" { "No rated games yet." } };
    }
    let (w, h, l, r, t, b) = (640.0, 220.0, 48.0, 12.0, 10.0, 28.0);
    let x_lo = points.iter().map(|p| p.0).min().unwrap_or(0) as f64;
    let x_hi = (points.iter().map(|p| p.0).max().unwrap_or(1) as f64).max(x_lo + 1.0);
    let y_lo = points
        .iter()
        .map(|p| p.1 - p.2)
        .fold(f64::INFINITY, f64::min);
    let y_hi = points
        .iter()
        .map(|p| p.1 + p.2)
        .fold(f64::NEG_INFINITY, f64::max);
    let (y_lo, y_hi) = (
        (y_lo / 50.0).floor() * 50.0,
        ((y_hi / 50.0).ceil() * 50.0).max(y_lo + 50.0),
    );
    let x = |g: i64| l + (w - l - r) * (g as f64 - x_lo) / (x_hi - x_lo);
    let y = |v: f64| t + (h - t - b) * (y_hi - v) / (y_hi - y_lo);
    let step = nice_step(y_hi - y_lo, 5);
    let mut ticks = Vec::new();
    let mut v = (y_lo / step).ceil() * step;
    while v <= y_hi {
        ticks.push(v);
        v += step;
    }
    let colors = [
        "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
    ];
    let lines: HashMap<usize, (String, String)> = histories
        .iter()
        .enumerate()
        .map(|(i, (_, rt))| {
            let line = rt
                .history
                .iter()
                .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1)))
                .collect::<Vec<_>>()
                .join(" ");
            let band = rt
                .history
                .iter()
                .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1 + p.2)))
                .chain(
                    rt.history
                        .iter()
                        .rev()
                        .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1 - p.2))),
                )
                .collect::<Vec<_>>()
                .join(" ");
            (i, (line, band))
        })
        .collect();
    html! {
        figure {
            svg id="rating-plot" class="plot" viewBox={ "0 0 " (w) " " (h) } role="img"
                aria-label="rating over time, one line per version" {
                @for v in &ticks {
                    line class="grid" x1=(l) x2=(w - r) y1=(format!("{:.1}", y(*v))) y2=(format!("{:.1}", y(*v))) {}
                    text class="tick" x=(l - 4.0) y=(format!("{:.1}", y(*v) + 4.0)) text-anchor="end" { (format!("{v:.0}")) }
                }
                text class="tick" x=(l) y=(h - 8.0) { "game " (x_lo) }
                text class="tick" x=(w - r) y=(h - 8.0) text-anchor="end" { "game " (x_hi) }
                @for (i, (version, _)) in histories.iter().enumerate() {
                    @if let Some((line, band)) = lines.get(&i) {
                        polygon class="band" points=(band) fill=(colors[i % colors.len()]) fill-opacity="0.15" {}
                        polyline class="line" points=(line) fill="none" stroke=(colors[i % colors.len()]) stroke-width="2" {
                            title { (version) }
                        }
                        @for p in &histories[i].1.history {
                            circle class="dot" cx=(format!("{:.1}", x(p.0))) cy=(format!("{:.1}", y(p.1))) r="3"
                                fill=(colors[i % colors.len()]) {
                                title { (version) " after game " (p.0) ": " (format!("{:.0} ±{:.0}", p.1, p.2)) }
                            }
                        }
                    }
                }
            }
            figcaption {
                "Glicko-2 rating after each rating period the version played in, with a band of ± one deviation. "
                @for (i, (version, _)) in histories.iter().enumerate() {
                    span class="key" { span class={ "swatch c" (i % colors.len()) } {} (version) } " "
                }
            }
        }
    }
}

/// A round step (1, 2, 2.5, 5 x 10^k) giving about `count` ticks over `span`.
fn nice_step(span: f64, count: u32) -> f64 {
    let raw = span / f64::from(count.max(1));
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
}
