//! The HTML report: one page (no network, no CDN) with the standings, a
//! rating chart with intervals, the crosstable as a heat map, the score
//! over time, a list of games and a replay viewer; and beside it one small
//! script file of replays per block of games (`replays/block-NNNNN.js`),
//! which the page loads when a game it does not embed is opened.
//!
//! The page is static HTML plus the data as JSON in a
//! `<script type="application/json">` block, drawn by a small script
//! (`assets/report.js`). Every `<` in the JSON is written as `\u003c`, so no
//! bot name or `info` line can close the block, and the script inserts text
//! only with `textContent`, never as markup. A block file is the same JSON,
//! one `arenaReplay({...});` call per game, so that it loads from `file://`
//! as a script (where `fetch` is refused).
//!
//! What the page holds does not grow with the number of games: the games
//! list is every game up to [`LIST_ALL`] games, else a selection; replays
//! are embedded for every game up to [`EMBED_ALL`] games, else for the
//! selection: the last [`LAST_PER_PAIRING`] games of each pairing, the
//! first [`MAX_FORFEITS`] forfeits and the games asked for (`arena report
//! --games`), within [`REPLAY_BUDGET_BYTES`]. The records are read twice,
//! one at a time: once to count and choose, once to write the blocks.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::value::RawValue;

use super::course::{self, Course, TestSpec};
use super::summary::{self, Crosstable, RatingChart, RunTotals, Table, Timeline};
use crate::store::{self, RatingsRow, StoreError};
use arena_core::record::GameRecord;

/// The report's style sheet (the ladder's game pages serve it too).
pub const CSS: &str = include_str!("assets/report.css");
/// The report's script without the games' boards (see [`js`]).
const REPORT_JS: &str = include_str!("assets/report.js");
/// Where in [`REPORT_JS`] the games' drawers go.
const DRAWERS_MARKER: &str = "/* @game-drawers@ */";

/// The report's script, replay viewer included (the ladder's game pages
/// serve it too: with `"view": "game"` in its data it shows one game's
/// replay alone; with `"view": "live"` it only lends its board drawers,
/// as `window.arenaBoard`): `report.js` with, in place of its marker, each
/// registered game's drawer ([`arena_core::games::ReplayDrawer`], the
/// script beside the game's module), so that a game's board is drawn by
/// the game's own files. Built once.
pub fn js() -> &'static str {
    static JS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JS.get_or_init(|| with_drawers(REPORT_JS, arena_core::games::GAMES))
}

/// `script` with one `DRAWERS[key] = (drawer);` statement per game that has
/// a drawer, in place of [`DRAWERS_MARKER`].
fn with_drawers(script: &str, games: &[arena_core::games::GameEntry]) -> String {
    let (before, after) = script
        .split_once(DRAWERS_MARKER)
        .expect("report.js has the marker where the games' drawers go");
    let mut out = String::with_capacity(script.len() + 64 * 1024);
    out.push_str(before);
    for d in games.iter().filter_map(|g| g.replay_drawer) {
        // The key as a JSON string: a JavaScript string literal whatever it holds.
        let key = serde_json::to_string(d.key).expect("a string serializes");
        out.push_str(&format!(
            "DRAWERS[{key}] = (\n{}\n);\n  ",
            d.script.trim_end()
        ));
    }
    out.push_str(after);
    out
}
/// Installed before anything else so the page itself can tell (and a test can
/// read) whether any script error or `console.error` happened.
const ERROR_TRAP: &str = include_str!("assets/errors.js");

/// The directory of replay blocks beside `index.html`.
pub const REPLAY_DIR: &str = store::REPLAYS;
/// Games per replay block: game `k` is in block `k / BLOCK_GAMES`.
pub const BLOCK_GAMES: u64 = 100;
/// Up to this many games, the page lists every game.
pub const LIST_ALL: u64 = 2000;
/// Up to this many games, the page embeds every replay (within the budget).
pub const EMBED_ALL: u64 = 100;
/// Past [`EMBED_ALL`], the page embeds the replays of the last this many
/// games of each pairing,
pub const LAST_PER_PAIRING: usize = 2;
/// of the first this many forfeits (timeout, crash, illegal, protocol),
pub const MAX_FORFEITS: usize = 100;
/// and of at most this many games asked for with `--games`.
pub const MAX_ASKED: usize = 1000;
/// About how many bytes of moves the page embeds at most; games past it
/// are listed, and their replay loaded from its block when opened.
pub const REPLAY_BUDGET_BYTES: usize = 4 << 20;

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
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    search: &'a BTreeMap<String, String>,
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
    /// Absent for a game listed without its replay.
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_state: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveView<'a>>>,
    /// Each seat's stderr log and transcript, for the replay's links
    /// (with the replay only).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<[SeatFiles<'a>; 2]>,
}

