//! The first seat's advantage, fitted jointly with the Bradley-Terry
//! ratings (Ordo's `-W`): seat 0 scores sigma(theta_0 - theta_1 + eta)
//! against seat 1, one eta for the whole pool, a draw half a win and half
//! a loss as in the ratings' fit.
//!
//! eta is found by Newton's method on its profile log-likelihood (the
//! ratings refitted at every eta), and its interval by inverting the
//! score test of eta = eta0 with the ratings as nuisance parameters: the
//! efficient score (the score of eta adjusted for the ratings) over the
//! square root of its variance, that variance blended from the model's
//! and the one observed over seat-swapped pairs as for the ratings
//! ([`super::intervals::PRIOR_DF`]). Fitted on the games between bots of
//! one group (where the ratings' fit exists, [`super::groups`]); the games
//! between groups are won by the same side whatever the seats, and say
//! nothing about them. `docs/statistics.md`, "Seat advantage".

use std::collections::BTreeMap;

use super::bradley_terry::{idle_rows, log_posterior, solve, solve_kkt, Counts};
use super::groups::Groups;
use super::intervals::PRIOR_DF;
use super::stats::{sigmoid, Interval, ELO_PER_NAT};
use super::Pool;

/// A sliver of prior (virtual draws per bot) that keeps the ratings'
/// refits finite when groups never met; it moves nothing else.
const RIDGE: f64 = 1e-6;

/// Beyond this many natural log-odds (about 5200 Elo) an interval is
/// open: the games put no bound on that side.
const FAR: f64 = 30.0;

/// An estimate beyond this many natural log-odds (about 1700 Elo) is
/// taken to be infinite: the likelihood keeps rising as one seat's
/// advantage grows (one seat scored every point, or a bot scored every
/// point in one seat and its opponents every point in the other), and
/// Newton's method only crawls after it.
const UNBOUNDED: f64 = 10.0;

/// The first seat's advantage in a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatAdvantage {
    /// The games it rests on: between bots of one group, repeats left out.
    pub games: usize,
    /// Seat 0's points in those games.
    pub seat0_points: f64,
    /// Seat 0's points in every game of the pool (repeats included).
    pub pool_games: usize,
    /// Seat 0's points in every game of the pool.
    pub pool_seat0_points: f64,
    /// The estimate in Elo (seat 0 minus seat 1 on the ratings' scale);
    /// infinite when one seat scored every point; None when the games
    /// cannot tell the seat from the bots (no bot played both seats
    /// against a bot of its group).
    pub elo: Option<f64>,
    /// Its interval at the asked level, an end infinite where the games
    /// put no bound.
    pub interval: Option<Interval>,
}

impl SeatAdvantage {
    /// The advantage the ratings are fitted with, natural log-odds: the
    /// estimate where it is finite, else 0 (seats not modelled).
    pub fn eta(&self) -> f64 {
        self.elo
            .filter(|e| e.is_finite())
            .map_or(0.0, |e| e / ELO_PER_NAT)
    }

    /// Seat 0's share of the points of the whole pool (None without games).
    pub fn pool_seat0_score(&self) -> Option<f64> {
        (self.pool_games > 0).then(|| self.pool_seat0_points / self.pool_games as f64)
    }
}

/// One game: (seat 0, seat 1, seat 0's points).
type SeatGame = (usize, usize, f64);

/// The games of a pool arranged for the seat's profile likelihood.
struct Profile {
    counts: Counts,
    /// The constraints of the ratings: active bots average 0, idle bots 0.
    rows: Vec<Vec<f64>>,
    /// (seat 0, seat 1, seat 0's points) per game, by seat-swapped pair.
    clusters: Vec<Vec<SeatGame>>,
    df: f64,
}

/// At one eta: the efficient score of eta, its model variance, and its
/// share per pair.
struct Score {
    u: f64,
    model: f64,
    observed: f64,
}

impl Profile {
    /// The ratings that fit best with the seat's advantage held at `eta`.
    fn theta(&mut self, eta: f64, warm: Vec<f64>) -> Vec<f64> {
        self.counts.eta = eta;
        solve(&self.counts, RIDGE, warm, None)
    }

