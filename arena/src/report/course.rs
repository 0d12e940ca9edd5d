//! How the games went, counted from the records one at a time, for the
//! report's "How the games went" section: each bot's time per move and the
//! games' lengths (distributions), and what happened over the run: every
//! bot's sequential Elo and, for an SPRT, the log-likelihood ratio against
//! games played.
//!
//! What it keeps grows with the bots and the distinct game lengths, not
//! with the games: times per move go into a log-scale histogram of
//! [`BINS_PER_DECADE`] bins a decade (the median and p90 are the middle of
//! their bin, within 6% of the exact value; the minimum, the maximum and
//! the mean are exact), and the traces keep about [`TRACE_POINTS`] points.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::rating::elo::elo_step;
use crate::rating::{RatingOptions, Sprt, SprtParams};
use arena_core::record::GameRecord;

/// Histogram bins per decade of milliseconds: a bin spans a factor of
/// 10^(1/20) = 1.12, so its middle is within 6% of any time in it.
pub const BINS_PER_DECADE: usize = 20;
/// The lowest bin starts here (ms); faster moves count in it.
const FLOOR_MS: f64 = 0.01;
/// About this many points of each trace: a point every `ceil(games /
/// TRACE_POINTS)` games (pairs for an SPRT), and the last.
pub const TRACE_POINTS: u64 = 400;

/// The times of one bot's moves (the referee's opening plies left out).
#[derive(Clone, Debug, Default)]
pub struct Times {
    /// Counts per log bin ([`bin_of`]).
    bins: Vec<u64>,
    /// Moves counted.
    pub count: u64,
    /// Their total time, in ms (for the mean).
    pub sum: f64,
    /// The fastest move, in ms (exact).
    pub min: f64,
    /// The slowest move, in ms (exact).
    pub max: f64,
}

fn bin_of(ms: f64) -> usize {
    if ms <= FLOOR_MS || ms.is_nan() {
        return 0;
    }
    // Finite for any finite time; at most a few hundred bins.
    ((ms / FLOOR_MS).log10() * BINS_PER_DECADE as f64).floor() as usize
}

/// The lower edge of bin `i`, in ms.
pub fn bin_edge(i: usize) -> f64 {
    FLOOR_MS * 10f64.powf(i as f64 / BINS_PER_DECADE as f64)
}

impl Times {
    /// Counts a move that took `ms` milliseconds (a negative or non-finite time
    /// counts as 0).
    pub fn add(&mut self, ms: f64) {
        let ms = if ms.is_finite() { ms.max(0.0) } else { 0.0 };
        let b = bin_of(ms);
        if self.bins.len() <= b {
            self.bins.resize(b + 1, 0);
        }
        self.bins[b] += 1;
        if self.count == 0 {
            (self.min, self.max) = (ms, ms);
        }
        self.min = self.min.min(ms);
        self.max = self.max.max(ms);
        self.count += 1;
        self.sum += ms;
    }

    /// The exact mean time per move, in ms; `None` without moves.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// The `q` quantile (nearest rank): the geometric middle of its bin,
    /// kept within the exact minimum and maximum.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let mid = (bin_edge(i) * bin_edge(i + 1)).sqrt();
                let mid = if i == 0 { self.min } else { mid };
                return Some(mid.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// Counts per bin, bins `lo..hi` (for a histogram on an axis shared by
    /// every bot).
    pub fn counts(&self, lo: usize, hi: usize) -> Vec<u64> {
        (lo..hi)
            .map(|i| self.bins.get(i).copied().unwrap_or(0))
            .collect()
    }

    /// The first and one past the last bin holding a move.
    pub fn bin_range(&self) -> Option<(usize, usize)> {
        let lo = self.bins.iter().position(|&n| n > 0)?;
        let hi = self.bins.iter().rposition(|&n| n > 0)? + 1;
        Some((lo, hi))
    }
}

/// Games by their number of plies (opening plies included: the game's
/// length as played out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lengths {
    /// Games per number of plies.
    pub counts: BTreeMap<usize, u64>,
}

