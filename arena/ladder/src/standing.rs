//! The leaderboard: ratings computed from the games table (`ratings::rate`),
//! never stored in the database, so rebuilding them from scratch gives the
//! same numbers by construction.
//!
//! Rating a large ladder takes a while (0.65 s for 1,000 versions and
//! 1,000,000 games), far too long to do on every request, so the server
//! holds the last computation in memory ([`Cache`]): a [`Standing`] made
//! by [`compute`] from the tables alone, swapped in whole when a newer one
//! is ready. It is recomputed at start, after new results (debounced: one
//! computation for a burst of them) and at once after a version joins or
//! leaves. Every response says when its standing was computed and from how
//! many games, so a reader can tell how far behind it is.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Mutex, Notify};

use crate::api::BoardRow;
use crate::db::{Db, DbError, Version};
use crate::ratings::{self, LadderGame, LadderRating, RatingSettings};

/// The name each version goes by in records and pages: `BOT.vSEQ`.
pub fn version_name(bot: &str, seq: i64) -> String {
    format!("{bot}.v{seq}")
}

/// Every version's record name, by version id.
pub async fn version_names(db: &Db) -> Result<HashMap<i64, String>, DbError> {
    Ok(db
        .all_versions()
        .await?
        .iter()
        .map(|v| (v.id, version_name(&v.bot, v.seq)))
        .collect())
}

/// Version -> the version of the same bot that it replaced (the previous
/// one that joined the ladder): a new version starts from its rating.
pub fn predecessors(versions: &[Version]) -> HashMap<i64, i64> {
    let mut by_bot: BTreeMap<i64, Vec<&Version>> = BTreeMap::new();
    for v in versions.iter().filter(|v| v.active_at.is_some()) {
        by_bot.entry(v.bot_id).or_default().push(v);
    }
    let mut out = HashMap::new();
    for list in by_bot.values_mut() {
        list.sort_by_key(|v| v.seq);
        for w in list.windows(2) {
            out.insert(w[1].id, w[0].id);
        }
    }
    out
}

/// The leaderboard: one row per active version, best first, computed
/// from the tables now (what the cache holds; also a rebuild to check it).
pub async fn leaderboard(db: &Db, settings: &RatingSettings) -> Result<Vec<BoardRow>, DbError> {
    Ok(compute(db, settings).await?.rows)
}