    /// The efficient score at (theta, eta): the direction v = (-H)^-1 h
    /// takes out of eta's score what the ratings explain (h: the mixed
    /// second derivatives), each game then adding (s - p)(1 - v_0 + v_1).
    fn score(&self, theta: &[f64]) -> Option<Score> {
        let c = &self.counts;
        let n = c.n;
        let mut g = vec![0.0; n];
        let mut hess = vec![0.0; n * n];
        log_posterior(c, RIDGE, theta, Some((&mut g, &mut hess)));
        let neg: Vec<f64> = hess.iter().map(|x| -x).collect();
        let mut h = vec![0.0; n];
        for (i, j, m, _) in c.seated() {
            let p = sigmoid(theta[i] - theta[j] + c.eta);
            h[i] += m * p * (1.0 - p);
            h[j] -= m * p * (1.0 - p);
        }
        let rows: Vec<&[f64]> = self.rows.iter().map(Vec::as_slice).collect();
        let v = solve_kkt(&neg, &rows, &h)?;
        let lever = |a: usize, b: usize| 1.0 - v[a] + v[b];
        let mut u = 0.0;
        let mut model = 0.0;
        for (i, j, m, s) in c.seated() {
            let p = sigmoid(theta[i] - theta[j] + c.eta);
            u += (s - m * p) * lever(i, j);
            model += m * p * (1.0 - p) * lever(i, j).powi(2);
        }
        let observed = self
            .clusters
            .iter()
            .map(|games| {
                games
                    .iter()
                    .map(|&(a, b, s)| (s - sigmoid(theta[a] - theta[b] + c.eta)) * lever(a, b))
                    .sum::<f64>()
                    .powi(2)
            })
            .sum();
        Some(Score { u, model, observed })
    }

    /// The signed root of the score test of `eta`, its variance scaled by
    /// `phi`.
    fn root(&mut self, eta: f64, phi: f64, warm: &mut Vec<f64>) -> f64 {
        let theta = self.theta(eta, std::mem::take(warm));
        let root = match self.score(&theta) {
            Some(s) if s.model > 0.0 => s.u / (phi * s.model).sqrt(),
            _ => 0.0,
        };
        *warm = theta;
        root
    }

    /// Going from `from` in direction `dir`, where the test starts to
    /// reject at `z` (to 1e-5 nats); infinite if it never does within
    /// [`FAR`]. Steps double from the estimate; from an infinite estimate
    /// (`from` far out, where the likelihood is flat and the rejection
    /// region can be narrow) they are a fixed quarter nat.
    fn bound(&mut self, from: f64, dir: f64, phi: f64, z: f64, start: &[f64], far: bool) -> f64 {
        let mut warm = start.to_vec();
        let mut inside = from;
        let mut step: f64 = if far { 0.25 } else { 0.05 };
        let outside = loop {
            let eta = from + dir * step;
            if self.root(eta, phi, &mut warm).abs() > z {
                break eta;
            }
            inside = eta;
            if (from + dir * step).abs() > FAR {
                return dir * f64::INFINITY;
            }
            step = if far { step + 0.25 } else { 2.0 * step };
        };
        let (mut inside, mut outside) = (inside, outside);
        while (outside - inside).abs() > 1e-5 {
            let mid = 0.5 * (inside + outside);
            if self.root(mid, phi, &mut warm).abs() > z {
                outside = mid;
            } else {
                inside = mid;
            }
        }
        0.5 * (inside + outside)
    }
}

