//! The referee's own cost per decision, with instantly answering bots (the
//! built-in `arena bot-first`, a separate process on pipes), printed beside
//! the pipe round trip of `shared/bench/pingpong.c` measured in the same run.
//!
//!     cargo bench --bench referee            # PINGPONG=/path/to/pingpong to skip gcc
//!
//! The game here is a bench-only toy with 7 legal moves per position and a
//! state line of Dakon's size, so that the figure is the referee's cost and
//! not an engine's; `--game dakon` style figures come from `arena match`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arena::bot::{BotSpec, Limits};
use arena::games::{Game, Outcome, ParamError, Params, ParseError, Seat};
use arena::referee::{run_game, GameSetup, Player, TimeControl};

const PLIES: u32 = 400;

#[derive(Clone, Debug)]
struct Toy;

#[derive(Clone, Debug, PartialEq)]
struct ToyState {
    ply: u32,
    pits: [u8; 14],
}

impl fmt::Display for ToyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pits=")?;
        for (i, p) in self.pits.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, " stores=0,0 turn={} ply={}", self.ply % 2, self.ply)
    }
}

impl Game for Toy {
    const NAME: &'static str = "toy";
    type State = ToyState;
    type Move = u8;
    type Effects = ();
    fn from_params(_: &[(String, String)]) -> Result<Self, ParamError> {
        Ok(Toy)
    }
    fn params(&self) -> Params {
        vec![("plies".into(), PLIES.to_string())]
    }
    fn initial_state(&self) -> ToyState {
        ToyState {
            ply: 0,
            pits: [7; 14],
        }
    }
    fn parse_state(&self, text: &str) -> Result<ToyState, ParseError> {
        Err(ParseError::new("toy state", "not needed", text))
    }
    fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
        text.parse()
            .map_err(|_| ParseError::new("toy move", "a number", text))
    }
    fn to_move(&self, s: &ToyState) -> Seat {
        (s.ply % 2) as Seat
    }
    fn legal_moves(&self, s: &ToyState, out: &mut Vec<u8>) {
        out.clear();
        if s.ply < PLIES {
            let base = if s.ply.is_multiple_of(2) { 7 } else { 0 };
            out.extend(base..base + 7);
        }
    }
    fn apply(&self, s: &mut ToyState, mv: &u8) {
        s.pits[*mv as usize] = s.pits[*mv as usize].wrapping_add(1) % 10;
        s.ply += 1;
    }
    fn outcome(&self, s: &ToyState) -> Option<Outcome> {
        (s.ply >= PLIES).then_some(Outcome {
            scores: [0, 0],
            winner: None,
            adjudicated: None,
        })
    }
}

fn pingpong() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PINGPONG") {
        return Some(PathBuf::from(p));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../../shared/bench/pingpong.c"),
        manifest.join("../../../shared/bench/pingpong.c"),
        PathBuf::from("/work/shared/bench/pingpong.c"),
    ];
    let source = candidates.iter().find(|p| p.exists())?;
    let out = std::env::temp_dir().join(format!("arena-pingpong-{}", std::process::id()));
    let ok = Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(source)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    ok.then_some(out)
}

/// Mean microseconds per round trip from `pingpong rt N`.
fn pingpong_rt(bin: &Path, n: u64) -> Option<f64> {
    let out = Command::new(bin)
        .args(["rt", &n.to_string()])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mean = text.split("mean=").nth(1)?;
    mean.split("us").next()?.trim().parse().ok()
}

fn pingpong_session(bin: &Path, n: u64) -> Option<f64> {
    let out = Command::new(bin)
        .args(["session", &n.to_string()])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mean = text.split("mean=").nth(1)?;
    mean.split("ms").next()?.trim().parse().ok()
}

fn setup(index: u64) -> GameSetup {
    setup_for(Arc::new(Toy), index)
}

fn setup_for(game: Arc<dyn arena::games::AnyGame>, index: u64) -> GameSetup {
    GameSetup {
        game,
        index,
        round: 0,
        pair: 0,
        seed: index,
        opening: Vec::new(),
        time: TimeControl {
            movetime: Some(Duration::from_secs(5)),
            time: None,
            inc: Duration::ZERO,
            margin: Duration::from_millis(50),
        },
        log_dir: None,
    }
}

fn spec(name: &str) -> Arc<BotSpec> {
    Arc::new(BotSpec::new(
        name,
        vec![env!("CARGO_BIN_EXE_arena").to_string(), "bot-first".into()],
    ))
}

