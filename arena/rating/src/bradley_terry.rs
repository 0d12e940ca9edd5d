//! Bradley-Terry (logistic Elo) fit of all games at once: the plain
//! maximum-likelihood estimate (Ordo's), or with `prior_draws` virtual draws
//! per bot against the pool average (BayesElo-style shrinkage), and the
//! check whether the maximum-likelihood estimate exists at all.
//!
//! Model: bot i scores against bot j with expectation
//! sigma(theta_i - theta_j) = 1 / (1 + e^-(theta_i - theta_j)); a game adds
//! s ln sigma(theta_i - theta_j) + (1 - s) ln sigma(theta_j - theta_i) to the
//! log-likelihood, s being i's points (a draw is half a win and half a loss).
//! The ratings are constrained to average 0 over the bots that played and
//! reported on the Elo scale (theta * 400 / ln 10). Solved by Newton's
//! method with a backtracking line search on the concave log-posterior.

use super::stats::{ln_sigmoid, sigmoid, ELO_PER_NAT};
use super::Pool;

/// Games and points between every two bots.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Counts {
    pub(crate) n: usize,
    /// Row-major `n * n`: games between i and j (symmetric).
    pub(crate) games: Vec<f64>,
    /// Row-major `n * n`: points i scored against j.
    pub(crate) points: Vec<f64>,
    /// Row-major `n * n`: games with i in seat 0 and j in seat 1.
    pub(crate) seat_games: Vec<f64>,
    /// Row-major `n * n`: points i scored in seat 0 against j in seat 1.
    pub(crate) seat_points: Vec<f64>,
    /// The first seat's advantage, natural log-odds, that the likelihood
    /// adds to every game's seat 0 (0: seats not modelled).
    pub(crate) eta: f64,
}

impl Counts {
    pub(crate) fn new(n: usize) -> Counts {
        Counts {
            n,
            games: vec![0.0; n * n],
            points: vec![0.0; n * n],
            seat_games: vec![0.0; n * n],
            seat_points: vec![0.0; n * n],
            eta: 0.0,
        }
    }

    /// The games that count as evidence (repeats left out).
    pub(crate) fn of(pool: &Pool) -> Counts {
        let mut c = Counts::new(pool.len());
        for g in pool.games.iter().filter(|g| !g.repeat) {
            c.add(g.seats[0], g.seats[1], g.score0());
        }
        c
    }

    /// A game with `a` in seat 0, `b` in seat 1, `score_a` a's points.
    pub(crate) fn add(&mut self, a: usize, b: usize, score_a: f64) {
        let n = self.n;
        self.games[a * n + b] += 1.0;
        self.games[b * n + a] += 1.0;
        self.points[a * n + b] += score_a;
        self.points[b * n + a] += 1.0 - score_a;
        self.seat_games[a * n + b] += 1.0;
        self.seat_points[a * n + b] += score_a;
    }

    /// Every (seat 0, seat 1, games, seat 0's points) with games.
    pub(crate) fn seated(&self) -> impl Iterator<Item = (usize, usize, f64, f64)> + '_ {
        let n = self.n;
        (0..n * n)
            .filter(move |&k| self.seat_games[k] > 0.0)
            .map(move |k| (k / n, k % n, self.seat_games[k], self.seat_points[k]))
    }

    /// Whether bot i played a rated game.
    pub(crate) fn active(&self, i: usize) -> bool {
        (0..self.n).any(|j| self.games[i * self.n + j] > 0.0)
    }
}

/// Why the plain maximum-likelihood estimate of a bot does not exist, or
/// that it does (for the whole pool: it exists for all bots or for none).
/// Ford (1957): it exists exactly when, for every split of the bots into
/// two groups, each group scored a point (a win or a draw) against the
/// other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mle {
    /// The estimate exists.
    Exists,
    /// No rated game: nothing to estimate.
    NoGames,
    /// The pool is split into groups that never met (directly or through
    /// other bots): how far apart the groups are is unknown.
    Split,
    /// The bot (with the bots it lost or drew to, if any) lost no point to
    /// the rest of the pool: unbounded above.
    NoLoss,
    /// The bot (with the bots that lost or drew to it, if any) scored no
    /// point against the rest of the pool: unbounded below.
    NoWin,
    /// Other bots are unbounded, and with them the pool average that every
    /// rating is measured from.
    Elsewhere,
}

impl Mle {
    /// The word written in `ratings.csv`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Mle::Exists => "yes",
            Mle::NoGames => "no-games",
            Mle::Split => "split",
            Mle::NoLoss => "no-loss",
            Mle::NoWin => "no-win",
            Mle::Elsewhere => "elsewhere",
        }
    }
}

/// Who scored against whom, directly or through other bots: the transitive
/// closures (Warshall's algorithm) of "i scored a point against j"
/// (`reach`) and of "i and j played" (`met`), row-major `n * n`, each bot
/// reaching itself.
pub(crate) struct Reach {
    pub(crate) n: usize,
    pub(crate) active: Vec<bool>,
    pub(crate) reach: Vec<bool>,
    pub(crate) met: Vec<bool>,
}

