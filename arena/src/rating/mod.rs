//! Ratings and statistics over finished games: Elo, Glicko and Glicko-2 (via
//! `skillratings`), a Bradley-Terry maximum-likelihood fit with bootstrap
//! intervals, likelihood of superiority, Wilson intervals and the SPRT.
//!
//! Pure maths: no file I/O, no clocks, no randomness except the seeded
//! bootstrap. The same games and options always give the same numbers.
//! Every formula and its source is in `docs/statistics.md`.

pub mod bradley_terry;
pub mod elo;
pub mod sprt;
pub mod stats;

use std::collections::BTreeMap;

use crate::record::{CsvRow, GameRecord, GameResult};

pub use sprt::{Pentanomial, Sprt, SprtParams, SprtStatus};

/// One finished game as the ratings see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// Position in the schedule: Elo is updated in this order.
    pub index: u64,
    /// Schedule round: one Glicko rating period.
    pub round: u64,
    /// Seat-swapped pair id.
    pub pair: u64,
    /// Bot names in seat 0 and seat 1.
    pub bots: [String; 2],
    /// From seat 0's point of view.
    pub result: GameResult,
}

impl From<&CsvRow> for Played {
    fn from(r: &CsvRow) -> Self {
        Played {
            index: r.index,
            round: r.round,
            pair: r.pair,
            bots: [
                crate::record::csv_text(&r.seat0).to_string(),
                crate::record::csv_text(&r.seat1).to_string(),
            ],
            result: r.result,
        }
    }
}

impl From<&GameRecord> for Played {
    fn from(r: &GameRecord) -> Self {
        Played {
            index: r.index,
            round: r.round,
            pair: r.pair,
            bots: [r.seats[0].name.clone(), r.seats[1].name.clone()],
            result: r.result,
        }
    }
}

/// A game between two bots of a [`Pool`], by bot number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    pub index: u64,
    pub round: u64,
    pub pair: u64,
    pub seats: [usize; 2],
    pub result: GameResult,
}

impl Game {
    /// Points scored by seat 0: 1, 0.5 or 0.
    pub fn score0(&self) -> f64 {
        self.result.points(0)
    }
}

/// The bots (sorted by name, numbered from 0) and their games in schedule
/// order. Games of a bot against itself carry no rating information and are
/// left out (counted in `self_play`).
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    pub names: Vec<String>,
    pub games: Vec<Game>,
    pub self_play: usize,
}

impl Pool {
    pub fn new(played: &[Played]) -> Pool {
        let mut ids = BTreeMap::new();
        for p in played {
            for b in &p.bots {
                ids.entry(b.clone()).or_insert(0usize);
            }
        }
        for (i, v) in ids.values_mut().enumerate() {
            *v = i;
        }
        let mut games = Vec::with_capacity(played.len());
        let mut self_play = 0;
        for p in played {
            let seats = [ids[&p.bots[0]], ids[&p.bots[1]]];
            if seats[0] == seats[1] {
                self_play += 1;
                continue;
            }
            games.push(Game {
                index: p.index,
                round: p.round,
                pair: p.pair,
                seats,
                result: p.result,
            });
        }
        // Stable: games sharing an index keep their input order.
        games.sort_by_key(|g| g.index);
        Pool {
            names: ids.into_keys().collect(),
            games,
            self_play,
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Score in percent, `None` without games.
    pub fn score_pct(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| 100.0 * self.points() / n as f64)
    }

    /// Wilson 95% interval of the score, in percent (draws half a point).
    pub fn wilson_pct(&self) -> Option<stats::Interval> {
        stats::wilson(self.points(), self.games() as f64, stats::Z95).map(|i| stats::Interval {
            lo: 100.0 * i.lo,
            hi: 100.0 * i.hi,
        })
    }

    fn add(&mut self, points: f64) {
        if points == 1.0 {
            self.wins += 1;
        } else if points == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
}

/// `h2h[i][j]`: bot i's record against bot j.
pub fn head_to_head(pool: &Pool) -> Vec<Vec<Wdl>> {
    let n = pool.len();
    let mut h = vec![vec![Wdl::default(); n]; n];
    for g in &pool.games {
        let [a, b] = g.seats;
        h[a][b].add(g.score0());
        h[b][a].add(1.0 - g.score0());
    }
    h
}

/// Everything the ratings computation can be told.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingOptions {
    /// Elo K factor.
    pub k: f64,
    /// Every system starts every bot here, and the Bradley-Terry ratings
    /// average to it.
    pub anchor: f64,
    /// Glicko's per-period RD growth c.
    pub glicko_c: f64,
    /// Glicko-2's volatility constraint tau.
    pub glicko2_tau: f64,
    /// Bootstrap resamples for the Bradley-Terry intervals (0: none).
    pub bootstrap: usize,
    /// Seed of the bootstrap generator.
    pub seed: u64,
    /// Virtual draws each bot plays against the pool average (the prior
    /// that keeps perfect scores finite).
    pub prior_draws: f64,
}

impl RatingOptions {
    pub const DEFAULT_K: f64 = 16.0;
    pub const DEFAULT_ANCHOR: f64 = 1500.0;
    /// Glicko-2's starting volatility 0.06 on the Glicko scale
    /// (0.06 * 173.7178): both systems grow RD alike per period.
    pub const DEFAULT_GLICKO_C: f64 = 0.06 * 173.7178;
    pub const DEFAULT_TAU: f64 = 0.5;
    pub const DEFAULT_BOOTSTRAP: usize = 1000;
    pub const DEFAULT_SEED: u64 = 1;
    pub const DEFAULT_PRIOR_DRAWS: f64 = 1.0;
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions {
            k: Self::DEFAULT_K,
            anchor: Self::DEFAULT_ANCHOR,
            glicko_c: Self::DEFAULT_GLICKO_C,
            glicko2_tau: Self::DEFAULT_TAU,
            bootstrap: Self::DEFAULT_BOOTSTRAP,
            seed: Self::DEFAULT_SEED,
            prior_draws: Self::DEFAULT_PRIOR_DRAWS,
        }
    }
}