/// A seat's files of one game, as the record names them: relative to the
/// run directory, which holds the page.
#[derive(Serialize)]
struct SeatFiles<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    log: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript: Option<&'a str>,
}

/// `path` if it is a file in the run's `logs/` (a link the page may make:
/// a record naming anything else, an absolute path or `..`, gets none).
fn in_logs(path: Option<&str>) -> Option<&str> {
    let p = Path::new(path?);
    let mut parts = p.components();
    let first = parts.next()?;
    let inside = first.as_os_str() == store::LOGS
        && parts.clone().count() == 1
        && parts.all(|c| matches!(c, std::path::Component::Normal(_)));
    inside.then_some(path?)
}

/// Where the page finds the replays it does not embed.
#[derive(Serialize)]
struct Blocks {
    dir: &'static str,
    /// Games per block.
    games: u64,
}

/// How the games listed were chosen, for the page to say.
#[derive(Clone, Debug, Serialize)]
struct Selection {
    all_listed: bool,
    last_per_pairing: usize,
    max_forfeits: usize,
    /// Forfeits in the run (the list holds the first `max_forfeits`).
    forfeits: u64,
    asked: Vec<u64>,
}

#[derive(Serialize)]
struct PageData {
    title: String,
    generator: String,
    standings: Table,
    rating_chart: RatingChart,
    crosstable: Crosstable,
    timeline: Timeline,
    /// Games in the run.
    total_games: u64,
    /// Games per game name.
    kinds: BTreeMap<String, u64>,
    /// The games listed (all, or the selection), in index order.
    games: Vec<Box<RawValue>>,
    /// How many of them have their replay embedded.
    replays: usize,
    /// Absent when no block files were written.
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<Blocks>,
    selection: Selection,
    /// `summary.json` of the ratings, when the directory has one: the
    /// seats' line under the standings.
    #[serde(skip_serializing_if = "Option::is_none")]
    ratings_summary: Option<serde_json::Value>,
    /// How the games were played: (what, value) rows from the run's
    /// manifest, when the directory has one, and the forfeits by reason.
    run_facts: Vec<(String, String)>,
}

/// The rows of "How the games were played": from the manifest (seed,
/// time control, clock, openings, sandbox, warnings, arena version,
/// distinct games) and the records (forfeits by reason).
fn run_facts(
    manifest: Option<&store::Manifest>,
    forfeits: &BTreeMap<String, u64>,
) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |what: &str, value: String| rows.push((what.to_string(), value));
    if let Some(m) = manifest {
        let c = &m.config;
        row("arena version", m.arena_version.clone());
        row("seed", m.seed.to_string());
        let tc = &c.time_control;
        let mut time = match (tc.movetime_ms, tc.time_ms) {
            (Some(mt), None) => format!("{mt} ms per move"),
            (None, Some(t)) => format!("{t} ms per game + {} ms per move", tc.inc_ms),
            (Some(mt), Some(t)) => {
                format!(
                    "{t} ms per game + {} ms per move, at most {mt} ms per move",
                    tc.inc_ms
                )
            }
            (None, None) => "none".into(),
        };
        time.push_str(&format!(" (margin {} ms)", tc.margin_ms));
        row("time control", time);
        row("clock", tc.clock.to_string());
        let openings = match &c.openings {
            Some(suite) => format!("suite {} ({} lines)", suite.file, suite.lines.len()),
            None if c.random_opening_plies > 0 => {
                format!("{} random plies per pair", c.random_opening_plies)
            }
            None => "the initial position".into(),
        };
        row("openings", openings);
        let mut sandboxes: Vec<String> = c
            .bots
            .iter()
            .map(|b| {
                serde_json::to_value(b.sandbox)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("{:?}", b.sandbox))
            })
            .collect();
        sandboxes.sort();
        sandboxes.dedup();
        row("sandbox", sandboxes.join(", "));
        if !m.warnings.is_empty() {
            row("warnings", m.warnings.join("; "));
        }
        if let Some(d) = &m.distinct {
            row("distinct games", d.line());
        }
    }
    let forfeit_text = if forfeits.is_empty() {
        "none".to_string()
    } else {
        forfeits
            .iter()
            .map(|(reason, n)| format!("{reason} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    row("forfeits by reason", forfeit_text);
    rows
}

fn game_view(r: &GameRecord, with_moves: bool) -> GameView<'_> {
    GameView {
        index: r.index,
        round: r.round,
        game: &r.game,
        drawer: arena_core::games::entry(&r.game)
            .ok()
            .and_then(|e| e.replay_drawer)
            .map(|d| d.key),
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
                    search: &m.search,
                    state: &m.state,
                    effects: &m.effects,
                })
                .collect()
        }),
        files: with_moves.then(|| {
            [0, 1].map(|s| SeatFiles {
                log: in_logs(r.seats[s].log.as_deref()),
                transcript: in_logs(r.seats[s].transcript.as_deref()),
            })
        }),
    }
}

