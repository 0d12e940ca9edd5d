//! Ratings and statistics over finished games: Elo, Glicko and Glicko-2 (via
//! `skillratings`), a Bradley-Terry maximum-likelihood fit with
//! score-test intervals and likelihood of superiority, Wilson intervals
//! and the SPRT; and the simulations that check the intervals' coverage.
//!
//! Pure maths: no file I/O, no clocks, no randomness (the calibration
//! simulations draw from a seeded generator). The same games and options
//! always give the same numbers, whichever command computes them. Every
//! formula and its source is in `docs/statistics.md`.
//!
//! A crate of its own (`arena-rating`) so that what builds on these numbers
//! without the referee (the ladder, the Python package) can: it depends on
//! `arena-core`'s game records and results and on nothing of `arena`; the
//! `arena` crate re-exports it as `arena::rating`.

#![warn(missing_docs)]

pub mod bradley_terry;
pub mod calibration;
pub mod elo;
pub mod groups;
pub mod intervals;
pub mod pairing;
pub mod seat;
pub mod sprt;
pub mod stats;
mod tally;

use arena_core::record::{CsvRow, GameRecord, GameResult};
pub use tally::Tally;

pub use sprt::{Pentanomial, Sprt, SprtParams, SprtStatus};

/// One finished game as the ratings see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// Position in the schedule: Elo is updated in this order.
    pub index: u64,
    /// Schedule round: one Glicko rating period.
    pub round: u64,
    /// Seat-swapped pair id.
    pub pair: u64,
    /// Bot names in seat 0 and seat 1.
    pub bots: [String; 2],
    /// From seat 0's point of view.
    pub result: GameResult,
}

impl From<&CsvRow> for Played {
    fn from(r: &CsvRow) -> Self {
        Played {
            index: r.index,
            round: r.round,
            pair: r.pair,
            bots: [
                arena_core::record::csv_text(&r.seat0).to_string(),
                arena_core::record::csv_text(&r.seat1).to_string(),
            ],
            result: r.result,
        }
    }
}

impl From<&GameRecord> for Played {
    fn from(r: &GameRecord) -> Self {
        Played {
            index: r.index,
            round: r.round,
            pair: r.pair,
            bots: [r.seats[0].name.clone(), r.seats[1].name.clone()],
            result: r.result,
        }
    }
}

/// A game between two bots of a [`Pool`], by bot number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolGame {
    /// Position in the schedule.
    pub index: u64,
    /// The round it belongs to.
    pub round: u64,
    /// Its seat-swapped pair.
    pub pair: u64,
    /// The bots in seat 0 and seat 1.
    pub seats: [usize; 2],
    /// How it ended.
    pub result: GameResult,
    /// Its pair repeats an earlier pair move for move: no new evidence.
    /// The record and the running ratings (Elo, Glicko) count it; the
    /// Bradley-Terry fit, its intervals, LOS and the Wilson intervals do
    /// not.
    pub repeat: bool,
}

impl PoolGame {
    /// Points scored by seat 0: 1, 0.5 or 0.
    pub fn score0(&self) -> f64 {
        self.result.points(0)
    }
}

/// The bots (sorted by name, numbered from 0) and their games in schedule
/// order. Games of a bot against itself carry no rating information and are
/// left out (counted in `self_play`).
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    /// The bots, sorted by name: a bot's number is its place here.
    pub names: Vec<String>,
    /// Their games in schedule order, without self-play.
    pub games: Vec<PoolGame>,
    /// Games of a bot against itself, left out.
    pub self_play: usize,
}

impl Pool {
    /// The pool of `played`.
    pub fn new(played: &[Played]) -> Pool {
        let mut b = PoolBuilder::default();
        for p in played {
            b.add(p.index, p.round, p.pair, [&p.bots[0], &p.bots[1]], p.result);
        }
        b.finish()
    }

