//! Ratings for every pool, also where the maximum-likelihood fit of the
//! whole pool does not exist: the structure that causes it, a fit per
//! group, and one-sided bounds between groups.
//!
//! A group is a strongly connected component of the graph "i scored a
//! point (won or drew) against j": bots that won and lost points among
//! themselves, directly or through others. Within a group the
//! maximum-likelihood fit exists (Ford 1957); between two groups either
//! one won every game against the other, directly or through a chain of
//! groups (a single draw would have joined them), or no chain of results
//! orders them. The scale is set on one group, the main one (the largest):
//! its bots get finite intervals from the fit of their
//! own games. A bot of a group above it gets a lower bound only, one below
//! it an upper bound, from the fit of the games of the groups between the
//! two; a bot that no result orders against the main group gets no bound.
//! `docs/statistics.md`, "When it does not exist".

use super::bradley_terry::{self, Reach};
use super::intervals::Evidence;
use super::stats::Interval;
use super::{Pool, RatingOptions};

/// The groups of a pool and the order between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Groups {
    /// Each bot's group; `None` for a bot without rated games.
    pub of: Vec<Option<usize>>,
    /// Each group's bots, in bot order; groups in the order of their first
    /// bot.
    pub members: Vec<Vec<usize>>,
    /// `above[a * len + b]`: group a won every game against group b,
    /// directly or through a chain of groups.
    above: Vec<bool>,
    /// `met[a * len + b]`: the two played, directly or through others.
    met: Vec<bool>,
}

impl Groups {
    /// The strongly connected components of "scored a point against".
    pub fn of(pool: &Pool) -> Groups {
        let r = Reach::of(pool);
        let n = r.n;
        let mut of = vec![None; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        for i in 0..n {
            if !r.active[i] || of[i].is_some() {
                continue;
            }
            // i is the first bot of its group: all the others come later.
            let m: Vec<usize> = (i..n)
                .filter(|&j| r.active[j] && r.scored(i, j) && r.scored(j, i))
                .collect();
            m.iter().for_each(|&j| of[j] = Some(members.len()));
            members.push(m);
        }
        let k = members.len();
        let mut above = vec![false; k * k];
        let mut met = vec![false; k * k];
        for a in 0..k {
            for b in 0..k {
                let (i, j) = (members[a][0], members[b][0]);
                // Different groups: a chain one way means none back.
                above[a * k + b] = a != b && r.scored(i, j);
                met[a * k + b] = r.met[i * n + j];
            }
        }
        Groups {
            of,
            members,
            above,
            met,
        }
    }

    /// Every bot that played in one group: what a prior makes of a pool
    /// (the posterior's maximum always exists).
    fn one(pool: &Pool) -> Groups {
        let r = Reach::of(pool);
        let all: Vec<usize> = (0..r.n).filter(|&i| r.active[i]).collect();
        let of = (0..r.n)
            .map(|i| r.active[i].then_some(0))
            .collect::<Vec<_>>();
        let members = if all.is_empty() { vec![] } else { vec![all] };
        let k = members.len();
        Groups {
            of,
            members,
            above: vec![false; k],
            met: vec![true; k],
        }
    }

    /// Groups found.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether no group was found (no bot played).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Group a won every game against group b, directly or through others.
    pub fn above(&self, a: usize, b: usize) -> bool {
        self.above[a * self.len() + b]
    }

    /// Groups a and b played, directly or through others.
    pub fn met(&self, a: usize, b: usize) -> bool {
        self.met[a * self.len() + b]
    }

    /// The groups strongest first: a group comes after every group above
    /// it; among the groups free to come next, the highest `value` first
    /// (Kahn's topological sort).
    pub fn order(&self, value: impl Fn(usize) -> f64) -> Vec<usize> {
        let k = self.len();
        let mut placed = vec![false; k];
        let mut out = Vec::with_capacity(k);
        while out.len() < k {
            let next = (0..k)
                .filter(|&g| !placed[g] && (0..k).all(|h| placed[h] || !self.above(h, g)))
                .max_by(|&a, &b| value(a).total_cmp(&value(b)).then(b.cmp(&a)))
                .expect("the order between groups has no cycle");
            placed[next] = true;
            out.push(next);
        }
        out
    }
}

/// Where a bot stands relative to the main group, and so what its interval
/// can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the main group: a finite interval.
    Main,
    /// The main group is this one bot: the others' bounds are relative to
    /// it, and it has no interval of its own.
    Reference,
    /// Its group won every game against the main group, directly or
    /// through other groups: a lower bound only.
    Above,
    /// Its group lost every game to the main group: an upper bound only.
    Below,
    /// It met the main group only through bots that no result orders
    /// against it: no bound.
    Unordered,
    /// It never met the main group, directly or through other bots.
    Apart,
    /// No rated game.
    NoGames,
}

