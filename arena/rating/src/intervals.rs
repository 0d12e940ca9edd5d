//! Confidence intervals and likelihood of superiority for the Bradley-Terry
//! ratings, by inverting a score test whose variance is estimated from the
//! games themselves, seat-swapped pairs counted as units.
//!
//! For a contrast psi = c . theta (a bot's rating minus the pool average,
//! or the difference of two bots), the test of psi = psi0 refits the model
//! with psi held at psi0 and asks how hard the log-likelihood pulls away
//! from it: the score U along the direction w = (-H)^-1 c, over the
//! variance of that score. The variance blends the model's (Fisher
//! information: independent games, a draw counted as half a win and half a
//! loss) with the observed one (the sum over pairs of the squared score
//! contribution of the pair, under the null), the model counting as
//! `PRIOR_DF` pairs of evidence. The 95% interval is every psi0 the test
//! does not reject at the 5% level; LOS is the one-sided confidence that a
//! difference is positive. Why this method, and the simulations that show
//! it holds its level: `docs/statistics.md`.
//!
//! Deterministic: no random numbers, so the same games always give the
//! same interval.

use std::collections::BTreeMap;

use super::bradley_terry::{idle_rows, log_posterior, mle_status, solve, solve_kkt, Counts, Mle};
use super::stats::{normal_cdf, sigmoid, Interval, ELO_PER_NAT, Z95};
use super::Pool;

/// How many seat-swapped pairs of evidence the model's variance is worth
/// when it is blended with the observed variance (the prior degrees of
/// freedom of Smyth's moderated variance). With a handful of pairs the
/// model decides; with hundreds, the games.
pub const PRIOR_DF: f64 = 5.0;

/// A sliver of prior (in virtual draws) that keeps the refits finite where
/// the likelihood keeps rising towards infinity; it moves nothing else.
const RIDGE: f64 = 1e-6;

/// An interval still open this far (in natural log-odds, about 5200 Elo)
/// from the estimate is open: the data put no bound on that side.
const FAR: f64 = 30.0;

/// One game of a cluster: (seat 0, seat 1, points of seat 0).
type ClusterGame = (usize, usize, f64);

/// The games of a pool, arranged for the score test.
pub struct Evidence {
    counts: Counts,
    /// Virtual draws per bot: the log-posterior the test is about.
    prior_draws: f64,
    /// The same plus the ridge: the refits.
    prior: f64,
    /// (a, b, points of a) per game, grouped by cluster.
    clusters: Vec<Vec<ClusterGame>>,
    /// 1 for bots that played, 0 for the others.
    active: Vec<f64>,
    /// Clusters minus free ratings: the degrees of freedom of the observed
    /// variance.
    df: f64,
    /// The fit the searches start from.
    start: Vec<f64>,
    /// Whether the maximum-likelihood estimate exists: without it the
    /// residuals at the (infinite) estimate are 0 and say nothing about
    /// the variance.
    mle: bool,
    /// The normal quantile of the intervals' level (1.96 for 95%).
    z: f64,
}

impl Evidence {
    /// The games of `pool`; `prior_draws` as in [`super::bradley_terry::fit`].
    /// A cluster is a seat-swapped pair: the games sharing a pair id and
    /// the same two bots.
    pub fn new(pool: &Pool, prior_draws: f64) -> Evidence {
        Self::with(pool, prior_draws, 0.0, Z95)
    }

    /// [`Evidence::new`] with the first seat's advantage held at `eta`
    /// (natural log-odds) and intervals at the level of the normal
    /// quantile `z`.
    pub fn with(pool: &Pool, prior_draws: f64, eta: f64, z: f64) -> Evidence {
        let mut counts = Counts::of(pool);
        counts.eta = eta;
        let mut by_pair: BTreeMap<(u64, usize, usize), Vec<ClusterGame>> = BTreeMap::new();
        for g in pool.games.iter().filter(|g| !g.repeat) {
            let [a, b] = g.seats;
            by_pair
                .entry((g.pair, a.min(b), a.max(b)))
                .or_default()
                .push((a, b, g.score0()));
        }
        let clusters: Vec<_> = by_pair.into_values().collect();
        let active: Vec<f64> = (0..counts.n)
            .map(|i| if counts.active(i) { 1.0 } else { 0.0 })
            .collect();
        let m = active.iter().sum::<f64>();
        let prior = prior_draws + RIDGE;
        let start = solve(&counts, prior, vec![0.0; counts.n], None);
        let mle = mle_status(pool)
            .iter()
            .all(|m| matches!(m, Mle::Exists | Mle::NoGames));
        Evidence {
            mle,
            z,
            df: clusters.len() as f64 - (m - 1.0),
            counts,
            prior_draws,
            prior,
            clusters,
            active,
            start,
        }
    }

    fn active_count(&self) -> f64 {
        self.active.iter().sum()
    }

