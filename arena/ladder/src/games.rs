//! Games through leases: the scheduler keeps a few seat-swapped pairs
//! queued (chosen by `matchmaking::next_pairs`, each pair on a fresh
//! opening of the ladder's suite), and each built-in worker takes a lease
//! on one queued game, heartbeats while it plays it with `play::play`, and
//! posts the record once. A lease that lapses (a worker killed with the
//! server) puts its game back in the queue, to be played again from the
//! start; a result under a lease that is no longer current is refused.

use std::sync::Arc;
use std::time::Duration;

use arena::process::LimitSettings;
use arena_core::record::GameRecord;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::app::App;
use crate::db::{Lease, Posted};
use crate::matchmaking::{self, Entrant, MatchmakingSettings};
use crate::play::{self, Contestant};

/// A 64-bit mix (splitmix64): a pair's seed from the ladder's seed.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of pair `pair` (both of its games).
pub fn pair_seed(ladder_seed: u64, pair: i64) -> i64 {
    (mix(ladder_seed ^ mix(pair as u64)) >> 1) as i64
}

/// The opening of pair `pair` (from 1): the suite dealt without
/// replacement, a fresh order each time round; or random plies from the
/// pair's seed without a suite.
pub fn pair_opening(app: &App, pair: i64) -> String {
    let g = &app.config.game;
    match &g.openings {
        Some(spec) if !spec.lines.is_empty() => {
            let n = spec.lines.len() as i64;
            let index = pair - 1;
            let round = (index / n) as u64;
            let dealt = arena::run::openings::deal(spec, app.config.seed ^ mix(round), n as u64);
            spec.lines[dealt[(index % n) as usize] as usize].clone()
        }
        _ => arena::run::schedule::random_opening(
            &*app.game,
            pair_seed(app.config.seed, pair) as u64,
            g.random_opening_plies,
        )
        .join(" "),
    }
}

/// Keeps the queue filled and expired leases returned, until the ladder stops.
pub async fn scheduler(app: Arc<App>) {
    let mut rng = ChaCha8Rng::seed_from_u64(app.config.seed);
    let mut stopping = app.stopping.clone();
    let mut swept = std::time::Instant::now() - HOUSEKEEPING;
    loop {
        if *stopping.borrow() {
            return;
        }
        // Lapsed leases and retention (writes) at most every HOUSEKEEPING,
        // not after every finished game.
        let sweep = swept.elapsed() >= HOUSEKEEPING;
        if sweep {
            swept = std::time::Instant::now();
        }
        if let Err(e) = fill(&app, &mut rng, sweep).await {
            eprintln!("arena-ladder: scheduler: {e}");
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = app.game_done.notified() => {}
            _ = stopping.changed() => {}
        }
    }
}

/// How often the scheduler returns lapsed leases and applies retention.
const HOUSEKEEPING: Duration = Duration::from_millis(250);

async fn fill(app: &App, rng: &mut ChaCha8Rng, sweep: bool) -> Result<(), crate::db::DbError> {
    if sweep {
        let expired = app.db.expire_leases().await?;
        if expired > 0 {
            eprintln!("arena-ladder: {expired} lapsed lease(s): their games are queued again");
        }
        if let Some(keep) = app.config.keep_records {
            app.db.apply_retention(keep).await?;
        }
    }
    if app.paused().await? {
        return Ok(());
    }
    let unplayable = app.unplayable();
    let (in_flight, queued) = app.db.in_flight(unplayable).await?;
    let target = app.config.matchmaking.queue;
    if queued >= target {
        return Ok(());
    }
    let mut active = app.db.versions_with("active").await?;
    active.retain(|v| !unplayable.contains(&v.id));
    if active.len() < 2 {
        return Ok(());
    }
    let settings_r = app.rating_settings();
    // The cached standing: a result or two behind at most, which
    // matchmaking does not mind, and no second rating fit.
    let standing = app.standing.current().await;
    let rated = &standing.ratings;
    let entrants: Vec<Entrant> = active
        .iter()
        .map(|v| {
            let r = rated.get(&v.id);
            Entrant {
                version: v.id,
                rating: r.map_or(settings_r.initial_rating, |r| r.rating),
                deviation: r.map_or(settings_r.initial_deviation, |r| r.deviation),
                games: r.map_or(0, |r| r.games),
                in_flight: in_flight.get(&v.id).copied().unwrap_or(0),
            }
        })
        .collect();
    let last = app.db.last_played().await?;
    let m = &app.config.matchmaking;
    let settings = MatchmakingSettings {
        provisional_games: m.provisional_games,
        max_concurrent_per_bot: m.max_concurrent_per_bot,
        ..MatchmakingSettings::default()
    };
    let want = (target - queued).div_ceil(2) as usize;
    for (a, b) in matchmaking::next_pairs(&entrants, &last, &settings, rng, want) {
        let seed = app.config.seed;
        app.db
            .schedule_pair(a, b, |p| pair_opening(app, p), |p| pair_seed(seed, p))
            .await?;
        app.games_queued.notify_waiters();
    }
    Ok(())
}

/// The contestant a version is.
fn contestant(app: &App, v: &crate::db::Version) -> Contestant {
    Contestant {
        name: crate::standing::version_name(&v.bot, v.seq),
        dir: app.version_dir(v.bot_id, &v.sha256),
        command: serde_json::from_str(&v.command).unwrap_or_default(),
        limits: serde_json::from_str::<LimitSettings>(&v.limits).unwrap_or_default(),
    }
}

