//! Numbers behind the report, counted from game records one at a time
//! ([`RunTotals`]: what it keeps grows with the bots, not with the games)
//! and, when there are any, the ratings (just computed, or read from
//! `ratings.csv`): standings, the crosstable, the score over time and the
//! intervals the rating chart draws.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::rating::stats;
use crate::rating::Tally;
use crate::standings::{Row, Standings};
use crate::store::RatingsRow;
use arena_core::record::GameRecord;

/// At most about this many steps of the score-over-time chart: past it,
/// the chart shows every k-th game (k a power of two) and the last.
pub const TIMELINE_POINTS: usize = 1000;

/// What the report counts from the records, one record at a time: the
/// standings, the head-to-head points of every pair, cumulative points
/// sampled for the timeline, and how many games of each kind.
#[derive(Clone, Debug, Default)]
pub struct RunTotals {
    standings: Standings,
    ids: HashMap<String, usize>,
    names: Vec<String>,
    /// `points[a][b]`: what bot a scored against bot b (bots by id).
    points: Vec<Vec<f64>>,
    games: Vec<Vec<u64>>,
    totals: Vec<f64>,
    /// Every `stride`-th game's (games counted, index, totals by id).
    samples: Vec<(u64, u64, Vec<f64>)>,
    stride: u64,
    last: Option<(u64, u64)>,
    /// Games counted.
    pub count: u64,
    /// Games per game name (dakon, latrunculi).
    pub kinds: BTreeMap<String, u64>,
}

impl RunTotals {
    /// Totals of no games yet: records are added one at a time, so memory does
    /// not grow with the games.
    pub fn new() -> Self {
        RunTotals {
            stride: 1,
            ..Default::default()
        }
    }

    /// The totals of `records`, taken in schedule order (by `index`).
    pub fn of(records: &[GameRecord]) -> Self {
        let mut v: Vec<&GameRecord> = records.iter().collect();
        v.sort_by_key(|r| r.index);
        let mut t = RunTotals::new();
        for r in v {
            t.add(r);
        }
        t
    }

    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        let i = self.names.len();
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), i);
        for row in &mut self.points {
            row.push(0.0);
        }
        for row in &mut self.games {
            row.push(0);
        }
        self.points.push(vec![0.0; i + 1]);
        self.games.push(vec![0; i + 1]);
        self.totals.push(0.0);
        i
    }

    /// Counts one game (the timeline takes games in the order given:
    /// schedule order for the files arena writes).
    pub fn add(&mut self, r: &GameRecord) {
        self.standings.add(r);
        let (a, b) = (self.id(&r.seats[0].name), self.id(&r.seats[1].name));
        let (pa, pb) = (r.result.points(0), r.result.points(1));
        self.totals[a] += pa;
        self.totals[b] += pb;
        if a != b {
            self.points[a][b] += pa;
            self.points[b][a] += pb;
            self.games[a][b] += 1;
            self.games[b][a] += 1;
        }
        self.count += 1;
        *self.kinds.entry(r.game.clone()).or_default() += 1;
        self.last = Some((self.count, r.index));
        // The stride is a power of two.
        if self.count & (self.stride - 1) == 0 {
            self.samples
                .push((self.count, r.index, self.totals.clone()));
            if self.samples.len() >= 2 * TIMELINE_POINTS {
                self.stride *= 2;
                let stride = self.stride;
                self.samples.retain(|s| s.0 & (stride - 1) == 0);
            }
        }
    }

    /// Standings from the records alone: most points first, then the
    /// better score %, then the name.
    pub fn standings_rows(&self) -> Vec<Row> {
        let score = |r: &Row| r.tally.score_pct().unwrap_or(0.0);
        let mut rows = self.standings.rows.clone();
        rows.sort_by(|a, b| {
            b.tally
                .points()
                .total_cmp(&a.tally.points())
                .then(score(b).total_cmp(&score(a)))
                .then(a.name.cmp(&b.name))
        });
        rows
    }
}

/// The standings table as the page shows it: labels, cells already
/// formatted, and which columns are numbers (right-aligned).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    /// Where the numbers come from: `ratings.csv` or `records`.
    pub source: String,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// Per column: whether it holds numbers (right-aligned).
    pub numeric: Vec<bool>,
    /// One row per bot, cells already formatted, in `bots` order.
    pub rows: Vec<Vec<String>>,
    /// The bots in table order (the order every other view uses).
    pub bots: Vec<String>,
}

