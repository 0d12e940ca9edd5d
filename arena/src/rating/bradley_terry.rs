//! Bradley-Terry (logistic Elo) maximum-a-posteriori fit of all games at
//! once, with a weak prior, and a seeded bootstrap over games.
//!
//! Model: bot i scores against bot j with expectation
//! sigma(theta_i - theta_j) = 1 / (1 + e^-(theta_i - theta_j)); a game adds
//! s ln sigma(theta_i - theta_j) + (1 - s) ln sigma(theta_j - theta_i) to the
//! log-likelihood, s being i's points (a draw is half a win and half a loss).
//! Prior: each bot plays `prior_draws` virtual draws against a virtual
//! opponent rated at the pool average, which keeps a perfect or zero score
//! finite. The ratings are constrained to average 0 and reported on the
//! Elo scale (theta * 400 / ln 10). Solved by Newton's method with a
//! backtracking line search on the (strictly concave) log-posterior.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::stats::{self, ln_sigmoid, sigmoid, Interval, ELO_PER_NAT};
use super::Pool;

/// Games and points between every two bots.
#[derive(Clone, Debug, PartialEq)]
struct Counts {
    n: usize,
    /// Row-major `n * n`: games between i and j (symmetric).
    games: Vec<f64>,
    /// Row-major `n * n`: points i scored against j.
    points: Vec<f64>,
}

impl Counts {
    fn new(n: usize) -> Counts {
        Counts {
            n,
            games: vec![0.0; n * n],
            points: vec![0.0; n * n],
        }
    }

    fn add(&mut self, a: usize, b: usize, score_a: f64) {
        let n = self.n;
        self.games[a * n + b] += 1.0;
        self.games[b * n + a] += 1.0;
        self.points[a * n + b] += score_a;
        self.points[b * n + a] += 1.0 - score_a;
    }
}

/// The fitted ratings: Elo points relative to the pool average (which is 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub elo: Vec<f64>,
}

/// Fits all games of the pool. With `prior_draws == 0` this is the plain
/// maximum-likelihood fit, which is finite only for a connected pool in
/// which nobody has a perfect or zero score.
pub fn fit(pool: &Pool, prior_draws: f64) -> Fit {
    let mut c = Counts::new(pool.len());
    for g in &pool.games {
        c.add(g.seats[0], g.seats[1], g.score0());
    }
    let theta = solve(&c, prior_draws, vec![0.0; pool.len()]);
    Fit {
        elo: theta.iter().map(|t| t * ELO_PER_NAT).collect(),
    }
}

/// Log-posterior (up to a constant) and, when asked, its gradient and
/// Hessian.
fn log_posterior(
    c: &Counts,
    prior: f64,
    theta: &[f64],
    derivs: Option<(&mut [f64], &mut [f64])>,
) -> f64 {
    let n = c.n;
    let mut f = 0.0;
    let mut d = derivs;
    if let Some((g, h)) = d.as_mut() {
        g.fill(0.0);
        h.fill(0.0);
    }
    for i in 0..n {
        // The prior: prior/2 virtual wins and prior/2 virtual losses
        // against a player at 0 (the pool average, by the constraint).
        let x = theta[i];
        f += prior * 0.5 * (ln_sigmoid(x) + ln_sigmoid(-x));
        if let Some((g, h)) = d.as_mut() {
            let p = sigmoid(x);
            g[i] += prior * (0.5 - p);
            h[i * n + i] -= prior * p * (1.0 - p);
        }
        for j in i + 1..n {
            let m = c.games[i * n + j];
            if m == 0.0 {
                continue;
            }
            let s = c.points[i * n + j];
            let x = theta[i] - theta[j];
            f += s * ln_sigmoid(x) + (m - s) * ln_sigmoid(-x);
            if let Some((g, h)) = d.as_mut() {
                let p = sigmoid(x);
                let grad = s - m * p;
                g[i] += grad;
                g[j] -= grad;
                let w = m * p * (1.0 - p);
                h[i * n + i] -= w;
                h[j * n + j] -= w;
                h[i * n + j] += w;
                h[j * n + i] += w;
            }
        }
    }
    f
}

