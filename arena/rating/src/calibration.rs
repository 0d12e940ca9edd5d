//! How often the Bradley-Terry 95% intervals hold the truth: tournaments
//! simulated with known ratings, rated by [`super::compute`] like real
//! games, counted per bot. `cargo bench -p arena --bench calibration`
//! prints the figures (documented in `docs/statistics.md`); a quick run
//! is a test.
//!
//! The simulated games: in every pairing, seat-swapped pairs of games; a
//! game between bots rated r_i and r_j gives i the expected score
//! s = 1 / (1 + 10^((r_j - r_i) / 400)) (the model the ratings fit), with
//! draws 2 min(s, 1 - s) * `draw_rate` of the time (`draw_rate` between
//! equals, fewer between unequal bots), wins s - draws/2. The second game
//! of a pair repeats the first one's result with probability
//! `pair_correlation` and is drawn afresh otherwise: its result has the
//! same distribution, and the two are correlated by exactly that much.
//! With a `seat_advantage`, seat 0 plays that many Elo stronger (the model
//! of [`super::seat`]): the two games of a pair then differ in
//! distribution, and [`seat_coverage`] counts how often the fitted
//! advantage's interval holds it.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::stats::{self, expected_score, Interval};
use super::{compute, Played, RatingOptions};
use arena_core::record::GameResult;

/// One kind of tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Regime {
    /// What the regime is called in reports.
    pub name: String,
    /// True ratings, Elo.
    pub ratings: Vec<f64>,
    /// Games in every pairing (seat-swapped pairs: even).
    pub games_per_pairing: usize,
    /// Chance of a draw between equal bots.
    pub draw_rate: f64,
    /// Correlation of the results of the two games of a pair.
    pub pair_correlation: f64,
    /// Seat 0's advantage, Elo: seat 0 plays this much stronger.
    pub seat_advantage: f64,
}

impl Regime {
    /// A round robin of 6 bots 0 to 250 Elo apart, 30 games per pairing.
    pub fn round_robin(draw_rate: f64, pair_correlation: f64) -> Regime {
        Regime {
            name: format!(
                "round robin, 6 bots 0-250 Elo, 30 games per pairing, draws {:.0}%, pair correlation {pair_correlation}",
                100.0 * draw_rate
            ),
            ratings: (0..6).map(|i| 50.0 * i as f64).collect(),
            games_per_pairing: 30,
            draw_rate,
            pair_correlation,
            seat_advantage: 0.0,
        }
    }

    /// The round robin of [`Regime::round_robin`] (draws 30%, pairs
    /// uncorrelated) with seat 0 `advantage` Elo stronger.
    pub fn seated(advantage: f64) -> Regime {
        Regime {
            name: format!(
                "round robin, 6 bots 0-250 Elo, 30 games per pairing, draws 30%, \
                 seat 0 advantage {advantage} Elo"
            ),
            seat_advantage: advantage,
            ..Regime::round_robin(0.3, 0.0)
        }
    }

    /// A two-bot match of `games` games, `apart` Elo between the bots.
    pub fn match_of(games: usize, apart: f64, draw_rate: f64, pair_correlation: f64) -> Regime {
        Regime {
            name: format!(
                "match, {games} games, {apart} Elo apart, draws {:.0}%, pair correlation {pair_correlation}",
                100.0 * draw_rate
            ),
            ratings: vec![0.0, apart],
            games_per_pairing: games,
            draw_rate,
            pair_correlation,
            seat_advantage: 0.0,
        }
    }

    /// A pool whose whole fit does not exist: three bots at 0, 50 and 100
    /// Elo who beat each other, one `apart` Elo above the strongest of
    /// them and one `apart` below the weakest, 20 games per pairing. Far
    /// apart (3000) the two never drop or win a point, and only the finite
    /// intervals (the three's) are promised; nearer (1100) they sometimes
    /// do, and join the main group.
    pub fn unbeaten_and_winless(apart: f64) -> Regime {
        Regime {
            name: format!(
                "5 bots: 3 at 0-100 Elo, one {apart} above, one {apart} below, \
                 20 games per pairing, draws 30%, pair correlation 0"
            ),
            ratings: vec![100.0 + apart, 0.0, 50.0, 100.0, -apart],
            games_per_pairing: 20,
            draw_rate: 0.3,
            pair_correlation: 0.0,
            seat_advantage: 0.0,
        }
    }