fn fmt_num(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// Builds the standings: from `ratings` when given (its row order, its
/// rating columns), else from the records. Win/draw/loss counts always come
/// from the records, so the two sources agree on them.
pub fn standings_table(totals: &RunTotals, ratings: Option<&[RatingsRow]>) -> Table {
    let lines = totals.standings_rows();
    let by_name: BTreeMap<&str, &Tally> =
        lines.iter().map(|l| (l.name.as_str(), &l.tally)).collect();
    let mut columns: Vec<String> = [
        "#", "bot", "games", "points", "wins", "draws", "losses", "forfeits", "score %",
    ]
    .map(String::from)
    .to_vec();
    let mut numeric = vec![true, false, true, true, true, true, true, true, true];
    let mut bots: Vec<String> = Vec::new();
    let mut rating_cols: Vec<&RatingColumn> = Vec::new();
    let source;
    if let Some(r) = ratings {
        source = crate::store::RATINGS;
        for row in r {
            if !bots.contains(&row.bot) {
                bots.push(row.bot.clone());
            }
        }
        for col in RATING_COLUMNS {
            if r.iter().any(|row| (col.value)(row).is_some()) {
                rating_cols.push(col);
                columns.push(col.label.to_string());
                numeric.push(true);
            }
        }
        if r.iter().any(|row| !row.bt_note.is_empty()) {
            columns.push("note".to_string());
            numeric.push(false);
        }
    } else {
        source = "records";
    }
    for l in &lines {
        if !bots.contains(&l.name) {
            bots.push(l.name.clone());
        }
    }
    let mut rows = Vec::new();
    for (rank, bot) in bots.iter().enumerate() {
        let l = by_name
            .get(bot.as_str())
            .copied()
            .copied()
            .unwrap_or_default();
        let mut row = vec![
            (rank + 1).to_string(),
            bot.clone(),
            l.games().to_string(),
            fmt_num(l.points(), 1),
            l.wins.to_string(),
            l.draws.to_string(),
            l.losses.to_string(),
            l.forfeits.to_string(),
            fmt_num(l.score_pct().unwrap_or(0.0), 1),
        ];
        let rated = ratings.and_then(|r| r.iter().find(|row| &row.bot == bot));
        for col in &rating_cols {
            let v = rated.and_then(col.value);
            let e = rated.and_then(|row| col.extra.and_then(|x| x(row)));
            let dec = col.decimals;
            row.push(match (v, e) {
                (None, _) => String::new(),
                (Some(lo), Some(hi)) if col.interval => interval_text(lo, hi, dec),
                (Some(v), Some(e)) => format!("{} ± {}", fmt_num(v, dec), fmt_num(e, dec)),
                (Some(v), None) => fmt_num(v, dec),
            });
        }
        if columns.last().is_some_and(|c| c == "note") {
            row.push(rated.map_or_else(String::new, |r| r.bt_note.clone()));
        }
        rows.push(row);
    }
    Table {
        source: source.to_string(),
        columns,
        numeric,
        rows,
        bots,
    }
}

/// An interval as the table shows it; an open end is marked, not shown as
/// a number: `>= lo` when only a lower bound exists, `<= hi`, `unbounded`.
fn interval_text(lo: f64, hi: f64, dec: usize) -> String {
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) => format!("{} .. {}", fmt_num(lo, dec), fmt_num(hi, dec)),
        (true, false) => format!("\u{2265} {}", fmt_num(lo, dec)),
        (false, true) => format!("\u{2264} {}", fmt_num(hi, dec)),
        (false, false) => "unbounded".to_string(),
    }
}

/// A column of ratings in the standings: its label, its value (and the
/// value shown beside it: ± a deviation, or the interval's other end).
struct RatingColumn {
    label: &'static str,
    value: fn(&RatingsRow) -> Option<f64>,
    extra: Option<fn(&RatingsRow) -> Option<f64>>,
    /// `lo .. hi` rather than `value ± extra`.
    interval: bool,
    decimals: usize,
}

/// Finite values only, but an interval's end may be infinite (no bound).
fn finite(x: Option<f64>) -> Option<f64> {
    x.filter(|x| x.is_finite())
}