/// The rows of the active versions, best first, from these ratings.
async fn rows(
    db: &Db,
    rated: &BTreeMap<i64, LadderRating>,
    settings: &RatingSettings,
) -> Result<Vec<BoardRow>, DbError> {
    let versions = db.versions_with("active").await?;
    let authors = db.bot_authors().await?;
    let mut rows: Vec<BoardRow> = versions
        .iter()
        .map(|v| {
            let r = rated.get(&v.id);
            BoardRow {
                rank: 0,
                bot: v.bot.clone(),
                author: authors.get(&v.bot_id).cloned().unwrap_or_default(),
                version: v.seq,
                version_id: v.id,
                rating: r.map_or(settings.initial_rating, |r| r.rating),
                deviation: r.map_or(settings.initial_deviation, |r| r.deviation),
                bt_elo: r.and_then(|r| r.bt_elo),
                interval: r.and_then(|r| Some([r.bt_lo?, r.bt_hi?])),
                games: r.map_or(0, |r| r.games),
                wins: r.map_or(0, |r| r.wins),
                draws: r.map_or(0, |r| r.draws),
                losses: r.map_or(0, |r| r.losses),
                last_game: r.map(|r| r.last_game),
                active_at: v.active_at,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rating
            .total_cmp(&a.rating)
            .then_with(|| a.bot.cmp(&b.bot))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    Ok(rows)
}

/// One computation of the standing: every version's ratings and the
/// leaderboard, and when and from how many games they were made.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// When it was computed (seconds since the epoch, like every `*_at`).
    pub computed_at: i64,
    /// How many finished games it counts.
    pub games: u64,
    /// Ratings of every version that played.
    pub ratings: BTreeMap<i64, LadderRating>,
    /// The leaderboard.
    pub rows: Vec<BoardRow>,
    /// Each version's results against each other version: [wins, draws,
    /// losses] (a bot page's table).
    pub against: HashMap<i64, BTreeMap<i64, [u64; 3]>>,
    /// Each version's forfeits (games it lost by misbehaving), by reason.
    pub forfeits: HashMap<i64, BTreeMap<String, u64>>,
}

/// Version -> opponent -> [wins, draws, losses], from finished games.
fn results_against(games: &[LadderGame]) -> HashMap<i64, BTreeMap<i64, [u64; 3]>> {
    let mut out: HashMap<i64, BTreeMap<i64, [u64; 3]>> = HashMap::new();
    for g in games.iter().filter(|g| g.seat0 != g.seat1) {
        for (me, other, points) in [
            (g.seat0, g.seat1, g.points0),
            (g.seat1, g.seat0, 1.0 - g.points0),
        ] {
            let slot = if points > 0.75 {
                0
            } else if points > 0.25 {
                1
            } else {
                2
            };
            out.entry(me).or_default().entry(other).or_default()[slot] += 1;
        }
    }
    out
}

/// The results of a bot's `versions` against each other bot's versions,
/// summed over its own versions: (opponent version, [wins, draws, losses]),
/// in opponent version order. Games between two of its own versions are
/// left out.
pub fn bot_results(standing: &Standing, versions: &[i64]) -> Vec<(i64, [u64; 3])> {
    let mut sum: BTreeMap<i64, [u64; 3]> = BTreeMap::new();
    for v in versions {
        for (other, wdl) in standing.against.get(v).into_iter().flatten() {
            if versions.contains(other) {
                continue;
            }
            let e = sum.entry(*other).or_default();
            for i in 0..3 {
                e[i] += wdl[i];
            }
        }
    }
    sum.into_iter().collect()
}

/// The standing, from the games and versions tables alone.
pub async fn compute(db: &Db, settings: &RatingSettings) -> Result<Standing, DbError> {
    let games: Vec<LadderGame> = db
        .results()
        .await?
        .into_iter()
        .map(|(id, pair, seat0, seat1, points0)| LadderGame {
            id,
            pair,
            seat0,
            seat1,
            points0,
        })
        .collect();
    let versions = db.all_versions().await?;
    let predecessors = predecessors(&versions);
    let settings_c = settings.clone();
    let n = games.len() as u64;
    // The fit is CPU work of up to a second: off the async threads.
    let (rated, against) = tokio::task::spawn_blocking(move || {
        (
            ratings::rate(&games, &predecessors, &settings_c),
            results_against(&games),
        )
    })
    .await
    .expect("the rating fit does not panic");
    let mut forfeits: HashMap<i64, BTreeMap<String, u64>> = HashMap::new();
    for (seat0, seat1, points0, reason) in db.forfeits().await? {
        // The loser forfeited (a forfeit is never a draw).
        let offender = if points0 < 0.5 { seat0 } else { seat1 };
        *forfeits
            .entry(offender)
            .or_default()
            .entry(reason)
            .or_default() += 1;
    }
    let rows = rows(db, &rated, settings).await?;
    Ok(Standing {
        computed_at: crate::db::now(),
        games: n,
        ratings: rated,
        rows,
        against,
        forfeits,
    })
}

/// How long a burst of results is let settle before the standing is
/// computed again: one computation for many results, and results are
/// seen within about this long plus the computation itself.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The last standing computed, shared by the handlers and the scheduler.
pub struct Cache {
    current: watch::Sender<Option<Arc<Standing>>>,
    /// Set when the tables changed since the last computation began.
    dirty: Notify,
    /// One computation at a time, so a slower, older one never replaces a
    /// newer one.
    computing: Mutex<()>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new()
    }
}

impl Cache {
    /// An empty cache (readers wait for the first computation).
    pub fn new() -> Cache {
        Cache {
            current: watch::Sender::new(None),
            dirty: Notify::new(),
            computing: Mutex::new(()),
        }
    }

    /// The last standing computed; waits for the first one.
    pub async fn current(&self) -> Arc<Standing> {
        let mut rx = self.current.subscribe();
        let s = rx
            .wait_for(Option::is_some)
            .await
            .expect("the sender lives in the cache");
        s.clone().expect("waited for Some")
    }

    /// The last standing computed, if there is one yet.
    pub fn peek(&self) -> Option<Arc<Standing>> {
        self.current.borrow().clone()
    }

    /// Says that results were added: [`keep_fresh`] computes again soon.
    pub fn results_changed(&self) {
        self.dirty.notify_one();
    }

    /// Computes the standing now and swaps it in; returns it.
    pub async fn refresh(
        &self,
        db: &Db,
        settings: &RatingSettings,
    ) -> Result<Arc<Standing>, DbError> {
        let _one = self.computing.lock().await;
        let s = Arc::new(compute(db, settings).await?);
        self.current.send_replace(Some(s.clone()));
        Ok(s)
    }
}

/// The pause after a computation of the standing is at least this many
/// times what the computation took: a busy ladder's leaderboard then costs at
/// most a tenth of one core, however many games it rates (every result
/// otherwise re-rates the whole games table, which on a ladder of instant
/// bots grew into the server's largest cost per game).
pub const PAUSE_PER_COMPUTATION: u32 = 9;

/// How long to let results gather after a computation that took `took`.
pub fn settle_time(took: Duration) -> Duration {
    DEBOUNCE.max(took * PAUSE_PER_COMPUTATION)
}

/// Keeps `app.standing` fresh until the ladder stops: computes it at
/// start, then again [`settle_time`] after results are added.
pub async fn keep_fresh(app: Arc<crate::app::App>) {
    let mut stopping = app.stopping.clone();
    let settings = app.rating_settings();
    loop {
        let started = std::time::Instant::now();
        if let Err(e) = app.standing.refresh(&app.db, &settings).await {
            eprintln!("arena-ladder: computing the leaderboard: {e}");
        }
        let settle = settle_time(started.elapsed());
        tokio::select! {
            _ = app.standing.dirty.notified() => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(settle) => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Posted;

    /// Plays `pairs` seat-swapped pairs of `a` against `b`, `a` winning
    /// the first game of each and drawing the second.
    async fn play(db: &Db, a: i64, b: i64, pairs: usize) {
        for _ in 0..pairs {
            db.schedule_pair(a, b, |_| String::new(), |p| p)
                .await
                .unwrap();
            for (i, points0) in [1.0, 0.5].into_iter().enumerate() {
                let token = format!("t{i}");
                let l = db.take_lease("w", &token, 60, &[]).await.unwrap().unwrap();
                let posted = db
                    .post_result(l.game.id, &token, points0, "1-0", "normal", "{}")
                    .await
                    .unwrap();
                assert_eq!(posted, Posted::Accepted);
            }
        }
    }

    #[test]
    fn a_slow_computation_waits_longer_before_the_next() {
        assert_eq!(settle_time(Duration::from_millis(1)), DEBOUNCE);
        assert_eq!(
            settle_time(Duration::from_millis(650)),
            Duration::from_millis(650 * PAUSE_PER_COMPUTATION as u64)
        );
    }

    /// The cache serves what it last computed, and after a refresh it
    /// equals a rebuild from scratch: it is only a view of the tables.
    #[tokio::test]
    async fn the_cached_standing_equals_a_rebuild_after_games_are_added() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("l.db").display());
        let db = Db::open(&url).await.unwrap();
        let settings = RatingSettings {
            period_games: 4,
            ..RatingSettings::default()
        };
        let ann = db
            .add_author("ann", "s", "h", false)
            .await
            .unwrap()
            .unwrap();
        let mut ids = Vec::new();
        for name in ["b1", "b2", "b3"] {
            let (bot, _) = db.bot_for(name, ann).await.unwrap();
            let (v, _) = db.add_version(bot, name, "[]", "{}").await.unwrap();
            db.activate(v.id, "").await.unwrap();
            ids.push(v.id);
        }
        let cache = Cache::new();
        assert!(cache.peek().is_none());
        let empty = cache.refresh(&db, &settings).await.unwrap();
        assert_eq!(empty.games, 0);
        assert_eq!(empty.rows.len(), 3);

        play(&db, ids[0], ids[1], 3).await;
        play(&db, ids[1], ids[2], 2).await;
        // Not refreshed yet: still the old standing, and it says so.
        assert_eq!(cache.current().await.games, 0);
        let served = cache.refresh(&db, &settings).await.unwrap();
        assert_eq!(served.games, 10);
        let rebuilt = compute(&db, &settings).await.unwrap();
        assert_eq!(served.ratings, rebuilt.ratings);
        assert_eq!(served.rows, rebuilt.rows);
        assert_eq!(
            cache.current().await.rows,
            leaderboard(&db, &settings).await.unwrap()
        );
        assert_eq!(served.rows[0].bot, "b1", "{:?}", served.rows);
        assert_eq!(served.rows.iter().map(|r| r.games).sum::<u64>(), 20);
    }
}