impl Reach {
    pub(crate) fn of(pool: &Pool) -> Reach {
        let c = &Counts::of(pool);
        let n = c.n;
        let active: Vec<bool> = (0..n).map(|i| c.active(i)).collect();
        let mut reach = vec![false; n * n];
        let mut met = vec![false; n * n];
        for i in 0..n {
            reach[i * n + i] = true;
            met[i * n + i] = true;
            for j in 0..n {
                reach[i * n + j] |= c.points[i * n + j] > 0.0;
                met[i * n + j] |= c.games[i * n + j] > 0.0;
            }
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    reach[i * n + j] |= reach[i * n + k] && reach[k * n + j];
                    met[i * n + j] |= met[i * n + k] && met[k * n + j];
                }
            }
        }
        Reach {
            n,
            active,
            reach,
            met,
        }
    }

    /// A chain of bots from i to j each of which scored against the next.
    pub(crate) fn scored(&self, i: usize, j: usize) -> bool {
        self.reach[i * self.n + j]
    }
}

/// Whether the maximum-likelihood estimate exists, per bot (`Reach`).
pub fn mle_status(pool: &Pool) -> Vec<Mle> {
    let Reach {
        n,
        active,
        reach,
        met,
    } = Reach::of(pool);
    let pairs = || (0..n).flat_map(|i| (0..n).map(move |j| (i, j)));
    let both = |i: usize, j: usize| active[i] && active[j];
    if pairs().all(|(i, j)| !both(i, j) || reach[i * n + j]) {
        return (0..n)
            .map(|i| if active[i] { Mle::Exists } else { Mle::NoGames })
            .collect();
    }
    let split = pairs().any(|(i, j)| both(i, j) && !met[i * n + j]);
    (0..n)
        .map(|i| {
            // i's group: the bots that reach i and that i reaches.
            let outside = (0..n).filter(|&j| both(i, j) && !(reach[i * n + j] && reach[j * n + i]));
            let (mut beaten, mut scored) = (false, false);
            for j in outside {
                beaten |= reach[j * n + i];
                scored |= reach[i * n + j];
            }
            if !active[i] {
                Mle::NoGames
            } else if split {
                Mle::Split
            } else if !beaten {
                Mle::NoLoss
            } else if !scored {
                Mle::NoWin
            } else {
                Mle::Elsewhere
            }
        })
        .collect()
}

/// The fitted ratings: Elo points relative to the average of the bots that
/// played (which is 0); bots without games sit at 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Each bot's rating, by bot number.
    pub elo: Vec<f64>,
}

/// Fits all games of the pool. With `prior_draws == 0` this is the plain
/// maximum-likelihood fit, which is finite only where [`mle_status`] says
/// it exists (elsewhere the solver stops after its iteration cap, far out).
pub fn fit(pool: &Pool, prior_draws: f64) -> Fit {
    fit_seated(pool, prior_draws, 0.0)
}

/// [`fit`] with the first seat's advantage held at `eta` (natural
/// log-odds): seat 0 scores sigma(theta_0 - theta_1 + eta).
pub fn fit_seated(pool: &Pool, prior_draws: f64, eta: f64) -> Fit {
    let mut c = Counts::of(pool);
    c.eta = eta;
    let theta = solve(&c, prior_draws, vec![0.0; pool.len()], None);
    Fit {
        elo: theta.iter().map(|t| t * ELO_PER_NAT).collect(),
    }
}

/// Log-posterior (up to a constant) and, when asked, its gradient and
/// Hessian. Bots without games take no part (their entries stay 0).
pub(crate) fn log_posterior(
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
        if prior > 0.0 && c.active(i) {
            // The prior: prior/2 virtual wins and prior/2 virtual losses
            // against a player at 0 (the pool average, by the constraint).
            let x = theta[i];
            f += prior * 0.5 * (ln_sigmoid(x) + ln_sigmoid(-x));
            if let Some((g, h)) = d.as_mut() {
                let p = sigmoid(x);
                g[i] += prior * (0.5 - p);
                h[i * n + i] -= prior * p * (1.0 - p);
            }
        }
    }
    // Seat 0 (i) against seat 1 (j): the logit carries the seat's
    // advantage, and nothing else changes.
    for (i, j, m, s) in c.seated() {
        let x = theta[i] - theta[j] + c.eta;
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
    f
}