/// One game as the replay viewer reads it (`games[i]` of the page's
/// data), with its moves: what the ladder's game page feeds [`js`].
pub fn replay_view(r: &GameRecord) -> Box<RawValue> {
    raw_view(r, true)
}

fn raw_view(r: &GameRecord, with_moves: bool) -> Box<RawValue> {
    let json = serde_json::to_string(&game_view(r, with_moves)).expect("game views serialize");
    RawValue::from_string(json).expect("serde_json writes JSON")
}

/// The first pass over the records: the totals, and the games chosen for
/// the list when it cannot hold them all.
struct Chooser {
    totals: RunTotals,
    /// The last games of each pairing (names in order).
    last: HashMap<(String, String), VecDeque<u64>>,
    forfeits: Vec<u64>,
    forfeit_count: u64,
    /// Forfeits by reason (the record's reason as it prints).
    forfeit_reasons: BTreeMap<String, u64>,
    asked: BTreeSet<u64>,
}

impl Chooser {
    fn new(asked: &[u64]) -> Self {
        Chooser {
            totals: RunTotals::new(),
            last: HashMap::new(),
            forfeits: Vec::new(),
            forfeit_count: 0,
            forfeit_reasons: BTreeMap::new(),
            asked: asked.iter().take(MAX_ASKED).copied().collect(),
        }
    }

    fn add(&mut self, r: &GameRecord) {
        self.totals.add(r);
        let (a, b) = (&r.seats[0].name, &r.seats[1].name);
        let key = if a <= b { (a, b) } else { (b, a) };
        let q = self.last.entry((key.0.clone(), key.1.clone())).or_default();
        q.push_back(r.index);
        if q.len() > LAST_PER_PAIRING {
            q.pop_front();
        }
        if r.reason.is_forfeit() {
            self.forfeit_count += 1;
            *self
                .forfeit_reasons
                .entry(r.reason.to_string())
                .or_default() += 1;
            if self.forfeits.len() < MAX_FORFEITS {
                self.forfeits.push(r.index);
            }
        }
    }

    fn chosen(&self) -> HashSet<u64> {
        let mut s: HashSet<u64> = self.last.values().flatten().copied().collect();
        s.extend(&self.forfeits);
        s.extend(&self.asked);
        s
    }
}

/// What the page draws besides the ratings.
struct Page {
    totals: RunTotals,
    /// Times per move, game lengths, and the traces over the run.
    course: Course,
    forfeit_reasons: BTreeMap<String, u64>,
    games: Vec<Box<RawValue>>,
    replays: usize,
    blocks: bool,
    selection: Selection,
}

