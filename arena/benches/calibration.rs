//! Coverage of the Bradley-Terry 95% intervals in simulated tournaments
//! with known ratings (see `arena::rating::calibration`):
//!
//!     cargo bench -p arena --bench calibration [-- TOURNAMENTS [SEED]]
//!
//! 2000 tournaments per regime and seed 1 by default. Prints, per regime
//! and bot, the share of intervals that held the truth with its own
//! Wilson 95% interval; the figures are in `docs/statistics.md`.

use arena::rating::calibration::{coverage, seat_coverage, Regime};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let tournaments: u64 = args
        .first()
        .map_or(2000, |a| a.parse().expect("TOURNAMENTS"));
    let seed: u64 = args.get(1).map_or(1, |a| a.parse().expect("SEED"));
    println!("calibration: {tournaments} tournaments per regime, seed {seed}\n");
    for t in Regime::targets() {
        let c = coverage(&t.regime, tournaments, seed);
        print!("{}", c.report());
        let verdict = if (t.lo..=t.hi).contains(&t.measured(&c)) {
            "met"
        } else {
            "MISSED"
        };
        let of = if t.finite_only {
            " (finite intervals)"
        } else {
            ""
        };
        println!(
            "  target {:.0}-{:.0}%{of}: {verdict}\n",
            100.0 * t.lo,
            100.0 * t.hi
        );
    }
    for regime in Regime::others() {
        println!("{}", coverage(&regime, tournaments, seed).report());
    }
    // The first seat's advantage: how often its interval held the truth.
    for advantage in [100.0, 0.0] {
        let regime = Regime::seated(advantage);
        let c = seat_coverage(&regime, tournaments, seed);
        let iv = c.interval();
        let verdict = if c.share() >= 0.93 { "met" } else { "MISSED" };
        println!(
            "{}\n  seat 0 advantage interval held {advantage:+.0} Elo: {:.1}% [{:.1}, {:.1}] \
             of {} tournaments, open-ended {:.1}%\n  target >= 93%: {verdict}\n",
            regime.name,
            100.0 * c.share(),
            100.0 * iv.lo,
            100.0 * iv.hi,
            c.tournaments,
            100.0 * c.open as f64 / c.tournaments as f64,
        );
    }
}