/// Solves `a x = b` (row-major `m * m`) by Gaussian elimination with
/// partial pivoting; `None` if the matrix is singular.
pub(crate) fn solve_linear(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
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

/// Solves the equality-constrained system `[M A'; A 0] [x; l] = [rhs; 0]`
/// for x, where M is `n * n` (row-major) and the rows of A are the
/// constraints: the step (or direction) x that stays on them.
pub(crate) fn solve_kkt(m: &[f64], constraints: &[&[f64]], rhs: &[f64]) -> Option<Vec<f64>> {
    let n = rhs.len();
    let k = n + constraints.len();
    let mut a = vec![0.0; k * k];
    for i in 0..n {
        a[i * k..i * k + n].copy_from_slice(&m[i * n..i * n + n]);
    }
    for (r, row) in constraints.iter().enumerate() {
        for i in 0..n {
            a[i * k + n + r] = row[i];
            a[(n + r) * k + i] = row[i];
        }
    }
    let mut b = rhs.to_vec();
    b.resize(k, 0.0);
    let mut x = solve_linear(a, b)?;
    x.truncate(n);
    Some(x)
}

/// The constraints that hold the bots without games (0 in `active`) at 0,
/// one row each.
pub(crate) fn idle_rows(active: &[f64]) -> Vec<Vec<f64>> {
    let n = active.len();
    (0..n)
        .filter(|&i| active[i] == 0.0)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect()
}

/// Newton's method on the log-posterior restricted to "the bots that played
/// average 0" and, when given, `a . theta = b`: each step solves the KKT
/// system with the negated Hessian, then is halved until the log-posterior
/// does not decrease. Stops when no theta moves by more than 1e-11, or
/// after 200 steps (only reached where the maximum is at infinity).
pub(crate) fn solve(
    c: &Counts,
    prior: f64,
    start: Vec<f64>,
    extra: Option<(&[f64], f64)>,
) -> Vec<f64> {
    let n = c.n;
    let active: Vec<f64> = (0..n)
        .map(|i| if c.active(i) { 1.0 } else { 0.0 })
        .collect();
    let m = active.iter().sum::<f64>();
    if m < 2.0 {
        return vec![0.0; n];
    }
    let centre = |theta: &mut Vec<f64>| {
        let mean = theta.iter().zip(&active).map(|(t, a)| t * a).sum::<f64>() / m;
        theta
            .iter_mut()
            .zip(&active)
            .for_each(|(t, a)| *t = if *a > 0.0 { *t - mean } else { 0.0 });
    };
    let mut theta = start;
    centre(&mut theta);
    if let Some((a, b)) = extra {
        // Onto the constraint (a is orthogonal to the centring).
        let aa: f64 = a.iter().map(|x| x * x).sum();
        let gap = b - a.iter().zip(&theta).map(|(x, t)| x * t).sum::<f64>();
        theta
            .iter_mut()
            .zip(a)
            .for_each(|(t, x)| *t += gap / aa * x);
    }
    let idle = idle_rows(&active);
    let mut rows: Vec<&[f64]> = vec![&active];
    rows.extend(idle.iter().map(Vec::as_slice));
    if let Some((a, _)) = extra {
        rows.push(a);
    }
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    for _ in 0..200 {
        let f0 = log_posterior(c, prior, &theta, Some((&mut g, &mut h)));
        let neg: Vec<f64> = h.iter().map(|x| -x).collect();
        let Some(step) = solve_kkt(&neg, &rows, &g) else {
            break;
        };
        let mut t = 1.0;
        let mut next: Vec<f64>;
        loop {
            next = theta.iter().zip(&step).map(|(x, d)| x + t * d).collect();
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
    if extra.is_none() {
        centre(&mut theta);
    }
    theta
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::close;
    use crate::Played;
    use arena_core::record::GameResult::{self, *};

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
    fn the_mle_exists_exactly_when_every_split_scored_both_ways() {
        use Mle::*;
        // A-B-C all met with a point each way somewhere: it exists.
        let p = pool(&[
            ("A", "B", 1, 0, 1),
            ("B", "C", 1, 0, 0),
            ("C", "A", 1, 0, 0),
        ]);
        assert_eq!(mle_status(&p), [Exists, Exists, Exists]);
        // A lost nothing; C won nothing; B in between.
        let p = pool(&[
            ("A", "B", 2, 0, 0),
            ("B", "C", 1, 0, 0),
            ("A", "C", 1, 0, 0),
        ]);
        assert_eq!(mle_status(&p), [NoLoss, Elsewhere, NoWin]);
        // A and B drew each other and beat C: their group lost nothing.
        let p = pool(&[
            ("A", "B", 0, 1, 0),
            ("A", "C", 1, 0, 0),
            ("B", "C", 1, 0, 0),
        ]);
        assert_eq!(mle_status(&p), [NoLoss, NoLoss, NoWin]);
        // Two groups that never met.
        let p = pool(&[("A", "B", 1, 0, 1), ("C", "D", 1, 1, 1)]);
        assert_eq!(mle_status(&p), [Split; 4]);
        // A bot that only played itself has nothing to estimate.
        let p = pool(&[("A", "B", 0, 1, 0), ("C", "C", 0, 1, 0)]);
        assert_eq!(mle_status(&p), [Exists, Exists, NoGames]);
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
            /// fit with a prior is finite, averages 0 over the bots that
            /// played and is a stationary point of the log-posterior along
            /// every mean-zero direction.
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
                let active: Vec<usize> = (0..n).filter(|&i| c.active(i)).collect();
                let mean = active.iter().map(|&i| grad[i]).sum::<f64>() / active.len().max(1) as f64;
                for &i in &active {
                    prop_assert!((grad[i] - mean).abs() < 1e-7, "{grad:?}");
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