impl Lengths {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The `q` quantile of the plies (nearest rank), exact.
    pub fn quantile(&self, q: f64) -> Option<usize> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        self.counts.iter().find_map(|(&plies, &c)| {
            seen += c;
            (seen >= rank).then_some(plies)
        })
    }

    /// The exact mean plies per game; `None` without games.
    pub fn mean(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| {
            self.counts
                .iter()
                .map(|(&p, &c)| p as f64 * c as f64)
                .sum::<f64>()
                / n as f64
        })
    }

    /// At most `max_bins` bins of equal integer width from the shortest
    /// game: (first plies, last plies, games) each; every game is in one.
    pub fn histogram(&self, max_bins: usize) -> Vec<(usize, usize, u64)> {
        let (Some((&lo, _)), Some((&hi, _))) =
            (self.counts.first_key_value(), self.counts.last_key_value())
        else {
            return Vec::new();
        };
        let width = (hi - lo + 1).div_ceil(max_bins.max(1));
        let mut bins: Vec<(usize, usize, u64)> = (0..(hi - lo + 1).div_ceil(width))
            .map(|k| (lo + k * width, lo + (k + 1) * width - 1, 0))
            .collect();
        for (&plies, &c) in &self.counts {
            bins[(plies - lo) / width].2 += c;
        }
        bins
    }
}

/// One sequential test to trace: the tested bot against its opponent.
#[derive(Clone, Debug)]
pub struct TestSpec {
    /// The bot the test is about (H1: it is stronger).
    pub tested: String,
    /// The bot it is tested against.
    pub opponent: String,
    /// The test's Elo hypotheses and error rates.
    pub params: SprtParams,
}

/// The LLR of one test after each sampled pair of its games.
#[derive(Clone, Debug)]
pub struct LlrTrace {
    /// Which test.
    pub spec: TestSpec,
    /// (games of the pairing counted, LLR after them).
    pub points: Vec<(u64, f64)>,
    /// Games of the pairing counted.
    pub games: u64,
    /// The LLR's lower and upper bounds (accept H0, accept H1), drawn as lines.
    pub bounds: (f64, f64),
    /// `H1 accepted`, `H0 accepted` or `continue`, after the last pair.
    pub status: String,
    sprt: Sprt,
    pairs: u64,
    /// The first game of each open pair: the tested bot's points and the
    /// game's key; and the pairs seen (a pair that repeats one is no new
    /// evidence, as in the test the run played).
    open: HashMap<u64, (f64, u64)>,
    seen: HashSet<[u64; 2]>,
    /// The last pair's point when it was not sampled.
    last: Option<(u64, f64)>,
}

impl LlrTrace {
    fn new(spec: TestSpec) -> Self {
        let sprt = Sprt::new(spec.params);
        LlrTrace {
            bounds: sprt.bounds(),
            status: sprt.status().to_string(),
            points: vec![(0, 0.0)],
            games: 0,
            spec,
            sprt,
            pairs: 0,
            open: HashMap::new(),
            seen: HashSet::new(),
            last: None,
        }
    }

    fn add(&mut self, r: &GameRecord, stride: u64) {
        let names = [&r.seats[0].name, &r.seats[1].name];
        let seat = if *names[0] == self.spec.tested && *names[1] == self.spec.opponent {
            0
        } else if *names[1] == self.spec.tested && *names[0] == self.spec.opponent {
            1
        } else {
            return;
        };
        self.games += 1;
        let points = r.result.points(seat);
        let key = r.play_key();
        let Some((first, first_key)) = self.open.remove(&r.pair) else {
            self.open.insert(r.pair, (points, key));
            return;
        };
        if self.seen.insert([first_key, key]) {
            self.sprt.record_pair(first, points);
        } else {
            self.sprt.record_repeat();
        }
        self.pairs += 1;
        self.status = self.sprt.status().to_string();
        let point = (self.games, self.sprt.llr());
        if self.pairs.is_multiple_of(stride) {
            self.points.push(point);
            self.last = None;
        } else {
            self.last = Some(point);
        }
    }

    /// The sampled points and the last pair's.
    pub fn line(&self) -> Vec<(u64, f64)> {
        let mut v = self.points.clone();
        v.extend(self.last);
        v
    }
}

/// Every bot's Elo after each sampled game, in the order the games are
/// read (schedule order for the files arena writes).
#[derive(Clone, Debug, Default)]
pub struct EloTrace {
    /// Games counted at each point.
    pub played: Vec<u64>,
    /// `elo[k][id]`: bot `id`'s Elo at point `k`; `None` before its first
    /// game.
    pub elo: Vec<Vec<Option<f64>>>,
    current: Vec<Option<f64>>,
    count: u64,
    last: Option<u64>,
}

