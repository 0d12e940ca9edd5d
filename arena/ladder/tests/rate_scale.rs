//! How long `ratings::rate` takes on a big ladder: seeded synthetic games,
//! the time printed (a figure, not a test of speed). Ignored by default, it
//! takes a while in a debug build; run it with
//! `cargo test -p arena-ladder --release --test rate_scale -- --ignored --nocapture`.

use std::collections::HashMap;
use std::time::Instant;

use arena_ladder::ratings::{rate, LadderGame, RatingSettings};
use rand::{RngExt, SeedableRng};

/// `games` games between `versions` versions of hidden strengths spread
/// over 1200 Elo, in seat-swapped pairs, from a seeded generator.
fn synthetic(versions: i64, games: usize, seed: u64) -> Vec<LadderGame> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let strength: Vec<f64> = (0..versions)
        .map(|v| 1200.0 * v as f64 / versions as f64)
        .collect();
    let mut out = Vec::with_capacity(games);
    while out.len() < games {
        let a = rng.random_range(0..versions);
        let b = (a + rng.random_range(1..versions)) % versions;
        for (s0, s1) in [(a, b), (b, a)] {
            let p =
                1.0 / (1.0 + 10f64.powf((strength[s1 as usize] - strength[s0 as usize]) / 400.0));
            let u: f64 = rng.random();
            let points0 = if u < 0.9 * p {
                1.0
            } else if u < 0.9 * p + 0.1 {
                0.5
            } else {
                0.0
            };
            out.push(LadderGame {
                id: out.len() as i64 + 1,
                pair: out.len() as i64 / 2 + 1,
                seat0: s0 + 1,
                seat1: s1 + 1,
                points0,
            });
        }
    }
    out.truncate(games);
    out
}

/// This thread's CPU time: on a shared machine, wall time says more about
/// the other processes than about `rate`.
fn cpu_seconds() -> f64 {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).unwrap();
    t.tv_sec() as f64 + t.tv_nsec() as f64 * 1e-9
}

fn time_rate(label: &str, versions: i64, games: usize, settings: &RatingSettings) {
    let g = synthetic(versions, games, 1);
    let started = Instant::now();
    let cpu = cpu_seconds();
    let r = rate(&g, &HashMap::new(), settings);
    let cpu = cpu_seconds() - cpu;
    let took = started.elapsed();
    let with_bt = r.values().filter(|r| r.bt_elo.is_some()).count();
    let best = r
        .values()
        .max_by(|a, b| a.rating.total_cmp(&b.rating))
        .unwrap();
    println!(
        "{label}: {versions} versions, {games} games, periods of {}: {cpu:.2} s of CPU, {:.2} s of wall time ({} rated, {with_bt} with Bradley-Terry; top version {} at {:.0})",
        settings.period_games,
        took.as_secs_f64(),
        r.len(),
        best.version,
        best.rating
    );
    assert_eq!(r.len() as i64, versions);
}

#[test]
#[ignore]
fn rate_on_a_big_ladder() {
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("profile: {profile}");
    let glicko_only = RatingSettings {
        bt_max_versions: 0,
        ..Default::default()
    };
    time_rate("glicko-2 only", 1000, 1_000_000, &glicko_only);
    time_rate("glicko-2 only", 20, 1_000_000, &glicko_only);
    for n in [20, 100] {
        time_rate(
            "with bradley-terry",
            n,
            1_000_000,
            &RatingSettings::default(),
        );
    }
}

/// `matchmaking::next_pairs` with 1,000 entrants that have all met: the
/// stalest-pair pick looks at every pair.
#[test]
#[ignore]
fn next_pairs_on_a_big_ladder() {
    use arena_ladder::matchmaking::{next_pairs, Entrant, MatchmakingSettings};
    let entrants: Vec<Entrant> = (1..=1000)
        .map(|v| Entrant {
            version: v,
            rating: 1000.0 + v as f64,
            deviation: 50.0,
            games: 1000,
            in_flight: 0,
        })
        .collect();
    let mut last = HashMap::new();
    let mut id = 0;
    for a in 1..=1000i64 {
        for b in a + 1..=1000 {
            id += 1;
            last.insert((a, b), id);
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for want in [1, 16] {
        let cpu = cpu_seconds();
        let started = Instant::now();
        let p = next_pairs(
            &entrants,
            &last,
            &MatchmakingSettings::default(),
            &mut rng,
            want,
        );
        println!(
            "next_pairs: 1000 entrants, {} pairs met, want {want}: {} pairs in {:.3} s of CPU ({:.3} s wall)",
            last.len(),
            p.len(),
            cpu_seconds() - cpu,
            started.elapsed().as_secs_f64()
        );
    }
}
