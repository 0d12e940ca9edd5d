//! Tournament games per second at concurrency 1 and at the number of
//! cores (fresh bots, kept bots, pondering, sandboxed), and what starting
//! bots costs a game.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::machine::{cores, process_cpu_seconds, reset_peak, resident_kib};
use super::referee::{median, setup};
use super::{
    runtime, BenchError, BenchOptions, Forfeit, InstantBot, StartFigures, TournamentFigures,
};
use crate::process::Limits;
use crate::referee::{run_game, BotSlot, TimeControl};
use crate::run::{self, ProgressMode, RefereePlayer, RunOptions};
use crate::settings::{FormatKind, Normalized, NormalizedBot};
use arena_core::games::{self, AnyGame};

fn tournament_once(
    config: &Normalized,
    player: RefereePlayer,
    out: &Path,
    concurrency: usize,
) -> Result<(f64, f64, u64, f64), BenchError> {
    let rt = runtime(None);
    let player = Arc::new(player);
    let opts = RunOptions {
        out: out.to_path_buf(),
        concurrency,
        resume: false,
        overwrite: true,
        shard: None,
        progress: ProgressMode::Quiet,
        affinity: false,
        warnings: Vec::new(),
        record_states: 1,
        dead_bot_stop: None,
        programs: Vec::new(),
        ratings: None,
    };
    reset_peak();
    let before = resident_kib().map_or(0.0, |(now, _)| now);
    let cpu0 = process_cpu_seconds();
    let start = Instant::now();
    let summary = rt.block_on(run::run(config, player, &opts))?;
    let secs = start.elapsed().as_secs_f64();
    let peak = resident_kib().map_or(0.0, |(_, peak)| peak);
    drop(rt);
    let cpu = process_cpu_seconds() - cpu0;
    let records = crate::store::read_records(&out.join(crate::store::GAMES_JSONL))?;
    if records.len() != summary.games {
        return Err(BenchError::RecordCount {
            records: records.len(),
            games: summary.games,
        });
    }
    if let Some(r) = records.iter().find(|r| r.reason.is_forfeit()) {
        return Err(BenchError::TournamentForfeit {
            index: r.index,
            forfeit: Forfeit {
                reason: r.reason,
                detail: r.detail.clone(),
            },
        });
    }
    let plies = records.iter().map(|r| r.moves.len() as u64).sum();
    Ok((secs, (peak - before).max(0.0), plies, cpu))
}

/// One way of playing the benchmark round robin.
#[derive(Clone, Copy, Debug)]
struct Variant {
    concurrency: usize,
    keep: bool,
    ponder: bool,
    sandboxed: bool,
}

impl Variant {
    /// Where its figures go: fresh, kept, pondering (at 1 and N), sandboxed.
    fn slot(self) -> usize {
        let c = usize::from(self.concurrency != 1);
        match (self.keep, self.ponder, self.sandboxed) {
            (_, _, true) => 6,
            (true, _, _) => 2 + c,
            (_, true, _) => 4 + c,
            _ => c,
        }
    }
}