/// What [`Course`] counts.
#[derive(Clone, Debug, Default)]
pub struct Course {
    ids: HashMap<String, usize>,
    /// The bots' names, by id (in the order first seen).
    pub names: Vec<String>,
    /// Times per move by bot id.
    pub times: Vec<Times>,
    /// The games' lengths.
    pub lengths: Lengths,
    /// Every bot's sequential Elo over the run.
    pub elo: EloTrace,
    /// One LLR trace per sequential test of the run.
    pub tests: Vec<LlrTrace>,
    stride: u64,
    pair_stride: u64,
}

impl Course {
    /// Ready for the first pass; `tests`: the run's sequential tests.
    pub fn new(tests: Vec<TestSpec>) -> Self {
        Course {
            tests: tests.into_iter().map(LlrTrace::new).collect(),
            stride: 1,
            pair_stride: 1,
            ..Default::default()
        }
    }

    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        self.ids.insert(name.to_string(), self.names.len());
        self.names.push(name.to_string());
        self.times.push(Times::default());
        self.elo.current.push(None);
        self.names.len() - 1
    }

    /// The bot's id, if it played.
    pub fn id_of(&self, name: &str) -> Option<usize> {
        self.ids.get(name).copied()
    }

    /// First pass: the distributions of one game.
    pub fn add_game(&mut self, r: &GameRecord) {
        let ids = [self.id(&r.seats[0].name), self.id(&r.seats[1].name)];
        for m in r.moves.iter().skip(r.opening_plies) {
            if let Some(&id) = ids.get(m.seat) {
                self.times[id].add(m.ms);
            }
        }
        *self.lengths.counts.entry(r.moves.len()).or_default() += 1;
    }

    /// Between the passes: the traces sample about [`TRACE_POINTS`] of
    /// the `games` counted.
    pub fn start_traces(&mut self, games: u64) {
        self.stride = games.div_ceil(TRACE_POINTS).max(1);
        self.pair_stride = (games / 2).div_ceil(TRACE_POINTS).max(1);
    }

    /// Second pass: one game of the traces. Games of a bot against itself
    /// move no rating (as in the ratings).
    pub fn add_trace(&mut self, r: &GameRecord) {
        let (a, b) = (self.id(&r.seats[0].name), self.id(&r.seats[1].name));
        let e = &mut self.elo;
        e.count += 1;
        if a != b {
            let start = RatingOptions::DEFAULT_ANCHOR;
            let (ra, rb) = elo_step(
                e.current[a].unwrap_or(start),
                e.current[b].unwrap_or(start),
                r.result.points(0),
                RatingOptions::DEFAULT_K,
            );
            (e.current[a], e.current[b]) = (Some(ra), Some(rb));
        }
        if e.count.is_multiple_of(self.stride) {
            e.played.push(e.count);
            e.elo.push(e.current.clone());
            e.last = None;
        } else {
            e.last = Some(e.count);
        }
        for t in &mut self.tests {
            t.add(r, self.pair_stride);
        }
    }

    /// Every point of the Elo trace, the last game's included: (games
    /// played, each bot's Elo by id).
    pub fn elo_line(&self) -> Vec<(u64, &[Option<f64>])> {
        let e = &self.elo;
        let mut v: Vec<(u64, &[Option<f64>])> = e
            .played
            .iter()
            .zip(&e.elo)
            .map(|(&n, r)| (n, r.as_slice()))
            .collect();
        if let Some(n) = e.last {
            v.push((n, &e.current));
        }
        v
    }
}

// ---------------------------------------------------------------------------
// The section as HTML: tables (readable without JavaScript) and inline SVG.

/// The page's bot colours (`PALETTE` in report.js), by standings order.
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#7f7f7f", "#1f77b4", "#2ca02c",
];

/// Display bins of the time histograms, at most.
const TIME_BARS: usize = 30;
/// Bins of the game-length histogram, at most.
const LENGTH_BARS: usize = 30;

use super::html::escape_html as esc;

/// A time as report.js writes it (`fmtMs`).
fn ms_text(ms: f64) -> String {
    if ms >= 10000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 || ms == 0.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

fn opt_ms(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), ms_text)
}

/// "Nice" ticks between `lo` and `hi` (report.js's `ticks`).
fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let raw = (hi - lo) / count.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut out = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + step * 1e-9 {
        out.push((t * 1e10).round() / 1e10);
        t += step;
    }
    out
}