    /// The regimes whose coverage is promised (`docs/statistics.md`).
    pub fn targets() -> Vec<Target> {
        const DRAWS: f64 = 0.3;
        let all = |regime, lo, hi| Target {
            regime,
            lo,
            hi,
            finite_only: false,
        };
        vec![
            all(Regime::round_robin(DRAWS, 0.0), 0.93, 0.97),
            all(Regime::round_robin(DRAWS, 0.5), 0.92, 1.0),
            all(Regime::match_of(8, 0.0, DRAWS, 0.0), 0.90, 1.0),
            all(Regime::match_of(8, 200.0, DRAWS, 0.0), 0.90, 1.0),
            all(Regime::match_of(8, 400.0, DRAWS, 0.0), 0.90, 1.0),
            Target {
                regime: Regime::unbeaten_and_winless(3000.0),
                lo: 0.93,
                hi: 0.97,
                finite_only: true,
            },
        ]
    }

    /// Further regimes the benchmark reports: no draws, many draws,
    /// correlated pairs in short matches.
    pub fn others() -> Vec<Regime> {
        vec![
            Regime::round_robin(0.0, 0.0),
            Regime::round_robin(0.6, 0.0),
            Regime::round_robin(0.6, 0.5),
            Regime::match_of(8, 0.0, 0.0, 0.0),
            Regime::match_of(8, 200.0, 0.0, 0.0),
            Regime::match_of(8, 400.0, 0.0, 0.0),
            Regime::match_of(8, 200.0, 0.3, 0.5),
            Regime::match_of(40, 100.0, 0.3, 0.5),
            Regime::match_of(2, 0.0, 0.3, 0.0),
            Regime::unbeaten_and_winless(1100.0),
        ]
    }

    /// One simulated tournament's games; bot i is named `bot{i}`.
    pub fn play(&self, rng: &mut ChaCha8Rng) -> Vec<Played> {
        let n = self.ratings.len();
        let mut games = Vec::new();
        let mut pair = 0;
        for i in 0..n {
            for j in i + 1..n {
                // Bot i's points in one game, i in seat 0 (`first`) or 1.
                let points = |rng: &mut ChaCha8Rng, first: bool| {
                    let seat = if first { 1.0 } else { -1.0 } * self.seat_advantage;
                    let s = expected_score(self.ratings[i] - self.ratings[j] + seat);
                    let draw = self.draw_rate * 2.0 * s.min(1.0 - s);
                    let u: f64 = rng.random();
                    if u < s - draw / 2.0 {
                        1.0
                    } else if u < s + draw / 2.0 {
                        0.5
                    } else {
                        0.0
                    }
                };
                for k in 0..self.games_per_pairing.div_ceil(2) {
                    let first = points(rng, true);
                    let fresh = points(rng, false);
                    let second = if rng.random::<f64>() < self.pair_correlation {
                        first
                    } else {
                        fresh
                    };
                    let both = [([i, j], first), ([j, i], 1.0 - second)];
                    let played = (self.games_per_pairing - 2 * k).min(2);
                    for (seats, points0) in both.into_iter().take(played) {
                        games.push(Played {
                            index: games.len() as u64,
                            round: k as u64,
                            pair,
                            bots: seats.map(|b| format!("bot{b}")),
                            result: match points0 {
                                1.0 => GameResult::Seat0Wins,
                                0.0 => GameResult::Seat1Wins,
                                _ => GameResult::Draw,
                            },
                        });
                    }
                    pair += 1;
                }
            }
        }
        games
    }
}

/// A promised coverage: between `lo` and `hi` in `regime`, of all
/// intervals or of the finite ones only.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Where the promise holds.
    pub regime: Regime,
    /// The least coverage promised.
    pub lo: f64,
    /// The most coverage promised.
    pub hi: f64,
    /// Whether the promise is about the finite intervals only.
    pub finite_only: bool,
}

impl Target {
    /// The share the promise is about.
    pub fn measured(&self, c: &Coverage) -> f64 {
        let t = c.total();
        if self.finite_only {
            t.finite_share().unwrap_or(0.0)
        } else {
            t.share()
        }
    }
}

/// How often one bot's interval held its true rating.
#[derive(Clone, Debug, PartialEq)]
pub struct BotCoverage {
    /// True rating minus the true average, Elo.
    pub truth: f64,
    /// Tournaments simulated.
    pub tournaments: u64,
    /// Of them, those whose interval held the truth.
    pub covered: u64,
    /// Intervals with an infinite end.
    pub open: u64,
    /// Of the intervals with both ends finite: how many held the truth.
    pub finite_covered: u64,
}

impl BotCoverage {
    /// The share of the intervals that held the truth.
    pub fn share(&self) -> f64 {
        self.covered as f64 / self.tournaments as f64
    }

    /// The share of the finite intervals that held the truth (None without
    /// any).
    pub fn finite_share(&self) -> Option<f64> {
        let finite = self.tournaments - self.open;
        (finite > 0).then(|| self.finite_covered as f64 / finite as f64)
    }

