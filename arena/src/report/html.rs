//! The HTML report: one self-contained page (no network, no CDN) with the
//! standings, a rating chart with intervals, the crosstable as a heat map,
//! the score over time, the list of games and a replay viewer for each game.
//!
//! The page is static HTML plus the data as JSON in a
//! `<script type="application/json">` block, drawn by a small script
//! (`assets/report.js`). Every `<` in the JSON is written as `\u003c`, so no
//! bot name or `info` line can close the block, and the script inserts text
//! only with `textContent`, never as markup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::summary::{self, Crosstable, RatingChart, Table, Timeline};
use crate::store::{self, RatingsRow, StoreError};
use arena_core::record::GameRecord;

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");
/// Installed before anything else so the page itself can tell (and a test can
/// read) whether any script error or `console.error` happened.
const ERROR_TRAP: &str = include_str!("assets/errors.js");

/// About how many bytes of moves the page embeds for replays. Games are
/// taken in order until the next would pass this; later games are listed
/// without a replay (`arena show` still draws them), so that a big
/// tournament's page still opens comfortably.
pub const REPLAY_BUDGET_BYTES: usize = 48 << 20;

/// Roughly what a game's moves weigh in the page's JSON.
fn replay_bytes(r: &GameRecord) -> usize {
    r.initial_state.len()
        + r.moves
            .iter()
            .map(|m| {
                120 + m.mv.len()
                    + m.state.len()
                    + m.info.iter().map(|i| i.len() + 4).sum::<usize>()
                    + if m.effects.is_null() {
                        0
                    } else {
                        m.effects.to_string().len()
                    }
            })
            .sum::<usize>()
}

#[derive(Serialize)]
struct MoveView<'a> {
    seat: usize,
    #[serde(rename = "move")]
    mv: &'a str,
    ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_ms: Option<f64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    info: &'a [String],
    state: &'a str,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    effects: &'a serde_json::Value,
}

#[derive(Serialize)]
struct GameView<'a> {
    index: u64,
    round: u64,
    game: &'a str,
    /// The replay viewer's drawer for the game (from the registry); absent
    /// for a game without one, whose replay shows the states as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    drawer: Option<&'static str>,
    params: &'a BTreeMap<String, String>,
    /// As text: seeds use all 64 bits, and JavaScript numbers keep only 53.
    seed: String,
    seats: [&'a str; 2],
    opening_plies: usize,
    result: &'static str,
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offender: Option<usize>,
    scores: [i32; 2],
    plies: usize,
    duration_ms: u64,
    /// Absent past [`REPLAY_BUDGET_BYTES`].
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_state: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveView<'a>>>,
}

#[derive(Serialize)]
struct PageData<'a> {
    title: String,
    generator: String,
    standings: Table,
    rating_chart: RatingChart,
    crosstable: Crosstable,
    timeline: Timeline,
    games: Vec<GameView<'a>>,
    /// How many games (in order) have their replay embedded.
    replays: usize,
}

fn game_view(r: &GameRecord, with_moves: bool) -> GameView<'_> {
    GameView {
        index: r.index,
        round: r.round,
        game: &r.game,
        drawer: arena_core::games::entry(&r.game)
            .ok()
            .and_then(|e| e.replay_drawer),
        params: &r.params,
        seed: r.seed.to_string(),
        seats: [&r.seats[0].name, &r.seats[1].name],
        opening_plies: r.opening_plies,
        result: r.result.as_str(),
        reason: r.reason.as_str(),
        detail: r.detail.as_deref(),
        offender: r.offender,
        scores: r.scores,
        plies: r.moves.len(),
        duration_ms: r.duration_ms,
        initial_state: with_moves.then_some(r.initial_state.as_str()),
        moves: with_moves.then(|| {
            r.moves
                .iter()
                .map(|m| MoveView {
                    seat: m.seat,
                    mv: &m.mv,
                    ms: m.ms,
                    cpu_ms: m.cpu_ms,
                    info: &m.info,
                    state: &m.state,
                    effects: &m.effects,
                })
                .collect()
        }),
    }
}

/// How many of `games`, from the first, have their replay embedded within
/// `budget` bytes (the first always does).
fn replay_prefix(games: &[&GameRecord], budget: usize) -> usize {
    let mut used = 0;
    for (i, r) in games.iter().enumerate() {
        used += replay_bytes(r);
        if i > 0 && used > budget {
            return i;
        }
    }
    games.len()
}