/// The section's HTML, bots in `order` (the standings'; bots not in it
/// follow).
pub fn section_html(c: &Course, order: &[String]) -> String {
    let mut bots: Vec<&str> = order.iter().map(String::as_str).collect();
    for n in &c.names {
        if !bots.contains(&n.as_str()) {
            bots.push(n);
        }
    }
    let color = |i: usize| PALETTE[i % PALETTE.len()];
    let mut h = String::new();
    h.push_str(&times_html(c, &bots, &color));
    h.push_str(&lengths_html(&c.lengths));
    h.push_str(&elo_html(c, &bots, &color));
    for (k, t) in c.tests.iter().enumerate() {
        h.push_str(&llr_html(t, k));
    }
    h
}

fn times_html(c: &Course, bots: &[&str], color: &dyn Fn(usize) -> &'static str) -> String {
    let rated: Vec<(usize, &str, &Times)> = bots
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((i, *b, &c.times[c.id_of(b)?])))
        .filter(|(_, _, t)| t.count > 0)
        .collect();
    let mut h = String::from("<h3>Time per move</h3>\n");
    if rated.is_empty() {
        h.push_str("<p class=\"muted\">No moves by the bots.</p>\n");
        return h;
    }
    let lo = rated
        .iter()
        .filter_map(|r| r.2.bin_range())
        .map(|r| r.0)
        .min()
        .unwrap_or(0);
    let hi = rated
        .iter()
        .filter_map(|r| r.2.bin_range())
        .map(|r| r.1)
        .max()
        .unwrap_or(1);
    let group = (hi - lo).div_ceil(TIME_BARS).max(1);
    let bars = (hi - lo).div_ceil(group);
    let (w, ht) = (6.0 * bars as f64, 26.0);
    h.push_str(
        "<table id=\"move-times-table\" class=\"data\"><thead><tr><th>bot</th>\
         <th class=\"num\">moves</th><th class=\"num\">min</th><th class=\"num\">median</th>\
         <th class=\"num\">p90</th><th class=\"num\">max</th><th class=\"num\">mean</th>\
         <th>histogram (log scale)</th></tr></thead><tbody>\n",
    );
    for (i, bot, t) in &rated {
        let counts = t.counts(lo, lo + bars * group);
        let grouped: Vec<u64> = counts.chunks(group).map(|g| g.iter().sum()).collect();
        let top = grouped.iter().copied().max().unwrap_or(1).max(1) as f64;
        let mut svg = format!(
            "<svg class=\"time-hist\" width=\"{w}\" height=\"{ht}\" viewBox=\"0 0 {w} {ht}\" role=\"img\" \
             aria-label=\"time per move of {}\">",
            esc(bot)
        );
        for (k, n) in grouped.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let bh = (ht - 2.0) * (*n as f64 / top).max(0.04);
            let (from, to) = (bin_edge(lo + k * group), bin_edge(lo + (k + 1) * group));
            svg.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"5\" height=\"{bh:.1}\" fill=\"{}\">\
                 <title>{n} moves of {} to {}</title></rect>",
                6.0 * k as f64,
                ht - bh,
                color(*i),
                ms_text(from),
                ms_text(to)
            ));
        }
        svg.push_str("</svg>");
        h.push_str(&format!(
            "<tr class=\"move-times\" data-bot=\"{}\" data-ms=\"{} {} {} {}\"><td class=\"bot\"><span class=\"swatch\" \
             style=\"background:{}\"></span><span class=\"botname\">{}</span></td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{svg}</td></tr>\n",
            esc(bot),
            t.min,
            t.quantile(0.5).unwrap_or(t.min),
            t.quantile(0.9).unwrap_or(t.max),
            t.max,
            color(*i),
            esc(bot),
            t.count,
            ms_text(t.min),
            opt_ms(t.quantile(0.5)),
            opt_ms(t.quantile(0.9)),
            ms_text(t.max),
            opt_ms(t.mean()),
        ));
    }
    h.push_str(&format!(
        "</tbody></table>\n<p class=\"muted small\">The bots' own moves (the referee's opening \
         plies left out), as measured by the referee. Histograms share one log axis from {} \
         to {}; the median and p90 are read from bins {:.0}% wide (within 6%).</p>\n",
        ms_text(bin_edge(lo)),
        ms_text(bin_edge(lo + bars * group)),
        (10f64.powf(1.0 / BINS_PER_DECADE as f64) - 1.0) * 100.0
    ));
    h
}

