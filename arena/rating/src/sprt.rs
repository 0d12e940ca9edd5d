//! Sequential probability ratio test for head-to-head matches, as in
//! fishtest (Stockfish's testing framework): H0 "the Elo difference is
//! elo0" against H1 "it is elo1" (logistic Elo), on the pentanomial model
//! of seat-swapped game pairs. The log-likelihood ratio is the generalized
//! (GSPRT) one of fishtest's `LLRcalc.LLR_logistic`; the Brownian
//! approximation `LLR_alt2` is provided too. Sources and formulas:
//! `docs/statistics.md`.

use std::fmt;
use std::str::FromStr;

use super::stats::{self, elo_from_score, expected_score, Z95};
use crate::Tally;

/// Test parameters, written `elo0=0,elo1=10,alpha=0.05,beta=0.05`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtParams {
    /// H0: the tested bot is this many Elo stronger.
    pub elo0: f64,
    /// H1: the tested bot is this many Elo stronger (above `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl SprtParams {
    /// Wald's bounds (lower, upper) = (ln(beta/(1-alpha)), ln((1-beta)/alpha)).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
}

impl Default for SprtParams {
    fn default() -> Self {
        SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// Why an SPRT specification was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtParamError {
    #[error("`{0}` is not key=value (expected elo0=0,elo1=10,alpha=0.05,beta=0.05)")]
    /// A part that is not `key=value`.
    NotKeyValue(String),
    #[error("unknown SPRT key `{0}` (valid: elo0, elo1, alpha, beta)")]
    /// A key other than elo0, elo1, alpha and beta.
    UnknownKey(String),
    #[error("SPRT key `{0}` given twice")]
    /// A key given twice.
    Duplicate(String),
    #[error("SPRT `{key}`: `{value}` is not a number")]
    /// A value that is not a number.
    NotANumber {
        /// The key.
        key: String,
        /// Its value as written.
        value: String,
    },
    #[error("SPRT needs `{0}`")]
    /// A key that is needed and missing.
    Missing(&'static str),
    #[error("SPRT `{key}` must be strictly between 0 and 1 (got {value})")]
    /// `alpha` or `beta` outside (0, 1).
    BadProbability {
        /// `alpha` or `beta`.
        key: &'static str,
        /// Its value.
        value: f64,
    },
    #[error("SPRT elo0 ({elo0}) must be below elo1 ({elo1})")]
    /// `elo0` not below `elo1`.
    BoundsOrder {
        /// H0's Elo difference.
        elo0: f64,
        /// H1's Elo difference.
        elo1: f64,
    },
}

impl FromStr for SprtParams {
    type Err = SprtParamError;

    /// `elo0` and `elo1` are required; `alpha` and `beta` default to 0.05.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut vals: [Option<f64>; 4] = [None; 4];
        const KEYS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| SprtParamError::NotKeyValue(part.to_string()))?;
            let (k, v) = (k.trim(), v.trim());
            let slot = KEYS
                .iter()
                .position(|&key| key == k)
                .ok_or_else(|| SprtParamError::UnknownKey(k.to_string()))?;
            if vals[slot].is_some() {
                return Err(SprtParamError::Duplicate(k.to_string()));
            }
            let x: f64 = v
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| SprtParamError::NotANumber {
                    key: k.to_string(),
                    value: v.to_string(),
                })?;
            vals[slot] = Some(x);
        }
        let elo0 = vals[0].ok_or(SprtParamError::Missing("elo0"))?;
        let elo1 = vals[1].ok_or(SprtParamError::Missing("elo1"))?;
        let alpha = vals[2].unwrap_or(0.05);
        let beta = vals[3].unwrap_or(0.05);
        for (key, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtParamError::BadProbability { key, value });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtParamError::BoundsOrder { elo0, elo1 });
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtStatus {
    /// Neither hypothesis accepted yet: play on.
    Continue,
    /// H0 accepted (the log-likelihood ratio reached the lower bound).
    AcceptH0,
    /// H1 accepted (the log-likelihood ratio reached the upper bound).
    AcceptH1,
}