/// A round robin of 5 instant bots (`opts.bot`, fresh processes for
/// every game, full journaling with fsync) on Dakon, at concurrency 1 and at
/// the number of cores, then the same with kept bots, pondering bots and
/// sandboxed bots, in rounds of one run each, the order reversed from round
/// to round, so that a drifting load weighs on all alike.
pub fn tournament_bench(opts: &BenchOptions) -> Result<TournamentFigures, BenchError> {
    let bots = 5;
    let rounds: u32 = if opts.quick { 1 } else { 5 };
    let per_pairing = (opts.tournament_games / rounds / 10).max(2) & !1;
    let per_run = per_pairing * 10;
    let names: Vec<String> = (0..bots).map(|i| format!("first{i}")).collect();
    let command = opts.bot.command.clone();
    let config = |keep: bool, ponder: bool| Normalized {
        name: "bench".into(),
        game: "dakon".into(),
        params: Vec::new(),
        format: FormatKind::RoundRobin,
        champion: None,
        sprt: None,
        games: per_pairing,
        seed: 1,
        random_opening_plies: 0,
        openings: None,
        ponder,
        adjudication: Default::default(),
        time_control: TimeControl::default(),
        bots: names
            .iter()
            .map(|n| NormalizedBot {
                name: n.clone(),
                command: command.clone(),
                cwd: ".".into(),
                env: Default::default(),
                limits: Default::default(),
                sandbox: Default::default(),
                keep,
                budget: Default::default(),
                time_control: None,
            })
            .collect(),
    };
    let game: Arc<dyn AnyGame> = Arc::from(games::new_game("dakon", &[]).expect("dakon"));
    let dir = std::env::temp_dir().join(format!("arena-bench-{}", std::process::id()));
    let player = |run_dir: PathBuf, v: Variant| RefereePlayer {
        game: game.clone(),
        bots: names
            .iter()
            .map(|n| {
                let mut spec = (*opts.bot.spec(n)).clone();
                if v.sandboxed {
                    spec.sandbox = crate::process::ResolvedSandbox::Bwrap;
                }
                Arc::new(spec)
            })
            .collect(),
        commands: vec![command.clone(); bots],
        keep: vec![v.keep; bots],
        time: TimeControl::default(),
        times: Vec::new(),
        ponder: v.ponder,
        limits: Limits::default(),
        opening_plies: 0,
        openings: None,
        budgets: vec![Default::default(); bots],
        adjudication: Default::default(),
        run_dir,
        kept: Default::default(),
        feed: None,
    };
    let n = cores().max(2);
    let base_rss_kib = resident_kib().map_or(0.0, |(now, _)| now);
    let sandbox = crate::process::sandbox::usable().is_ok();
    // Indexed [fresh c1, fresh cN, kept c1, kept cN, ponder c1, ponder cN,
    // sandboxed c1] (see `Variant::slot`).
    let mut secs = [0.0f64; 7];
    let mut cpu = [0.0f64; 7];
    let mut peak = [0.0f64; 2];
    let mut ratios = Vec::new();
    let mut plies = 0;
    let result = (|| {
        for round in 0..rounds {
            let v = |concurrency, keep, ponder, sandboxed| Variant {
                concurrency,
                keep,
                ponder,
                sandboxed,
            };
            let mut order = vec![
                v(1, false, false, false),
                v(n, false, false, false),
                v(1, true, false, false),
                v(n, true, false, false),
                v(1, false, true, false),
                v(n, false, true, false),
            ];
            if sandbox {
                order.push(v(1, false, false, true));
            }
            if round % 2 == 1 {
                order.reverse();
            }
            let mut rate = [0.0f64; 2];
            for v in order {
                let out = dir.join(format!("run{round}-{}", v.slot()));
                let (s, kib, p, c) = tournament_once(
                    &config(v.keep, v.ponder),
                    player(out.clone(), v),
                    &out,
                    v.concurrency,
                )?;
                let _ = std::fs::remove_dir_all(&out);
                let k = v.slot();
                secs[k] += s;
                cpu[k] += c;
                if k < 2 {
                    peak[k] = peak[k].max(kib / v.concurrency as f64);
                    rate[k] = f64::from(per_run) / s;
                    plies += p;
                }
            }
            ratios.push(rate[1] / rate[0]);
        }
        Ok::<(), BenchError>(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result?;
    let games = f64::from(per_run * rounds);
    let rate = secs.map(|s| games / s);
    let ms_per_game = secs.map(|s| s * 1e3 / games);
    Ok(TournamentFigures {
        games: per_run * rounds,
        bots,
        game: "dakon".into(),
        concurrency: n,
        games_per_sec_c1: rate[0],
        games_per_sec_cn: rate[1],
        rounds,
        scaling: median(ratios.clone()),
        scaling_min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        scaling_max: ratios.iter().copied().fold(0.0, f64::max),
        cpu_ms_per_game_c1: cpu[0] * 1e3 / games,
        cpu_ms_per_game_cn: cpu[1] * 1e3 / games,
        kept_games_per_sec_c1: rate[2],
        kept_games_per_sec_cn: rate[3],
        kept_saves_ms_per_game_c1: ms_per_game[0] - ms_per_game[2],
        kept_saves_cpu_ms_per_game_c1: (cpu[0] - cpu[2]) * 1e3 / games,
        kept_saves_ms_per_game_cn: ms_per_game[1] - ms_per_game[3],
        ponder_games_per_sec_c1: rate[4],
        ponder_games_per_sec_cn: rate[5],
        freeze_cost_c1: 1.0 - rate[0] / rate[4],
        freeze_cost_cn: 1.0 - rate[1] / rate[5],
        sandboxed_games_per_sec_c1: sandbox.then_some(rate[6]),
        sandbox_ms_per_game_c1: sandbox.then_some(ms_per_game[6] - ms_per_game[0]),
        cores_busy_c1: cpu[0] / secs[0],
        cores_busy_cn: cpu[1] / secs[1],
        peak_kib_per_game_c1: peak[0],
        peak_kib_per_game_cn: peak[1],
        base_rss_kib,
        plies_per_game: plies as f64 / (2.0 * games),
    })
}

// ---------------------------------------------------------------------------
// Process start.

async fn per_game(
    bot: &InstantBot,
    game: Arc<dyn AnyGame>,
    games: u64,
    keep: bool,
) -> Result<f64, BenchError> {
    let limits = Limits::default();
    let mut a = BotSlot::new(bot.spec("a"));
    let mut b = BotSlot::new(bot.spec("b"));
    // Kept bots are started (by a first game) before the clock runs and
    // stopped after it: the difference to fresh bots is the start and stop.
    if keep {
        run_game(&setup(game.clone(), 0), [&mut a, &mut b], keep, &limits).await;
    }
    let start = Instant::now();
    for g in 0..games {
        let r = run_game(&setup(game.clone(), g + 1), [&mut a, &mut b], keep, &limits).await;
        if r.reason.is_forfeit() {
            return Err(BenchError::StartForfeit(Forfeit {
                reason: r.reason,
                detail: r.detail,
            }));
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / games as f64;
    a.release().await;
    b.release().await;
    Ok(ms)
}

/// ms per Dakon game with fresh bots, with kept bots, and with fresh
/// `arena bot-first` bots (current-thread runtime, one game at a time), each
/// in two halves ordered kept, fresh, Rust, Rust, fresh, kept.
pub fn process_start(opts: &BenchOptions) -> Result<StartFigures, BenchError> {
    let game: Arc<dyn AnyGame> = Arc::from(games::new_game("dakon", &[]).expect("dakon"));
    let games = opts.start_games();
    let rt = runtime(None);
    let rust = InstantBot::rust(&opts.arena);
    // [fresh, kept, fresh Rust]
    let mut ms = [0.0f64; 3];
    for k in [1, 0, 2, 2, 0, 1] {
        let bot = if k == 2 { &rust } else { &opts.bot };
        ms[k] += rt.block_on(per_game(bot, game.clone(), games / 2, k == 1))? / 2.0;
    }
    Ok(StartFigures {
        games,
        game: "dakon".into(),
        fresh_ms_per_game: ms[0],
        kept_ms_per_game: ms[1],
        rust_fresh_ms_per_game: ms[2],
        start_ms_per_game: ms[0] - ms[1],
    })
}
