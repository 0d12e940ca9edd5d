//! The referee's cost per move with instant bots over real pipes, one game
//! at a time and two at once, and with each registered engine.

use std::sync::Arc;
use std::time::Instant;

use super::{
    round_trips, BenchError, BenchOptions, Forfeit, InstantBot, PipeFloor, RefereeFigures, Toy,
    TOY_PLIES,
};
use crate::lanes::Lanes;
use crate::process::Limits;
use crate::referee::{run_game, BotSlot, GameSetup, TimeControl};
use arena_core::games::{self, AnyGame};
use arena_core::record::Clock;

pub(super) fn setup(game: Arc<dyn AnyGame>, index: u64) -> GameSetup {
    GameSetup {
        game,
        index,
        round: 0,
        pair: 0,
        seed: index,
        opening: Vec::new(),
        time: TimeControl {
            movetime_ms: Some(5000),
            ..TimeControl::default()
        },
        seat_time: [None; 2],
        ponder: false,
        budgets: Default::default(),
        adjudication: Default::default(),
        log_dir: None,
        feed: None,
    }
}

/// A tokio runtime: current-thread, or multi-thread with `workers` threads.
pub fn runtime(workers: Option<usize>) -> tokio::runtime::Runtime {
    match workers {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    }
    .enable_all()
    .build()
    .expect("the tokio runtime starts")
}

/// Plays `games` games of `game` on each of `concurrency` tables at once
/// (bots kept across games, started before the clock runs), table `t` on
/// lane `t` when `lanes` are given (as `arena tournament` does), else on the
/// calling runtime, each decision charged to `clock`. Returns (µs per move
/// as seen by each table, moves in all).
pub async fn per_move(
    bot: &InstantBot,
    game: Arc<dyn AnyGame>,
    concurrency: usize,
    games: u64,
    lanes: Option<&Lanes>,
    clock: Clock,
) -> Result<(f64, u64), BenchError> {
    let limits = Limits::default();
    let mut tables: Vec<[BotSlot; 2]> = (0..concurrency)
        .map(|t| {
            [
                BotSlot::new(bot.spec(&format!("a{t}"))),
                BotSlot::new(bot.spec(&format!("b{t}"))),
            ]
        })
        .collect();
    // Warm up: start the bots and play one game on each table.
    for [a, b] in tables.iter_mut() {
        let mut s = setup(game.clone(), 0);
        s.time.clock = clock;
        let r = run_game(&s, [a, b], true, &limits).await;
        if r.reason.is_forfeit() {
            return Err(BenchError::WarmUpForfeit(Forfeit {
                reason: r.reason,
                detail: r.detail,
            }));
        }
    }
    let start = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (t, mut table) in tables.drain(..).enumerate() {
        let limits = limits.clone();
        let game = game.clone();
        let table = async move {
            let mut n = 0;
            let mut err = None;
            for g in 0..games {
                let [a, b] = &mut table;
                let mut s = setup(game.clone(), g + 1 + t as u64 * 1000);
                s.time.clock = clock;
                let r = run_game(&s, [a, b], true, &limits).await;
                if r.reason.is_forfeit() {
                    err = Some(Forfeit {
                        reason: r.reason,
                        detail: r.detail,
                    });
                    break;
                }
                n += r.moves.len() as u64;
            }
            for p in &mut table {
                p.release().await;
            }
            (n, err)
        };
        match lanes {
            Some(lanes) => set.spawn_on(table, lanes.handle(t)),
            None => set.spawn(table),
        };
    }
    let mut moves = 0;
    while let Some(res) = set.join_next().await {
        let (n, err) = res?;
        if let Some(forfeit) = err {
            return Err(BenchError::Forfeit(forfeit));
        }
        moves += n;
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok((elapsed * 1e6 * concurrency as f64 / moves as f64, moves))
}

pub(super) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The referee's cost per move at concurrency 1 and 2 (median of 3
/// interleaved rounds, 1 in quick mode), and with the real engines.
pub fn referee(opts: &BenchOptions, pipe: &PipeFloor) -> Result<RefereeFigures, BenchError> {
    let toy: Arc<dyn AnyGame> = Arc::new(Toy);
    let games = opts.referee_games();
    let rounds = if opts.quick { 1 } else { 5 };
    let single = runtime(None);
    let multi = runtime(Some(2));
    let lanes = Lanes::start(2, false).map_err(BenchError::Threads)?;
    let (mut c1, mut c2, mut c2m, mut c2s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut c1_cpu = Vec::new();
    let toy_clock = |rt: &tokio::runtime::Runtime, concurrency, lanes, clock| {
        rt.block_on(per_move(
            &opts.bot,
            toy.clone(),
            concurrency,
            games,
            lanes,
            clock,
        ))
        .map(|r| r.0)
    };
    let toy_run = |rt: &tokio::runtime::Runtime, concurrency, lanes| {
        toy_clock(rt, concurrency, lanes, Clock::Wall)
    };
    // The floor again just before each round: the ratio of each round to
    // its own floor, median over rounds, weathers a load that drifts.
    let (mut ratios, mut cpu_ratios) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let floor = round_trips(&opts.arena, opts.rt_count() / 10)?.0;
        let us = toy_run(&single, 1, None)?;
        ratios.push(us / floor);
        c1.push(us);
        // The cpu clock against the same floor, in the same minute.
        let us = toy_clock(&single, 1, None, Clock::Cpu)?;
        cpu_ratios.push(us / floor);
        c1_cpu.push(us);
        c2.push(toy_run(&single, 2, Some(&lanes))?);
        c2m.push(toy_run(&multi, 2, None)?);
        c2s.push(toy_run(&single, 2, None)?);
    }
    let (c1, c2, c2m, c2s) = (median(c1), median(c2), median(c2m), median(c2s));
    let mut with_engines = Vec::new();
    for entry in games::GAMES {
        let game: Arc<dyn AnyGame> = Arc::from((entry.new)(&[]).expect("default parameters"));
        let us = single
            .block_on(per_move(&opts.bot, game, 1, games * 4, None, Clock::Wall))?
            .0;
        with_engines.push((entry.name.to_string(), us));
    }
    Ok(RefereeFigures {
        plies_per_game: TOY_PLIES,
        us_per_move_c1: c1,
        us_per_move_c1_cpu_clock: median(c1_cpu),
        ratio_c1_cpu_clock: median(cpu_ratios),
        us_per_move_c2: c2,
        us_per_move_c2_work_stealing: c2m,
        us_per_move_c2_single: c2s,
        moves_per_sec_c2: 2.0 * 1e6 / c2,
        ratio_c1: median(ratios),
        ratio_c2: c2 / pipe.rt_us,
        with_engines,
    })
}