/// Reads the records twice, each time from a fresh iterator of `records`:
/// once to count and choose, once to take the games listed and, with
/// `blocks_dir`, to write every game's replay into its block.
fn collect<I, F>(
    mut records: F,
    asked: &[u64],
    blocks_dir: Option<&Path>,
    tests: Vec<TestSpec>,
) -> Result<Page, StoreError>
where
    F: FnMut() -> Result<I, StoreError>,
    I: Iterator<Item = Result<GameRecord, StoreError>>,
{
    let mut chooser = Chooser::new(asked);
    let mut course = Course::new(tests);
    for r in records()? {
        let r = r?;
        chooser.add(&r);
        course.add_game(&r);
    }
    let count = chooser.totals.count;
    course.start_traces(count);
    let all_listed = count <= LIST_ALL;
    let embed_all = count <= EMBED_ALL;
    let chosen = chooser.chosen();
    let mut blocks = blocks_dir.map(BlockWriter::new).transpose()?;
    let mut listed: Vec<(u64, Box<RawValue>)> = Vec::new();
    let (mut replays, mut used) = (0, 0);
    for r in records()? {
        let r = r?;
        course.add_trace(&r);
        if let Some(b) = blocks.as_mut() {
            b.add(&r)?;
        }
        let picked = chosen.contains(&r.index);
        if !(all_listed || picked) {
            continue;
        }
        let mut embed = embed_all || picked;
        if embed {
            used += replay_bytes(&r);
            // The first game listed always comes with its replay.
            embed = listed.is_empty() || used <= REPLAY_BUDGET_BYTES;
        }
        replays += usize::from(embed);
        listed.push((r.index, raw_view(&r, embed)));
    }
    if let Some(b) = blocks {
        b.finish()?;
    }
    listed.sort_by_key(|(i, _)| *i);
    Ok(Page {
        totals: chooser.totals,
        course,
        forfeit_reasons: chooser.forfeit_reasons,
        games: listed.into_iter().map(|(_, v)| v).collect(),
        replays,
        blocks: blocks_dir.is_some(),
        selection: Selection {
            all_listed,
            last_per_pairing: LAST_PER_PAIRING,
            max_forfeits: MAX_FORFEITS,
            forfeits: chooser.forfeit_count,
            asked: chooser.asked.into_iter().collect(),
        },
    })
}

/// The name of the block file holding game `index`'s replay.
pub fn block_name(index: u64) -> String {
    store::replay_block(index / BLOCK_GAMES)
}

/// Writes `replays/block-NNNNN.js`: every game's replay, one
/// `arenaReplay(...);` line each, grouped by `index / BLOCK_GAMES`. Block
/// files an earlier report left that this one did not write go.
struct BlockWriter {
    dir: PathBuf,
    current: Option<(u64, Vec<u8>)>,
    written: HashSet<u64>,
}

impl BlockWriter {
    fn new(report_dir: &Path) -> Result<Self, StoreError> {
        Ok(BlockWriter {
            dir: store::private_subdir(report_dir, REPLAY_DIR)?,
            current: None,
            written: HashSet::new(),
        })
    }

    fn add(&mut self, r: &GameRecord) -> Result<(), StoreError> {
        let block = r.index / BLOCK_GAMES;
        if self.current.as_ref().is_some_and(|(b, _)| *b != block) {
            self.flush()?;
        }
        let (_, buf) = self.current.get_or_insert_with(|| (block, Vec::new()));
        buf.extend_from_slice(b"arenaReplay(");
        buf.extend_from_slice(script_safe_json(&game_view(r, true)).as_bytes());
        buf.extend_from_slice(b");\n");
        Ok(())
    }

    /// Writes the block being filled; a block met again (a file not in
    /// index order) is appended to. Not synced: `arena report` makes the
    /// blocks again from the records.
    fn flush(&mut self) -> Result<(), StoreError> {
        let Some((block, buf)) = self.current.take() else {
            return Ok(());
        };
        let path = self.dir.join(store::replay_block(block));
        let again = !self.written.insert(block);
        let mut f = store::create_or_append(&path, again)?;
        f.write_all(&buf).map_err(store::io_err(&path))
    }

