//! Who plays whom next: [`next_pairs`], a pure function of the ladder's
//! state and a seeded generator (the same state and seed, the same pairs).
//!
//! # The policy
//! Each pick chooses one pair of active versions (one per bot, so two
//! different versions are two different bots; a version never meets
//! itself), played as two games with the seats swapped. A version may be
//! picked only while its games in flight (queued or leased), counting the
//! two of every pair picked in this call, stay within
//! [`MatchmakingSettings::max_concurrent_per_bot`] (a cap under 2 acts as 2,
//! a pair being two games). Among the versions within their cap:
//! 1. **New versions first.** If some have fewer than
//!    [`MatchmakingSettings::provisional_games`] games (finished plus in
//!    flight), the one with the fewest plays next (ties drawn at random),
//!    against an opponent drawn as in 4.
//! 2. Otherwise, with probability [`MatchmakingSettings::stale_share`]: the
//!    **least recently played pair** (a pair that never met first, then the
//!    one whose last game has the smallest id; ties drawn at random), so
//!    that every pair keeps meeting.
//! 3. Otherwise, with probability [`MatchmakingSettings::top_share`]: a pair
//!    of the **top of the table** (the [`MatchmakingSettings::top_n`]
//!    highest-rated), the least recently played of them, so that the order
//!    at the top keeps being tested.
//! 4. Otherwise a version drawn uniformly meets an opponent **close in
//!    rating, weighted by uncertainty**: opponent `b` of `a` is drawn with
//!    weight `exp(-d² / 2s²)`, where `d` is the difference of their ratings
//!    and `s² = RD_a² + RD_b² + spread²`: the less sure either rating, the
//!    wider the net ([`MatchmakingSettings::spread`] keeps it open when both
//!    are sure).

use std::collections::HashMap;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// One active version as matchmaking sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// The version's id.
    pub version: i64,
    /// Its Glicko-2 rating and deviation.
    pub rating: f64,
    /// Its rating deviation.
    pub deviation: f64,
    /// Its finished games.
    pub games: u64,
    /// Its games queued or leased, not finished.
    pub in_flight: u32,
}

/// The policy's knobs (module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingSettings {
    /// Games a version plays first (default 20).
    pub provisional_games: u64,
    /// Games in flight per version at most (default 4: two pairs).
    pub max_concurrent_per_bot: u32,
    /// Share of picks given to the least recently played pair (default 0.2).
    pub stale_share: f64,
    /// Share of picks given to the top of the table (default 0.1).
    pub top_share: f64,
    /// How many versions are the top of the table (default 4).
    pub top_n: usize,
    /// Elo added in quadrature to the deviations when weighting opponents
    /// by closeness (default 100).
    pub spread: f64,
}

impl Default for MatchmakingSettings {
    fn default() -> Self {
        MatchmakingSettings {
            provisional_games: 20,
            max_concurrent_per_bot: 4,
            stale_share: 0.2,
            top_share: 0.1,
            top_n: 4,
            spread: 100.0,
        }
    }
}

/// Games one pair adds to each of its versions' games in flight.
const GAMES_PER_PAIR: u32 = 2;

/// Up to `want` pairs to play next (module doc), fewer when the caps leave
/// no pair; each is `(first, second)`: the first game seats `first` in
/// seat 0, the second swaps. `last_played` maps an unordered pair
/// `(min, max)` to the id of its last game.
pub fn next_pairs(
    entrants: &[Entrant],
    last_played: &HashMap<(i64, i64), i64>,
    settings: &MatchmakingSettings,
    rng: &mut ChaCha8Rng,
    want: usize,
) -> Vec<(i64, i64)> {
    // Version order, whatever order the caller gave: the same state, the
    // same pairs.
    let mut e: Vec<Entrant> = entrants.to_vec();
    e.sort_by_key(|x| x.version);
    e.dedup_by_key(|x| x.version);
    let cap = settings.max_concurrent_per_bot.max(GAMES_PER_PAIR);
    // The pairs picked in this call, as if played after every real game
    // (an overlay on `last_played`, which may hold every pair of a big
    // ladder: it is not copied).
    let mut last = Recency {
        played: last_played,
        picked: HashMap::new(),
    };
    let mut picked_id = last_played.values().copied().max().unwrap_or(0);
    let mut queue: Option<StaleQueue> = None;
    let mut pairs = Vec::new();
    while pairs.len() < want {
        let free: Vec<usize> = (0..e.len())
            .filter(|&i| e[i].in_flight + GAMES_PER_PAIR <= cap)
            .collect();
        if free.len() < 2 {
            break;
        }
        let Some((a, b)) = pick(&e, &free, &last, &mut queue, settings, rng) else {
            break;
        };
        for k in [a, b] {
            e[k].in_flight += GAMES_PER_PAIR;
        }
        let (va, vb) = (e[a].version, e[b].version);
        picked_id += 1;
        last.picked.insert((va.min(vb), va.max(vb)), picked_id);
        pairs.push((va, vb));
    }
    pairs
}

