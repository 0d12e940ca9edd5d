//! Seeded schedules: which bots meet, in which seats, on which game seed, and
//! which shard plays each game. Pure: no processes, no files, no clocks.
//!
//! Everything derives from the tournament seed through one ChaCha8 stream, in
//! schedule order, so the schedule and every game seed are fixed before any
//! game starts and never depend on which game finishes first.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::settings::{FormatKind, Shard};
use arena_core::games::AnyGame;

/// One game to play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameJob {
    /// Position in the schedule, from 0 (the record's `index`).
    pub index: u64,
    /// A full cycle of pairings: round `k` holds the `k`-th pair of games of
    /// every pairing (a rating period for Glicko).
    pub round: u64,
    /// The two seat-swapped games of a pair share this id, the seed and the
    /// random opening.
    pub pair: u64,
    /// The game seed: given to the bots and, for random openings, to the
    /// referee's opening RNG.
    pub seed: u64,
    /// Indices into the config's bots: `seats[0]` moves first.
    pub seats: [usize; 2],
    /// The line of the run's opening suite this game opens with, dealt by
    /// pair ([`crate::run::openings::assign`]); `None` without a suite
    /// (the random plies, if any, come from `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<u32>,
}

/// The pairings a format plays, as bot index pairs, in config order.
pub fn pairings(format: FormatKind, n_bots: usize, champion: Option<usize>) -> Vec<(usize, usize)> {
    match format {
        FormatKind::RoundRobin => (0..n_bots)
            .flat_map(|a| (a + 1..n_bots).map(move |b| (a, b)))
            .collect(),
        FormatKind::Match => vec![(0, 1)],
        FormatKind::Gauntlet => {
            let c = champion.expect("a gauntlet has a champion");
            (0..n_bots).filter(|&b| b != c).map(|b| (c, b)).collect()
        }
    }
}

/// The whole schedule: `games` games for each pairing, played in pairs with
/// seats swapped (an odd `games` ends with one single game per pairing).
///
/// Round `r` holds the `r`-th pair of every pairing, the pairings in an order
/// shuffled per round; within a pair, which bot sits first in the first game
/// is drawn, and the second game swaps seats.
pub fn schedule(
    format: FormatKind,
    n_bots: usize,
    champion: Option<usize>,
    games: u32,
    seed: u64,
) -> Vec<GameJob> {
    if format == FormatKind::Match {
        return match_schedule(u64::from(games), seed);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order = pairings(format, n_bots, champion);
    let rounds = games.div_ceil(2);
    let mut jobs = Vec::with_capacity(order.len() * games as usize);
    let mut pair = 0u64;
    for round in 0..rounds {
        // Fisher-Yates on the previous round's order: a fresh order each round.
        for i in (1..order.len()).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let in_pair = if round + 1 == rounds && games % 2 == 1 {
            1
        } else {
            2
        };
        for &(a, b) in &order {
            let seed = rng.next_u64();
            let first = if rng.random_bool(0.5) { [a, b] } else { [b, a] };
            for g in 0..in_pair {
                let seats = if g == 0 { first } else { [first[1], first[0]] };
                jobs.push(GameJob {
                    index: jobs.len() as u64,
                    round: u64::from(round),
                    pair,
                    seed,
                    seats,
                    opening: None,
                });
            }
            pair += 1;
        }
    }
    jobs
}

/// The per-game seeds of `arena match`: pair `k` (games `2k` and `2k+1`,
/// seats swapped) plays on the `k`-th number drawn from ChaCha8 seeded with
/// the match seed.
pub fn game_seeds(match_seed: u64, games: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(match_seed);
    let pair_seeds: Vec<u64> = (0..games.div_ceil(2)).map(|_| rng.random()).collect();
    (0..games).map(|i| pair_seeds[(i / 2) as usize]).collect()
}

/// The schedule of `arena match` between bots 0 and 1: bot 0 sits in seat 0
/// in even games, games `2k` and `2k+1` form pair and round `k`, seeds from
/// [`game_seeds`].
pub fn match_schedule(games: u64, seed: u64) -> Vec<GameJob> {
    game_seeds(seed, games)
        .into_iter()
        .enumerate()
        .map(|(i, seed)| {
            let i = i as u64;
            GameJob {
                index: i,
                round: i / 2,
                pair: i / 2,
                seed,
                seats: if i.is_multiple_of(2) { [0, 1] } else { [1, 0] },
                opening: None,
            }
        })
        .collect()
}

/// The legal moves of `state` after which the game is not over: what a
/// random opening draws from.
pub fn moves_that_go_on(state: &dyn arena_core::games::AnyState) -> Vec<String> {
    state
        .legal_moves()
        .into_iter()
        .filter(|mv| {
            let mut next = state.clone_box();
            next.play(mv).is_ok() && next.outcome().is_none()
        })
        .collect()
}

/// The random opening of a game seed: `plies` moves drawn uniformly from
/// the legal moves with ChaCha8 seeded from `seed` (mixed with a constant, so
/// it differs from the stream a bot seeds with the same number). Moves that
/// would end the game are avoided; the opening stops early if every move
/// would. Both games of a pair share the seed, so they share the opening.
pub fn random_opening(game: &dyn AnyGame, seed: u64, plies: u32) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6f70_656e_696e_6773);
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let candidates = moves_that_go_on(&*state);
        if candidates.is_empty() {
            break;
        }
        let mv = candidates[rng.random_range(0..candidates.len())].clone();
        state.play(&mv).expect("a legal move plays");
        moves.push(mv);
    }
    moves
}