impl fmt::Display for SprtStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtStatus::Continue => "continue",
            SprtStatus::AcceptH0 => "H0 accepted",
            SprtStatus::AcceptH1 => "H1 accepted",
        })
    }
}

/// Pair counts by the tested bot's points in the pair, 0, 1/2, 1, 3/2, 2:
/// `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` (fishtest's order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "{a} {b} {c} {d} {e}")
    }
}

/// An Elo difference estimate with its 95% interval and the likelihood of
/// superiority (probability that the true difference is positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The Elo difference.
    pub elo: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// The interval's upper end.
    pub hi: f64,
    /// Likelihood of superiority (probability that the true difference is positive).
    pub los: f64,
}

/// Counts with zeros replaced by 1e-3 (fishtest's regularization), as a
/// distribution over the scores i/(k-1); returns (N, values, probs).
fn regularized(counts: &[u64]) -> (f64, Vec<f64>, Vec<f64>) {
    assert!(
        counts.len() == 3 || counts.len() == 5,
        "counts are trinomial (L, D, W) or pentanomial"
    );
    let c: Vec<f64> = counts
        .iter()
        .map(|&x| if x == 0 { 1e-3 } else { x as f64 })
        .collect();
    let n: f64 = c.iter().sum();
    let k = (c.len() - 1) as f64;
    let values = (0..c.len()).map(|i| i as f64 / k).collect();
    let probs = c.iter().map(|x| x / n).collect();
    (n, values, probs)
}

fn mean_var(values: &[f64], probs: &[f64]) -> (f64, f64) {
    let mean: f64 = values.iter().zip(probs).map(|(a, p)| a * p).sum();
    let var = values
        .iter()
        .zip(probs)
        .map(|(a, p)| p * (a - mean).powi(2))
        .sum();
    (mean, var)
}