/// When each pair last played: the real games, then this call's picks.
struct Recency<'a> {
    played: &'a HashMap<(i64, i64), i64>,
    picked: HashMap<(i64, i64), i64>,
}

impl Recency<'_> {
    /// The id of the pair's last game; `i64::MIN` if it never played.
    fn of(&self, a: i64, b: i64) -> i64 {
        let key = (a.min(b), a.max(b));
        self.picked
            .get(&key)
            .or_else(|| self.played.get(&key))
            .copied()
            .unwrap_or(i64::MIN)
    }
}

/// Every pair of the call's entrants, least recently played first (ties in
/// an order drawn from the generator), made at the call's first stale pick,
/// so that a big ladder's pairs are looked at once per call, not once per
/// pick. Within a call a version only loses room and a picked pair becomes
/// the most recent: a pair passed over once stays passed over, so the queue
/// is read once, front to back. Once it is empty, the pairs picked in this
/// call are the only candidates left, and a scan finds the stalest.
struct StaleQueue {
    order: Vec<(i64, u64, u32, u32)>,
    next: usize,
}

impl StaleQueue {
    fn new(e: &[Entrant], last: &Recency, rng: &mut ChaCha8Rng) -> StaleQueue {
        let n = e.len();
        let mut order = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for a in 0..n {
            for b in a + 1..n {
                let when = last.of(e[a].version, e[b].version);
                order.push((when, rng.random::<u64>(), a as u32, b as u32));
            }
        }
        order.sort_unstable();
        StaleQueue { order, next: 0 }
    }

    /// The stalest pair of two versions with room, not picked in this call.
    fn pop(&mut self, room: &[bool], last: &Recency, e: &[Entrant]) -> Option<(usize, usize)> {
        while let Some(&(_, _, a, b)) = self.order.get(self.next) {
            self.next += 1;
            let (a, b) = (a as usize, b as usize);
            let (va, vb) = (e[a].version, e[b].version);
            if room[a] && room[b] && !last.picked.contains_key(&(va.min(vb), va.max(vb))) {
                return Some((a, b));
            }
        }
        None
    }
}

/// One pick among the versions `free` (indices into `e`, ascending).
fn pick(
    e: &[Entrant],
    free: &[usize],
    last: &Recency,
    queue: &mut Option<StaleQueue>,
    s: &MatchmakingSettings,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, usize)> {
    let committed = |i: usize| e[i].games + u64::from(e[i].in_flight);
    let fewest = free.iter().map(|&i| committed(i)).min()?;
    if fewest < s.provisional_games {
        let newest: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&i| committed(i) == fewest)
            .collect();
        let a = newest[rng.random_range(0..newest.len())];
        return Some((a, close_opponent(e, free, a, s, rng)?));
    }
    let draw: f64 = rng.random();
    if draw < s.stale_share {
        let queue = queue.get_or_insert_with(|| StaleQueue::new(e, last, rng));
        let mut room = vec![false; e.len()];
        free.iter().for_each(|&i| room[i] = true);
        return match queue.pop(&room, last, e) {
            Some((a, b)) => Some(if rng.random::<bool>() { (a, b) } else { (b, a) }),
            None => stalest(e, free, last, rng),
        };
    }
    if draw < s.stale_share + s.top_share {
        let mut by_rating = free.to_vec();
        by_rating.sort_by(|&x, &y| e[y].rating.total_cmp(&e[x].rating).then(x.cmp(&y)));
        by_rating.truncate(s.top_n.max(2));
        by_rating.sort_unstable();
        return stalest(e, &by_rating, last, rng);
    }
    let a = free[rng.random_range(0..free.len())];
    Some((a, close_opponent(e, free, a, s, rng)?))
}