/// Plays `games` games on each of `concurrency` tables (kept bots), returns
/// (microseconds per move over all tables, moves).
async fn per_move(concurrency: usize, games: u64) -> (f64, u64) {
    let limits = Limits::default();
    let mut tables: Vec<[Player; 2]> = (0..concurrency)
        .map(|t| {
            [
                Player::new(spec(&format!("a{t}"))),
                Player::new(spec(&format!("b{t}"))),
            ]
        })
        .collect();
    // Warm up: start the bots and play one game on each table.
    for [a, b] in tables.iter_mut() {
        let r = run_game(&setup(0), [a, b], true, &limits).await;
        assert_eq!(r.moves.len() as u32, PLIES, "{r:?}");
    }
    let start = Instant::now();
    let mut moves = 0;
    let mut set = tokio::task::JoinSet::new();
    for (t, mut table) in tables.drain(..).enumerate() {
        let limits = limits.clone();
        set.spawn(async move {
            let mut n = 0;
            for g in 0..games {
                let [a, b] = &mut table;
                let r = run_game(&setup(g + 1 + t as u64 * 1000), [a, b], true, &limits).await;
                assert_eq!(r.reason, arena::record::Reason::Normal, "{r:?}");
                n += r.moves.len() as u64;
            }
            for p in &mut table {
                p.release().await;
            }
            n
        });
    }
    while let Some(n) = set.join_next().await {
        moves += n.unwrap();
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / moves as f64;
    (us, moves)
}

/// Milliseconds per game with fresh bots (start both, 1 game of 2 plies... of
/// the toy game, stop both).
async fn per_game_fresh(games: u64) -> f64 {
    let limits = Limits::default();
    let mut a = Player::new(spec("a"));
    let mut b = Player::new(spec("b"));
    let start = Instant::now();
    for g in 0..games {
        let r = run_game(&setup(g), [&mut a, &mut b], false, &limits).await;
        assert_eq!(r.reason, arena::record::Reason::Normal, "{r:?}");
    }
    start.elapsed().as_secs_f64() * 1e3 / games as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn runtime(multi: bool) -> tokio::runtime::Runtime {
    if multi {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too:
    // keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let games = if quick { 3 } else { 30 };
    let rt_n = if quick { 5_000 } else { 100_000 };

    // The machine is shared: interleave the configurations over a few
    // rounds and report medians, each beside the floor measured just before.
    let pp = pingpong();
    let rounds = if quick { 1 } else { 3 };
    let mut floors = Vec::new();
    let mut results: Vec<(bool, usize, Vec<f64>)> = Vec::new();
    for multi in [false, true] {
        for concurrency in [1, 2] {
            results.push((multi, concurrency, Vec::new()));
        }
    }
    let rts = [runtime(false), runtime(true)];
    for _ in 0..rounds {
        if let Some(us) = pp.as_deref().and_then(|p| pingpong_rt(p, rt_n)) {
            floors.push(us);
        }
        for (multi, concurrency, figures) in results.iter_mut() {
            let (us, _) = rts[*multi as usize].block_on(per_move(*concurrency, games));
            figures.push(us);
        }
    }
    let floor = (!floors.is_empty()).then(|| median(&mut floors));
    match floor {
        Some(us) => println!(
            "pipe round trip (pingpong rt {rt_n}, median of {}): {us:.2} us",
            floors.len()
        ),
        None => println!(
            "pingpong not available (set PINGPONG=/path/to/pingpong, or install gcc and \
             keep shared/bench/pingpong.c beside the repo): no floor to compare with"
        ),
    }
    for (multi, concurrency, mut figures) in results {
        let name = if multi {
            "multi-thread (2 workers)"
        } else {
            "current-thread"
        };
        let us = median(&mut figures);
        let ratio = floor.map_or(String::new(), |f| format!(" = {:.2}x the floor", us / f));
        println!(
            "referee, {name} runtime, concurrency {concurrency}: {us:.2} us per move \
             (median of {rounds} x {} moves){ratio}",
            concurrency as u64 * games * PLIES as u64
        );
    }
    // The same with the real engines (their cost included): kept bots,
    // current-thread runtime, concurrency 1.
    for (name, params) in [("dakon", vec![]), ("latrunculi", vec![])] {
        let game: Arc<dyn arena::games::AnyGame> =
            Arc::from(arena::games::new_game(name, &params).expect("registered game"));
        let rt = runtime(false);
        let (us, moves) = rt.block_on(async {
            let limits = Limits::default();
            let mut a = Player::new(spec("a"));
            let mut b = Player::new(spec("b"));
            run_game(&setup_for(game.clone(), 0), [&mut a, &mut b], true, &limits).await;
            let start = Instant::now();
            let mut moves = 0;
            for g in 0..games * 4 {
                let r =
                    run_game(&setup_for(game.clone(), g), [&mut a, &mut b], true, &limits).await;
                assert!(!r.reason.is_forfeit(), "{r:?}");
                moves += r.moves.len() as u64;
            }
            a.release().await;
            b.release().await;
            (start.elapsed().as_secs_f64() * 1e6 / moves as f64, moves)
        });
        let ratio = floor.map_or(String::new(), |f| format!(" = {:.2}x the floor", us / f));
        println!(
            "referee + {name} engine (default parameters), current-thread, concurrency 1: \
             {us:.2} us per move ({moves} moves){ratio}"
        );
    }
    let rt = runtime(false);
    let fresh = rt.block_on(per_game_fresh(if quick { 3 } else { 40 }));
    let session = pp.as_deref().and_then(|p| pingpong_session(p, 200));
    println!(
        "fresh bots per game ({PLIES} plies, start+handshake+quit of two bots): {fresh:.2} ms{}",
        session.map_or(String::new(), |s| format!(
            " (pingpong session, one bot: {s:.3} ms)"
        ))
    );
    if let Some(p) = pp.filter(|p| p.starts_with(std::env::temp_dir())) {
        let _ = std::fs::remove_file(p);
    }
}
