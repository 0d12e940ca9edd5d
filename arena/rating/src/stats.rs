//! Small statistics helpers: the normal distribution, Wilson score
//! intervals, likelihood of superiority, the logistic Elo curve.
//! Formulas and sources: `docs/statistics.md`.

/// The 97.5% quantile of the standard normal distribution (two-sided 95%).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Points on the Elo scale per unit of natural log-odds: 400 / ln 10.
pub const ELO_PER_NAT: f64 = 173.717_792_761_300_73;

/// Complementary error function, Numerical Recipes `erfcc` (Chebyshev
/// fit, fractional error below 1.2e-7 everywhere).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ans = t * poly.exp();
    if x >= 0.0 {
        ans
    } else {
        2.0 - ans
    }
}

/// Error function (see [`erfc`] for the accuracy).
/// Odd by construction, and exactly 0 at 0.
pub fn erf(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else if x > 0.0 {
        1.0 - erfc(x)
    } else {
        erfc(-x) - 1.0
    }
}

/// The standard normal quantile: the x with `normal_cdf(x) == p`, for p
/// in (0, 1). Acklam's rational approximation (relative error below
/// 1.2e-9); `normal_quantile(0.975)` is [`Z95`] to 9 digits.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        let q = (-2.0 * q.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail(p)
    } else if p > 1.0 - 0.02425 {
        -tail(1.0 - p)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Standard normal cumulative distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// Expected score of a player `elo` points stronger than the opponent:
/// 1 / (1 + 10^(-elo/400)).
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives the expected score `score`:
/// -400 log10(1/score - 1). Infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Logistic function 1 / (1 + e^-x).
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// ln(sigmoid(x)), computed without overflow.
pub fn ln_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// A two-sided interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The lower end.
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
}

/// Wilson (1927) score interval for a proportion `points / n`, at the
/// normal quantile `z` (use [`Z95`] for 95%). `points` may be fractional
/// (draws count half a point); `n` is the number of games. `None` when
/// `n == 0`.
pub fn wilson(points: f64, n: f64, z: f64) -> Option<Interval> {
    if n <= 0.0 {
        return None;
    }
    let p = points / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt() / denom;
    Some(Interval {
        lo: (centre - half).max(0.0),
        hi: (centre + half).min(1.0),
    })
}

/// Likelihood of superiority from a head-to-head record (draws carry no
/// information): 0.5 * (1 + erf((W - L) / sqrt(2 (W + L)))). `None` when
/// there are no decisive games.
pub fn los(wins: u64, losses: u64) -> Option<f64> {
    let decisive = wins + losses;
    if decisive == 0 {
        return None;
    }
    let (w, l) = (wins as f64, losses as f64);
    Some(0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quantile inverts the CDF (to the CDF's own 1.2e-7), and gives
    /// the familiar z values.
    #[test]
    fn the_normal_quantile_inverts_the_cdf() {
        close(normal_quantile(0.975), Z95, 1e-8);
        close(normal_quantile(0.995), 2.575_829_303_549, 1e-8);
        close(normal_quantile(0.5), 0.0, 1e-12);
        for p in [1e-6, 0.01, 0.02425, 0.3, 0.7, 0.99, 1.0 - 1e-6] {
            close(normal_cdf(normal_quantile(p)), p, 2e-7);
        }
    }
    use crate::close;

    #[test]
    fn erf_matches_tabulated_values() {
        // Abramowitz and Stegun, Table 7.1.
        close(erf(0.5), 0.520_499_877_8, 2e-7);
        close(erf(1.0), 0.842_700_792_9, 2e-7);
        close(erf(2.0), 0.995_322_265_0, 2e-7);
        close(erf(-1.0), -0.842_700_792_9, 2e-7);
        close(erf(0.0), 0.0, 2e-7);
        close(normal_cdf(Z95), 0.975, 1e-7);
        close(normal_cdf(-1.0), 0.158_655_253_9, 1e-7);
    }

    #[test]
    fn wilson_reproduces_newcombes_worked_examples() {
        // Newcombe (1998), "Two-sided confidence intervals for the single
        // proportion", Statistics in Medicine 17, Table II, method 3.
        let cases = [
            (81.0, 263.0, 0.2553, 0.3662),
            (15.0, 148.0, 0.0624, 0.1605),
            (0.0, 20.0, 0.0, 0.1611),
            (1.0, 29.0, 0.0061, 0.1718),
        ];
        for (x, n, lo, hi) in cases {
            let i = wilson(x, n, Z95).unwrap();
            close(i.lo, lo, 5e-5);
            close(i.hi, hi, 5e-5);
        }
        assert_eq!(wilson(0.0, 0.0, Z95), None);
    }

    #[test]
    fn wilson_counts_draws_as_half_points() {
        // 3 wins, 2 draws, 5 losses: 4 points out of 10 games.
        let with_draws = wilson(3.0 + 0.5 * 2.0, 10.0, Z95).unwrap();
        let plain = wilson(4.0, 10.0, Z95).unwrap();
        assert_eq!(with_draws, plain);
        // Hand computation: centre (0.4 + 0.19207)/1.38415, half-width
        // 1.95996 * sqrt(0.024 + 0.00096) / 1.38415.
        close(plain.lo, 0.168_180, 1e-5);
        close(plain.hi, 0.687_326, 1e-5);
    }

    #[test]
    fn los_follows_the_erf_formula() {
        assert_eq!(los(0, 0), None);
        close(los(10, 10).unwrap(), 0.5, 1e-12);
        // (W - L) / sqrt(2 (W + L)) = 10 / sqrt(60); erf(1.290994) = 0.932111.
        close(los(20, 10).unwrap(), 0.5 * (1.0 + 0.932_111), 2e-6);
        close(los(10, 20).unwrap() + los(20, 10).unwrap(), 1.0, 1e-12);
    }

    #[test]
    fn elo_curve_and_its_inverse_agree() {
        close(expected_score(0.0), 0.5, 1e-15);
        close(expected_score(400.0), 10.0 / 11.0, 1e-15);
        close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-9);
        close(elo_from_score(expected_score(123.4)), 123.4, 1e-9);
        close(ELO_PER_NAT, 400.0 / std::f64::consts::LN_10, 1e-12);
        close(ln_sigmoid(-800.0), -800.0, 1e-9);
        close(ln_sigmoid(2.0), sigmoid(2.0).ln(), 1e-15);
    }
}
