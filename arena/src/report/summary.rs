//! Numbers behind the report, computed from game records and, when there
//! are any, the ratings (just computed, or read from `ratings.csv`):
//! standings, the crosstable, the score over time and the intervals the
//! rating chart draws.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rating::stats;
use crate::standings::{Row, Standings, Tally};
use crate::store::RatingsRow;
use arena_core::record::GameRecord;

/// Records in schedule order (by `index`), whatever order the file had.
pub fn in_order(records: &[GameRecord]) -> Vec<&GameRecord> {
    let mut v: Vec<&GameRecord> = records.iter().collect();
    v.sort_by_key(|r| r.index);
    v
}

/// Standings from the records alone: most points first, then the better
/// score %, then the name.
pub fn standings_from_records(records: &[GameRecord]) -> Vec<Row> {
    let score = |r: &Row| r.tally.score_pct().unwrap_or(0.0);
    let mut rows = Standings::of(records).rows;
    rows.sort_by(|a, b| {
        b.tally
            .points()
            .total_cmp(&a.tally.points())
            .then(score(b).total_cmp(&score(a)))
            .then(a.name.cmp(&b.name))
    });
    rows
}

/// The standings table as the page shows it: labels, cells already
/// formatted, and which columns are numbers (right-aligned).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    /// Where the numbers come from: `ratings.csv` or `records`.
    pub source: String,
    pub columns: Vec<String>,
    pub numeric: Vec<bool>,
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
pub fn standings_table(records: &[GameRecord], ratings: Option<&[RatingsRow]>) -> Table {
    let lines = standings_from_records(records);
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
                (Some(lo), Some(hi)) if col.interval => {
                    format!("{} .. {}", fmt_num(lo, dec), fmt_num(hi, dec))
                }
                (Some(v), Some(e)) => format!("{} ± {}", fmt_num(v, dec), fmt_num(e, dec)),
                (Some(v), None) => fmt_num(v, dec),
            });
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
    pub bot: String,
    pub value: f64,
    pub lo: f64,
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
    pub bars: Vec<ChartBar>,
}

/// Bradley-Terry Elo with its interval when `ratings` has them, else score %
/// with a Wilson interval. Bars follow `order`.
pub fn rating_chart(
    records: &[GameRecord],
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
    let lines = standings_from_records(records);
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
    pub bots: Vec<String>,
    pub points: Vec<Vec<f64>>,
    pub games: Vec<Vec<u64>>,
}

pub fn crosstable(records: &[GameRecord], bots: &[String]) -> Crosstable {
    let n = bots.len();
    let mut points = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0; n]; n];
    let pos = |name: &str| bots.iter().position(|b| b == name);
    for r in records {
        let (Some(a), Some(b)) = (pos(&r.seats[0].name), pos(&r.seats[1].name)) else {
            continue;
        };
        points[a][b] += r.result.points(0);
        points[b][a] += r.result.points(1);
        games[a][b] += 1;
        games[b][a] += 1;
    }
    Crosstable {
        bots: bots.to_vec(),
        points,
        games,
    }
}

/// Cumulative points of each bot after each game, games in index order:
/// `points[b][k]` is bot b's total after the (k+1)-th game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timeline {
    pub bots: Vec<String>,
    pub points: Vec<Vec<f64>>,
    /// The game index of each step, for the axis.
    pub games: Vec<u64>,
}

pub fn timeline(records: &[GameRecord], bots: &[String]) -> Timeline {
    let ordered = in_order(records);
    let mut totals = vec![0.0; bots.len()];
    let mut points = vec![Vec::with_capacity(ordered.len()); bots.len()];
    let mut games = Vec::with_capacity(ordered.len());
    for r in ordered {
        for seat in 0..2 {
            if let Some(b) = bots.iter().position(|b| *b == r.seats[seat].name) {
                totals[b] += r.result.points(seat);
            }
        }
        for (b, t) in totals.iter().enumerate() {
            points[b].push(*t);
        }
        games.push(r.index);
    }
    Timeline {
        bots: bots.to_vec(),
        points,
        games,
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
        let s = standings_from_records(&sample());
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
        let ct = crosstable(&records, &bots);
        assert_eq!(ct.points[0][1], 1.5);
        assert_eq!(ct.points[1][0], 0.5);
        assert_eq!(ct.games[0][1], 2);
        assert_eq!(ct.games[0][0], 0);
        let tl = timeline(&records, &bots);
        assert_eq!(tl.points[0], [1.0, 1.5, 2.5, 2.5]);
        assert_eq!(tl.points[2], [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(tl.games, [0, 1, 2, 3]);
    }

    #[test]
    fn ratings_csv_is_read_by_header_names_and_orders_the_table() {
        let csv = "games,bot,bt_elo,bt_lo,bt_hi,elo,extra\n3,c,50,-10,110,20,x\n\
                   3,a,-20,-90,40,-5,y\n1,'-z,0,,,0,\n1,''x,0,,,0,\n";
        let r = crate::store::parse_ratings(csv).unwrap();
        let t = standings_table(&sample(), Some(&r));
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
        let chart = rating_chart(&sample(), Some(&r), &t.bots);
        assert_eq!(chart.bars.len(), 4);
        assert_eq!((chart.bars[0].lo, chart.bars[0].hi), (-10.0, 110.0));
        assert_eq!(chart.reference, (50.0 - 20.0 + 0.0 + 0.0) / 4.0);
    }

    #[test]
    fn without_ratings_the_chart_shows_score_with_wilson_intervals() {
        let records = sample();
        let t = standings_table(&records, None);
        assert_eq!(t.source, "records");
        let chart = rating_chart(&records, None, &t.bots);
        assert_eq!(chart.reference, 50.0);
        let a = &chart.bars[0];
        assert!(a.lo < a.value && a.value < a.hi && a.hi <= 100.0, "{a:?}");
        let i = stats::wilson(5.0, 10.0, stats::Z95).unwrap();
        assert!((i.lo - 0.2366).abs() < 1e-3 && (i.hi - 0.7634).abs() < 1e-3);
    }
}
