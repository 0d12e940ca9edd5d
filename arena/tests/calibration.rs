//! The Bradley-Terry intervals hold their level: a quick version of
//! `cargo bench -p arena --bench calibration`, 100 simulated tournaments
//! per promised regime, rated by the real ratings code. Fails if the share
//! of 95% intervals that hold the true rating (of the finite ones, where the
//! regime's promise is about those) leaves 90-99% (with 100
//! tournaments the share itself is uncertain by about 2 points either way;
//! the benchmark's 2000 tournaments pin it down, see docs/statistics.md).

use arena::rating::calibration::{coverage, seat_coverage, Regime};

fn check(index: usize) {
    let t = Regime::targets().swap_remove(index);
    let c = coverage(&t.regime, 100, 17);
    let share = t.measured(&c);
    assert!((0.90..=0.99).contains(&share), "{}", c.report());
}

#[test]
fn round_robin() {
    check(0);
}

#[test]
fn round_robin_with_correlated_pairs() {
    check(1);
}

#[test]
fn eight_game_match_between_equals() {
    check(2);
}

#[test]
fn eight_game_match_200_elo_apart() {
    check(3);
}

#[test]
fn eight_game_match_400_elo_apart() {
    check(4);
}

/// The pool with an unbeaten and a winless bot: the finite intervals (the
/// three that beat each other) hold their level.
#[test]
fn unbeaten_and_winless_bots_around_three_that_beat_each_other() {
    check(5);
}

/// A pool with a known seat-0 advantage of 100 Elo (round robin of 6 bots,
/// 30 games per pairing, draws 30%): the interval of the fitted advantage
/// holds 100 in at least 93% of 500 seeded tournaments, each rated by the
/// real code (`arena::rating::compute`); and the estimates centre on it.
#[test]
fn a_known_seat_advantage_is_recovered_within_its_interval() {
    let regime = Regime::seated(100.0);
    let c = seat_coverage(&regime, 500, 1);
    println!(
        "seat advantage 100 Elo: interval held it in {} of {} tournaments ({:.1}%)",
        c.covered,
        c.tournaments,
        100.0 * c.share()
    );
    assert_eq!(c.open, 0);
    assert!(c.share() >= 0.93, "{c:?}");
    assert!(c.share() < 0.99, "{c:?}");
}