/// Solves `a x = b` (row-major `m * m`) by Gaussian elimination with
/// partial pivoting; `None` if the matrix is singular.
fn solve_linear(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let m = b.len();
    for col in 0..m {
        let pivot =
            (col..m).max_by(|&r, &s| a[r * m + col].abs().total_cmp(&a[s * m + col].abs()))?;
        if a[pivot * m + col].abs() < 1e-300 {
            return None;
        }
        if pivot != col {
            for k in 0..m {
                a.swap(pivot * m + k, col * m + k);
            }
            b.swap(pivot, col);
        }
        for r in col + 1..m {
            let factor = a[r * m + col] / a[col * m + col];
            if factor != 0.0 {
                for k in col..m {
                    a[r * m + k] -= factor * a[col * m + k];
                }
                b[r] -= factor * b[col];
            }
        }
    }
    let mut x = vec![0.0; m];
    for r in (0..m).rev() {
        let tail: f64 = (r + 1..m).map(|k| a[r * m + k] * x[k]).sum();
        x[r] = (b[r] - tail) / a[r * m + r];
    }
    Some(x)
}

/// Newton's method on the log-posterior restricted to sum(theta) = 0:
/// each step solves the KKT system [-H 1; 1' 0] [d; l] = [g; 0], then
/// halves the step until the log-posterior does not decrease.
fn solve(c: &Counts, prior: f64, start: Vec<f64>) -> Vec<f64> {
    let n = c.n;
    if n < 2 {
        return vec![0.0; n];
    }
    let mut theta = start;
    let mean = theta.iter().sum::<f64>() / n as f64;
    theta.iter_mut().for_each(|t| *t -= mean);
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    for _ in 0..200 {
        let f0 = log_posterior(c, prior, &theta, Some((&mut g, &mut h)));
        let m = n + 1;
        let mut a = vec![0.0; m * m];
        for i in 0..n {
            for j in 0..n {
                a[i * m + j] = -h[i * n + j];
            }
            a[i * m + n] = 1.0;
            a[n * m + i] = 1.0;
        }
        let mut rhs = g.clone();
        rhs.push(0.0);
        let Some(step) = solve_linear(a, rhs) else {
            break;
        };
        let step = &step[..n];
        let mut t = 1.0;
        let mut next: Vec<f64>;
        loop {
            next = theta.iter().zip(step).map(|(x, d)| x + t * d).collect();
            if log_posterior(c, prior, &next, None) >= f0 - 1e-12 * f0.abs().max(1.0) || t < 1e-12 {
                break;
            }
            t *= 0.5;
        }
        let moved = step.iter().map(|d| (t * d).abs()).fold(0.0, f64::max);
        theta = next;
        if moved < 1e-11 {
            break;
        }
    }
    let mean = theta.iter().sum::<f64>() / n as f64;
    theta.iter().map(|t| t - mean).collect()
}

/// Ratings refitted on resamples of the games.
#[derive(Clone, Debug, PartialEq)]
pub struct Bootstrap {
    /// `samples[i]`: bot i's rating (Elo relative to the pool average) in
    /// each resample.
    samples: Vec<Vec<f64>>,
}

impl Bootstrap {
    pub fn resamples(&self) -> usize {
        self.samples.first().map_or(0, Vec::len)
    }

    /// Percentile 95% interval (2.5% and 97.5%) of bot i's rating.
    pub fn interval(&self, i: usize) -> Interval {
        let mut s = self.samples[i].clone();
        s.sort_by(f64::total_cmp);
        Interval {
            lo: stats::percentile(&s, 0.025),
            hi: stats::percentile(&s, 0.975),
        }
    }

    /// Share of resamples in which bot i is rated above bot j (ties count
    /// half): the likelihood of superiority of i over j.
    pub fn superiority(&self, i: usize, j: usize) -> f64 {
        let wins: f64 = self.samples[i]
            .iter()
            .zip(&self.samples[j])
            .map(|(a, b)| {
                if a > b {
                    1.0
                } else if a == b {
                    0.5
                } else {
                    0.0
                }
            })
            .sum();
        wins / self.resamples() as f64
    }
}