/// One row of `ratings.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct BotRating {
    pub name: String,
    pub record: Wdl,
    pub elo: f64,
    pub glicko: f64,
    pub glicko_rd: f64,
    pub glicko2: f64,
    pub glicko2_rd: f64,
    pub glicko2_vol: f64,
    pub bt_elo: f64,
    /// Bootstrap 95% interval (None without resamples).
    pub bt_interval: Option<stats::Interval>,
    /// Likelihood of superiority over the next bot down (None for the last
    /// bot or without resamples).
    pub los_next: Option<f64>,
}

/// One pair's head-to-head, `bot` being the higher-placed of the two.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossEntry {
    pub bot: String,
    pub opponent: String,
    pub record: Wdl,
}

/// The ratings of a pool, sorted by strength.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    pub bots: Vec<BotRating>,
    /// Every pair that played, in standings order.
    pub crosstable: Vec<CrossEntry>,
    /// `los[i][j]`: likelihood that bot i (standings order) is stronger
    /// than bot j, from their head-to-head decisive games. None on the
    /// diagonal and for pairs without decisive games.
    pub los: Vec<Vec<Option<f64>>>,
    /// Games between a bot and itself, left out.
    pub self_play: usize,
    /// Games rated.
    pub games: usize,
}

/// Computes every rating and statistic of `played` (any order: they are
/// sorted by schedule index first).
pub fn compute(played: &[Played], opts: &RatingOptions) -> Standings {
    let pool = Pool::new(played);
    let n = pool.len();
    let h2h = head_to_head(&pool);
    let elo = elo::elo_ratings(&pool, opts.k, opts.anchor);
    let glicko = elo::glicko_ratings(&pool, opts.glicko_c, opts.anchor);
    let glicko2 = elo::glicko2_ratings(&pool, opts.glicko2_tau, opts.anchor);
    let bt = bradley_terry::fit(&pool, opts.prior_draws);
    let boot = bradley_terry::bootstrap(&pool, opts.prior_draws, opts.bootstrap, opts.seed);

    let records: Vec<Wdl> = (0..n)
        .map(|i| {
            h2h[i].iter().fold(Wdl::default(), |acc, w| Wdl {
                wins: acc.wins + w.wins,
                draws: acc.draws + w.draws,
                losses: acc.losses + w.losses,
            })
        })
        .collect();

    // Strongest first: Bradley-Terry, then score, then name.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        bt.elo[b]
            .total_cmp(&bt.elo[a])
            .then(records[b].points().total_cmp(&records[a].points()))
            .then(pool.names[a].cmp(&pool.names[b]))
    });

    let bots = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| BotRating {
            name: pool.names[i].clone(),
            record: records[i],
            elo: elo[i],
            glicko: glicko[i].rating,
            glicko_rd: glicko[i].deviation,
            glicko2: glicko2[i].rating,
            glicko2_rd: glicko2[i].deviation,
            glicko2_vol: glicko2[i].volatility,
            bt_elo: bt.elo[i] + opts.anchor,
            bt_interval: boot.as_ref().map(|b| {
                let iv = b.interval(i);
                stats::Interval {
                    lo: iv.lo + opts.anchor,
                    hi: iv.hi + opts.anchor,
                }
            }),
            los_next: match (&boot, order.get(rank + 1)) {
                (Some(b), Some(&next)) => Some(b.superiority(i, next)),
                _ => None,
            },
        })
        .collect();

    let mut crosstable = Vec::new();
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[x + 1..] {
            if h2h[i][j].games() > 0 {
                crosstable.push(CrossEntry {
                    bot: pool.names[i].clone(),
                    opponent: pool.names[j].clone(),
                    record: h2h[i][j],
                });
            }
        }
    }

    let los = order
        .iter()
        .map(|&i| {
            order
                .iter()
                .map(|&j| {
                    if i == j {
                        None
                    } else {
                        stats::los(h2h[i][j].wins, h2h[i][j].losses)
                    }
                })
                .collect()
        })
        .collect();

    Standings {
        bots,
        crosstable,
        los,
        self_play: pool.self_play,
        games: pool.games.len(),
    }
}