const RATING_COLUMNS: &[RatingColumn] = &[
    RatingColumn {
        label: "BT Elo",
        value: |r| finite(r.bt_elo),
        extra: None,
        interval: false,
        decimals: 0,
    },
    RatingColumn {
        label: "95% interval",
        value: |r| r.bt_lo,
        extra: Some(|r| r.bt_hi),
        interval: true,
        decimals: 0,
    },
    RatingColumn {
        label: "Elo",
        value: |r| finite(r.elo),
        extra: None,
        interval: false,
        decimals: 0,
    },
    RatingColumn {
        label: "Glicko-2",
        value: |r| finite(r.glicko2),
        extra: Some(|r| finite(r.glicko2_rd)),
        interval: false,
        decimals: 0,
    },
    RatingColumn {
        label: "Glicko",
        value: |r| finite(r.glicko),
        extra: Some(|r| finite(r.glicko_rd)),
        interval: false,
        decimals: 0,
    },
    RatingColumn {
        label: "LOS next",
        value: |r| finite(r.los_next),
        extra: None,
        interval: false,
        decimals: 2,
    },
];

/// One bar of the rating chart: a value and its interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChartBar {
    /// The bot the bar is for.
    pub bot: String,
    /// Its rating or score %.
    pub value: f64,
    /// The low end of its interval (clipped to the chart).
    pub lo: f64,
    /// The high end of its interval (clipped to the chart).
    pub hi: f64,
}

/// What the rating chart draws.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingChart {
    /// Axis label, e.g. "Bradley-Terry Elo (95% interval)".
    pub label: String,
    /// A line worth drawing across the chart: the pool's mean rating (the
    /// rating step's anchor), or 50 %.
    pub reference: f64,
    /// The bars, in table order.
    pub bars: Vec<ChartBar>,
}

/// Bradley-Terry Elo with its interval when `ratings` has them, else score %
/// with a Wilson interval. Bars follow `order`.
pub fn rating_chart(
    totals: &RunTotals,
    ratings: Option<&[RatingsRow]>,
    order: &[String],
) -> RatingChart {
    if let Some(r) = ratings {
        let bars: Vec<ChartBar> = order
            .iter()
            .filter_map(|bot| {
                let row = r.iter().find(|row| &row.bot == bot)?;
                let value = finite(row.bt_elo)?;
                Some(ChartBar {
                    bot: bot.clone(),
                    value,
                    lo: row.bt_lo.unwrap_or(value),
                    hi: row.bt_hi.unwrap_or(value),
                })
            })
            .collect();
        // An open end (no bound from the games) runs to the chart's edge.
        let finite = bars
            .iter()
            .flat_map(|b| [b.lo, b.value, b.hi])
            .filter(|x| x.is_finite());
        let (min, max) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let margin = (0.25 * (max - min)).max(100.0);
        let mut bars = bars;
        for b in &mut bars {
            b.lo = b.lo.max(min - margin);
            b.hi = b.hi.min(max + margin);
        }
        if !bars.is_empty() {
            let mean = bars.iter().map(|b| b.value).sum::<f64>() / bars.len() as f64;
            return RatingChart {
                label: "Bradley-Terry Elo (95% interval, from ratings.csv; an open end runs to the edge; dashed: the mean)"
                    .into(),
                reference: mean,
                bars,
            };
        }
    }
    let lines = totals.standings_rows();
    let bars = order
        .iter()
        .filter_map(|bot| {
            let t = &lines.iter().find(|l| &l.name == bot)?.tally;
            // Draws count as half a win, which is close enough for a picture.
            let i = t
                .wilson_pct()
                .unwrap_or(stats::Interval { lo: 0.0, hi: 100.0 });
            Some(ChartBar {
                bot: bot.clone(),
                value: t.score_pct().unwrap_or(0.0),
                lo: i.lo,
                hi: i.hi,
            })
        })
        .collect();
    RatingChart {
        label: "score % (95% Wilson interval; no ratings.csv yet)".into(),
        reference: 50.0,
        bars,
    }
}

/// Head-to-head results: `points[i][j]` is what bot i scored against bot j
/// in `games[i][j]` games, bots in `bots` order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crosstable {
    /// The bots, in table order.
    pub bots: Vec<String>,
    /// `points[i][j]`: what bot i scored against bot j.
    pub points: Vec<Vec<f64>>,
    /// `games[i][j]`: games bot i played against bot j.
    pub games: Vec<Vec<u64>>,
}

/// The head-to-head results of `totals`, bots in `bots` order (zeros for a bot
/// without games).
pub fn crosstable(totals: &RunTotals, bots: &[String]) -> Crosstable {
    let ids: Vec<Option<usize>> = bots.iter().map(|b| totals.ids.get(b).copied()).collect();
    /// `m` in `bots` order; zero for a bot without games.
    fn reorder<T: Copy + Default>(m: &[Vec<T>], ids: &[Option<usize>]) -> Vec<Vec<T>> {
        ids.iter()
            .map(|&i| {
                ids.iter()
                    .map(|&j| i.zip(j).map_or_else(T::default, |(i, j)| m[i][j]))
                    .collect()
            })
            .collect()
    }
    Crosstable {
        bots: bots.to_vec(),
        points: reorder(&totals.points, &ids),
        games: reorder(&totals.games, &ids),
    }
}

