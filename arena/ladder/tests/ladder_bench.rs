//! `GET /api/leaderboard` on a big ladder: a SQLite database seeded with
//! 1,000 active bots and 1,000,000 synthetic finished games, the real
//! router served in process, and the latency of 200 requests printed
//! (p50, p99, max), with the time of one computation of the standing and
//! the database's bytes per game. A figure, not a test of speed: ignored
//! by default (a debug build is slow); run it with
//! `cargo test -p arena-ladder --release --test ladder_bench -- --ignored --nocapture`.
//! The database lives in a temporary directory, removed at the end.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arena::process::Sandbox;
use arena_ladder::app::App;
use arena_ladder::config::LadderConfig;
use arena_ladder::db::Db;
use rand::{RngExt, SeedableRng};
use tokio::sync::{watch, Notify};

const BOTS: usize = 1000;
const GAMES: usize = 1_000_000;
const REQUESTS: usize = 200;

/// The bytes of the SQLite file after a checkpoint (the WAL folded in).
async fn db_bytes(pool: &sqlx::SqlitePool, path: &std::path::Path) -> u64 {
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(pool)
        .await
        .unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// Seat-swapped pairs between versions of hidden strengths spread over
/// 1200 Elo, from a seeded generator, inserted in one transaction as
/// finished games (results only: a record's size depends on the game and
/// is measured on real games in docs/performance.md).
async fn seed_games(pool: &sqlx::SqlitePool, versions: &[i64]) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let n = versions.len();
    let strength = |i: usize| 1200.0 * i as f64 / n as f64;
    let mut tx = pool.begin().await.unwrap();
    let mut games = 0;
    let mut pair = 0i64;
    // 250 pairs (500 rows of 9 values) per statement: under SQLite's limit
    // of bound values.
    while games < GAMES {
        let mut sql = String::from(
            "INSERT INTO games (pair_id, game_in_pair, opening, seat0_version, seat1_version, \
             seed, status, attempts, points0, result, reason, finished_at) VALUES ",
        );
        let mut rows = Vec::new();
        while rows.len() < 500 && games < GAMES {
            pair += 1;
            let a = rng.random_range(0..n);
            let b = (a + rng.random_range(1..n)) % n;
            for (k, (s0, s1)) in [(a, b), (b, a)].into_iter().enumerate() {
                if games == GAMES {
                    break;
                }
                let p = 1.0 / (1.0 + 10f64.powf((strength(s1) - strength(s0)) / 400.0));
                let u: f64 = rng.random();
                let (points0, result) = if u < 0.9 * p {
                    (1.0, "1-0")
                } else if u < 0.9 * p + 0.1 {
                    (0.5, "1/2-1/2")
                } else {
                    (0.0, "0-1")
                };
                rows.push((pair, k as i64, versions[s0], versions[s1], points0, result));
                games += 1;
            }
        }
        for (i, _) in rows.iter().enumerate() {
            if i > 0 {
                sql.push(',');
            }
            sql.push_str("(?, ?, '', ?, ?, ?, 'done', 1, ?, ?, 'normal', 1700000000)");
        }
        let mut q = sqlx::query(&sql);
        for (pair, k, s0, s1, points0, result) in rows {
            q = q
                .bind(pair)
                .bind(k)
                .bind(s0)
                .bind(s1)
                .bind(pair)
                .bind(points0)
                .bind(result);
        }
        q.execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
}

/// One `GET` over a fresh connection (as a browser or curl would):
/// (status line, body bytes).
fn get(addr: std::net::SocketAddr, path: &str) -> (String, usize) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out);
    let status = text.lines().next().unwrap_or("").to_string();
    let body = text.find("\r\n\r\n").map_or(0, |i| out.len() - i - 4);
    (status, body)
}

/// One `GET` with `Accept-Encoding: gzip` (as browsers send it): (status
/// line, bytes on the wire after the headers).
fn get_gzip(addr: std::net::SocketAddr, path: &str) -> (String, usize) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out);
    let status = text.lines().next().unwrap_or("").to_string();
    let body = text.find("\r\n\r\n").map_or(0, |i| out.len() - i - 4);
    (status, body)
}