    /// How many bots.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the pool has no bot.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Builds a [`Pool`] one game at a time, so that a games file need not be
/// held in memory: what is kept per game is a [`PoolGame`] (48 bytes), and
/// each name once.
#[derive(Default)]
pub struct PoolBuilder {
    ids: std::collections::HashMap<String, usize>,
    names: Vec<String>,
    games: Vec<PoolGame>,
    /// Per game, what tells it apart from other games
    /// ([`arena_core::record::GameRecord::play_key`]), when known.
    keys: Vec<Option<u64>>,
    self_play: usize,
}

impl PoolBuilder {
    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// Adds a game; its bots are numbered as they first appear until `finish`.
    pub fn add(&mut self, index: u64, round: u64, pair: u64, bots: [&str; 2], result: GameResult) {
        self.add_keyed(index, round, pair, bots, result, None);
    }

    /// [`PoolBuilder::add`] with the game's key (`game_key` of its record),
    /// so that a pair repeating an earlier pair is counted once.
    pub fn add_keyed(
        &mut self,
        index: u64,
        round: u64,
        pair: u64,
        bots: [&str; 2],
        result: GameResult,
        key: Option<u64>,
    ) {
        let seats = [self.id(bots[0]), self.id(bots[1])];
        if seats[0] == seats[1] {
            self.self_play += 1;
            return;
        }
        self.games.push(PoolGame {
            index,
            round,
            pair,
            seats,
            result,
            repeat: false,
        });
        self.keys.push(key);
    }

    /// Games added so far (self-play included).
    pub fn added(&self) -> usize {
        self.games.len() + self.self_play
    }

    /// The pool: bots numbered in name order, games in index order.
    pub fn finish(mut self) -> Pool {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        let mut new_id = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = new;
        }
        for g in &mut self.games {
            g.seats = g.seats.map(|s| new_id[s]);
        }
        // Stable: games sharing an index keep their input order.
        let mut by_index: Vec<usize> = (0..self.games.len()).collect();
        by_index.sort_by_key(|&k| self.games[k].index);
        let mut games: Vec<PoolGame> = by_index.iter().map(|&k| self.games[k]).collect();
        let keys: Vec<Option<u64>> = by_index.iter().map(|&k| self.keys[k]).collect();
        mark_repeats(&mut games, &keys);
        let mut names = std::mem::take(&mut self.names);
        names.sort();
        Pool {
            names,
            games,
            self_play: self.self_play,
        }
    }
}

/// Marks the games of every pair (the games sharing a pair id and the same
/// two bots) whose games, in order, have the keys of an earlier pair's:
/// the same opening and the same moves again. A pair with a game of
/// unknown key is never a repeat.
fn mark_repeats(games: &mut [PoolGame], keys: &[Option<u64>]) {
    let mut pairs: Vec<Vec<usize>> = Vec::new();
    let mut at: std::collections::HashMap<(u64, usize, usize), usize> = Default::default();
    for (k, g) in games.iter().enumerate() {
        let [a, b] = g.seats;
        let id = (g.pair, a.min(b), a.max(b));
        let p = *at.entry(id).or_insert_with(|| {
            pairs.push(Vec::new());
            pairs.len() - 1
        });
        pairs[p].push(k);
    }
    let mut seen = std::collections::HashSet::new();
    for members in pairs {
        let Some(ks) = members
            .iter()
            .map(|&k| keys[k])
            .collect::<Option<Vec<u64>>>()
        else {
            continue;
        };
        if !seen.insert(ks) {
            members.iter().for_each(|&k| games[k].repeat = true);
        }
    }
}

/// `h2h[i][j]`: bot i's record against bot j.
pub fn head_to_head(pool: &Pool) -> Vec<Vec<Tally>> {
    head_to_head_of(pool, false)
}