/// The x solving sum_i p_i b_i / (1 + x b_i) = 0 (b has both signs), by
/// bisection: the left side decreases in x on (-1/max b, -1/min b).
fn secular(b: &[f64], probs: &[f64]) -> f64 {
    let max = b.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = b.iter().copied().fold(f64::INFINITY, f64::min);
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let eps = 1e-12 * (hi - lo);
    lo += eps;
    hi -= eps;
    let f = |x: f64| -> f64 {
        b.iter()
            .zip(probs)
            .map(|(b, p)| p * b / (1.0 + x * b))
            .sum()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// ln of the maximum-likelihood distribution with mean `s` (the empirical
/// distribution reweighted by 1 / (1 + x (a_i - s))), per outcome.
fn ln_mle(values: &[f64], probs: &[f64], s: f64) -> Vec<f64> {
    let b: Vec<f64> = values.iter().map(|a| a - s).collect();
    let x = secular(&b, probs);
    probs
        .iter()
        .zip(&b)
        .map(|(p, b)| (p / (1.0 + x * b)).ln())
        .collect()
}

/// The generalized log-likelihood ratio of H1 (logistic Elo `elo1`) to
/// H0 (`elo0`) for trinomial `[L, D, W]` or pentanomial `[LL, .., WW]`
/// counts: N * sum_i p_i ln(p1_i / p0_i), where p is the empirical
/// distribution and p0, p1 the most likely distributions with expected
/// score L(elo0), L(elo1). 0 without data.
pub fn llr_logistic(elo0: f64, elo1: f64, counts: &[u64]) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let (n, values, probs) = regularized(counts);
    let l0 = ln_mle(&values, &probs, expected_score(elo0));
    let l1 = ln_mle(&values, &probs, expected_score(elo1));
    n * probs
        .iter()
        .zip(l0.iter().zip(&l1))
        .map(|(p, (a, b))| p * (b - a))
        .sum::<f64>()
}

/// The Brownian approximation of [`llr_logistic`]:
/// N (s1 - s0) (2 mean - s0 - s1) / (2 var).
pub fn llr_logistic_approx(elo0: f64, elo1: f64, counts: &[u64]) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let (n, values, probs) = regularized(counts);
    let (mean, var) = mean_var(&values, &probs);
    let (s0, s1) = (expected_score(elo0), expected_score(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
}

/// The Elo difference from trinomial or pentanomial counts: the mean score
/// per game mu, its standard error sqrt(var / N) (per pair for
/// pentanomial counts, which accounts for the correlation within pairs),
/// Elo(mu) and Elo(mu -+ 1.96 se), with scores clamped to [0.001, 0.999];
/// LOS = Phi((mu - 1/2) / se). `None` without data.
pub fn elo_estimate(counts: &[u64]) -> Option<EloEstimate> {
    elo_estimate_at(counts, Z95)
}

/// [`elo_estimate`] with the interval at the level of the normal quantile
/// `z` instead of 95%.
pub fn elo_estimate_at(counts: &[u64], z: f64) -> Option<EloEstimate> {
    if counts.iter().all(|&c| c == 0) {
        return None;
    }
    let (n, values, probs) = regularized(counts);
    let (mean, var) = mean_var(&values, &probs);
    let se = (var / n).sqrt();
    let elo = |s: f64| elo_from_score(s.clamp(1e-3, 1.0 - 1e-3));
    Some(EloEstimate {
        elo: elo(mean),
        lo: elo(mean - z * se),
        hi: elo(mean + z * se),
        los: stats::normal_cdf((mean - 0.5) / se),
    })
}

/// A running SPRT over seat-swapped game pairs.
///
/// ```
/// use arena_rating::{Sprt, SprtParams, SprtStatus};
/// use arena_core::record::GameResult;
///
/// let params: SprtParams = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
/// let mut sprt = Sprt::new(params);
/// // The tested bot sat in seat 0 in the first game, seat 1 in the second.
/// let status = sprt.record_pair(
///     GameResult::Seat0Wins.points(0),
///     GameResult::Draw.points(1),
/// );
/// assert_eq!(status, SprtStatus::Continue);
/// println!("{}", sprt.progress_line());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sprt {
    params: SprtParams,
    penta: Pentanomial,
    wdl: Tally,
    /// Pairs that repeated an earlier pair move for move: played, but no
    /// new evidence.
    repeats: u64,
}

impl Sprt {
    /// A test with no pair yet.
    pub fn new(params: SprtParams) -> Sprt {
        Sprt {
            params,
            penta: Pentanomial::default(),
            wdl: Tally::default(),
            repeats: 0,
        }
    }

    /// Its parameters.
    pub fn params(&self) -> SprtParams {
        self.params
    }

    /// Records one pair: the tested bot's points (0, 0.5 or 1) in each of
    /// its two games. Returns the status after it.
    pub fn record_pair(&mut self, first: f64, second: f64) -> SprtStatus {
        for p in [first, second] {
            assert!(
                p == 0.0 || p == 0.5 || p == 1.0,
                "a game is worth 0, 0.5 or 1 point, not {p}"
            );
            self.wdl.add_points(p);
        }
        self.penta.0[(2.0 * (first + second)) as usize] += 1;
        self.status()
    }

    /// Records a pair that repeats an earlier pair move for move (same
    /// opening, same moves in both games): it was played, but the earlier
    /// one already counted, so the test does not move. Returns the status.
    pub fn record_repeat(&mut self) -> SprtStatus {
        self.repeats += 1;
        self.status()
    }

    /// Pairs recorded as repeats.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// The pair counts so far (repeats not counted).
    pub fn pentanomial(&self) -> Pentanomial {
        self.penta
    }

    /// The tested bot's wins, draws and losses over all games.
    pub fn wdl(&self) -> Tally {
        self.wdl
    }

    /// The log-likelihood ratio so far (pentanomial model).
    pub fn llr(&self) -> f64 {
        llr_logistic(self.params.elo0, self.params.elo1, &self.penta.0)
    }

    /// The log-likelihood ratio's lower and upper bounds (accept H0, accept H1).
    pub fn bounds(&self) -> (f64, f64) {
        self.params.bounds()
    }

    /// Where the test stands.
    pub fn status(&self) -> SprtStatus {
        let llr = self.llr();
        let (lower, upper) = self.bounds();
        if llr <= lower {
            SprtStatus::AcceptH0
        } else if llr >= upper {
            SprtStatus::AcceptH1
        } else {
            SprtStatus::Continue
        }
    }

    /// Elo difference of the tested bot with its 95% interval (pentanomial).
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_estimate(&self.penta.0)
    }

    /// One line for the console:
    /// `pairs 2 games 4 W-D-L 1-2-1 ptnml(0-2) 0 1 0 1 0 Elo 0.0 [-x, +y] LOS 50.0% LLR 0.000 [-2.944, 2.944] continue`.
    pub fn progress_line(&self) -> String {
        let (lower, upper) = self.bounds();
        let elo = match self.elo() {
            Some(e) => format!(
                "Elo {:+.1} [{:+.1}, {:+.1}] LOS {:.1}%",
                e.elo,
                e.lo,
                e.hi,
                100.0 * e.los
            ),
            None => "Elo -".to_string(),
        };
        // The repeats beside the counts they are not in; the status stays
        // last, where scripts read it.
        let repeats = match self.repeats {
            0 => String::new(),
            1 => " (+1 repeated pair, counted once)".to_string(),
            r => format!(" (+{r} repeated pairs, counted once)"),
        };
        format!(
            "pairs {} games {}{repeats} W-D-L {}-{}-{} ptnml(0-2) {} {} LLR {:.3} [{:.3}, {:.3}] {}",
            self.penta.pairs(),
            self.wdl.games(),
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            self.penta,
            elo,
            self.llr(),
            lower,
            upper,
            self.status()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::close;

    // Reference numbers: docs/sprt_reference.py, a Python script written from the
    // definitions in fishtest's server/fishtest/stats/LLRcalc.py and
    // stat_util.py (zero counts -> 1e-3, MLE with a given mean through the
    // secular equation solved by bisection, Elo interval from the score's
    // standard error). The first two count sets are the ones in
    // stat_util.py's self-test (a long fishtest run, bounds <-3, 1>).
    // Columns: elo0, elo1, counts, LLR, approx LLR, Elo, lo, hi, LOS.
    #[allow(clippy::type_complexity)]
    const CASES: [(f64, f64, &[u64], f64, f64, f64, f64, f64, f64); 5] = [
        (
            -3.0,
            1.0,
            &[65804, 56553, 65388],
            2.0490426180,
            2.0488098805,
            -0.7698390909,
            -2.0835929388,
            0.5438927429,
            0.1253755527,
        ),
        (
            -3.0,
            1.0,
            &[10789, 19328, 33806, 19402, 10543],
            2.1310678118,
            2.1312448707,
            -0.7735773359,
            -2.0511676917,
            0.5039920998,
            0.1176588580,
        ),
        (
            0.0,
            10.0,
            &[0, 3, 10, 5, 2],
            0.4728563706,
            0.4393753374,
            52.4911296704,
            -12.0696950810,
            120.9114034400,
            0.9442410565,
        ),
        (
            0.0,
            10.0,
            &[120, 150, 130],
            0.1954894660,
            0.1956369629,
            8.6876998773,
            -18.2347289344,
            35.7150553750,
            0.7365587271,
        ),
        (
            0.0,
            5.0,
            &[3, 0, 7],
            0.0565347017,
            0.0672973119,
            147.1741715355,
            -58.9421562355,
            715.3302951180,
            0.9162248383,
        ),
    ];

    #[test]
    fn llr_and_elo_match_the_fishtest_reference_numbers() {
        for (e0, e1, counts, llr, approx, elo, lo, hi, los) in CASES {
            close(llr_logistic(e0, e1, counts), llr, 1e-7);
            close(llr_logistic_approx(e0, e1, counts), approx, 1e-7);
            let e = elo_estimate(counts).unwrap();
            close(e.elo, elo, 1e-7);
            close(e.lo, lo, 1e-7);
            close(e.hi, hi, 1e-7);
            // Our normal CDF is good to about 1e-7.
            close(e.los, los, 5e-7);
        }
        assert_eq!(llr_logistic(0.0, 10.0, &[0; 5]), 0.0);
        assert_eq!(elo_estimate(&[0; 3]), None);
    }

    #[test]
    fn wald_bounds_for_five_percent_errors_are_plus_minus_2_94() {
        let (lo, hi) = SprtParams::default().bounds();
        close(lo, -2.944_438_979, 1e-9);
        close(hi, 2.944_438_979, 1e-9);
        let p: SprtParams = "elo0=0,elo1=5,alpha=0.1,beta=0.2".parse().unwrap();
        let (lo, hi) = p.bounds();
        close(lo, (0.2f64 / 0.9).ln(), 1e-12);
        close(hi, (0.8f64 / 0.1).ln(), 1e-12);
    }

    #[test]
    fn params_parse_and_print_round_trip() {
        let p: SprtParams = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
        assert_eq!(p, SprtParams::default());
        assert_eq!(p.to_string().parse::<SprtParams>().unwrap(), p);
        let p: SprtParams = " elo1=2.5 , elo0=-1.5".parse().unwrap();
        assert_eq!((p.elo0, p.elo1, p.alpha, p.beta), (-1.5, 2.5, 0.05, 0.05));
        use SprtParamError::*;
        let err = |s: &str| s.parse::<SprtParams>().unwrap_err();
        assert_eq!(err("elo0=0,elo1"), NotKeyValue("elo1".into()));
        assert_eq!(err("elo0=0,elo2=3"), UnknownKey("elo2".into()));
        assert_eq!(err("elo0=0,elo0=1"), Duplicate("elo0".into()));
        assert!(matches!(err("elo0=x,elo1=1"), NotANumber { .. }));
        assert!(matches!(err("elo0=NaN,elo1=1"), NotANumber { .. }));
        assert_eq!(err("elo1=3"), Missing("elo0"));
        assert!(matches!(
            err("elo0=0,elo1=5,alpha=1"),
            BadProbability { key: "alpha", .. }
        ));
        assert!(matches!(
            err("elo0=0,elo1=5,beta=0"),
            BadProbability { key: "beta", .. }
        ));
        assert!(matches!(err("elo0=5,elo1=5"), BoundsOrder { .. }));
    }

    #[test]
    fn a_running_test_counts_pairs_and_stops_at_the_bounds() {
        let mut s = Sprt::new("elo0=0,elo1=10".parse().unwrap());
        assert_eq!(s.llr(), 0.0);
        assert_eq!(s.status(), SprtStatus::Continue);
        // Feed the third reference case pair by pair: 0 LL, 3 LD, 10 even,
        // 5 DW, 2 WW.
        let mut feed = vec![(0.0, 0.5); 3];
        feed.extend(vec![(1.0, 0.0); 6]);
        feed.extend(vec![(0.5, 0.5); 4]);
        feed.extend(vec![(0.5, 1.0); 5]);
        feed.extend(vec![(1.0, 1.0); 2]);
        for (a, b) in feed {
            s.record_pair(a, b);
        }
        assert_eq!(s.pentanomial(), Pentanomial([0, 3, 10, 5, 2]));
        assert_eq!(
            s.wdl(),
            Tally {
                wins: 6 + 5 + 4,
                draws: 3 + 8 + 5,
                losses: 3 + 6,
                forfeits: 0
            }
        );
        close(s.llr(), 0.4728563706, 1e-7);
        assert_eq!(s.status(), SprtStatus::Continue);
        let line = s.progress_line();
        assert!(line.starts_with("pairs 20 games 40 W-D-L 15-16-9 ptnml(0-2) 0 3 10 5 2 Elo +52.5 [-12.1, +120.9] LOS 94.4% LLR 0.473 [-2.944, 2.944] continue"), "{line}");

        // A bot that wins every pair is accepted as better...
        let mut s = Sprt::new("elo0=0,elo1=10".parse().unwrap());
        let mut n = 0;
        while s.record_pair(1.0, 1.0) == SprtStatus::Continue {
            n += 1;
            assert!(n < 1000);
        }
        assert_eq!(s.status(), SprtStatus::AcceptH1);
        // ...and one that loses every pair is accepted as not better.
        let mut s = Sprt::new("elo0=0,elo1=10".parse().unwrap());
        while s.record_pair(0.0, 0.5) == SprtStatus::Continue {}
        assert_eq!(s.status(), SprtStatus::AcceptH0);
        assert!(s.llr() <= s.bounds().0);
    }
}