/// JSON that is safe inside a `<script>` element: `<`, `>` and `&` are
/// written as JSON escapes, which `JSON.parse` reads back unchanged.
pub fn script_safe_json<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("report data serializes");
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text made safe for HTML element content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the page for `records`, titled `title`, with the standings and
/// rating chart from `ratings` when given (else counted from the records).
pub fn render_html(title: &str, records: &[GameRecord], ratings: Option<&[RatingsRow]>) -> String {
    let standings = summary::standings_table(records, ratings);
    let rating_chart = summary::rating_chart(records, ratings, &standings.bots);
    let crosstable = summary::crosstable(records, &standings.bots);
    let timeline = summary::timeline(records, &standings.bots);
    let ordered = summary::in_order(records);
    let replays = replay_prefix(&ordered, REPLAY_BUDGET_BYTES);
    let games = ordered
        .iter()
        .enumerate()
        .map(|(i, r)| game_view(r, i < replays))
        .collect();
    let data = PageData {
        title: title.to_string(),
        generator: format!("arena {}", env!("CARGO_PKG_VERSION")),
        standings,
        rating_chart,
        crosstable,
        timeline,
        games,
        replays,
    };
    let title = escape_html(title);
    format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>arena report: {title}</title>
<script>
{ERROR_TRAP}</script>
<style>
{CSS}</style>
</head>
<body>
<header class="top">
<h1><a href="#" class="home">arena report</a> <span class="title">{title}</span></h1>
<p id="summary" class="muted"></p>
</header>
<main id="report">
<section id="standings-section"><h2>Standings</h2><div id="standings"></div></section>
<section id="rating-section"><h2>Ratings</h2><div id="rating-chart"></div></section>
<div class="two">
<section id="crosstable-section"><h2>Crosstable</h2><div id="crosstable"></div></section>
<section id="timeline-section"><h2>Score over time</h2><div id="timeline"></div></section>
</div>
<section id="games-section"><h2>Games</h2><div id="games"></div></section>
</main>
<main id="replay" hidden></main>
<pre id="selftest" hidden></pre>
<noscript><p>This report draws its tables and charts with JavaScript; please enable it.</p></noscript>
<script type="application/json" id="data">{json}</script>
<script>
{JS}</script>
</body>
</html>
"##,
        json = script_safe_json(&data),
    )
}

/// Writes `dir/index.html` for `records`, with `ratings` when there are
/// any. Returns the path written.
pub fn write_html(
    dir: &Path,
    records: &[GameRecord],
    ratings: Option<&[RatingsRow]>,
) -> Result<PathBuf, StoreError> {
    let title = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let html = render_html(&title, records, ratings);
    store::write_atomic(dir, store::INDEX_HTML, html.as_bytes())?;
    Ok(dir.join(store::INDEX_HTML))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_safe_json_cannot_close_the_script_block() {
        let v = serde_json::json!({
            "name": "</script><script>alert(1)</script>",
            "amp": "a&b",
            // Line breaks to old JavaScript parsers; an escape for terminals.
            "sep": "a\u{2028}b\u{2029}c\u{1b}[2J",
        });
        let s = script_safe_json(&v);
        assert!(
            !s.contains(['<', '>', '&', '\u{2028}', '\u{2029}', '\u{1b}']),
            "{s}"
        );
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn replays_are_embedded_for_a_prefix_within_the_budget() {
        let line = r#"{"index":0,"round":0,"pair":0,"game":"dakon","params":{},"seed":0,"seats":[{"name":"a","command":[],"log":null},{"name":"b","command":[],"log":null}],"initial_state":"pits=1,1 stores=0,0 turn=0 ply=0","moves":[{"seat":0,"move":"1","ms":1.0,"state":"pits=1,0 stores=1,0 turn=1 ply=1"}],"final_state":"x","scores":[1,0],"result":"1-0","reason":"normal","duration_ms":1}"#;
        let r: GameRecord = serde_json::from_str(line).unwrap();
        let one = replay_bytes(&r);
        let games = vec![&r; 5];
        assert_eq!(replay_prefix(&games, 3 * one), 3);
        assert_eq!(replay_prefix(&games, 0), 1);
        assert_eq!(replay_prefix(&games, usize::MAX), 5);
        let html = render_html("t", &[r], None);
        assert!(html.contains(r#""replays":1"#));
        // 64-bit seeds travel as text: a JavaScript number would round them.
        let mut big: GameRecord = serde_json::from_str(line).unwrap();
        big.seed = u64::MAX - 1;
        let html = render_html("t", &[big], None);
        assert!(html.contains(r#""seed":"18446744073709551614""#));
    }

    #[test]
    fn escape_html_escapes_markup() {
        assert_eq!(
            escape_html("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