/// The same over the games that count as evidence (repeats left out).
fn head_to_head_of(pool: &Pool, evidence_only: bool) -> Vec<Vec<Tally>> {
    let n = pool.len();
    let mut h = vec![vec![Tally::default(); n]; n];
    for g in pool.games.iter().filter(|g| !(evidence_only && g.repeat)) {
        let [a, b] = g.seats;
        h[a][b].add_points(g.score0());
        h[b][a].add_points(1.0 - g.score0());
    }
    h
}

/// Everything the ratings computation can be told.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingOptions {
    /// Elo K factor.
    pub k: f64,
    /// Every system starts every bot here, and the Bradley-Terry scale
    /// puts its zero here: the mean of the main group, or `anchor_bot`.
    pub anchor: f64,
    /// The bot whose Bradley-Terry rating is put at `anchor` (as Ordo's
    /// `-A`, but a shift only: intervals stay those against the main
    /// group's mean); None: the main group's mean is (Ordo's `-a`). A name
    /// not in the pool is ignored (the commands check names first).
    pub anchor_bot: Option<String>,
    /// Glicko's per-period RD growth c.
    pub glicko_c: f64,
    /// Glicko-2's volatility constraint tau.
    pub glicko2_tau: f64,
    /// Virtual draws each bot plays against the pool average
    /// (BayesElo-style shrinkage; 0, the default, is the plain
    /// maximum-likelihood fit).
    pub prior_draws: f64,
    /// The level of every interval (`--confidence`, config `confidence`):
    /// 0.95 by default.
    pub confidence: f64,
}

impl RatingOptions {
    /// Elo's K factor.
    pub const DEFAULT_K: f64 = 16.0;
    /// The rating of the scale's reference (the pool's mean, or the anchor bot).
    pub const DEFAULT_ANCHOR: f64 = 1500.0;
    /// Glicko-2's starting volatility 0.06 on the Glicko scale
    /// (0.06 * 173.7178): both systems grow RD alike per period.
    pub const DEFAULT_GLICKO_C: f64 = 0.06 * 173.7178;
    /// Glicko-2's tau (how fast volatility may change).
    pub const DEFAULT_TAU: f64 = 0.5;
    /// Virtual draws per bot in the Bradley-Terry fit: none.
    pub const DEFAULT_PRIOR_DRAWS: f64 = 0.0;
    /// The level of every interval.
    pub const DEFAULT_CONFIDENCE: f64 = 0.95;
    /// A bot that no result orders against the main group is shown at
    /// its rating in the fit with this many virtual draws per bot (a
    /// number to sort and draw by; its interval is open both ways).
    pub const FALLBACK_PRIOR_DRAWS: f64 = 1.0;
}

impl RatingOptions {
    /// The normal quantile of two-sided intervals at `confidence` (1.96
    /// at 0.95).
    pub fn z(&self) -> f64 {
        z_of(self.confidence)
    }

    /// Checks a confidence level as `--confidence` and the config's
    /// `confidence` take it.
    pub fn check_confidence(level: f64) -> Result<f64, String> {
        if level.is_finite() && level > 0.5 && level < 1.0 {
            Ok(level)
        } else {
            Err(format!(
                "{level} is not a level between 0.5 and 1 (e.g. 0.95)"
            ))
        }
    }