    /// The score direction w = (-H)^-1 c (within the constraints) and the
    /// gradient of the log-posterior at `theta`.
    fn direction(&self, theta: &[f64], c: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
        let n = self.counts.n;
        let mut g = vec![0.0; n];
        let mut h = vec![0.0; n * n];
        log_posterior(&self.counts, self.prior, theta, Some((&mut g, &mut h)));
        let neg: Vec<f64> = h.iter().map(|x| -x).collect();
        let idle = idle_rows(&self.active);
        let mut rows: Vec<&[f64]> = vec![&self.active];
        rows.extend(idle.iter().map(Vec::as_slice));
        let w = solve_kkt(&neg, &rows, c)?;
        Some((w, g))
    }

    /// The model's variance of the score along w: the Fisher information
    /// of the games (independent, a draw half a win and half a loss).
    fn model_variance(&self, theta: &[f64], w: &[f64]) -> f64 {
        let eta = self.counts.eta;
        self.counts
            .seated()
            .map(|(i, j, m, _)| {
                let p = sigmoid(theta[i] - theta[j] + eta);
                m * p * (1.0 - p) * (w[i] - w[j]).powi(2)
            })
            .sum()
    }

    /// The observed variance of the score along w: each pair's share,
    /// squared.
    fn observed_variance(&self, theta: &[f64], w: &[f64]) -> f64 {
        self.clusters
            .iter()
            .map(|games| {
                games
                    .iter()
                    .map(|&(a, b, s)| {
                        (s - sigmoid(theta[a] - theta[b] + self.counts.eta)) * (w[a] - w[b])
                    })
                    .sum::<f64>()
                    .powi(2)
            })
            .sum()
    }

    /// How much the games vary along contrast c compared with the model
    /// (1: as independent games without draws; less with draws, more with
    /// correlated pairs), measured at the estimate and blended with the
    /// model's 1 as [`PRIOR_DF`] pairs of evidence.
    fn dispersion(&self, c: &[f64]) -> f64 {
        if self.df <= 0.0 || !self.mle {
            return 1.0;
        }
        let Some((w, _)) = self.direction(&self.start, c) else {
            return 1.0;
        };
        let model = self.model_variance(&self.start, &w);
        let observed = self.observed_variance(&self.start, &w);
        // Observed over model, each pair's squared share corrected for
        // the fitted ratings (pairs / df).
        let ratio = if model > 0.0 {
            self.clusters.len() as f64 * observed / (self.df * model)
        } else {
            1.0
        };
        (PRIOR_DF + self.df * ratio) / (PRIOR_DF + self.df)
    }

    /// The test of `c . theta = psi0`: the signed square root of the score
    /// statistic, positive when the games pull psi above psi0. `warm` is
    /// the constrained fit to start from; it is replaced by this one.
    fn signed_root(&self, c: &[f64], psi0: f64, phi: f64, warm: &mut Vec<f64>) -> f64 {
        let theta = solve(
            &self.counts,
            self.prior,
            std::mem::take(warm),
            Some((c, psi0)),
        );
        let root = match self.direction(&theta, c) {
            Some((w, _)) => {
                // The score of the games (and the asked-for prior) alone:
                // the ridge must not reject what the games allow.
                let n = self.counts.n;
                let mut g = vec![0.0; n];
                let mut h = vec![0.0; n * n];
                log_posterior(
                    &self.counts,
                    self.prior_draws,
                    &theta,
                    Some((&mut g, &mut h)),
                );
                let u: f64 = w.iter().zip(&g).map(|(a, b)| a * b).sum();
                let variance = phi * self.model_variance(&theta, &w);
                if variance > 0.0 && variance.is_finite() {
                    u / variance.sqrt()
                } else {
                    0.0
                }
            }
            None => 0.0,
        };
        *warm = theta;
        root
    }

    /// Bot i's rating minus the average of the bots that played: the
    /// 95% interval in Elo, its ends infinite where the games put no bound.
    /// `None` for a bot without games.
    pub fn interval(&self, i: usize) -> Option<Interval> {
        if self.active[i] == 0.0 || self.active_count() < 2.0 {
            return None;
        }
        let m = self.active_count();
        let c: Vec<f64> = (0..self.counts.n)
            .map(|j| (if i == j { 1.0 } else { 0.0 }) - self.active[j] / m)
            .collect();
        Some(self.interval_of(&c))
    }

    /// The 95% interval of the contrast `c . theta` (weights per bot,
    /// summing to 0, on bots that played), in Elo.
    pub fn interval_of(&self, c: &[f64]) -> Interval {
        Interval {
            lo: self.end(c, -1.0),
            hi: self.end(c, 1.0),
        }
    }