/// Every bot's rating and interval on the main group's scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    /// The groups of bots that won and lost points among themselves.
    pub groups: Groups,
    /// The main group (None when no bot played).
    pub main: Option<usize>,
    /// Elo relative to the mean of the main group. A bot above or below
    /// it is placed at its bound.
    pub elo: Vec<f64>,
    /// Elo, relative to the same zero; an end infinite where no result
    /// bounds it.
    pub interval: Vec<Option<Interval>>,
    /// Where each bot stands relative to the main group.
    pub place: Vec<Place>,
    /// The main group's bots, whose mean is the scale's zero.
    pub reference: Vec<usize>,
}

/// The games of `pool` between the bots of `keep` only (the others stay
/// in the pool, without games).
fn restrict(pool: &Pool, keep: &[bool]) -> Pool {
    Pool {
        names: pool.names.clone(),
        games: pool
            .games
            .iter()
            .filter(|g| keep[g.seats[0]] && keep[g.seats[1]])
            .copied()
            .collect(),
        self_play: 0,
    }
}

/// Places every bot of `pool` on the scale whose zero is the main group's
/// mean (an anchor bot only shifts it: [`super::compute_pool`]), every
/// fit with the first seat's advantage held at `eta` (natural log-odds;
/// [`super::seat`]) and every interval at `opts.confidence`.
pub fn place(pool: &Pool, opts: &RatingOptions, eta: f64) -> Placed {
    let z = opts.z();
    let n = pool.len();
    let groups = if opts.prior_draws > 0.0 {
        Groups::one(pool)
    } else {
        Groups::of(pool)
    };
    let in_group_games = |g: usize| {
        pool.games
            .iter()
            .filter(|x| groups.of[x.seats[0]] == Some(g) && groups.of[x.seats[1]] == Some(g))
            .count()
    };
    // The most bots, then the most games, then the first.
    let main = (0..groups.len()).max_by(|&a, &b| {
        (groups.members[a].len(), in_group_games(a))
            .cmp(&(groups.members[b].len(), in_group_games(b)))
            .then(b.cmp(&a))
    });
    let mut elo = vec![0.0; n];
    let mut interval = vec![None; n];
    let mut places = vec![Place::NoGames; n];
    let Some(main) = main else {
        return Placed {
            groups,
            main,
            elo,
            interval,
            place: places,
            reference: Vec::new(),
        };
    };
    let reference = groups.members[main].clone();
    let zero: Vec<f64> = (0..n)
        .map(|j| {
            if reference.contains(&j) {
                1.0 / reference.len() as f64
            } else {
                0.0
            }
        })
        .collect();
    let contrast = |i: usize| -> Vec<f64> {
        (0..n)
            .map(|j| f64::from(u8::from(i == j)) - zero[j])
            .collect()
    };
    let on_scale = |elo: &[f64]| -> Vec<f64> {
        let shift: f64 = elo.iter().zip(&zero).map(|(e, z)| e * z).sum();
        elo.iter().map(|e| e - shift).collect()
    };
    let bots_of = |gs: &[usize]| -> Vec<bool> {
        (0..n)
            .map(|i| groups.of[i].is_some_and(|g| gs.contains(&g)))
            .collect()
    };

    // The main group: its own games, fitted alone.
    let main_pool = restrict(pool, &bots_of(&[main]));
    let fitted = on_scale(&bradley_terry::fit_seated(&main_pool, opts.prior_draws, eta).elo);
    let evidence = Evidence::with(&main_pool, opts.prior_draws, eta, z);
    let single = reference.len() == 1;
    for &i in &groups.members[main] {
        elo[i] = fitted[i];
        if single && reference[0] == i {
            places[i] = Place::Reference;
        } else {
            places[i] = Place::Main;
            interval[i] = Some(evidence.interval_of(&contrast(i)));
        }
    }

    // The others: bounds from the groups between them and the main one.
    let mut fallback: Option<Vec<f64>> = None;
    for g in (0..groups.len()).filter(|&g| g != main) {
        let (place, between): (Place, Vec<usize>) = if groups.above(g, main) {
            let on_path =
                |h: usize| (h == g || groups.above(g, h)) && (h == main || groups.above(h, main));
            (
                Place::Above,
                (0..groups.len()).filter(|&h| on_path(h)).collect(),
            )
        } else if groups.above(main, g) {
            let on_path =
                |h: usize| (h == main || groups.above(main, h)) && (h == g || groups.above(h, g));
            (
                Place::Below,
                (0..groups.len()).filter(|&h| on_path(h)).collect(),
            )
        } else if groups.met(g, main) {
            (Place::Unordered, Vec::new())
        } else {
            (Place::Apart, Vec::new())
        };
        let evidence = (!between.is_empty())
            .then(|| Evidence::with(&restrict(pool, &bots_of(&between)), 0.0, eta, z));
        for &i in &groups.members[g] {
            let bound = evidence.as_ref().map(|e| {
                let dir = if place == Place::Above { -1.0 } else { 1.0 };
                e.end(&contrast(i), dir)
            });
            match bound.filter(|b| b.is_finite()) {
                Some(b) => {
                    elo[i] = b;
                    places[i] = place;
                    interval[i] = Some(if place == Place::Above {
                        Interval {
                            lo: b,
                            hi: f64::INFINITY,
                        }
                    } else {
                        Interval {
                            lo: f64::NEG_INFINITY,
                            hi: b,
                        }
                    });
                }
                None => {
                    // Nothing bounds it: a finite number to sort and draw
                    // by, the fit with virtual draws, on the same scale.
                    let fb = fallback.get_or_insert_with(|| {
                        on_scale(
                            &bradley_terry::fit_seated(
                                pool,
                                RatingOptions::FALLBACK_PRIOR_DRAWS,
                                eta,
                            )
                            .elo,
                        )
                    });
                    elo[i] = fb[i];
                    places[i] = if place == Place::Apart {
                        Place::Apart
                    } else {
                        Place::Unordered
                    };
                    interval[i] = Some(Interval {
                        lo: f64::NEG_INFINITY,
                        hi: f64::INFINITY,
                    });
                }
            }
        }
    }
    Placed {
        groups,
        main: Some(main),
        elo,
        interval,
        place: places,
        reference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::Regime;
    use crate::{compute, Estimate, Played};
    use arena_core::record::GameResult::{self, *};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn pool(games: &[(&str, &str, GameResult)]) -> Pool {
        let played: Vec<Played> = games
            .iter()
            .enumerate()
            .map(|(i, &(a, b, result))| Played {
                index: i as u64,
                round: 0,
                pair: i as u64,
                bots: [a.into(), b.into()],
                result,
            })
            .collect();
        Pool::new(&played)
    }

    /// A beats everyone; B, C and D beat each other in a ring; E scores
    /// nothing; F met nobody but G. Four ordered groups and one apart.
    #[test]
    fn groups_are_the_components_of_who_scored_against_whom() {
        let p = pool(&[
            ("A", "B", Seat0Wins),
            ("A", "E", Seat0Wins),
            ("B", "C", Seat0Wins),
            ("C", "D", Seat0Wins),
            ("D", "B", Seat0Wins),
            ("D", "E", Seat0Wins),
            ("F", "G", Draw),
        ]);
        let g = Groups::of(&p);
        let group = |name: &str| g.of[p.names.iter().position(|n| n == name).unwrap()].unwrap();
        assert_eq!(g.len(), 4);
        assert_eq!(g.members[group("B")].len(), 3);
        assert_eq!(group("C"), group("D"));
        assert_eq!(group("F"), group("G"));
        assert!(g.above(group("A"), group("B")) && !g.above(group("B"), group("A")));
        assert!(g.above(group("B"), group("E")) && g.above(group("A"), group("E")));
        assert!(!g.met(group("A"), group("F")) && g.met(group("A"), group("E")));
        let order = g.order(|_| 0.0);
        let at = |name: &str| order.iter().position(|&k| k == group(name)).unwrap();
        assert!(at("A") < at("B") && at("B") < at("E"));

        let placed = place(&p, &RatingOptions::default(), 0.0);
        let of = |name: &str| placed.place[p.names.iter().position(|n| n == name).unwrap()];
        assert_eq!(placed.main, Some(group("B")));
        assert_eq!(
            ["A", "B", "E", "F"].map(of),
            [Place::Above, Place::Main, Place::Below, Place::Apart]
        );
    }

    /// The simulated pool of the issue: bot0 unbeaten, bot4 never scores,
    /// bots 1-3 beat each other; seeded, rated by the real code.
    fn simulated(seed: u64) -> Vec<Played> {
        // Far enough apart that the two never drop or win a point.
        let regime = Regime::unbeaten_and_winless(3000.0);
        regime.play(&mut ChaCha8Rng::seed_from_u64(seed))
    }

    #[test]
    fn an_unbeaten_and_a_winless_bot_get_bounds_and_the_rest_finite_intervals() {
        for seed in 1..=5 {
            let s = compute(&simulated(seed), &RatingOptions::default());
            assert_eq!(s.estimate, Estimate::Groups);
            let names: Vec<&str> = s.bots.iter().map(|b| b.name.as_str()).collect();
            assert_eq!((names[0], names[4]), ("bot0", "bot4"), "seed {seed}");
            let (top, bottom) = (&s.bots[0], &s.bots[4]);
            assert_eq!((top.place, bottom.place), (Place::Above, Place::Below));
            let (t, b) = (top.bt_interval.unwrap(), bottom.bt_interval.unwrap());
            assert!(t.lo.is_finite() && t.hi == f64::INFINITY && top.bt_elo == t.lo);
            assert!(b.hi.is_finite() && b.lo == f64::NEG_INFINITY && bottom.bt_elo == b.hi);
            let middle = &s.bots[1..4];
            assert_eq!(s.reference.len(), 3);
            let mean = middle.iter().map(|m| m.bt_elo).sum::<f64>() / 3.0;
            assert!((mean - 1500.0).abs() < 1e-6);
            for m in middle {
                let iv = m.bt_interval.unwrap();
                assert_eq!(m.place, Place::Main);
                assert!(iv.lo.is_finite() && iv.hi.is_finite());
                assert!(iv.lo < m.bt_elo && m.bt_elo < iv.hi);
                // The bounds are beyond every bot of the main group.
                assert!(t.lo > iv.hi && b.hi < iv.lo, "{seed}: {t:?} {b:?} {iv:?}");
            }
        }
    }

    /// The control: with the games between the three alone, their fit and
    /// intervals are the same numbers (the bots outside change nothing).
    #[test]
    fn the_main_group_is_fitted_on_its_own_games() {
        let all = simulated(3);
        let inner: Vec<Played> = all
            .iter()
            .filter(|g| g.bots.iter().all(|b| b != "bot0" && b != "bot4"))
            .cloned()
            .collect();
        let opts = RatingOptions::default();
        let (s, only) = (compute(&all, &opts), compute(&inner, &opts));
        assert_eq!(only.estimate, Estimate::Mle);
        for b in &only.bots {
            let a = s.bots.iter().find(|x| x.name == b.name).unwrap();
            assert!((a.bt_elo - b.bt_elo).abs() < 1e-6);
            let (x, y) = (a.bt_interval.unwrap(), b.bt_interval.unwrap());
            assert!((x.lo - y.lo).abs() < 0.05 && (x.hi - y.hi).abs() < 0.05);
        }
    }

    /// `--anchor bot2=2000` shifts every rating and bound by one constant
    /// and changes nothing else.
    #[test]
    fn the_anchor_moves_the_scale_and_nothing_else() {
        let games = simulated(2);
        let plain = compute(&games, &RatingOptions::default());
        let anchored = compute(
            &games,
            &RatingOptions {
                anchor: 2000.0,
                anchor_bot: Some("bot2".into()),
                ..RatingOptions::default()
            },
        );
        let bot2 = anchored.bots.iter().find(|b| b.name == "bot2").unwrap();
        assert_eq!(bot2.bt_elo, 2000.0);
        let shift = 2000.0 - plain.bots.iter().find(|b| b.name == "bot2").unwrap().bt_elo;
        assert!(shift.abs() > 1.0);
        for (a, p) in anchored.bots.iter().zip(&plain.bots) {
            assert_eq!(
                (&a.name, a.place, a.los_next),
                (&p.name, p.place, p.los_next)
            );
            assert!((a.bt_elo - p.bt_elo - shift).abs() < 1e-9);
            let (ia, ip) = (a.bt_interval.unwrap(), p.bt_interval.unwrap());
            assert!((ia.lo - ip.lo - shift).abs() < 1e-9 || ia.lo == ip.lo);
            assert!((ia.hi - ip.hi - shift).abs() < 1e-9 || ia.hi == ip.hi);
        }
        assert_eq!(anchored.anchor_bot.as_deref(), Some("bot2"));
    }
}