    /// Reads an anchor as `--anchor` and the config's `anchor` take it: a
    /// number is the main group's mean (Ordo's `-a`); `BOT` or `BOT=ELO`
    /// puts that bot at ELO (default [`Self::DEFAULT_ANCHOR`]; Ordo's `-A`).
    /// Returns the rating and the bot.
    pub fn parse_anchor(text: &str) -> Result<(f64, Option<String>), String> {
        let text = text.trim();
        let finite = |x: f64| x.is_finite().then_some(x);
        if let Some(x) = text.parse::<f64>().ok().and_then(finite) {
            return Ok((x, None));
        }
        let (bot, elo) = match text.rsplit_once('=') {
            Some((bot, elo)) => {
                let elo = elo
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .and_then(finite)
                    .ok_or_else(|| format!("`{elo}` after `=` is not a finite rating"))?;
                (bot.trim(), elo)
            }
            None => (text, Self::DEFAULT_ANCHOR),
        };
        if bot.is_empty() {
            return Err("expected a rating, BOT or BOT=ELO".into());
        }
        Ok((elo, Some(bot.to_string())))
    }
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions {
            k: Self::DEFAULT_K,
            anchor: Self::DEFAULT_ANCHOR,
            anchor_bot: None,
            glicko_c: Self::DEFAULT_GLICKO_C,
            glicko2_tau: Self::DEFAULT_TAU,
            prior_draws: Self::DEFAULT_PRIOR_DRAWS,
            confidence: Self::DEFAULT_CONFIDENCE,
        }
    }
}

/// The normal quantile of two-sided intervals at `level`: exactly
/// [`stats::Z95`] at 0.95.
pub fn z_of(level: f64) -> f64 {
    if level == RatingOptions::DEFAULT_CONFIDENCE {
        stats::Z95
    } else {
        stats::normal_quantile(0.5 + level / 2.0)
    }
}

/// One row of `ratings.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct BotRating {
    /// The bot.
    pub name: String,
    /// Its wins, draws and losses (forfeits among the losses).
    pub record: Tally,
    /// The record without the pairs that repeat an earlier pair: what the
    /// intervals count.
    pub evidence: Tally,
    /// Elo, updated game by game in schedule order.
    pub elo: f64,
    /// Glicko rating.
    pub glicko: f64,
    /// Glicko rating deviation.
    pub glicko_rd: f64,
    /// Glicko-2 rating.
    pub glicko2: f64,
    /// Glicko-2 rating deviation.
    pub glicko2_rd: f64,
    /// Glicko-2 volatility.
    pub glicko2_vol: f64,
    /// Bradley-Terry rating (the estimate [`Ratings`] says).
    pub bt_elo: f64,
    /// 95% interval of `bt_elo`, an end infinite where the games put no
    /// bound on that side (None for a bot without games and for the
    /// reference of the scale).
    pub bt_interval: Option<stats::Interval>,
    /// Where the bot stands relative to the main group (what its interval
    /// can say).
    pub place: groups::Place,
    /// Whether the maximum-likelihood estimate exists, or why not.
    pub bt_mle: bradley_terry::Mle,
    /// Likelihood of superiority over the next bot down (None for the last
    /// bot).
    pub los_next: Option<f64>,
}

/// Which Bradley-Terry estimate `bt_elo` is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimate {
    /// The plain maximum-likelihood estimate (Ordo's).
    Mle,
    /// With this many virtual draws per bot, as asked (`--prior-draws`).
    Prior(f64),
    /// The maximum-likelihood estimate of the whole pool does not exist:
    /// each group of bots that won and lost points among themselves is
    /// fitted alone, and the bots outside the main group are placed at
    /// their one-sided bounds ([`groups`]).
    Groups,
}

/// One pair's head-to-head, `bot` being the higher-placed of the two.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossEntry {
    /// The higher-placed bot of the two.
    pub bot: String,
    /// The other bot.
    pub opponent: String,
    /// `bot`'s wins, draws and losses against `opponent`.
    pub record: Tally,
    /// The same without the pairs that repeat an earlier pair.
    pub evidence: Tally,
    /// `bot`'s record with `bot` in seat 0, and in seat 1.
    pub by_seat: [Tally; 2],
    /// Pentanomial counts, Elo, nElo, LOS and draw ratio from `bot`'s
    /// side (repeats of an earlier pair counted once).
    pub stats: pairing::PairingStats,
}