/// A shard's games, as the schedule deals them (its other half, on pairs,
/// is in `settings.rs`).
impl Shard {
    /// Whether this shard plays `job`: every n-th seat-swapped pair, so that
    /// both games of a pair are in one shard.
    pub fn contains(&self, job: &GameJob) -> bool {
        self.of_pair(job.pair) == self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::schedule_len;
    use std::collections::BTreeMap;

    #[test]
    fn round_robin_plays_every_pairing_games_times_with_balanced_seats() {
        let jobs = schedule(FormatKind::RoundRobin, 4, None, 4, 7);
        assert_eq!(jobs.len(), 6 * 4);
        let mut per_pairing: BTreeMap<(usize, usize), [u32; 2]> = BTreeMap::new();
        for j in &jobs {
            let (a, b) = (j.seats[0].min(j.seats[1]), j.seats[0].max(j.seats[1]));
            assert_ne!(a, b);
            let e = per_pairing.entry((a, b)).or_default();
            e[usize::from(j.seats[0] != a)] += 1;
        }
        assert_eq!(per_pairing.len(), 6);
        assert!(
            per_pairing.values().all(|s| *s == [2, 2]),
            "{per_pairing:?}"
        );
        for (i, j) in jobs.iter().enumerate() {
            assert_eq!(j.index, i as u64);
        }
    }

    #[test]
    fn pairs_share_seed_and_swap_seats_and_rounds_cycle_all_pairings() {
        let jobs = schedule(FormatKind::RoundRobin, 3, None, 4, 1);
        for p in jobs.chunks(2) {
            assert_eq!(p[0].pair, p[1].pair);
            assert_eq!(p[0].seed, p[1].seed);
            assert_eq!(p[0].seats, [p[1].seats[1], p[1].seats[0]]);
            assert_eq!(p[0].round, p[1].round);
        }
        // 3 pairings, 2 rounds of one pair each.
        assert!(jobs[..6].iter().all(|j| j.round == 0));
        assert!(jobs[6..].iter().all(|j| j.round == 1));
        let seeds: std::collections::BTreeSet<u64> = jobs.iter().map(|j| j.seed).collect();
        assert_eq!(seeds.len(), 6, "each pair gets its own seed");
    }

    #[test]
    fn same_seed_same_schedule_other_seed_other_schedule() {
        let a = schedule(FormatKind::RoundRobin, 5, None, 6, 42);
        assert_eq!(a, schedule(FormatKind::RoundRobin, 5, None, 6, 42));
        assert_ne!(a, schedule(FormatKind::RoundRobin, 5, None, 6, 43));
    }

    #[test]
    fn odd_games_end_with_a_single_game_per_pairing() {
        let jobs = schedule(FormatKind::RoundRobin, 3, None, 3, 5);
        assert_eq!(jobs.len(), 9);
        let last_round: Vec<_> = jobs.iter().filter(|j| j.round == 1).collect();
        assert_eq!(last_round.len(), 3);
        let pairs: std::collections::BTreeSet<u64> = last_round.iter().map(|j| j.pair).collect();
        assert_eq!(pairs.len(), 3);
    }

    #[test]
    fn schedule_len_counts_without_building() {
        for (format, bots, champion, games) in [
            (FormatKind::RoundRobin, 5, None, 3),
            (FormatKind::Gauntlet, 4, Some(1), 4),
            (FormatKind::Match, 2, None, 7),
        ] {
            assert_eq!(
                schedule_len(format, bots, u64::from(games)),
                schedule(format, bots, champion, games, 1).len() as u128
            );
        }
        assert_eq!(
            schedule_len(FormatKind::RoundRobin, 3, u64::from(u32::MAX)),
            3 * u128::from(u32::MAX)
        );
    }

    #[test]
    fn a_match_alternates_seats_and_shares_seeds_by_pair() {
        let jobs = schedule(FormatKind::Match, 2, None, 5, 9);
        assert_eq!(jobs, match_schedule(5, 9));
        let seeds = game_seeds(9, 5);
        for (i, j) in jobs.iter().enumerate() {
            assert_eq!(
                (j.index, j.pair, j.round),
                (i as u64, i as u64 / 2, i as u64 / 2)
            );
            assert_eq!(j.seats, if i % 2 == 0 { [0, 1] } else { [1, 0] });
            assert_eq!(j.seed, seeds[i]);
        }
        assert_eq!(seeds[0], seeds[1]);
        assert_ne!(seeds[1], seeds[2]);
    }

    #[test]
    fn gauntlet_pits_the_champion_against_each_other_bot() {
        let jobs = schedule(FormatKind::Gauntlet, 4, Some(2), 2, 9);
        assert_eq!(jobs.len(), 3 * 2);
        assert!(jobs.iter().all(|j| j.seats.contains(&2)));
    }

    #[test]
    fn random_openings_are_legal_seeded_and_avoid_the_end() {
        let game = arena_core::games::new_game("nim", &[("stones".into(), "6".into())]).unwrap();
        let a = random_opening(&*game, 17, 3);
        assert_eq!(a, random_opening(&*game, 17, 3));
        assert_eq!(a.len(), 3);
        let mut state = game.initial_state();
        for mv in &a {
            state.play(mv).unwrap();
        }
        assert!(state.outcome().is_none());
        let openings: std::collections::BTreeSet<Vec<String>> =
            (0..20).map(|s| random_opening(&*game, s, 3)).collect();
        assert!(openings.len() > 1, "the seed chooses the opening");
        // 6 stones: at most 5 can go without ending the game.
        assert!(random_opening(&*game, 3, 10).len() <= 5);
    }

    #[test]
    fn shards_partition_the_schedule_and_keep_pairs_together() {
        let jobs = schedule(FormatKind::RoundRobin, 4, None, 4, 3);
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { k, n: 3 }).collect();
        for j in &jobs {
            assert_eq!(shards.iter().filter(|s| s.contains(j)).count(), 1);
        }
        for p in jobs.chunks(2) {
            assert!(shards
                .iter()
                .all(|s| s.contains(&p[0]) == s.contains(&p[1])));
        }
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
        for bad in ["0/3", "4/3", "1/0", "x", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