fn lengths_html(l: &Lengths) -> String {
    let mut h = String::from("<h3>Game lengths</h3>\n");
    let n = l.games();
    if n == 0 {
        h.push_str("<p class=\"muted\">No games.</p>\n");
        return h;
    }
    let q = |x: f64| l.quantile(x).map_or_else(|| "-".into(), |p| p.to_string());
    h.push_str(&format!(
        "<table id=\"game-lengths-table\" class=\"data\"><thead><tr><th class=\"num\">games</th>\
         <th class=\"num\">min</th><th class=\"num\">median</th><th class=\"num\">p90</th>\
         <th class=\"num\">max</th><th class=\"num\">mean</th></tr></thead><tbody><tr>\
         <td class=\"num\">{n}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td></tr>\
         </tbody></table>\n",
        q(0.0),
        q(0.5),
        q(0.9),
        q(1.0),
        l.mean().unwrap_or(0.0)
    ));
    let bins = l.histogram(LENGTH_BARS);
    let (w, ht, left, bottom, top) = (860.0, 170.0, 50.0, 36.0, 10.0);
    let bw = (w - left - 10.0) / bins.len() as f64;
    let most = bins.iter().map(|b| b.2).max().unwrap_or(1).max(1) as f64;
    let y = |v: f64| top + (ht - top - bottom) * (1.0 - v / most);
    let mut svg = format!(
        "<svg id=\"game-lengths-chart\" class=\"chart\" width=\"{w}\" height=\"{ht}\" \
         viewBox=\"0 0 {w} {ht}\" role=\"img\" aria-label=\"games by plies\">"
    );
    for t in ticks(0.0, most, 4) {
        svg.push_str(&format!(
            "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{t}</text>",
            w - 10.0,
            y(t),
            y(t),
            left - 6.0,
            y(t) + 4.0
        ));
    }
    let every = bins.len().div_ceil(10).max(1);
    for (k, (from, to, count)) in bins.iter().enumerate() {
        let x = left + bw * k as f64;
        let span = if from == to {
            format!("{from} plies")
        } else {
            format!("{from}-{to} plies")
        };
        svg.push_str(&format!(
            "<rect class=\"length-bin\" data-count=\"{count}\" x=\"{:.1}\" y=\"{:.1}\" \
             width=\"{:.1}\" height=\"{:.1}\" fill=\"#4e79a7\"><title>{span}: {count} games</title></rect>",
            x + 1.0,
            y(*count as f64),
            (bw - 2.0).max(1.0),
            ht - bottom - y(*count as f64)
        ));
        if k % every == 0 {
            svg.push_str(&format!(
                "<text class=\"tick\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{from}</text>",
                x + bw / 2.0,
                ht - bottom + 16.0
            ));
        }
    }
    svg.push_str(&format!(
        "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">plies (opening \
         plies included); bars: games</text></svg>\n",
        (left + w) / 2.0,
        ht - 4.0
    ));
    h.push_str(&svg);
    h
}

/// A line chart's frame: grid, ticks and the x axis's label.
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x: (f64, f64),
    y: (f64, f64),
}

impl Frame {
    fn px(&self, v: f64) -> f64 {
        let (a, b) = self.x;
        self.left + (self.w - self.left - self.right) * if b > a { (v - a) / (b - a) } else { 1.0 }
    }

    fn py(&self, v: f64) -> f64 {
        let (a, b) = self.y;
        self.top + (self.h - self.top - self.bottom) * if b > a { (b - v) / (b - a) } else { 0.5 }
    }

    fn open(&self, id_or_class: &str, label: &str, x_label: &str) -> String {
        let mut s = format!(
            "<svg {id_or_class} width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" \
             aria-label=\"{}\">",
            self.w,
            self.h,
            self.w,
            self.h,
            esc(label)
        );
        for t in ticks(self.y.0, self.y.1, 5) {
            s.push_str(&format!(
                "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>\
                 <text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{t}</text>",
                self.left,
                self.w - self.right,
                self.left - 6.0,
                self.py(t) + 4.0,
                y = self.py(t)
            ));
        }
        for t in ticks(self.x.0, self.x.1, 6) {
            s.push_str(&format!(
                "<text class=\"tick\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{t}</text>",
                self.px(t),
                self.h - self.bottom + 16.0
            ));
        }
        s.push_str(&format!(
            "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            (self.left + self.w) / 2.0,
            self.h - 4.0,
            esc(x_label)
        ));
        s
    }
}