/// The ratings of a pool, sorted by strength.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// Every bot, strongest first.
    pub bots: Vec<BotRating>,
    /// Every pair that played, in standings order.
    pub crosstable: Vec<CrossEntry>,
    /// `los[i][j]`: likelihood that bot i (standings order) is stronger
    /// than bot j, from their head-to-head decisive games (repeats of an
    /// earlier pair counted once). None on the
    /// diagonal and for pairs without decisive games.
    pub los: Vec<Vec<Option<f64>>>,
    /// Games between a bot and itself, left out.
    pub self_play: usize,
    /// Games rated.
    pub games: usize,
    /// Of them, the games of pairs that repeat an earlier pair move for
    /// move: counted once (left out of the fit, intervals and LOS).
    pub repeats: usize,
    /// Which estimate `bt_elo` is.
    pub estimate: Estimate,
    /// The main group: the bots with finite intervals, whose mean the
    /// intervals are measured from.
    pub reference: Vec<String>,
    /// The anchor bot, when one was asked for and played.
    pub anchor_bot: Option<String>,
    /// The first seat's advantage, fitted with the ratings (which are
    /// fitted with it where it is finite).
    pub seat: seat::SeatAdvantage,
    /// The level of every interval (0.95 by default).
    pub confidence: f64,
    /// Every game of the pool by result: seat 0 won, drawn, seat 1 won.
    pub seat0_results: [usize; 3],
}

/// Computes every rating and statistic of `played` (any order: they are
/// sorted by schedule index first).
pub fn compute(played: &[Played], opts: &RatingOptions) -> Ratings {
    compute_pool(&Pool::new(played), opts)
}

