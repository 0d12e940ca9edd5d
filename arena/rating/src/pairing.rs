//! Head-to-head statistics of one pairing, as fishtest and cutechess
//! report a match: the pentanomial counts over seat-swapped pairs, the
//! Elo difference with its interval and LOS from them (the SPRT's
//! [`super::sprt::elo_estimate_at`]), fishtest's normalized Elo with its
//! interval, and the draw ratio. Formulas and sources:
//! `docs/statistics.md`, "Pairing statistics".

use std::collections::BTreeMap;

use super::sprt::{elo_estimate_at, EloEstimate, Pentanomial};
use super::stats::Interval;

/// fishtest's `nelo_divided_by_nt`: normalized Elo per unit of the
/// normalized t-value, 800 / ln 10.
pub const NELO_PER_NT: f64 = 800.0 / std::f64::consts::LN_10;

/// One game of a pairing from the first bot's side: its pair id, the
/// seat the bot sat in, its points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairGame {
    /// Its seat-swapped pair.
    pub pair: u64,
    /// The seat the first bot sat in.
    pub seat: usize,
    /// The first bot's points (1, 0.5 or 0).
    pub points: f64,
}

/// The statistics of one pairing, from the first bot's side.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingStats {
    /// Pairs by the bot's points in the pair (0, 1/2, 1, 3/2, 2).
    pub pentanomial: Pentanomial,
    /// Games outside a complete seat-swapped pair (a pair still being
    /// played, or an odd game): in the record, not in the pentanomial.
    pub unpaired: u64,
    /// Elo difference, its interval and LOS from the pentanomial counts.
    pub elo: Option<EloEstimate>,
    /// Normalized Elo (fishtest's nElo) and its interval.
    pub nelo: Option<(f64, Interval)>,
    /// Draws over games (all games given).
    pub draw_ratio: Option<f64>,
}

impl PairingStats {
    /// The statistics of `games` (any order), intervals at the level of
    /// the normal quantile `z`.
    pub fn of(games: &[PairGame], z: f64) -> PairingStats {
        let mut pairs: BTreeMap<u64, Vec<PairGame>> = BTreeMap::new();
        for g in games {
            pairs.entry(g.pair).or_default().push(*g);
        }
        let mut penta = Pentanomial::default();
        let mut unpaired = 0;
        for p in pairs.values() {
            match p.as_slice() {
                [a, b] if a.seat != b.seat => {
                    penta.0[(2.0 * (a.points + b.points)).round() as usize] += 1;
                }
                other => unpaired += other.len() as u64,
            }
        }
        let draws = games.iter().filter(|g| g.points == 0.5).count();
        PairingStats {
            pentanomial: penta,
            unpaired,
            elo: elo_estimate_at(&penta.0, z),
            nelo: normalized_elo(&penta, z),
            draw_ratio: (!games.is_empty()).then(|| draws as f64 / games.len() as f64),
        }
    }
}

/// fishtest's normalized Elo of pentanomial counts (its `tests_stats`
/// page): zeros regularized to 1e-3, the pair score x in {0, 1/4, .., 1}
/// with mean mu, variance var, skewness and excess kurtosis; t = (mu -
/// 1/2) / sqrt(var), its variance var_t = 1 - t skew + t^2 (exkurt + 2) /
/// 4, interval t -+ z sqrt(var_t / N); nElo = 800 / ln 10 * t / sqrt 2.
/// None without pairs.
pub fn normalized_elo(penta: &Pentanomial, z: f64) -> Option<(f64, Interval)> {
    if penta.pairs() == 0 {
        return None;
    }
    let c: Vec<f64> = penta
        .0
        .iter()
        .map(|&x| if x == 0 { 1e-3 } else { x as f64 })
        .collect();
    let n: f64 = c.iter().sum();
    let x = |k: usize| k as f64 / 4.0;
    let mu: f64 = (0..5).map(|k| c[k] / n * x(k)).sum();
    let moment = |e: i32| (0..5).map(|k| c[k] / n * (x(k) - mu).powi(e)).sum::<f64>();
    let var = moment(2);
    if var <= 0.0 {
        return None;
    }
    let skew = moment(3) / var.powf(1.5);
    let exkurt = moment(4) / (var * var) - 3.0;
    let t = (mu - 0.5) / var.sqrt();
    let var_t = (1.0 - t * skew + 0.25 * t * t * (exkurt + 2.0)).max(0.0);
    let half = z * (var_t / n).sqrt();
    let nelo = |t: f64| NELO_PER_NT * t / std::f64::consts::SQRT_2;
    Some((
        nelo(t),
        Interval {
            lo: nelo(t - half),
            hi: nelo(t + half),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::close;
    use crate::stats::Z95;

    fn pair(pair: u64, first: f64, second: f64) -> [PairGame; 2] {
        [
            PairGame {
                pair,
                seat: 0,
                points: first,
            },
            PairGame {
                pair,
                seat: 1,
                points: second,
            },
        ]
    }

    #[test]
    fn pairs_are_counted_by_their_points_and_odd_games_apart() {
        let mut games: Vec<PairGame> = [(1.0, 1.0), (1.0, 0.5), (0.5, 0.5), (0.0, 1.0), (0.0, 0.0)]
            .iter()
            .enumerate()
            .flat_map(|(k, &(a, b))| pair(k as u64, a, b))
            .collect();
        games.push(PairGame {
            pair: 9,
            seat: 0,
            points: 1.0,
        });
        let s = PairingStats::of(&games, Z95);
        assert_eq!(s.pentanomial, Pentanomial([1, 0, 2, 1, 1]));
        assert_eq!(s.unpaired, 1);
        close(s.draw_ratio.unwrap(), 3.0 / 11.0, 1e-12);
        // Even pairs: no difference either way.
        let e = s.elo.unwrap();
        assert!(e.lo < 0.0 && e.hi > 0.0 && e.los > 0.5, "{e:?}");
    }

    /// Reference: fishtest's formulas by hand for counts 10 20 40 20 10
    /// (symmetric: nElo 0, skewness 0), and 5 10 40 30 15: mu = 0.6,
    /// nElo = 800 / ln 10 * (mu - 1/2) / sqrt(2 var).
    #[test]
    fn normalized_elo_follows_fishtest() {
        let (n, iv) = normalized_elo(&Pentanomial([10, 20, 40, 20, 10]), Z95).unwrap();
        close(n, 0.0, 1e-9);
        close(iv.lo, -iv.hi, 1e-9);
        let (n, iv) = normalized_elo(&Pentanomial([5, 10, 40, 30, 15]), Z95).unwrap();
        let mu: f64 = (10.0 * 0.25 + 40.0 * 0.5 + 30.0 * 0.75 + 15.0) / 100.0;
        let var = (5.0 * mu * mu
            + 10.0 * (0.25 - mu).powi(2)
            + 40.0 * (0.5 - mu).powi(2)
            + 30.0 * (0.75 - mu).powi(2)
            + 15.0 * (1.0 - mu).powi(2))
            / 100.0;
        close(mu, 0.6, 1e-12);
        close(n, NELO_PER_NT * (mu - 0.5) / var.sqrt() / 2f64.sqrt(), 1e-9);
        assert!(iv.lo < n && n < iv.hi && iv.lo > 0.0, "{iv:?}");
    }
}