fn elo_html(c: &Course, bots: &[&str], color: &dyn Fn(usize) -> &'static str) -> String {
    let line = c.elo_line();
    let mut h = String::from("<h3>Ratings over the run</h3>\n");
    if line.is_empty() {
        h.push_str("<p class=\"muted\">No games.</p>\n");
        return h;
    }
    let values = line.iter().flat_map(|(_, r)| r.iter().flatten().copied());
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (lo, hi) = if lo.is_finite() {
        (lo, hi)
    } else {
        (1500.0, 1500.0)
    };
    let pad = ((hi - lo) * 0.05).max(10.0);
    let games = line.last().map_or(1, |p| p.0);
    let f = Frame {
        w: 860.0,
        h: 260.0,
        left: 56.0,
        right: 12.0,
        top: 10.0,
        bottom: 36.0,
        x: (0.0, games as f64),
        y: (lo - pad, hi + pad),
    };
    let mut s = f.open(
        "id=\"elo-trace\" class=\"chart\"",
        "each bot's Elo against games played",
        "games played; each bot's sequential Elo (K = 16, from 1500)",
    );
    let mut legend = String::new();
    for (i, bot) in bots.iter().enumerate() {
        let Some(id) = c.id_of(bot) else { continue };
        let pts: Vec<String> = line
            .iter()
            .filter_map(|(n, r)| {
                let v = r.get(id).copied().flatten()?;
                Some(format!("{:.1},{:.1}", f.px(*n as f64), f.py(v)))
            })
            .collect();
        if pts.is_empty() {
            continue;
        }
        let last = line.last().and_then(|(_, r)| r.get(id).copied().flatten());
        s.push_str(&format!(
            "<polyline class=\"elo-line\" data-bot=\"{}\" fill=\"none\" stroke=\"{}\" \
             stroke-width=\"2\" points=\"{}\"><title>{}: {}</title></polyline>",
            esc(bot),
            color(i),
            pts.join(" "),
            esc(bot),
            last.map_or_else(String::new, |v| format!("{v:.0} after {games} games"))
        ));
        legend.push_str(&format!(
            "<span class=\"legend-item\"><span class=\"swatch\" style=\"background:{}\"></span>{}</span> ",
            color(i),
            esc(bot)
        ));
    }
    s.push_str("</svg>\n");
    h.push_str(&s);
    h.push_str(&format!("<div class=\"legend\">{legend}</div>\n"));
    h.push_str(
        "<p class=\"muted small\">Elo game by game in the order the games were played, every \
         bot from 1500 (the standings' Elo column is the last point, with the default \
         <code>--k 16</code>).</p>\n",
    );
    h
}

