//! The ladder's ratings, a pure function of its games: [`rate`] reads the
//! finished games in id order and nothing else, so rebuilding the ratings
//! from the games table always gives the same numbers, bit for bit.
//!
//! # Glicko-2, in rating periods
//! Glicko-2 (`skillratings`, as `arena ratings` uses it) is made for a pool
//! that plays continuously. The games, in id order, are cut into rating
//! periods of [`RatingSettings::period_games`] games each; the last period
//! may be partial and counts like the others (so the ratings move with every
//! game, and a rebuild from the same games cuts the same periods). Id order
//! is the order games were scheduled, not finished: a game that finishes
//! late takes its place among the games scheduled around it, so the ratings
//! are a function of the set of finished games, whatever order they came in. In a
//! period every version's rating is updated from the ratings everybody had
//! at its start; a version that has played before but not in this period has
//! its deviation grow, as Glicko-2 prescribes.
//!
//! A version enters at the first period it plays in. A version whose bot had
//! an earlier version (`predecessor`, followed back to the nearest version
//! that has played) starts from that version's rating and volatility at the
//! start of that period, with its deviation reset to
//! [`RatingSettings::successor_deviation`] (or the predecessor's own, if that
//! is larger): a new version of a bot is probably close to the old one, but
//! not surely. A version without a rated predecessor starts at
//! [`RatingSettings::initial_rating`], deviation
//! [`RatingSettings::initial_deviation`], volatility 0.06.
//!
//! # Bradley-Terry
//! The maximum-likelihood fit with its 95% score-test intervals is arena's
//! (`arena::rating::groups::place`, `docs/statistics.md`): on the scale whose
//! zero (here [`RatingSettings::initial_rating`]) is the mean of the main
//! group. A version whose games do not bound it on one side (it won, or lost,
//! everything against the main group) gets a one-sided bound, the other end
//! `None`. The fit covers the games between the current versions (those no
//! other version names as its predecessor), each game once, the two games
//! of a seat-swapped pair ([`LadderGame::pair`]) one unit of evidence for the
//! intervals, as in a tournament; superseded versions have none. Its cost grows with the cube of the number of
//! versions, so it is computed only while at most
//! [`RatingSettings::bt_max_versions`] current versions have games; above
//! that every `bt_*` is `None`.

use std::collections::{BTreeMap, HashMap, HashSet};

use arena::rating::groups::{self, Place};
use arena::rating::{PoolBuilder, RatingOptions};
use arena_core::record::GameResult;
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// One finished ladder game, as the ratings see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LadderGame {
    /// The game's id: games are rated in this order.
    pub id: i64,
    /// Its seat-swapped pair's id (`games.pair_id`): Bradley-Terry's
    /// intervals count a pair as one unit of evidence, as a tournament's do.
    pub pair: i64,
    /// The version in seat 0.
    pub seat0: i64,
    /// The version in seat 1.
    pub seat1: i64,
    /// Seat 0's points: 1, 0.5 or 0.
    pub points0: f64,
}

/// One version's ratings and record.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderRating {
    /// The version.
    pub version: i64,
    /// Glicko-2 rating.
    pub rating: f64,
    /// Glicko-2 rating deviation.
    pub deviation: f64,
    /// Glicko-2 volatility.
    pub volatility: f64,
    /// Bradley-Terry rating (module doc: when there is one).
    pub bt_elo: Option<f64>,
    /// Lower end of its 95% interval; `None` where the games put no bound.
    pub bt_lo: Option<f64>,
    /// Upper end of its 95% interval; `None` where the games put no bound.
    pub bt_hi: Option<f64>,
    /// Where the version stands against the Bradley-Terry main group (what
    /// its interval can say); `NoGames` when it is not in the fit.
    pub bt_place: Place,
    /// Its own games' results.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Games played (a game against itself is not rated and not counted).
    pub games: u64,
    /// The id of its last game.
    pub last_game: i64,
    /// Its Glicko-2 rating over time: (last game id, rating, deviation) at
    /// the end of rating periods it played in, evenly thinned to at most
    /// [`HISTORY_POINTS`] to [`HISTORY_POINTS`] x 2 points (a bot page's plot).
    pub history: Vec<(i64, f64, f64)>,
}

/// About how many points of [`LadderRating::history`] are kept per version.
pub const HISTORY_POINTS: usize = 100;

/// How [`rate`] rates.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingSettings {
    /// Games per Glicko-2 rating period (default 100).
    pub period_games: u64,
    /// Glicko-2's volatility constraint tau (default 0.5, as `arena ratings`).
    pub tau: f64,
    /// Where a version without a rated predecessor starts, and the zero of
    /// the Bradley-Terry scale (default 1500).
    pub initial_rating: f64,
    /// The deviation it starts with (default 350).
    pub initial_deviation: f64,
    /// The deviation a version starting from its predecessor's rating gets
    /// (default 200), unless the predecessor's is larger.
    pub successor_deviation: f64,
    /// The most current versions the Bradley-Terry fit is computed for
    /// (default 100).
    pub bt_max_versions: usize,
}