/// Times `REQUESTS / 4` GETs of `path`, one after another: (p50, p99, max) in ms.
fn time_page(addr: std::net::SocketAddr, path: &str) -> (f64, f64, f64) {
    let mut times = Vec::new();
    for _ in 0..REQUESTS / 4 {
        let t = Instant::now();
        let (status, _) = get(addr, path);
        times.push(t.elapsed());
        assert!(status.contains(" 200 "), "{path}: {status}");
    }
    times.sort();
    (
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.last().unwrap().as_secs_f64() * 1e3,
    )
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1e3
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn leaderboard_latency_on_a_big_ladder() {
    // The workspace builds tests at opt-level 1 with debug assertions.
    let profile = if cfg!(debug_assertions) {
        "test (opt-level 1, debug assertions)"
    } else {
        "release"
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ladder.db");
    let url = format!("sqlite://{}?mode=rwc", file.display());
    let db = Db::open(&url).await.unwrap();
    let raw = sqlx::SqlitePool::connect(&url).await.unwrap();

    // Authors, bots and versions through the ladder's own db layer.
    let started = Instant::now();
    let mut authors = Vec::new();
    for i in 0..10 {
        let name = format!("author{i}");
        authors.push(
            db.add_author(&name, "s", "h", false)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    let mut versions = Vec::new();
    for i in 0..BOTS {
        let (bot, _) = db
            .bot_for(&format!("bot{i}"), authors[i % authors.len()])
            .await
            .unwrap();
        let (v, _) = db
            .add_version(bot, &format!("{i:064x}"), "[\"./bot\"]", "{}")
            .await
            .unwrap();
        db.activate(v.id, "").await.unwrap();
        versions.push(v.id);
    }
    let empty = db_bytes(&raw, &file).await;
    seed_games(&raw, &versions).await;
    let full = db_bytes(&raw, &file).await;
    println!(
        "profile {profile}: seeded {BOTS} bots and {GAMES} games in {:.1} s; database {empty} bytes without games, {full} with: {:.1} bytes per game (results only, no record)",
        started.elapsed().as_secs_f64(),
        (full - empty) as f64 / GAMES as f64
    );

    // The real router over a real App (games are never played here).
    let config = LadderConfig::load(None).unwrap();
    let game: Arc<dyn arena_core::games::AnyGame> =
        arena_core::games::new_game(&config.game.game, &config.game.params)
            .unwrap()
            .into();
    let (play, _) = arena_ladder::play::PlaySettings::new(
        &config.game.game,
        &config.game.params,
        config.game.time_control,
        Sandbox::None,
        dir.path().join("logs"),
    )
    .unwrap();
    let (stop_tx, stop_rx) = watch::channel(false);
    let app = Arc::new(App {
        db,
        config,
        game,
        data: dir.path().to_path_buf(),
        sandbox: arena::process::ResolvedSandbox::None,
        warning: None,
        play,
        builds: Notify::new(),
        game_done: Notify::new(),
        games_queued: Notify::new(),
        stopping: stop_rx,
        standing: arena_ladder::standing::Cache::new(),
        live: Default::default(),
        fixed: Default::default(),
        local_only: Vec::new(),
        builtin_workers: 0,
    });
    let settings = app.rating_settings();
    let t = Instant::now();
    let computed = app.standing.refresh(&app.db, &settings).await.unwrap();
    println!(
        "one computation of the standing (read {} games, rate, rows): {:.2} s; what every request cost before the cache",
        computed.games,
        t.elapsed().as_secs_f64()
    );
    assert_eq!(computed.games, GAMES as u64);
    assert_eq!(computed.rows.len(), BOTS);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut stopping = app.stopping.clone();
    let router = arena_ladder::api::router(app.clone());
    let server = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopping.wait_for(|s| *s).await;
            })
            .await
    });

    let (times, body) = tokio::task::spawn_blocking(move || {
        let (status, body) = get(addr, "/api/leaderboard");
        assert!(status.contains(" 200 "), "{status}");
        let mut times = Vec::with_capacity(REQUESTS);
        for _ in 0..REQUESTS {
            let t = Instant::now();
            let (status, _) = get(addr, "/api/leaderboard");
            times.push(t.elapsed());
            assert!(status.contains(" 200 "), "{status}");
        }
        (times, body)
    })
    .await
    .unwrap();
    let mut sorted = times.clone();
    sorted.sort();
    println!(
        "GET /api/leaderboard, {BOTS} rows ({body} bytes), {REQUESTS} requests one after another: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&sorted, 0.50),
        percentile(&sorted, 0.99),
        sorted.last().unwrap().as_secs_f64() * 1e3
    );
    // The web pages (issue 28): the leaderboard's weight, and the server
    // time of it and of a bot's page (a bot in the middle of the board).
    let pages = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for path in ["/", "/bots/bot500"] {
            let (status, raw) = get(addr, path);
            assert!(status.contains(" 200 "), "{path}: {status}");
            let (_, wire) = get_gzip(addr, path);
            out.push((path, raw, wire, time_page(addr, path)));
        }
        out
    })
    .await
    .unwrap();
    for (path, raw, wire, (p50, p99, max)) in pages {
        println!(
            "GET {path} (HTML, {BOTS} bots, {GAMES} games): {raw} bytes, {wire} bytes gzipped on the wire; {} requests one after another: p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
            REQUESTS / 4
        );
    }
    let _ = stop_tx.send(true);
    server.await.unwrap().unwrap();
    app.db.close().await;
    raw.close().await;
    drop(dir);
}