fn llr_html(t: &LlrTrace, k: usize) -> String {
    let s = &t.spec;
    let line = t.line();
    let mut h = format!(
        "<h3>SPRT: {} against {}</h3>\n<p class=\"llr-caption\">{} ({}): {} after {} games, \
         LLR {:.3}, bounds [{:.3}, {:.3}]</p>\n",
        esc(&s.tested),
        esc(&s.opponent),
        esc(&s.tested),
        s.params,
        t.status,
        t.games,
        line.last().map_or(0.0, |p| p.1),
        t.bounds.0,
        t.bounds.1
    );
    let (lo, hi) = line
        .iter()
        .fold(t.bounds, |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad = (hi - lo) * 0.05;
    let f = Frame {
        w: 860.0,
        h: 200.0,
        left: 56.0,
        right: 12.0,
        top: 10.0,
        bottom: 36.0,
        x: (0.0, t.games.max(1) as f64),
        y: (lo - pad, hi + pad),
    };
    let mut svg = f.open(
        &format!("id=\"llr-trace-{k}\" class=\"chart llr-trace\""),
        &format!("LLR of {} against {}", s.tested, s.opponent),
        "games of the pairing; LLR (pentanomial), dashed: the bounds",
    );
    for (b, name) in [(t.bounds.0, "H0"), (t.bounds.1, "H1")] {
        svg.push_str(&format!(
            "<line class=\"llr-bound reference\" x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\">\
             <title>accept {name} at {b:.3}</title></line>",
            f.left,
            f.w - f.right,
            y = f.py(b)
        ));
    }
    let pts: Vec<String> = line
        .iter()
        .map(|(n, v)| format!("{:.1},{:.1}", f.px(*n as f64), f.py(*v)))
        .collect();
    svg.push_str(&format!(
        "<polyline class=\"llr-line\" fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"2\" \
         points=\"{}\"/></svg>\n",
        pts.join(" ")
    ));
    h.push_str(&svg);
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::record::{GameResult, MoveRecord, Reason, SeatRecord};

    /// A game of `a` (seat 0) against `b` whose moves took `ms` in turn,
    /// the first `opening` of them the referee's.
    fn game(index: u64, a: &str, b: &str, result: GameResult, ms: &[f64]) -> GameRecord {
        let seat = |name: &str| SeatRecord {
            name: name.into(),
            command: vec![],
            log: None,
            budget: Default::default(),
            ready: None,
            transcript: None,
        };
        let moves = ms
            .iter()
            .enumerate()
            .map(|(i, &ms)| {
                let mut m: MoveRecord =
                    serde_json::from_str(r#"{"seat":0,"move":"1","ms":0,"state":""}"#).unwrap();
                m.seat = i % 2;
                m.mv = format!("{index}-{i}");
                m.ms = ms;
                m
            })
            .collect();
        GameRecord {
            index,
            round: 0,
            pair: index / 2,
            game: "dakon".into(),
            params: BTreeMap::new(),
            seed: index,
            seats: [seat(a), seat(b)],
            opening_plies: 0,
            initial_state: String::new(),
            moves,
            final_state: String::new(),
            scores: [0, 0],
            result,
            reason: Reason::Normal,
            detail: None,
            offender: None,
            clock: Default::default(),
            duration_ms: 0,
        }
    }

    fn course(records: &[GameRecord], tests: Vec<TestSpec>) -> Course {
        let mut c = Course::new(tests);
        records.iter().for_each(|r| c.add_game(r));
        c.start_traces(records.len() as u64);
        records.iter().for_each(|r| c.add_trace(r));
        c
    }

    #[test]
    fn times_per_move_are_each_bots_own_moves_without_the_opening() {
        // a moves at even plies: 1..=10 ms; b's moves take 100 ms; the
        // referee's two opening plies (0 ms) count for nobody.
        let mut ms = vec![0.0, 0.0];
        for k in 1..=10 {
            ms.extend([k as f64, 100.0]);
        }
        let mut r = game(0, "a", "b", GameResult::Draw, &ms);
        r.opening_plies = 2;
        let c = course(&[r], vec![]);
        let a = &c.times[c.id_of("a").unwrap()];
        assert_eq!((a.count, a.min, a.max), (10, 1.0, 10.0));
        assert!((a.mean().unwrap() - 5.5).abs() < 1e-9);
        let near = |x: f64, want: f64| (x / want - 1.0).abs() < 0.06;
        assert!(near(a.quantile(0.5).unwrap(), 5.0), "{:?}", a.quantile(0.5));
        assert!(near(a.quantile(0.9).unwrap(), 9.0), "{:?}", a.quantile(0.9));
        let b = &c.times[c.id_of("b").unwrap()];
        assert_eq!((b.count, b.quantile(0.5), b.max), (10, Some(100.0), 100.0));
        // A time under the floor and a bogus one land in the first bin.
        let mut t = Times::default();
        t.add(0.0);
        t.add(f64::NAN);
        assert_eq!((t.count, t.quantile(0.9)), (2, Some(0.0)));
    }

    #[test]
    fn game_lengths_are_exact_and_the_histogram_holds_every_game() {
        let records: Vec<GameRecord> = [3, 5, 5, 9, 40]
            .iter()
            .enumerate()
            .map(|(i, &n)| game(i as u64, "a", "b", GameResult::Draw, &vec![1.0; n]))
            .collect();
        let l = course(&records, vec![]).lengths;
        assert_eq!(l.games(), 5);
        assert_eq!(
            (
                l.quantile(0.0),
                l.quantile(0.5),
                l.quantile(0.9),
                l.quantile(1.0)
            ),
            (Some(3), Some(5), Some(40), Some(40))
        );
        assert!((l.mean().unwrap() - 62.0 / 5.0).abs() < 1e-9);
        let h = l.histogram(4);
        // 3..=40 is 38 plies: bins of 10.
        assert_eq!(h, [(3, 12, 4), (13, 22, 0), (23, 32, 0), (33, 42, 1)]);
        assert_eq!(l.histogram(100).len(), 38);
        assert_eq!(Lengths::default().histogram(5), []);
    }

    #[test]
    fn the_elo_trace_follows_the_ratings_and_ends_at_the_last_game() {
        use GameResult::*;
        let results = [Seat0Wins, Seat1Wins, Draw, Seat0Wins, Seat0Wins];
        let records: Vec<GameRecord> = results
            .iter()
            .enumerate()
            .map(|(i, &res)| game(i as u64, "a", if i < 3 { "b" } else { "c" }, res, &[1.0]))
            .collect();
        let c = course(&records, vec![]);
        let line = c.elo_line();
        assert_eq!(
            line.iter().map(|p| p.0).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        let (a, cc) = (c.id_of("a").unwrap(), c.id_of("c").unwrap());
        // c has no rating before its first game.
        assert_eq!(line[2].1[cc], None);
        // The same steps as rating::elo::elo_ratings.
        let (mut ra, mut rb, mut rc) = (1500.0, 1500.0, 1500.0);
        for (i, r) in results.iter().enumerate() {
            let o = if i < 3 { &mut rb } else { &mut rc };
            (ra, *o) = elo_step(ra, *o, r.points(0), 16.0);
        }
        assert_eq!(line[4].1[a], Some(ra));
        assert_eq!(line[4].1[cc], Some(rc));
        assert!(ra > 1500.0 && rc < 1500.0, "{ra} {rb} {rc}");

        // A long run is sampled, and still ends at its last game.
        let many: Vec<GameRecord> = (0..5 * TRACE_POINTS + 3)
            .map(|i| game(i, "a", "b", Seat0Wins, &[]))
            .collect();
        let c = course(&many, vec![]);
        let line = c.elo_line();
        assert!(line.len() as u64 <= TRACE_POINTS + 1, "{}", line.len());
        assert_eq!(line.last().unwrap().0, many.len() as u64);
        assert!(line.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn the_llr_trace_is_the_tests_llr_pair_by_pair_without_repeats() {
        use GameResult::*;
        let params: SprtParams = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
        // Pairs of t against o, seats swapped; pair 2 repeats pair 0 move
        // for move; games of other bots are not the test's.
        let mut records = vec![
            game(0, "t", "o", Seat0Wins, &[]),
            game(1, "o", "t", Draw, &[]),
            game(2, "t", "o", Seat0Wins, &[]),
            game(3, "o", "t", Seat0Wins, &[]),
            game(4, "t", "o", Seat0Wins, &[]),
            game(5, "o", "t", Draw, &[]),
            game(6, "x", "o", Seat1Wins, &[]),
        ];
        for i in [4, 5] {
            records[i].moves = records[i - 4].moves.clone();
        }
        records[6].pair = 3;
        let spec = TestSpec {
            tested: "t".into(),
            opponent: "o".into(),
            params,
        };
        let c = course(&records, vec![spec]);
        let t = &c.tests[0];
        let mut sprt = Sprt::new(params);
        sprt.record_pair(1.0, 0.5);
        let after_first = sprt.llr();
        sprt.record_pair(1.0, 0.0);
        assert_eq!(t.games, 6);
        assert_eq!(
            t.line(),
            [(0, 0.0), (2, after_first), (4, sprt.llr()), (6, sprt.llr())]
        );
        assert_eq!(t.bounds, sprt.bounds());
        assert_eq!(t.status, "continue");
    }

    #[test]
    fn the_section_has_a_row_and_a_line_per_bot_and_every_game_in_the_lengths() {
        use GameResult::*;
        let records = vec![
            game(0, "a", "b", Seat0Wins, &[1.0, 2.0, 3.0]),
            game(1, "b", "<c>", Seat1Wins, &[10.0, 20.0]),
            game(2, "<c>", "a", Draw, &[100.0; 7]),
        ];
        let c = course(&records, vec![]);
        let order: Vec<String> = ["<c>", "a", "b"].map(String::from).to_vec();
        let h = section_html(&c, &order);
        assert_eq!(h.matches("<tr class=\"move-times\"").count(), 3);
        assert_eq!(h.matches("class=\"elo-line\"").count(), 3);
        // Rows in the standings' order, names escaped.
        let first = h.find("data-bot=\"&lt;c&gt;\"").unwrap();
        assert!(first < h.find("data-bot=\"a\"").unwrap());
        assert!(!h.contains("<c>"));
        let counts: u64 = h
            .split("data-count=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(counts, 3);
        assert!(!h.contains("llr-trace"));
    }
}