/// [`compute`] for a pool already built ([`PoolBuilder`]).
pub fn compute_pool(pool: &Pool, opts: &RatingOptions) -> Ratings {
    let n = pool.len();
    let h2h = head_to_head(pool);
    let elo = elo::elo_ratings(pool, opts.k, opts.anchor);
    let glicko = elo::glicko_ratings(pool, opts.glicko_c, opts.anchor);
    let glicko2 = elo::glicko2_ratings(pool, opts.glicko2_tau, opts.anchor);
    let mle = bradley_terry::mle_status(pool);
    let z = opts.z();
    let seat = seat::fit(pool, z);
    let eta = seat.eta();
    let placed = groups::place(pool, opts, eta);
    // The anchor bot, if any, at `opts.anchor`; else the main group's mean.
    // Only a shift: every difference and interval width stays.
    let shift = opts
        .anchor_bot
        .as_ref()
        .and_then(|a| pool.names.iter().position(|n| n == a))
        .map_or(opts.anchor, |a| opts.anchor - placed.elo[a]);
    let estimate = if opts.prior_draws > 0.0 {
        Estimate::Prior(opts.prior_draws)
    } else if placed.groups.len() <= 1 {
        Estimate::Mle
    } else {
        Estimate::Groups
    };
    let evidence = intervals::Evidence::with(pool, opts.prior_draws, eta, z);

    let counted = head_to_head_of(pool, true);
    let total = |row: &[Tally]| {
        row.iter().fold(Tally::default(), |acc, w| Tally {
            wins: acc.wins + w.wins,
            draws: acc.draws + w.draws,
            losses: acc.losses + w.losses,
            forfeits: 0,
        })
    };
    let records: Vec<Tally> = h2h.iter().map(|row| total(row)).collect();
    // by_seat[s][i][j]: i's record against j with i in seat s;
    // pair_games[(i, j)], i < j: their games from i's side.
    let mut by_seat = vec![vec![vec![Tally::default(); n]; n]; 2];
    let mut pair_games: std::collections::HashMap<(usize, usize), Vec<pairing::PairGame>> =
        Default::default();
    for g in &pool.games {
        let [a, b] = g.seats;
        by_seat[0][a][b].add_points(g.score0());
        by_seat[1][b][a].add_points(1.0 - g.score0());
        if !g.repeat {
            let (seat, points) = if a < b {
                (0, g.score0())
            } else {
                (1, 1.0 - g.score0())
            };
            pair_games
                .entry((a.min(b), a.max(b)))
                .or_default()
                .push(pairing::PairGame {
                    pair: g.pair,
                    seat,
                    points,
                });
        }
    }
    // The games of i against j from i's side.
    let games_of = |i: usize, j: usize| -> Vec<pairing::PairGame> {
        let games = pair_games
            .get(&(i.min(j), i.max(j)))
            .cloned()
            .unwrap_or_default();
        if i < j {
            games
        } else {
            games
                .into_iter()
                .map(|g| pairing::PairGame {
                    pair: g.pair,
                    seat: 1 - g.seat,
                    points: 1.0 - g.points,
                })
                .collect()
        }
    };

    // Strongest first: groups in their order, within a group by
    // Bradley-Terry, then score, then name; bots without games last.
    let g = &placed.groups;
    let mean = |k: usize| {
        g.members[k].iter().map(|&i| placed.elo[i]).sum::<f64>() / g.members[k].len() as f64
    };
    let mut order: Vec<usize> = Vec::with_capacity(n);
    for k in g.order(mean) {
        let mut m = g.members[k].clone();
        m.sort_by(|&a, &b| {
            placed.elo[b]
                .total_cmp(&placed.elo[a])
                .then(records[b].points().total_cmp(&records[a].points()))
                .then(pool.names[a].cmp(&pool.names[b]))
        });
        order.extend(m);
    }
    order.extend((0..n).filter(|&i| g.of[i].is_none()));

    let bots = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| BotRating {
            name: pool.names[i].clone(),
            record: records[i],
            evidence: total(&counted[i]),
            elo: elo[i],
            glicko: glicko[i].rating,
            glicko_rd: glicko[i].deviation,
            glicko2: glicko2[i].rating,
            glicko2_rd: glicko2[i].deviation,
            glicko2_vol: glicko2[i].volatility,
            bt_elo: placed.elo[i] + shift,
            bt_interval: placed.interval[i].map(|iv| stats::Interval {
                lo: iv.lo + shift,
                hi: iv.hi + shift,
            }),
            place: placed.place[i],
            bt_mle: mle[i],
            los_next: order
                .get(rank + 1)
                .map(|&next| evidence.superiority(i, next)),
        })
        .collect();

    let mut crosstable = Vec::new();
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[x + 1..] {
            if h2h[i][j].games() > 0 {
                crosstable.push(CrossEntry {
                    bot: pool.names[i].clone(),
                    opponent: pool.names[j].clone(),
                    record: h2h[i][j],
                    evidence: counted[i][j],
                    by_seat: [by_seat[0][i][j], by_seat[1][i][j]],
                    stats: pairing::PairingStats::of(&games_of(i, j), z),
                });
            }
        }
    }

    let los = order
        .iter()
        .map(|&i| {
            order
                .iter()
                .map(|&j| {
                    if i == j {
                        None
                    } else {
                        stats::los(counted[i][j].wins, counted[i][j].losses)
                    }
                })
                .collect()
        })
        .collect();

    Ratings {
        bots,
        crosstable,
        los,
        self_play: pool.self_play,
        games: pool.games.len(),
        repeats: pool.games.iter().filter(|g| g.repeat).count(),
        estimate,
        anchor_bot: opts.anchor_bot.clone().filter(|a| pool.names.contains(a)),
        seat,
        confidence: opts.confidence,
        seat0_results: [
            GameResult::Seat0Wins,
            GameResult::Draw,
            GameResult::Seat1Wins,
        ]
        .map(|r| pool.games.iter().filter(|g| g.result == r).count()),
        reference: placed
            .reference
            .iter()
            .map(|&i| pool.names[i].clone())
            .collect(),
    }
}