    /// One end of [`Evidence::interval_of`]: the lower for `dir` -1, the
    /// upper for +1 (what a one-sided bound needs, without the other).
    pub fn end(&self, c: &[f64], dir: f64) -> f64 {
        let at: f64 = c.iter().zip(&self.start).map(|(a, b)| a * b).sum();
        let phi = self.dispersion(c);
        self.bound(c, at, phi, dir) * ELO_PER_NAT
    }

    /// Where, going from `at` in direction `dir`, the test starts to reject
    /// (to 1e-4 nats, 0.02 Elo); infinite if it never does within [`FAR`].
    fn bound(&self, c: &[f64], at: f64, phi: f64, dir: f64) -> f64 {
        let mut warm = self.start.clone();
        let mut inside = at;
        let mut step = 0.1;
        let outside = loop {
            let psi = at + dir * step;
            if self.signed_root(c, psi, phi, &mut warm).abs() > self.z {
                break psi;
            }
            inside = psi;
            if step > FAR {
                return dir * f64::INFINITY;
            }
            step *= 2.0;
        };
        let (mut inside, mut outside) = (inside, outside);
        while (outside - inside).abs() > 1e-4 {
            let mid = 0.5 * (inside + outside);
            if self.signed_root(c, mid, phi, &mut warm).abs() > self.z {
                outside = mid;
            } else {
                inside = mid;
            }
        }
        0.5 * (inside + outside)
    }

    /// Likelihood of superiority of bot i over bot j: the confidence that
    /// i is the stronger, Phi of the signed root of the test of "equal".
    /// Exactly 1/2 when the games say nothing either way.
    pub fn superiority(&self, i: usize, j: usize) -> f64 {
        let c: Vec<f64> = (0..self.counts.n)
            .map(|k| {
                if k == i {
                    1.0
                } else if k == j {
                    -1.0
                } else {
                    0.0
                }
            })
            .collect();
        let mut warm = self.start.clone();
        let phi = self.dispersion(&c);
        normal_cdf(self.signed_root(&c, 0.0, phi, &mut warm))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Played;
    use arena_core::record::GameResult::{self, *};

    /// x against y in seat-swapped pairs; each pair's two results are
    /// given from x's side.
    fn pairs(results: &[(GameResult, GameResult)]) -> Pool {
        let flip = |r: GameResult| match r {
            Seat0Wins => Seat1Wins,
            Seat1Wins => Seat0Wins,
            Draw => Draw,
        };
        let played: Vec<Played> = results
            .iter()
            .enumerate()
            .flat_map(|(k, &(first, second))| {
                let k = k as u64;
                [
                    Played {
                        index: 2 * k,
                        round: k,
                        pair: k,
                        bots: ["x".into(), "y".into()],
                        result: first,
                    },
                    Played {
                        index: 2 * k + 1,
                        round: k,
                        pair: k,
                        bots: ["y".into(), "x".into()],
                        result: flip(second),
                    },
                ]
            })
            .collect();
        Pool::new(&played)
    }

    fn width(pool: &Pool) -> f64 {
        let iv = Evidence::new(pool, 0.0).interval(0).unwrap();
        iv.hi - iv.lo
    }

    /// The same 24 wins and 16 losses: when each pair's two games agree
    /// (correlated pairs) the games say less than when they split, and the
    /// interval is wider; the dispersion says by how much.
    #[test]
    fn correlated_pairs_widen_the_interval() {
        let (w, l) = (Seat0Wins, Seat1Wins);
        let mut agree = vec![(w, w); 12];
        agree.extend(vec![(l, l); 8]);
        let mut split = vec![(w, w); 4];
        split.extend(vec![(w, l); 16]);
        let (a, s) = (pairs(&agree), pairs(&split));
        let fa = crate::bradley_terry::fit(&a, 0.0);
        let fs = crate::bradley_terry::fit(&s, 0.0);
        assert!((fa.elo[0] - fs.elo[0]).abs() < 1e-9);
        assert!(
            width(&a) > 1.3 * width(&s),
            "{} vs {}",
            width(&a),
            width(&s)
        );
        let c = [0.5, -0.5];
        assert!(Evidence::new(&a, 0.0).dispersion(&c) > 1.5);
        assert!(Evidence::new(&s, 0.0).dispersion(&c) < 0.8);
    }

    /// Draws vary less than wins and losses with the same points: 20
    /// drawn pairs give a narrower interval than 20 pairs that vary as
    /// independent coin flips (scores 2, 0 and 1 in proportion 1:1:2).
    #[test]
    fn draws_narrow_the_interval() {
        let (w, d, l) = (Seat0Wins, Draw, Seat1Wins);
        let drawn = pairs(&[(d, d); 20]);
        let mut mixed = vec![(w, w); 5];
        mixed.extend(vec![(l, l); 5]);
        mixed.extend(vec![(w, l); 5]);
        mixed.extend(vec![(l, w); 5]);
        assert!(width(&drawn) < 0.8 * width(&pairs(&mixed)));
    }
}