    fn finish(mut self) -> Result<(), StoreError> {
        self.flush()?;
        let entries = fs::read_dir(&self.dir).map_err(store::io_err(&self.dir))?;
        for entry in entries {
            let entry = entry.map_err(store::io_err(&self.dir))?;
            let stale = store::replay_block_of(&entry.file_name().to_string_lossy())
                .is_some_and(|b| !self.written.contains(&b));
            if stale {
                fs::remove_file(entry.path()).map_err(store::io_err(&entry.path()))?;
            }
        }
        Ok(())
    }
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

/// Renders the page for `records` (all in memory, for tests; no block
/// files), titled `title`, with the standings and rating chart from
/// `ratings` when given (else counted from the records).
pub fn render_html(title: &str, records: &[GameRecord], ratings: Option<&[RatingsRow]>) -> String {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.index);
    let page = collect(
        || Ok(sorted.iter().map(|r| Ok((*r).clone()))),
        &[],
        None,
        Vec::new(),
    )
    .expect("records in memory read without error");
    render(title, page, ratings, None, None)
}

/// The run's sequential tests, from its manifest: `arena match --sprt`
/// (the first bot against the second) or a gauntlet's `sprt` (each
/// challenger against the champion). A text that does not parse gives none.
fn sprt_tests(manifest: Option<&store::Manifest>) -> Vec<TestSpec> {
    let Some(m) = manifest else {
        return Vec::new();
    };
    let c = &m.config;
    let names: Vec<&str> = c.bots.iter().map(|b| b.name.as_str()).collect();
    if let (Some(text), Some(champion)) = (&c.sprt, &c.champion) {
        let Ok(params) = text.parse() else {
            return Vec::new();
        };
        return names
            .iter()
            .filter(|n| *n != champion)
            .map(|n| TestSpec {
                tested: n.to_string(),
                opponent: champion.clone(),
                params,
            })
            .collect();
    }
    // `arena match --sprt` writes its test as the run's stop rule,
    // `sprt elo0=..,elo1=..,alpha=..,beta=..`.
    let rule = m.stop_rule.as_deref().and_then(|r| r.strip_prefix("sprt "));
    match (rule.and_then(|r| r.parse().ok()), names.as_slice()) {
        (Some(params), [first, second]) => {
            vec![TestSpec {
                tested: first.to_string(),
                opponent: second.to_string(),
                params,
            }]
        }
        _ => Vec::new(),
    }
}

fn render(
    title: &str,
    page: Page,
    ratings: Option<&[RatingsRow]>,
    ratings_summary: Option<serde_json::Value>,
    manifest: Option<&store::Manifest>,
) -> String {
    let facts = run_facts(manifest, &page.forfeit_reasons);
    let course_html = {
        let order = summary::standings_table(&page.totals, ratings).bots;
        course::section_html(&page.course, &order)
    };
    let totals = &page.totals;
    let mut standings = summary::standings_table(totals, ratings);
    let mut rating_chart = summary::rating_chart(totals, ratings, &standings.bots);
    // ratings.csv's intervals are at the run's level (`--confidence`,
    // summary.json), which the labels must say; 95% when it does not say.
    if let Some(level) = ratings_summary
        .as_ref()
        .and_then(|s| s["confidence"].as_f64())
        .map(super::ratings::level)
    {
        let named = format!("{level} interval");
        for c in &mut standings.columns {
            if c == "95% interval" {
                *c = named.clone();
            }
        }
        rating_chart.label = rating_chart.label.replace("95% interval", &named);
    }
    let crosstable = summary::crosstable(totals, &standings.bots);
    let timeline = summary::timeline(totals, &standings.bots);
    let data = PageData {
        title: title.to_string(),
        generator: format!("arena {}", env!("CARGO_PKG_VERSION")),
        standings,
        rating_chart,
        crosstable,
        timeline,
        total_games: totals.count,
        kinds: totals.kinds.clone(),
        games: page.games,
        replays: page.replays,
        blocks: page.blocks.then_some(Blocks {
            dir: REPLAY_DIR,
            games: BLOCK_GAMES,
        }),
        selection: page.selection,
        ratings_summary,
        run_facts: facts,
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
<section id="run-section"><h2>How the games were played</h2><div id="run-facts"></div></section>
<section id="standings-section"><h2>Standings</h2><div id="standings"></div><p id="seats" class="muted small"></p></section>
<section id="rating-section"><h2>Ratings</h2><div id="rating-chart"></div></section>
<div class="two">
<section id="crosstable-section"><h2>Crosstable</h2><div id="crosstable"></div></section>
<section id="timeline-section"><h2>Score over time</h2><div id="timeline"></div></section>
</div>
<section id="course-section"><h2>How the games went</h2>
{course_html}</section>
<section id="games-section"><h2>Games</h2><div id="games"></div></section>
</main>
<main id="replay" hidden></main>
<pre id="selftest" hidden></pre>
<noscript><p>This report draws most of its tables and charts with JavaScript; please enable it (How the games went reads without it).</p></noscript>
<script type="application/json" id="data">{json}</script>
<script>
{js}</script>
</body>
</html>
"##,
        json = script_safe_json(&data),
        js = js(),
    )
}