impl Default for RatingSettings {
    fn default() -> Self {
        RatingSettings {
            period_games: 100,
            tau: RatingOptions::DEFAULT_TAU,
            initial_rating: RatingOptions::DEFAULT_ANCHOR,
            initial_deviation: 350.0,
            successor_deviation: 200.0,
            bt_max_versions: 100,
        }
    }
}

/// Glicko-2's starting volatility (Glickman's example, and `arena ratings`).
const INITIAL_VOLATILITY: f64 = 0.06;

fn outcome(points: f64) -> Outcomes {
    if points > 0.5 {
        Outcomes::WIN
    } else if points < 0.5 {
        Outcomes::LOSS
    } else {
        Outcomes::DRAW
    }
}

/// Every version that played a rated game, by version id (module doc).
/// `games` must be in id order; `predecessor` maps a version to the
/// previous version of the same bot.
pub fn rate(
    games: &[LadderGame],
    predecessor: &HashMap<i64, i64>,
    settings: &RatingSettings,
) -> BTreeMap<i64, LadderRating> {
    debug_assert!(
        games.windows(2).all(|w| w[0].id < w[1].id),
        "games in id order"
    );
    let rated: Vec<&LadderGame> = games.iter().filter(|g| g.seat0 != g.seat1).collect();
    let config = Glicko2Config {
        tau: settings.tau,
        ..Glicko2Config::new()
    };
    // Versions by first appearance: a dense index each.
    let mut index: HashMap<i64, usize> = HashMap::new();
    let mut versions: Vec<i64> = Vec::new();
    let mut glicko: Vec<Glicko2Rating> = Vec::new();
    let mut out: Vec<LadderRating> = Vec::new();

    // Per version: (keep every n-th period it plays in, periods seen).
    let mut strides: Vec<(u32, u32)> = Vec::new();
    let period = settings.period_games.max(1) as usize;
    for chunk in rated.chunks(period) {
        // Newcomers enter at the period's start, from the ratings before it.
        for g in chunk {
            for v in [g.seat0, g.seat1] {
                if index.contains_key(&v) {
                    continue;
                }
                let start = start_of(v, predecessor, &index, &glicko, settings);
                index.insert(v, versions.len());
                versions.push(v);
                glicko.push(start);
                out.push(LadderRating {
                    version: v,
                    rating: 0.0,
                    deviation: 0.0,
                    volatility: 0.0,
                    bt_elo: None,
                    bt_lo: None,
                    bt_hi: None,
                    bt_place: Place::NoGames,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    games: 0,
                    last_game: 0,
                    history: Vec::new(),
                });
                strides.push((1, 0));
            }
        }
        let mut results: Vec<Vec<(Glicko2Rating, Outcomes)>> = vec![Vec::new(); versions.len()];
        for g in chunk {
            let (a, b) = (index[&g.seat0], index[&g.seat1]);
            results[a].push((glicko[b], outcome(g.points0)));
            results[b].push((glicko[a], outcome(1.0 - g.points0)));
            for (k, points) in [(a, g.points0), (b, 1.0 - g.points0)] {
                let r = &mut out[k];
                r.games += 1;
                r.last_game = g.id;
                match outcome(points) {
                    Outcomes::WIN => r.wins += 1,
                    Outcomes::LOSS => r.losses += 1,
                    Outcomes::DRAW => r.draws += 1,
                }
            }
        }
        glicko = glicko
            .iter()
            .zip(&results)
            .map(|(own, res)| glicko2_rating_period(own, res, &config))
            .collect();
        let last = chunk.last().map_or(0, |g| g.id);
        for (k, res) in results.iter().enumerate() {
            if res.is_empty() {
                continue;
            }
            // Thinned as it grows: past 2N points every other one goes and
            // the stride doubles, so the points stay evenly spread.
            let (stride, seen) = &mut strides[k];
            *seen += 1;
            if (*seen - 1) % *stride != 0 {
                continue;
            }
            let h = &mut out[k].history;
            h.push((last, glicko[k].rating, glicko[k].deviation));
            if h.len() >= 2 * HISTORY_POINTS {
                let mut i = 0;
                h.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                *stride *= 2;
            }
        }
    }
    for (r, g) in out.iter_mut().zip(&glicko) {
        r.rating = g.rating;
        r.deviation = g.deviation;
        r.volatility = g.volatility;
    }
    bradley_terry(&rated, predecessor, settings, &index, &mut out);
    out.into_iter().map(|r| (r.version, r)).collect()
}