/// Test helper of the rating modules: `a` is within `tol` of `b`.
#[cfg(test)]
fn close(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol,
        "{a} differs from {b} by more than {tol}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::record::GameResult::{self, *};

    fn played(index: u64, round: u64, a: &str, b: &str, result: GameResult) -> Played {
        Played {
            index,
            round,
            pair: index / 2,
            bots: [a.into(), b.into()],
            result,
        }
    }

    #[test]
    fn standings_count_records_and_sort_by_strength() {
        let games = vec![
            played(0, 0, "alpha", "beta", Seat0Wins),
            played(1, 0, "beta", "alpha", Seat1Wins),
            played(2, 1, "alpha", "gamma", Draw),
            played(3, 1, "gamma", "alpha", Seat1Wins),
            played(4, 2, "beta", "gamma", Seat0Wins),
            played(5, 2, "gamma", "beta", Draw),
            played(6, 2, "gamma", "gamma", Draw),
        ];
        let opts = RatingOptions::default();
        let s = compute(&games, &opts);
        assert_eq!(s.games, 6);
        assert_eq!(s.self_play, 1);
        let names: Vec<&str> = s.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        assert_eq!(
            s.bots[0].record,
            Tally {
                wins: 3,
                draws: 1,
                losses: 0,
                forfeits: 0
            }
        );
        assert_eq!(s.bots[0].record.score_pct(), Some(87.5));
        assert_eq!(s.bots[2].record.score_pct(), Some(25.0));
        // Bradley-Terry ratings average to the anchor.
        let mean: f64 = s.bots.iter().map(|b| b.bt_elo).sum::<f64>() / 3.0;
        assert!((mean - 1500.0).abs() < 1e-9);
        // Elo is zero-sum around the start.
        let total: f64 = s.bots.iter().map(|b| b.elo).sum();
        assert!((total - 4500.0).abs() < 1e-9);
        // Every bot played in each of the 3 rounds but one, so the RDs fell.
        assert!(s
            .bots
            .iter()
            .all(|b| b.glicko_rd < 350.0 && b.glicko2_rd < 350.0));
        assert!(s.bots[0].bt_interval.unwrap().lo < s.bots[0].bt_elo);
        assert!(s.bots[0].los_next.is_some() && s.bots[2].los_next.is_none());

        let pairs: Vec<(&str, &str, Tally)> = s
            .crosstable
            .iter()
            .map(|c| (c.bot.as_str(), c.opponent.as_str(), c.record))
            .collect();
        let wdl = |wins, draws, losses| Tally {
            wins,
            draws,
            losses,
            forfeits: 0,
        };
        assert_eq!(
            pairs,
            [
                ("alpha", "beta", wdl(2, 0, 0)),
                ("alpha", "gamma", wdl(1, 1, 0)),
                ("beta", "gamma", wdl(1, 1, 0)),
            ]
        );
        // Head-to-head LOS: 2-0 gives 0.5 (1 + erf(1)) = 0.9214.
        let los = s.los[0][1].unwrap();
        assert!((los - 0.5 * (1.0 + 0.842_700_79)).abs() < 1e-6);
        assert!((s.los[1][0].unwrap() - (1.0 - los)).abs() < 1e-12);
        assert_eq!(s.los[0][0], None);
    }

    #[test]
    fn the_same_games_give_the_same_standings_in_any_order() {
        let games: Vec<Played> = (0..40)
            .map(|i| {
                let r = [Seat0Wins, Draw, Seat1Wins, Seat0Wins][i as usize % 4];
                let bots = [("a", "b"), ("b", "c"), ("c", "a")][i as usize % 3];
                played(i, i / 3, bots.0, bots.1, r)
            })
            .collect();
        let opts = RatingOptions::default();
        let one = compute(&games, &opts);
        let mut reversed = games.clone();
        reversed.reverse();
        assert_eq!(compute(&reversed, &opts), one);
        assert_eq!(one.estimate, Estimate::Mle);
        let shrunk = compute(
            &games,
            &RatingOptions {
                prior_draws: 2.0,
                ..opts
            },
        );
        assert_eq!(shrunk.estimate, Estimate::Prior(2.0));
        assert!(shrunk.bots[0].bt_elo < one.bots[0].bt_elo);
    }

    /// The README's match example: 2 wins, 8 draws, no loss. The
    /// intervals and LOS are one story: the interval of the difference
    /// holds 0, so LOS is below 0.975, and well above one half.
    #[test]
    fn two_wins_and_eight_draws_give_a_middling_los() {
        let games: Vec<Played> = (0..10)
            .map(|i| {
                let r = if i < 2 { Seat0Wins } else { Draw };
                let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
                let r = if i % 2 == 1 && r == Seat0Wins {
                    Seat1Wins
                } else {
                    r
                };
                played(i, i / 2, a, b, r)
            })
            .collect();
        let s = compute(&games, &RatingOptions::default());
        assert_eq!(s.bots[0].name, "x");
        assert_eq!((s.bots[0].record.wins, s.bots[0].record.draws), (2, 8));
        let los = s.bots[0].los_next.unwrap();
        assert!(los > 0.6 && los < 0.975, "{los}");
        let iv = s.bots[0].bt_interval.unwrap();
        assert!(iv.lo < 1500.0 && iv.hi > s.bots[0].bt_elo, "{iv:?}");
        // Plain MLE: 6 points of 10 is 400 log10(6/4) = 70.4 Elo apart.
        close(
            s.bots[0].bt_elo - s.bots[1].bt_elo,
            400.0 * 1.5f64.log10(),
            1e-6,
        );
    }

    #[test]
    fn equal_records_give_los_one_half_exactly() {
        let games: Vec<Played> = (0..12)
            .map(|i| {
                let r = [Seat0Wins, Draw, Seat1Wins][i as usize % 3];
                let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
                played(i, i / 2, a, b, r)
            })
            .collect();
        let s = compute(&games, &RatingOptions::default());
        assert_eq!(s.bots[0].record, s.bots[1].record);
        assert_eq!(s.bots[0].los_next, Some(0.5));
    }

    /// Two bots, 8-0: the MLE does not exist. Each bot is a group of its
    /// own; the main group is the first by name, the scale's reference,
    /// and the other is bounded on one side only, exactly where Wilson's
    /// interval for 8 of 8 puts the difference (the score test of one
    /// pair of bots with the model's variance).
    #[test]
    fn a_perfect_score_is_flagged_and_its_interval_is_open_above() {
        let games: Vec<Played> = (0..8)
            .map(|i| {
                let (a, b, r) = if i % 2 == 0 {
                    ("x", "y", Seat0Wins)
                } else {
                    ("y", "x", Seat1Wins)
                };
                played(i, i / 2, a, b, r)
            })
            .collect();
        let s = compute(&games, &RatingOptions::default());
        assert_eq!(s.estimate, Estimate::Groups);
        let [x, y] = [&s.bots[0], &s.bots[1]];
        assert_eq!(
            (x.bt_mle, y.bt_mle),
            (bradley_terry::Mle::NoLoss, bradley_terry::Mle::NoWin)
        );
        assert_eq!(
            (x.place, y.place),
            (groups::Place::Reference, groups::Place::Below)
        );
        assert_eq!(s.reference, ["x"]);
        assert_eq!((x.bt_elo, x.bt_interval), (1500.0, None));
        let iy = y.bt_interval.unwrap();
        assert_eq!(iy.lo, f64::NEG_INFINITY);
        let p = 8.0 / (8.0 + stats::Z95 * stats::Z95);
        close(iy.hi, 1500.0 - stats::elo_from_score(p), 0.05);
        // Placed at its bound.
        assert_eq!(y.bt_elo, iy.hi);
        let los = x.los_next.unwrap();
        assert!(los > 0.95 && los < 1.0, "{los}");
    }
}