/// How long a stopping server waits for a game in progress before it
/// gives the game back to the queue.
const STOP_GRACE: Duration = Duration::from_secs(20);

/// Leases a game that fails to start (not through a bot: those are
/// results) gets before it is dropped.
const MAX_ATTEMPTS: i64 = 3;

/// A built-in worker: takes leases and plays them until the ladder stops.
pub async fn worker(app: Arc<App>, n: usize) {
    let owner = format!("builtin-{n}");
    let mut stopping = app.stopping.clone();
    loop {
        if *stopping.borrow() {
            return;
        }
        let idle = match app.paused().await {
            Ok(true) => true,
            Ok(false) => {
                let token = crate::token::lease_token();
                match app
                    .db
                    .take_lease(&owner, &token, app.config.lease_seconds, &[])
                    .await
                {
                    Ok(Some(lease)) => {
                        play_lease(&app, &owner, lease).await;
                        false
                    }
                    Ok(None) => true,
                    Err(e) => {
                        eprintln!("arena-ladder: {owner}: {e}");
                        true
                    }
                }
            }
            Err(e) => {
                eprintln!("arena-ladder: {owner}: {e}");
                true
            }
        };
        if idle {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = app.games_queued.notified() => {}
                _ = stopping.changed() => {}
            }
        }
    }
}

/// Plays one leased game and posts it; gives it back if it cannot.
async fn play_lease(app: &App, owner: &str, lease: Lease) {
    let g = &lease.game;
    let token = lease.token.as_str();
    let give_back = |why: String| async move {
        eprintln!(
            "arena-ladder: {owner}: game {}: {why}; it goes back to the queue",
            g.id
        );
        if let Err(e) = app.db.return_lease(g.id, token).await {
            eprintln!("arena-ladder: {owner}: {e}");
        }
    };
    let (v0, v1) = match (
        app.db.version(g.seat0_version).await,
        app.db.version(g.seat1_version).await,
    ) {
        (Ok(Some(a)), Ok(Some(b))) => (a, b),
        _ => return give_back("its versions cannot be read".into()).await,
    };
    let seat0 = contestant(app, &v0);
    let seat1 = contestant(app, &v1);
    let opening: Vec<String> = g.opening.split_whitespace().map(str::to_string).collect();

    // Heartbeats every third of the lease while the game runs.
    let beat = {
        let db = app.db.clone();
        let (id, token, secs) = (g.id, lease.token.clone(), app.config.lease_seconds);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs((secs / 3).max(1) as u64)).await;
                match db.heartbeat(id, &token, secs).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => eprintln!("arena-ladder: heartbeat of game {id}: {e}"),
                }
            }
        })
    };
    let mut stopping = app.stopping.clone();
    // Watched move by move on /live while it is played.
    let feed = app.live.start(crate::live::LiveGame {
        id: g.id,
        game: app.game.name().to_string(),
        drawer: arena_core::games::entry(app.game.name())
            .ok()
            .and_then(|e| e.replay_drawer)
            .map(|d| d.key),
        seats: [seat0.name.clone(), seat1.name.clone()],
        initial_state: app.game.initial_state().to_string(),
        moves: Vec::new(),
    });
    let game = play::play_fed(
        &app.play,
        &seat0,
        &seat1,
        &opening,
        g.seed as u64,
        Some(feed),
    );
    tokio::pin!(game);
    let outcome = tokio::select! {
        r = &mut game => Some(r),
        _ = async {
            let _ = stopping.wait_for(|s| *s).await;
            tokio::time::sleep(STOP_GRACE).await;
        } => None,
    };
    beat.abort();
    let result = match &outcome {
        Some(Ok(r)) => Some(r.result.as_str().to_string()),
        _ => None,
    };
    app.live.end(g.id, result);
    let record = match outcome {
        None => return give_back("the server is stopping".into()).await,
        Some(Err(e)) if g.attempts >= MAX_ATTEMPTS => {
            eprintln!(
                "arena-ladder: {owner}: game {}: {e}; after {} attempts it is dropped (it was never played)",
                g.id, g.attempts
            );
            if let Err(e) = app.db.drop_unplayable(g.id, token).await {
                eprintln!("arena-ladder: {owner}: {e}");
            }
            return;
        }
        Some(Err(e)) => return give_back(e.to_string()).await,
        Some(Ok(r)) => r,
    };
    post(app, owner, &lease, record).await;
}

/// Stores a finished game under its lease (the record as the export shows
/// it: its index the game's id, its pair the pair's).
async fn post(app: &App, owner: &str, lease: &Lease, mut record: GameRecord) {
    let g = &lease.game;
    record.index = g.id as u64;
    record.pair = g.pair_id as u64;
    record.round = 0;
    let points0 = record.result.points(0);
    let text = serde_json::to_string(&record).expect("records serialize");
    match app
        .db
        .post_result(
            g.id,
            &lease.token,
            points0,
            record.result.as_str(),
            record.reason.as_str(),
            &text,
        )
        .await
    {
        Ok(Posted::Accepted) => {
            app.standing.results_changed();
            app.game_done.notify_one();
        }
        Ok(Posted::AlreadyStored) => {}
        Ok(Posted::NotCurrent) => {
            eprintln!("arena-ladder: {owner}: game {}: its lease lapsed before the result; it is played again", g.id)
        }
        Err(e) => eprintln!("arena-ladder: {owner}: game {}: {e}", g.id),
    }
}
