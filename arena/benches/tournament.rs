//! Tournament throughput: games per second of a round robin between
//! instant bots (the C first-legal bot, or `arena bot-first` without a C
//! compiler; fresh processes for every game, full journaling with fsync),
//! 1,000 games at concurrency 1 and 1,000 at the number of cores in 5
//! rounds, the speed-up, and the referee's peak memory per concurrent game.
//! A thin wrapper over the tournament section of `arena bench`:
//!
//!     cargo bench -p arena --bench tournament
//!
//! `ARENA_BENCH_GAMES=200` runs smaller round robins (200 games at each
//! concurrency, rounded to whole pairs of the 5-bot schedule).

use std::path::PathBuf;

use arena::tools::bench::{self, BenchOptions};

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let mut opts = BenchOptions::new(PathBuf::from(env!("CARGO_BIN_EXE_arena")), quick);
    if let Some(games) = std::env::var("ARENA_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        opts.tournament_games = games;
    }
    let t = bench::tournament_bench(&opts).expect("the benchmark tournament runs");
    println!("load average: {:?}", bench::load_average());
    println!("{t:#?}");
}