/// Fits `resamples` bootstrap resamples: each draws as many games as the
/// pool has, uniformly with replacement, from a ChaCha8 generator seeded
/// with `seed`. `None` when `resamples` is 0 or there are no games.
pub fn bootstrap(pool: &Pool, prior_draws: f64, resamples: usize, seed: u64) -> Option<Bootstrap> {
    let games = pool.games.len();
    if resamples == 0 || games == 0 {
        return None;
    }
    let n = pool.len();
    let mut full = Counts::new(n);
    for g in &pool.games {
        full.add(g.seats[0], g.seats[1], g.score0());
    }
    let warm = solve(&full, prior_draws, vec![0.0; n]);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples = vec![Vec::with_capacity(resamples); n];
    for _ in 0..resamples {
        let mut c = Counts::new(n);
        for _ in 0..games {
            let g = &pool.games[rng.random_range(0..games)];
            c.add(g.seats[0], g.seats[1], g.score0());
        }
        let theta = solve(&c, prior_draws, warm.clone());
        for (s, t) in samples.iter_mut().zip(&theta) {
            s.push(t * ELO_PER_NAT);
        }
    }
    Some(Bootstrap { samples })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::close;
    use crate::rating::Played;
    use crate::record::GameResult::{self, *};

    /// `(a, b, wins of a, draws, wins of b)` per pair.
    fn pool(pairs: &[(&str, &str, usize, usize, usize)]) -> Pool {
        let mut played = Vec::new();
        let mut push = |a: &str, b: &str, result: GameResult| {
            let index = played.len() as u64;
            played.push(Played {
                index,
                round: 0,
                pair: index,
                bots: [a.into(), b.into()],
                result,
            });
        };
        for &(a, b, w, d, l) in pairs {
            (0..w).for_each(|_| push(a, b, Seat0Wins));
            (0..d).for_each(|_| push(b, a, Draw));
            (0..l).for_each(|_| push(b, a, Seat0Wins));
        }
        Pool::new(&played)
    }

    #[test]
    fn plain_mle_reproduces_a_hand_solved_pool() {
        // A-B: one win and two draws for A, 2 points of 3. B-C: B wins 2 of 3. A-C: A wins 4 of
        // 5. Odds 2, 2 and 4 are consistent (2 * 2 = 4), so the MLE fits
        // every pair exactly: A - B = B - C = 400 log10 2 = 120.41 Elo and
        // the average is 0.
        let p = pool(&[
            ("A", "B", 1, 2, 0),
            ("B", "C", 2, 0, 1),
            ("A", "C", 4, 0, 1),
        ]);
        let f = fit(&p, 0.0);
        let d = 400.0 * 2f64.log10();
        close(f.elo[0], d, 1e-6);
        close(f.elo[1], 0.0, 1e-6);
        close(f.elo[2], -d, 1e-6);
    }

    #[test]
    fn two_bots_even_odds_three_to_one() {
        // 3 wins to 1: the MLE difference is 400 log10 3 = 190.85.
        let p = pool(&[("A", "B", 3, 0, 1)]);
        let f = fit(&p, 0.0);
        close(f.elo[0] - f.elo[1], 400.0 * 3f64.log10(), 1e-6);
        close(f.elo[0] + f.elo[1], 0.0, 1e-9);
    }

    #[test]
    fn a_perfect_score_gets_a_finite_estimate_from_the_prior() {
        // A beats B 4-0. With one virtual draw each against the average,
        // d = theta_A - theta_B solves (derivative of the log-posterior in
        // d, theta = +-d/2): 4 (1 - sigma(d)) + (1/2 - sigma(d/2)) = 0.
        // Bisection in Python gives d = 2.573091 nats = 446.992 Elo.
        let p = pool(&[("A", "B", 4, 0, 0)]);
        let f = fit(&p, 1.0);
        let d = (f.elo[0] - f.elo[1]) / ELO_PER_NAT;
        assert!(d.is_finite());
        close(4.0 * (1.0 - sigmoid(d)) + 0.5 - sigmoid(d / 2.0), 0.0, 1e-9);
        close(f.elo[0] - f.elo[1], 446.992, 1e-3);
        close(f.elo[0] + f.elo[1], 0.0, 1e-9);
    }

    #[test]
    fn a_bot_with_no_games_sits_at_the_average() {
        let mut played = vec![Played {
            index: 0,
            round: 0,
            pair: 0,
            bots: ["A".into(), "B".into()],
            result: Seat0Wins,
        }];
        // C only plays itself: no information.
        played.push(Played {
            index: 1,
            round: 0,
            pair: 1,
            bots: ["C".into(), "C".into()],
            result: Draw,
        });
        let p = Pool::new(&played);
        assert_eq!(p.self_play, 1);
        let f = fit(&p, 1.0);
        close(f.elo[2], 0.0, 1e-9);
        close(f.elo[0], -f.elo[1], 1e-9);
    }

    #[test]
    fn the_bootstrap_is_seeded_and_brackets_the_fit() {
        let p = pool(&[
            ("A", "B", 12, 6, 6),
            ("B", "C", 10, 8, 6),
            ("A", "C", 14, 6, 4),
        ]);
        let f = fit(&p, 1.0);
        let b1 = bootstrap(&p, 1.0, 200, 7).unwrap();
        let b2 = bootstrap(&p, 1.0, 200, 7).unwrap();
        let b3 = bootstrap(&p, 1.0, 200, 8).unwrap();
        assert_eq!(b1, b2);
        assert_ne!(b1, b3);
        assert_eq!(b1.resamples(), 200);
        for i in 0..3 {
            let iv = b1.interval(i);
            assert!(
                iv.lo < f.elo[i] && f.elo[i] < iv.hi,
                "{iv:?} vs {}",
                f.elo[i]
            );
        }
        // A is clearly above C; A and B are closer.
        assert!(b1.superiority(0, 2) > 0.95);
        let ab = b1.superiority(0, 1);
        assert!(ab > 0.5 && ab < 1.0, "{ab}");
        close(b1.superiority(0, 1) + b1.superiority(1, 0), 1.0, 1e-12);
        assert!(bootstrap(&p, 1.0, 0, 7).is_none());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Random games among up to 5 bots: (seat0, seat1, result).
        fn games() -> impl Strategy<Value = Vec<(usize, usize, u8)>> {
            prop::collection::vec((0usize..5, 0usize..5, 0u8..3), 1..60)
        }

        fn to_pool(games: &[(usize, usize, u8)], rename: impl Fn(usize) -> String) -> Pool {
            let played: Vec<Played> = games
                .iter()
                .enumerate()
                .map(|(i, &(a, b, r))| Played {
                    index: i as u64,
                    round: 0,
                    pair: i as u64,
                    bots: [rename(a), rename(b)],
                    result: [Seat0Wins, Draw, Seat1Wins][r as usize],
                })
                .collect();
            Pool::new(&played)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Whatever the games (perfect scores, disconnected pools), the
            /// fit is finite, averages 0 and is a stationary point of the
            /// log-posterior along every mean-zero direction.
            #[test]
            fn the_fit_is_finite_centred_and_stationary(g in games()) {
                let p = to_pool(&g, |i| format!("bot{i}"));
                let f = fit(&p, 1.0);
                let n = p.len();
                prop_assert!(f.elo.iter().all(|e| e.is_finite()));
                prop_assert!(f.elo.iter().sum::<f64>().abs() < 1e-6);
                let theta: Vec<f64> = f.elo.iter().map(|e| e / ELO_PER_NAT).collect();
                let mut c = Counts::new(n);
                for x in &p.games {
                    c.add(x.seats[0], x.seats[1], x.score0());
                }
                let mut grad = vec![0.0; n];
                let mut hess = vec![0.0; n * n];
                log_posterior(&c, 1.0, &theta, Some((&mut grad, &mut hess)));
                let mean = grad.iter().sum::<f64>() / n as f64;
                for gi in &grad {
                    prop_assert!((gi - mean).abs() < 1e-7, "{grad:?}");
                }
            }

            /// Swapping every result mirrors every rating; renaming the bots
            /// does not change anyone's rating.
            #[test]
            fn the_fit_respects_the_symmetries(g in games()) {
                let p = to_pool(&g, |i| format!("bot{i}"));
                let f = fit(&p, 1.0);
                let swapped: Vec<_> = g.iter().map(|&(a, b, r)| (b, a, r)).collect();
                let fs = fit(&to_pool(&swapped, |i| format!("bot{i}")), 1.0);
                for (x, y) in f.elo.iter().zip(&fs.elo) {
                    prop_assert!((x + y).abs() < 1e-6);
                }
                // Reverse the name order: bot i becomes "z{4-i}".
                let pr = to_pool(&g, |i| format!("z{}", 4 - i));
                let fr = fit(&pr, 1.0);
                for (k, name) in p.names.iter().enumerate() {
                    let i: usize = name[3..].parse().unwrap();
                    let kr = pr.names.iter().position(|m| *m == format!("z{}", 4 - i)).unwrap();
                    prop_assert!((f.elo[k] - fr.elo[kr]).abs() < 1e-6);
                }
            }
        }
    }
}