    /// Wilson 95% interval of the coverage.
    pub fn interval(&self) -> Interval {
        stats::wilson(self.covered as f64, self.tournaments as f64, stats::Z95)
            .expect("at least one tournament")
    }
}

/// Coverage in one regime, per bot and overall.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// The tournaments' kind.
    pub regime: Regime,
    /// Per bot, how often its interval held its true rating.
    pub bots: Vec<BotCoverage>,
}

impl Coverage {
    /// All bots' intervals together.
    pub fn total(&self) -> BotCoverage {
        BotCoverage {
            truth: f64::NAN,
            tournaments: self.bots.iter().map(|b| b.tournaments).sum(),
            covered: self.bots.iter().map(|b| b.covered).sum(),
            open: self.bots.iter().map(|b| b.open).sum(),
            finite_covered: self.bots.iter().map(|b| b.finite_covered).sum(),
        }
    }

    /// The figures as text: one line per bot and one for all.
    pub fn report(&self) -> String {
        let line = |label: String, b: &BotCoverage| {
            let iv = b.interval();
            format!(
                "  {label:<22} {:>6.1}% [{:.1}, {:.1}]  open-ended {:>5.1}%  finite {}\n",
                100.0 * b.share(),
                100.0 * iv.lo,
                100.0 * iv.hi,
                100.0 * b.open as f64 / b.tournaments as f64,
                b.finite_share()
                    .map_or_else(|| "-".into(), |f| format!("{:.1}%", 100.0 * f))
            )
        };
        let mut s = format!(
            "{} ({} tournaments)\n",
            self.regime.name,
            self.bots.first().map_or(0, |b| b.tournaments)
        );
        for (i, b) in self.bots.iter().enumerate() {
            s += &line(format!("bot{i} ({:+.0} Elo)", b.truth), b);
        }
        s += &line("all".into(), &self.total());
        s
    }
}

/// How often the interval of the first seat's advantage held the
/// regime's: `tournaments` tournaments from a ChaCha8 generator seeded
/// with `seed`, each rated by [`compute`] with the default options.
pub fn seat_coverage(regime: &Regime, tournaments: u64, seed: u64) -> BotCoverage {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let opts = RatingOptions::default();
    let mut c = BotCoverage {
        truth: regime.seat_advantage,
        tournaments: 0,
        covered: 0,
        open: 0,
        finite_covered: 0,
    };
    for _ in 0..tournaments {
        let s = compute(&regime.play(&mut rng), &opts);
        c.tournaments += 1;
        let Some(iv) = s.seat.interval else { continue };
        let held = iv.lo <= regime.seat_advantage && regime.seat_advantage <= iv.hi;
        let open = iv.lo.is_infinite() || iv.hi.is_infinite();
        c.covered += u64::from(held);
        c.open += u64::from(open);
        c.finite_covered += u64::from(held && !open);
    }
    c
}

/// Plays `tournaments` tournaments of `regime` from a ChaCha8 generator
/// seeded with `seed`, rates each with the default options and counts, per
/// bot, how often the 95% interval of `bt_elo` held the true rating (both
/// measured from the average of the tournament's main group: the whole
/// pool where its fit exists). An interval open on one side holds the
/// truth when its one bound does.
pub fn coverage(regime: &Regime, tournaments: u64, seed: u64) -> Coverage {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = regime.ratings.len();
    let mean = regime.ratings.iter().sum::<f64>() / n as f64;
    let opts = RatingOptions::default();
    let mut bots: Vec<BotCoverage> = regime
        .ratings
        .iter()
        .map(|r| BotCoverage {
            truth: r - mean,
            tournaments: 0,
            covered: 0,
            open: 0,
            finite_covered: 0,
        })
        .collect();
    for _ in 0..tournaments {
        let games = regime.play(&mut rng);
        let s = compute(&games, &opts);
        let id = |name: &str| -> usize { name[3..].parse().expect("bot{i}") };
        let zero = s
            .reference
            .iter()
            .map(|b| regime.ratings[id(b)])
            .sum::<f64>()
            / s.reference.len() as f64;
        for b in &s.bots {
            let i = id(&b.name);
            let Some(iv) = b.bt_interval else { continue };
            let truth = regime.ratings[i] - zero + opts.anchor;
            let held = iv.lo <= truth && truth <= iv.hi;
            let open = iv.lo.is_infinite() || iv.hi.is_infinite();
            let c = &mut bots[i];
            c.tournaments += 1;
            c.covered += u64::from(held);
            c.open += u64::from(open);
            c.finite_covered += u64::from(held && !open);
        }
    }
    Coverage {
        regime: regime.clone(),
        bots,
    }
}