/// Fits the first seat's advantage of `pool` and its interval at the
/// level of the normal quantile `z`.
pub fn fit(pool: &Pool, z: f64) -> SeatAdvantage {
    let pool_games = pool.games.len();
    let pool_seat0_points = pool.games.iter().map(|g| g.score0()).sum();
    let groups = Groups::of(pool);
    let inside = |a: usize, b: usize| groups.of[a].is_some() && groups.of[a] == groups.of[b];
    let mut counts = Counts::new(pool.len());
    let mut by_pair: BTreeMap<(u64, usize, usize), Vec<SeatGame>> = BTreeMap::new();
    let mut games = 0;
    let mut seat0_points = 0.0;
    for g in pool.games.iter().filter(|g| !g.repeat) {
        let [a, b] = g.seats;
        if !inside(a, b) {
            continue;
        }
        counts.add(a, b, g.score0());
        games += 1;
        seat0_points += g.score0();
        by_pair
            .entry((g.pair, a.min(b), a.max(b)))
            .or_default()
            .push((a, b, g.score0()));
    }
    let mut out = SeatAdvantage {
        games,
        seat0_points,
        pool_games,
        pool_seat0_points,
        elo: None,
        interval: None,
    };
    let active: Vec<f64> = (0..counts.n)
        .map(|i| if counts.active(i) { 1.0 } else { 0.0 })
        .collect();
    let m = active.iter().sum::<f64>();
    if m < 2.0 {
        return out;
    }
    let mut rows = vec![active.clone()];
    rows.extend(idle_rows(&active));
    let clusters: Vec<_> = by_pair.into_values().collect();
    let mut p = Profile {
        df: clusters.len() as f64 - (m - 1.0) - 1.0,
        counts,
        rows,
        clusters,
    };

    // Whether eta can be told from the ratings at all: its efficient
    // information at the start, against its plain information.
    let mut theta = p.theta(0.0, vec![0.0; p.counts.n]);
    let Some(first) = p.score(&theta) else {
        return out;
    };
    let plain: f64 = p.counts.seated().map(|(_, _, m, _)| m * 0.25).sum();
    if first.model <= 1e-4 * plain {
        return out;
    }

    // Newton on the profile log-likelihood: its slope is the efficient
    // score, its curvature minus the efficient information.
    let mut eta: f64 = 0.0;
    let mut score = first;
    for _ in 0..100 {
        if score.model <= 0.0 {
            break;
        }
        let step = (score.u / score.model).clamp(-2.0, 2.0);
        eta += step;
        if eta.abs() > UNBOUNDED {
            eta = eta.signum() * f64::INFINITY;
            break;
        }
        theta = p.theta(eta, theta);
        match p.score(&theta) {
            Some(s) if s.model > 0.0 => score = s,
            _ => {
                // No information left: the likelihood is flat this far out.
                eta = eta.signum() * f64::INFINITY;
                break;
            }
        }
        if step.abs() < 1e-10 {
            break;
        }
    }

    // How much the pairs vary compared with the model, at the estimate,
    // blended with the model's 1 as for the ratings.
    let phi = if eta.is_finite() && p.df > 0.0 && score.model > 0.0 {
        let ratio = p.clusters.len() as f64 * score.observed / (p.df * score.model);
        (PRIOR_DF + p.df * ratio) / (PRIOR_DF + p.df)
    } else {
        1.0
    };
    let from = eta.clamp(-UNBOUNDED, UNBOUNDED);
    let far = eta.is_infinite();
    let start = p.theta(from, theta);
    let lo = if eta == f64::NEG_INFINITY {
        eta
    } else {
        p.bound(from, -1.0, phi, z, &start, far)
    };
    let hi = if eta == f64::INFINITY {
        eta
    } else {
        p.bound(from, 1.0, phi, z, &start, far)
    };
    out.elo = Some(eta * ELO_PER_NAT);
    out.interval = Some(Interval {
        lo: lo * ELO_PER_NAT,
        hi: hi * ELO_PER_NAT,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Z95;
    use crate::{close, Played};
    use arena_core::record::GameResult::{self, *};

    /// x and y, each pair's two games: `first` with x in seat 0, then
    /// `second` with y in seat 0 (both from seat 0's side).
    fn pairs(results: &[(GameResult, GameResult)]) -> Pool {
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
                        result: second,
                    },
                ]
            })
            .collect();
        Pool::new(&played)
    }

    /// Two equal bots, each pair split by the seat: seat 0 wins 30 of
    /// 40 games, each bot 20. Balanced seats make eta orthogonal to the
    /// ratings: the estimate is the plain logit of 3/4 (400 log10 3 =
    /// 190.85 Elo), and the bots stay level.
    #[test]
    fn balanced_seats_give_the_plain_logit() {
        let mut r = vec![(Seat0Wins, Seat0Wins); 10];
        r.extend(vec![(Seat0Wins, Seat1Wins); 5]);
        r.extend(vec![(Seat1Wins, Seat0Wins); 5]);
        let pool = pairs(&r);
        let s = fit(&pool, Z95);
        assert_eq!((s.games, s.seat0_points), (40, 30.0));
        let elo = s.elo.unwrap();
        close(elo, 400.0 * 3f64.log10(), 1e-6);
        let iv = s.interval.unwrap();
        assert!(iv.lo > 0.0 && iv.lo < elo && elo < iv.hi, "{iv:?}");
        let f = crate::bradley_terry::fit_seated(&pool, 0.0, s.eta());
        close(f.elo[0], f.elo[1], 1e-6);
    }

    /// Seat 0 scores exactly half: no advantage, an interval around 0.
    #[test]
    fn even_seats_give_zero_inside_the_interval() {
        let r = [(Seat0Wins, Seat1Wins), (Draw, Draw), (Seat1Wins, Seat0Wins)];
        let s = fit(&pairs(&r.repeat(6)), Z95);
        close(s.elo.unwrap(), 0.0, 1e-6);
        let iv = s.interval.unwrap();
        close(iv.lo, -iv.hi, 1e-3);
        assert!(iv.lo < -50.0, "{iv:?}");
    }

    /// Seat 0 wins every game: infinite advantage, a finite lower bound.
    #[test]
    fn seat_zero_winning_everything_is_bounded_below_only() {
        let s = fit(&pairs(&[(Seat0Wins, Seat0Wins); 8]), Z95);
        assert_eq!(s.elo, Some(f64::INFINITY));
        assert_eq!(s.eta(), 0.0);
        let iv = s.interval.unwrap();
        assert!(
            iv.lo.is_finite() && iv.lo > 0.0 && iv.hi == f64::INFINITY,
            "{iv:?}"
        );
    }

    /// x always in seat 0: the seat cannot be told from the bot.
    #[test]
    fn one_bot_always_first_cannot_tell_the_seat() {
        let played: Vec<Played> = (0..10)
            .map(|i| Played {
                index: i,
                round: i,
                pair: i,
                bots: ["x".into(), "y".into()],
                result: if i % 3 == 0 { Seat1Wins } else { Seat0Wins },
            })
            .collect();
        let s = fit(&Pool::new(&played), Z95);
        assert_eq!((s.elo, s.interval), (None, None));
        assert_eq!(s.pool_seat0_score(), Some(0.6));
    }
}