/// Cumulative points of each bot as games go, games in the order counted:
/// `points[b][k]` is bot b's total after `played[k]` games, the last of
/// which has index `games[k]`. Every game up to [`TIMELINE_POINTS`] games,
/// past that a sample (and the last game).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timeline {
    /// The bots, in table order.
    pub bots: Vec<String>,
    /// `points[b][k]`: bot b's cumulative points at step k.
    pub points: Vec<Vec<f64>>,
    /// The game index of each step.
    pub games: Vec<u64>,
    /// Games played at each step, for the axis.
    pub played: Vec<u64>,
}

/// The points timeline of `totals`, bots in `bots` order.
pub fn timeline(totals: &RunTotals, bots: &[String]) -> Timeline {
    let mut steps: Vec<(u64, u64, &[f64])> = totals
        .samples
        .iter()
        .map(|(n, i, t)| (*n, *i, t.as_slice()))
        .collect();
    if let Some((n, i)) = totals.last {
        if steps.last().is_none_or(|s| s.0 != n) {
            steps.push((n, i, &totals.totals));
        }
    }
    let ids: Vec<Option<usize>> = bots.iter().map(|b| totals.ids.get(b).copied()).collect();
    Timeline {
        bots: bots.to_vec(),
        points: ids
            .iter()
            .map(|id| {
                steps
                    .iter()
                    .map(|s| id.and_then(|i| s.2.get(i).copied()).unwrap_or(0.0))
                    .collect()
            })
            .collect(),
        games: steps.iter().map(|s| s.1).collect(),
        played: steps.iter().map(|s| s.0).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::record::{GameResult, Reason, SeatRecord};

    fn game(index: u64, a: &str, b: &str, result: GameResult, reason: Reason) -> GameRecord {
        let seat = |name: &str| SeatRecord {
            name: name.into(),
            command: vec![],
            log: None,
            budget: Default::default(),
            ready: None,
            transcript: None,
        };
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
            moves: vec![],
            final_state: String::new(),
            scores: [0, 0],
            result,
            reason,
            detail: None,
            offender: reason.is_forfeit().then_some(match result {
                GameResult::Seat0Wins => 1,
                _ => 0,
            }),
            clock: Default::default(),
            duration_ms: 0,
        }
    }

    fn sample() -> Vec<GameRecord> {
        use GameResult::*;
        vec![
            game(0, "a", "b", Seat0Wins, Reason::Normal),
            game(1, "b", "a", Draw, Reason::Adjudicated),
            game(2, "c", "a", Seat1Wins, Reason::Timeout),
            game(3, "b", "c", Seat0Wins, Reason::Normal),
        ]
    }

    #[test]
    fn standings_count_points_results_and_forfeits() {
        let s = RunTotals::of(&sample()).standings_rows();
        let names: Vec<&str> = s.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let t: Vec<&Tally> = s.iter().map(|l| &l.tally).collect();
        assert_eq!(
            (t[0].games(), t[0].wins, t[0].draws, t[0].losses),
            (3, 2, 1, 0)
        );
        assert_eq!(t[0].points(), 2.5);
        assert_eq!((t[2].losses, t[2].forfeits), (2, 1));
        assert!((t[1].score_pct().unwrap() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn crosstable_and_timeline_follow_the_results() {
        let records = sample();
        let bots: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let totals = RunTotals::of(&records);
        let ct = crosstable(&totals, &bots);
        assert_eq!(ct.points[0][1], 1.5);
        assert_eq!(ct.points[1][0], 0.5);
        assert_eq!(ct.games[0][1], 2);
        assert_eq!(ct.games[0][0], 0);
        let tl = timeline(&totals, &bots);
        assert_eq!(tl.points[0], [1.0, 1.5, 2.5, 2.5]);
        assert_eq!(tl.points[2], [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(tl.games, [0, 1, 2, 3]);
        assert_eq!(tl.played, [1, 2, 3, 4]);
    }

    #[test]
    fn a_long_timeline_is_sampled_and_ends_at_the_last_game() {
        let mut totals = RunTotals::new();
        let n = 5 * TIMELINE_POINTS as u64 + 3;
        for i in 0..n {
            totals.add(&game(i, "a", "b", GameResult::Seat0Wins, Reason::Normal));
        }
        let bots: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let tl = timeline(&totals, &bots);
        assert!(
            tl.played.len() <= 2 * TIMELINE_POINTS,
            "{}",
            tl.played.len()
        );
        assert!(
            tl.played.len() >= TIMELINE_POINTS / 2,
            "{}",
            tl.played.len()
        );
        assert_eq!(*tl.played.last().unwrap(), n);
        assert_eq!(*tl.points[0].last().unwrap(), n as f64);
        assert!(tl.played.windows(2).all(|w| w[0] < w[1]));
        // Every step's total is the number of games played by then.
        assert!(tl
            .played
            .iter()
            .zip(&tl.points[0])
            .all(|(p, x)| *p as f64 == *x));
    }

    #[test]
    fn ratings_csv_is_read_by_header_names_and_orders_the_table() {
        let csv = "games,bot,bt_elo,bt_lo,bt_hi,elo,extra\n3,c,50,-10,110,20,x\n\
                   3,a,-20,-90,40,-5,y\n1,'-z,0,,,0,\n1,''x,0,,,0,\n";
        let r = crate::store::parse_ratings(csv).unwrap();
        let t = standings_table(&RunTotals::of(&sample()), Some(&r));
        assert_eq!(t.source, "ratings.csv");
        // `'-z` is how the rating step writes the name `-z`, `''x` the name
        // `'x`.
        assert_eq!(t.bots, ["c", "a", "-z", "'x", "b"]);
        let col = |name: &str| t.columns.iter().position(|c| c == name).unwrap();
        assert_eq!(t.rows[0][col("BT Elo")], "50");
        assert_eq!(t.rows[0][col("95% interval")], "-10 .. 110");
        assert_eq!(t.rows[1][col("wins")], "2");
        assert_eq!(t.rows[2][col("95% interval")], "");
        assert_eq!(t.rows[4][col("BT Elo")], "");
        let chart = rating_chart(&RunTotals::of(&sample()), Some(&r), &t.bots);
        assert_eq!(chart.bars.len(), 4);
        assert_eq!((chart.bars[0].lo, chart.bars[0].hi), (-10.0, 110.0));
        assert_eq!(chart.reference, (50.0 - 20.0 + 0.0 + 0.0) / 4.0);
    }

    /// An open interval is written as the bound it is, and the note says
    /// why; the control: without notes there is no note column.
    #[test]
    fn open_intervals_are_marked_and_explained() {
        let csv = "bot,bt_elo,bt_lo,bt_hi,bt_note\n\
                   c,1700,1700,inf,won every game: at least 1700\n\
                   a,1500,1400,1600,\n\
                   b,1300,-inf,1300,lost every game: at most 1300\n";
        let r = crate::store::parse_ratings(csv).unwrap();
        let t = standings_table(&RunTotals::of(&sample()), Some(&r));
        let col = |name: &str| t.columns.iter().position(|c| c == name).unwrap();
        let cells: Vec<(&str, &str)> = t
            .rows
            .iter()
            .map(|row| (row[col("95% interval")].as_str(), row[col("note")].as_str()))
            .collect();
        assert_eq!(
            cells,
            [
                ("\u{2265} 1700", "won every game: at least 1700"),
                ("1400 .. 1600", ""),
                ("\u{2264} 1300", "lost every game: at most 1300"),
            ]
        );
        assert!(!t.numeric[col("note")]);
        let plain = crate::store::parse_ratings("bot,bt_elo,bt_lo,bt_hi\na,1,0,2\n").unwrap();
        let t = standings_table(&RunTotals::of(&sample()), Some(&plain));
        assert!(!t.columns.iter().any(|c| c == "note"));
    }

    #[test]
    fn without_ratings_the_chart_shows_score_with_wilson_intervals() {
        let totals = RunTotals::of(&sample());
        let t = standings_table(&totals, None);
        assert_eq!(t.source, "records");
        let chart = rating_chart(&totals, None, &t.bots);
        assert_eq!(chart.reference, 50.0);
        let a = &chart.bars[0];
        assert!(a.lo < a.value && a.value < a.hi && a.hi <= 100.0, "{a:?}");
        let i = stats::wilson(5.0, 10.0, stats::Z95).unwrap();
        assert!((i.lo - 0.2366).abs() < 1e-3 && (i.hi - 0.7634).abs() < 1e-3);
    }
}