/// Where version `v` starts (module doc).
fn start_of(
    v: i64,
    predecessor: &HashMap<i64, i64>,
    index: &HashMap<i64, usize>,
    glicko: &[Glicko2Rating],
    settings: &RatingSettings,
) -> Glicko2Rating {
    let mut seen = HashSet::from([v]);
    let mut at = v;
    while let Some(&p) = predecessor.get(&at) {
        // A cycle in the map would be a bug of the caller: stop there.
        if !seen.insert(p) {
            break;
        }
        if let Some(&k) = index.get(&p) {
            let old = glicko[k];
            return Glicko2Rating {
                rating: old.rating,
                deviation: old.deviation.max(settings.successor_deviation),
                volatility: old.volatility,
            };
        }
        at = p;
    }
    Glicko2Rating {
        rating: settings.initial_rating,
        deviation: settings.initial_deviation,
        volatility: INITIAL_VOLATILITY,
    }
}

/// Fills in the `bt_*` fields of the current versions (module doc).
fn bradley_terry(
    rated: &[&LadderGame],
    predecessor: &HashMap<i64, i64>,
    settings: &RatingSettings,
    index: &HashMap<i64, usize>,
    out: &mut [LadderRating],
) {
    let superseded: HashSet<i64> = predecessor.values().copied().collect();
    let current = |v: i64| !superseded.contains(&v);
    let mut builder = PoolBuilder::default();
    for g in rated
        .iter()
        .filter(|g| current(g.seat0) && current(g.seat1))
    {
        let result = match outcome(g.points0) {
            Outcomes::WIN => GameResult::Seat0Wins,
            Outcomes::LOSS => GameResult::Seat1Wins,
            Outcomes::DRAW => GameResult::Draw,
        };
        let (a, b) = (g.seat0.to_string(), g.seat1.to_string());
        builder.add(g.id as u64, 0, g.pair as u64, [&a, &b], result);
    }
    let pool = builder.finish();
    if pool.len() < 2 || pool.len() > settings.bt_max_versions {
        return;
    }
    let opts = RatingOptions::default();
    // Fitted with the first seat's advantage, as a tournament's ratings are.
    let eta = arena::rating::seat::fit(&pool, opts.z()).eta();
    let placed = groups::place(&pool, &opts, eta);
    let finite = |x: f64| x.is_finite().then_some(x);
    for (i, name) in pool.names.iter().enumerate() {
        let v: i64 = name.parse().expect("pool names are version ids");
        let r = &mut out[index[&v]];
        r.bt_place = placed.place[i];
        if placed.place[i] == Place::NoGames {
            continue;
        }
        r.bt_elo = Some(placed.elo[i] + settings.initial_rating);
        if let Some(iv) = placed.interval[i] {
            r.bt_lo = finite(iv.lo + settings.initial_rating);
            r.bt_hi = finite(iv.hi + settings.initial_rating);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Games between versions of hidden strengths (Elo), drawn from a seeded
    /// generator in seat-swapped pairs.
    fn simulate(strength: &[(i64, f64)], pairs: usize, seed: u64) -> Vec<LadderGame> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut games = Vec::new();
        for _ in 0..pairs {
            let a = rng.random_range(0..strength.len());
            let b = (a + rng.random_range(1..strength.len())) % strength.len();
            for (s0, s1) in [(a, b), (b, a)] {
                let p = 1.0 / (1.0 + 10f64.powf((strength[s1].1 - strength[s0].1) / 400.0));
                let u: f64 = rng.random();
                let points0 = if u < p * 0.9 {
                    1.0
                } else if u < p * 0.9 + 0.1 {
                    0.5
                } else {
                    0.0
                };
                games.push(LadderGame {
                    id: games.len() as i64 + 1,
                    pair: games.len() as i64 / 2 + 1,
                    seat0: strength[s0].0,
                    seat1: strength[s1].0,
                    points0,
                });
            }
        }
        games
    }

    #[test]
    fn rebuilding_from_the_games_gives_the_same_numbers() {
        let games = simulate(&[(1, 0.0), (2, 100.0), (3, 200.0), (4, 300.0)], 300, 7);
        let settings = RatingSettings {
            period_games: 37,
            ..Default::default()
        };
        let a = rate(&games, &HashMap::new(), &settings);
        let b = rate(&games.clone(), &HashMap::new(), &settings);
        assert_eq!(a, b);
        assert_eq!(a.len(), 4);
        assert_eq!(
            a.values().map(|r| r.games).sum::<u64>(),
            2 * games.len() as u64
        );
        for r in a.values() {
            assert_eq!(r.wins + r.draws + r.losses, r.games);
            assert!(
                r.bt_elo.is_some() && r.bt_lo.is_some() && r.bt_hi.is_some(),
                "{r:?}"
            );
        }
        // The last, partial period counts: one more game moves the ratings.
        let mut more = games.clone();
        more.push(LadderGame {
            id: 10_000,
            pair: 5_000,
            seat0: 1,
            seat1: 4,
            points0: 1.0,
        });
        let c = rate(&more, &HashMap::new(), &settings);
        assert!(c[&1].rating > a[&1].rating && c[&4].rating < a[&4].rating);
        assert_eq!(c[&1].last_game, 10_000);
    }

    #[test]
    fn a_strong_bot_ranks_first_in_both_systems() {
        let games = simulate(&[(10, 0.0), (11, 50.0), (12, 100.0), (13, 500.0)], 400, 3);
        let r = rate(&games, &HashMap::new(), &RatingSettings::default());
        let best = |key: fn(&LadderRating) -> f64| {
            r.values()
                .max_by(|a, b| key(a).total_cmp(&key(b)))
                .unwrap()
                .version
        };
        assert_eq!(best(|r| r.rating), 13);
        assert_eq!(best(|r| r.bt_elo.unwrap()), 13);
        let weakest = r
            .values()
            .min_by(|a, b| a.rating.total_cmp(&b.rating))
            .unwrap();
        assert_eq!(weakest.version, 10);
        assert!(r[&13].bt_lo.unwrap() > r[&12].bt_elo.unwrap());
    }

    #[test]
    fn a_new_version_starts_from_its_predecessor_with_a_reset_deviation() {
        // Version 1 of bot A plays a lot and is strong; version 5 replaces it.
        let mut games = simulate(&[(1, 400.0), (2, 0.0), (3, 0.0)], 200, 11);
        let settings = RatingSettings {
            period_games: 50,
            ..Default::default()
        };
        let before = rate(&games, &HashMap::new(), &settings);
        let old = &before[&1];
        assert!(old.deviation < 100.0, "{old:?}");
        let next = games.len() as i64 + 1;
        // One period in which only the new version plays, one draw.
        games.push(LadderGame {
            id: next,
            pair: next,
            seat0: 5,
            seat1: 2,
            points0: 0.5,
        });
        let settings = RatingSettings {
            period_games: 400,
            ..settings
        };
        let pred = HashMap::from([(5, 1)]);
        let with = rate(&games[..400], &pred, &settings);
        let start = with[&1].clone();
        let r = rate(&games, &pred, &settings);
        // Its first period began from version 1's rating, RD 200: a draw
        // against a weaker bot pulls it down a little, from far above 1500.
        let fresh = rate(&games, &HashMap::new(), &settings);
        assert!(
            r[&5].rating > fresh[&5].rating + 100.0,
            "{:?} vs {:?}",
            r[&5],
            fresh[&5]
        );
        assert!(r[&5].rating < start.rating);
        assert!(r[&5].deviation < 200.0, "{:?}", r[&5]);
        // Its start: version 1's rating and volatility, deviation 200.
        let s = start_of(
            5,
            &pred,
            &HashMap::from([(1, 0)]),
            &[Glicko2Rating {
                rating: start.rating,
                deviation: start.deviation,
                volatility: start.volatility,
            }],
            &settings,
        );
        assert_eq!(
            (s.rating, s.deviation, s.volatility),
            (start.rating, 200.0, start.volatility)
        );
        // The superseded version 1 is left out of Bradley-Terry.
        assert_eq!(r[&1].bt_elo, None);
        assert_eq!(r[&1].bt_place, Place::NoGames);
    }

    #[test]
    fn a_bot_that_won_everything_gets_a_lower_bound_only() {
        let mut games = simulate(&[(1, 0.0), (2, 50.0), (3, 100.0)], 100, 5);
        for k in 0..10 {
            let id = games.len() as i64 + 1;
            let (seat0, seat1, points0) = if k % 2 == 0 {
                (9, 1 + k % 3, 1.0)
            } else {
                (1 + k % 3, 9, 0.0)
            };
            games.push(LadderGame {
                id,
                pair: id,
                seat0,
                seat1,
                points0,
            });
        }
        let r = rate(&games, &HashMap::new(), &RatingSettings::default());
        assert_eq!(r[&9].bt_place, Place::Above);
        assert!(
            r[&9].bt_lo.is_some() && r[&9].bt_hi.is_none(),
            "{:?}",
            r[&9]
        );
        assert_eq!((r[&9].wins, r[&9].losses), (10, 0));
    }

    #[test]
    fn bradley_terry_is_skipped_above_its_maximum() {
        let games = simulate(&[(1, 0.0), (2, 50.0), (3, 100.0)], 100, 5);
        let settings = RatingSettings {
            bt_max_versions: 2,
            ..Default::default()
        };
        let r = rate(&games, &HashMap::new(), &settings);
        assert!(r.values().all(|r| r.bt_elo.is_none()));
        assert!(r.values().all(|r| r.deviation < 350.0));
    }
}