/// Test helper of the rating modules: `a` is within `tol` of `b`.
#[cfg(test)]
fn close(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol,
        "{a} differs from {b} by more than {tol}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::GameResult::{self, *};

    fn played(index: u64, round: u64, a: &str, b: &str, result: GameResult) -> Played {
        Played {
            index,
            round,
            pair: index / 2,
            bots: [a.into(), b.into()],
            result,
        }
    }

    #[test]
    fn standings_count_records_and_sort_by_strength() {
        let games = vec![
            played(0, 0, "alpha", "beta", Seat0Wins),
            played(1, 0, "beta", "alpha", Seat1Wins),
            played(2, 1, "alpha", "gamma", Draw),
            played(3, 1, "gamma", "alpha", Seat1Wins),
            played(4, 2, "beta", "gamma", Seat0Wins),
            played(5, 2, "gamma", "beta", Draw),
            played(6, 2, "gamma", "gamma", Draw),
        ];
        let opts = RatingOptions {
            bootstrap: 50,
            ..RatingOptions::default()
        };
        let s = compute(&games, &opts);
        assert_eq!(s.games, 6);
        assert_eq!(s.self_play, 1);
        let names: Vec<&str> = s.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        assert_eq!(
            s.bots[0].record,
            Wdl {
                wins: 3,
                draws: 1,
                losses: 0
            }
        );
        assert_eq!(s.bots[0].record.score_pct(), Some(87.5));
        assert_eq!(s.bots[2].record.score_pct(), Some(25.0));
        // Bradley-Terry ratings average to the anchor.
        let mean: f64 = s.bots.iter().map(|b| b.bt_elo).sum::<f64>() / 3.0;
        assert!((mean - 1500.0).abs() < 1e-9);
        // Elo is zero-sum around the start.
        let total: f64 = s.bots.iter().map(|b| b.elo).sum();
        assert!((total - 4500.0).abs() < 1e-9);
        // Every bot played in each of the 3 rounds but one, so the RDs fell.
        assert!(s
            .bots
            .iter()
            .all(|b| b.glicko_rd < 350.0 && b.glicko2_rd < 350.0));
        assert!(s.bots[0].bt_interval.unwrap().lo < s.bots[0].bt_elo);
        assert!(s.bots[0].los_next.is_some() && s.bots[2].los_next.is_none());

        let pairs: Vec<(&str, &str, Wdl)> = s
            .crosstable
            .iter()
            .map(|c| (c.bot.as_str(), c.opponent.as_str(), c.record))
            .collect();
        let wdl = |wins, draws, losses| Wdl {
            wins,
            draws,
            losses,
        };
        assert_eq!(
            pairs,
            [
                ("alpha", "beta", wdl(2, 0, 0)),
                ("alpha", "gamma", wdl(1, 1, 0)),
                ("beta", "gamma", wdl(1, 1, 0)),
            ]
        );
        // Head-to-head LOS: 2-0 gives 0.5 (1 + erf(1)) = 0.9214.
        let los = s.los[0][1].unwrap();
        assert!((los - 0.5 * (1.0 + 0.842_700_79)).abs() < 1e-6);
        assert!((s.los[1][0].unwrap() - (1.0 - los)).abs() < 1e-12);
        assert_eq!(s.los[0][0], None);
    }

    #[test]
    fn the_same_games_and_seed_give_the_same_standings() {
        let games: Vec<Played> = (0..40)
            .map(|i| {
                let r = [Seat0Wins, Draw, Seat1Wins, Seat0Wins][i as usize % 4];
                let bots = [("a", "b"), ("b", "c"), ("c", "a")][i as usize % 3];
                played(i, i / 3, bots.0, bots.1, r)
            })
            .collect();
        let opts = RatingOptions {
            bootstrap: 100,
            ..RatingOptions::default()
        };
        let one = compute(&games, &opts);
        let mut reversed = games.clone();
        reversed.reverse();
        assert_eq!(compute(&reversed, &opts), one);
        let other_seed = compute(&games, &RatingOptions { seed: 99, ..opts });
        assert_eq!(other_seed.bots.len(), 3);
        assert_ne!(other_seed, one);
    }
}