/// An opponent for `a` among `free`, drawn by closeness in rating
/// weighted by both deviations.
fn close_opponent(
    e: &[Entrant],
    free: &[usize],
    a: usize,
    s: &MatchmakingSettings,
    rng: &mut ChaCha8Rng,
) -> Option<usize> {
    let weights: Vec<(usize, f64)> = free
        .iter()
        .filter(|&&b| b != a)
        .map(|&b| {
            let d = e[a].rating - e[b].rating;
            let var = e[a].deviation.powi(2) + e[b].deviation.powi(2) + s.spread.powi(2);
            (b, (-d * d / (2.0 * var)).exp())
        })
        .collect();
    let total: f64 = weights.iter().map(|w| w.1).sum();
    if !(total > 0.0 && total.is_finite()) {
        // Every weight underflowed (ratings thousands apart): uniform.
        return weights
            .get(rng.random_range(0..weights.len().max(1)))
            .map(|w| w.0);
    }
    let mut at = rng.random::<f64>() * total;
    for &(b, w) in &weights {
        if at < w {
            return Some(b);
        }
        at -= w;
    }
    weights.last().map(|w| w.0)
}

/// The least recently played pair among `among`: never played first, then
/// the smallest last game id; ties drawn at random.
fn stalest(
    e: &[Entrant],
    among: &[usize],
    last: &Recency,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, usize)> {
    let mut best: Option<i64> = None;
    let mut ties: Vec<(usize, usize)> = Vec::new();
    for (x, &a) in among.iter().enumerate() {
        for &b in &among[x + 1..] {
            let when = last.of(e[a].version, e[b].version);
            match best {
                Some(t) if when > t => continue,
                Some(t) if when == t => ties.push((a, b)),
                _ => {
                    best = Some(when);
                    ties.clear();
                    ties.push((a, b));
                }
            }
        }
    }
    if ties.is_empty() {
        return None;
    }
    let (a, b) = ties[rng.random_range(0..ties.len())];
    // Which of the two sits first in the first game: a coin.
    Some(if rng.random::<bool>() { (a, b) } else { (b, a) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn entrant(version: i64, rating: f64, deviation: f64, games: u64) -> Entrant {
        Entrant {
            version,
            rating,
            deviation,
            games,
            in_flight: 0,
        }
    }

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn pool() -> Vec<Entrant> {
        (1..=8)
            .map(|v| entrant(v, 1200.0 + 100.0 * v as f64, 60.0, 100))
            .collect()
    }

    #[test]
    fn new_versions_play_first() {
        let mut e = pool();
        e.push(entrant(42, 1500.0, 350.0, 3));
        e.push(entrant(43, 1500.0, 350.0, 0));
        let s = MatchmakingSettings {
            max_concurrent_per_bot: 8,
            ..Default::default()
        };
        let p = next_pairs(&e, &HashMap::new(), &s, &mut rng(1), 6);
        println!("{p:?}");
        // The newest first, and one of the two in every pair until their
        // caps (8 games: four pairs each) are full.
        assert!(p[0].0 == 43 || p[0].1 == 43, "{p:?}");
        let has = |v: i64, k: usize| p[k].0 == v || p[k].1 == v;
        assert!((0..6).all(|k| has(42, k) || has(43, k)), "{p:?}");
        assert!((0..6).filter(|&k| has(43, k)).count() <= 4, "{p:?}");
    }

    #[test]
    fn the_cap_on_games_in_flight_is_respected() {
        let mut e = pool();
        e[0].in_flight = 3;
        e[1].in_flight = 2;
        let s = MatchmakingSettings::default();
        let p = next_pairs(&e, &HashMap::new(), &s, &mut rng(2), 100);
        let mut count: HashMap<i64, u32> = e.iter().map(|x| (x.version, x.in_flight)).collect();
        for &(a, b) in &p {
            assert_ne!(a, b, "never a version against itself");
            *count.get_mut(&a).unwrap() += 2;
            *count.get_mut(&b).unwrap() += 2;
        }
        assert!(count.values().all(|&c| c <= 4), "{count:?}");
        assert_eq!(count[&1], 3, "one game in flight too many for another pair");
        // It stops only when fewer than two versions have room for a pair.
        let room = count.values().filter(|&&c| c + 2 <= 4).count();
        assert!(room < 2, "stopped only when no pair was left: {count:?}");
        assert!(next_pairs(
            &[entrant(1, 1500.0, 50.0, 0)],
            &HashMap::new(),
            &s,
            &mut rng(2),
            5
        )
        .is_empty());
    }

    #[test]
    fn the_same_seed_gives_the_same_pairs() {
        let e = pool();
        let s = MatchmakingSettings {
            max_concurrent_per_bot: 1000,
            ..Default::default()
        };
        let last = HashMap::from([((1, 2), 10), ((3, 4), 12)]);
        let a = next_pairs(&e, &last, &s, &mut rng(9), 50);
        let mut shuffled = e.clone();
        shuffled.reverse();
        let b = next_pairs(&shuffled, &last, &s, &mut rng(9), 50);
        assert_eq!(a, b, "the entrants' order does not matter");
        let c = next_pairs(&e, &last, &s, &mut rng(10), 50);
        assert_ne!(a, c, "another seed, other pairs");
    }

    #[test]
    fn stale_picks_go_round_the_pairs_and_go_on_when_all_were_picked() {
        let e: Vec<Entrant> = (1..=3).map(|v| entrant(v, 1500.0, 50.0, 100)).collect();
        let s = MatchmakingSettings {
            stale_share: 1.0,
            max_concurrent_per_bot: 1000,
            ..Default::default()
        };
        let last = HashMap::from([((1, 2), 30), ((1, 3), 10), ((2, 3), 20)]);
        let p = next_pairs(&e, &last, &s, &mut rng(4), 7);
        let key = |(a, b): (i64, i64)| (a.min(b), a.max(b));
        let keys: Vec<(i64, i64)> = p.into_iter().map(key).collect();
        // Least recently played first, then round again in the order picked.
        assert_eq!(
            keys,
            [(1, 3), (2, 3), (1, 2), (1, 3), (2, 3), (1, 2), (1, 3)]
        );
    }

    /// 10,000 picks, each game finishing at once: every pair meets, close
    /// ratings meet more often than distant ones, and the top keeps meeting.
    #[test]
    fn every_pair_meets_in_10000_picks() {
        let mut e: Vec<Entrant> = (1..=12)
            .map(|v| entrant(v, 1000.0 + 80.0 * v as f64, 40.0, 50))
            .collect();
        let s = MatchmakingSettings::default();
        let mut r = rng(5);
        let mut last: HashMap<(i64, i64), i64> = HashMap::new();
        let mut met: HashMap<(i64, i64), u32> = HashMap::new();
        let mut game = 0;
        for _ in 0..10_000 {
            let p = next_pairs(&e, &last, &s, &mut r, 1);
            let (a, b) = p[0];
            let key = (a.min(b), a.max(b));
            game += 2;
            last.insert(key, game);
            *met.entry(key).or_default() += 1;
            for x in e.iter_mut().filter(|x| x.version == a || x.version == b) {
                x.games += 2;
            }
        }
        let pairs = 12 * 11 / 2;
        assert_eq!(met.len(), pairs, "every pair met");
        let least = met.values().min().unwrap();
        let most = met.values().max().unwrap();
        println!(
            "pair meetings: least {least}, most {most}, neighbours 5-6 {}, far 1-12 {}",
            met[&(5, 6)],
            met[&(1, 12)]
        );
        assert!(
            met[&(5, 6)] > 3 * met[&(1, 12)],
            "close ratings meet more often"
        );
        assert!(
            met[&(11, 12)] > met[&(5, 6)],
            "the top of the table gets a share"
        );
    }
}