/// Writes `dir/index.html` and `dir/replays/` from the records of
/// `dir/games.jsonl`, read one at a time (twice), with `ratings` when there
/// are any; `asked`: games whose replays the page embeds besides its
/// selection (`arena report --games`). Returns the path of the page.
pub fn write_html(
    dir: &Path,
    ratings: Option<&[RatingsRow]>,
    asked: &[u64],
) -> Result<PathBuf, StoreError> {
    let title = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let games = dir.join(store::GAMES_JSONL);
    // A directory without a readable manifest (games copied from
    // elsewhere) still gets its page, without the run's conditions.
    let manifest = store::Manifest::read(dir).ok().flatten();
    let page = collect(
        || Ok(store::games_in(&games)?.map(|l| l.map(|l| l.record))),
        asked,
        Some(dir),
        sprt_tests(manifest.as_ref()),
    )?;
    // Written with ratings.csv; a file that is not JSON is left out.
    let ratings_summary = std::fs::read(dir.join(super::ratings::SUMMARY))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|_| ratings.is_some());
    let html = render(&title, page, ratings, ratings_summary, manifest.as_ref());
    store::write_atomic(dir, store::INDEX_HTML, html.as_bytes())?;
    Ok(dir.join(store::INDEX_HTML))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each registered game with a drawer gets its script, under its key,
    /// inside report.js's closure; a game without one adds nothing; and no
    /// drawer can end the page's inline `<script>`.
    #[test]
    fn the_script_has_every_registered_drawer_in_place_of_the_marker() {
        let js = js();
        assert!(!js.contains(DRAWERS_MARKER));
        let drawers: Vec<_> = arena_core::games::GAMES
            .iter()
            .filter_map(|g| g.replay_drawer)
            .collect();
        assert!(drawers.iter().any(|d| d.key == "dakon"));
        assert!(drawers.iter().any(|d| d.key == "latrunculi"));
        let closure_ends = js.rfind("})();").expect("report.js is one closure");
        for d in drawers {
            let at = js
                .find(&format!("DRAWERS[\"{}\"] = (", d.key))
                .expect(d.key);
            assert!(at < closure_ends, "{} outside the closure", d.key);
            assert!(js.contains(d.script.trim_end()), "{}", d.key);
            assert!(
                !d.script.to_ascii_lowercase().contains("</script"),
                "{}",
                d.key
            );
        }
        let nim = arena_core::games::entry("nim").expect("nim in tests");
        let alone = with_drawers(REPORT_JS, std::slice::from_ref(nim));
        assert!(!alone.contains("DRAWERS[\""), "nim has no drawer");
        assert_eq!(alone.len(), REPORT_JS.len() - DRAWERS_MARKER.len());
    }

    #[test]
    fn the_replay_links_only_files_in_the_runs_logs() {
        let ok = "logs/game00001-seat0-a.transcript";
        assert_eq!(in_logs(Some(ok)), Some(ok));
        for bad in [
            "/etc/passwd",
            "logs/../tournament.json",
            "logs",
            "javascript:alert(1)",
            "logs/x/y",
            "./logs/x",
        ] {
            assert_eq!(in_logs(Some(bad)), None, "{bad}");
        }
        assert_eq!(in_logs(None), None);
    }

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

    const LINE: &str = r#"{"index":0,"round":0,"pair":0,"game":"dakon","params":{},"seed":0,"seats":[{"name":"a","command":[],"log":null},{"name":"b","command":[],"log":null}],"initial_state":"pits=1,1 stores=0,0 turn=0 ply=0","moves":[{"seat":0,"move":"1","ms":1.0,"state":"pits=1,0 stores=1,0 turn=1 ply=1"}],"final_state":"x","scores":[1,0],"result":"1-0","reason":"normal","duration_ms":1}"#;

    fn games(n: u64) -> Vec<GameRecord> {
        (0..n)
            .map(|i| {
                let mut r: GameRecord = serde_json::from_str(LINE).unwrap();
                r.index = i;
                if i % 2 == 1 {
                    r.seats.swap(0, 1);
                }
                r
            })
            .collect()
    }

    #[test]
    fn small_runs_embed_every_replay_and_seeds_travel_as_text() {
        let html = render_html("t", &games(3), None);
        assert!(html.contains(r#""replays":3"#));
        assert!(html.contains(r#""total_games":3"#));
        // 64-bit seeds travel as text: a JavaScript number would round them.
        let mut big = games(1);
        big[0].seed = u64::MAX - 1;
        let html = render_html("t", &big, None);
        assert!(html.contains(r#""seed":"18446744073709551614""#));
    }

    #[test]
    fn past_list_all_games_the_page_lists_only_the_selection() {
        let html = render_html("t", &games(LIST_ALL + 1), None);
        let data = html.split(r#"id="data">"#).nth(1).unwrap();
        let data: serde_json::Value =
            serde_json::from_str(data.split("</script>").next().unwrap()).unwrap();
        let listed: Vec<u64> = data["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["index"].as_u64().unwrap())
            .collect();
        assert_eq!(listed, [LIST_ALL - 1, LIST_ALL]);
        assert_eq!(data["selection"]["all_listed"], false);
        assert_eq!(data["total_games"], LIST_ALL + 1);
        assert!(
            data["timeline"]["played"].as_array().unwrap().len() <= 2 * summary::TIMELINE_POINTS
        );
    }

    #[test]
    fn big_runs_embed_a_bounded_selection_and_write_every_game_in_blocks() {
        let tmp = tempfile::tempdir().unwrap();
        let n = EMBED_ALL * 3 + 7;
        let mut records = games(n);
        records[5].reason = arena_core::record::Reason::Timeout;
        records[5].offender = Some(1);
        let text: String = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        fs::write(tmp.path().join(store::GAMES_JSONL), text).unwrap();
        // A block left by an earlier, longer run goes.
        let blocks = tmp.path().join(REPLAY_DIR);
        fs::create_dir_all(&blocks).unwrap();
        fs::write(blocks.join("block-00099.js"), "").unwrap();
        let page = write_html(tmp.path(), None, &[17]).unwrap();
        let html = fs::read_to_string(page).unwrap();
        let data = html.split(r#"id="data">"#).nth(1).unwrap();
        let data: serde_json::Value =
            serde_json::from_str(data.split("</script>").next().unwrap()).unwrap();
        let games = data["games"].as_array().unwrap();
        // Up to LIST_ALL games, every game is listed.
        assert_eq!(games.len() as u64, n);
        let embedded: Vec<u64> = games
            .iter()
            .filter(|g| g.get("moves").is_some())
            .map(|g| g["index"].as_u64().unwrap())
            .collect();
        // One pairing: its last two games, the forfeit, the game asked for.
        assert_eq!(embedded, [5, 17, n - 2, n - 1]);
        assert_eq!(data["replays"], 4);
        assert_eq!(data["total_games"], n);
        let mut names: Vec<String> = fs::read_dir(&blocks)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "block-00000.js",
                "block-00001.js",
                "block-00002.js",
                "block-00003.js"
            ]
        );
        let last = fs::read_to_string(blocks.join(block_name(n - 1))).unwrap();
        assert_eq!(last.lines().count() as u64, n % BLOCK_GAMES);
        assert!(last.starts_with("arenaReplay({\"index\":300,"), "{last}");
    }

    #[test]
    fn escape_html_escapes_markup() {
        assert_eq!(
            escape_html("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
