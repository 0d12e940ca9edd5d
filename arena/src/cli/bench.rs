//! `arena bench`: the speed of the engines, the referee and tournaments on
//! this machine ([`arena::tools::bench`]).

use std::path::PathBuf;

use clap::Args;

use super::Error;
use arena::tools::bench::{self, BenchOptions};

#[derive(Args)]
pub struct BenchArgs {
    /// Print one JSON object with every figure instead of the table.
    #[arg(long)]
    json: bool,
    /// Small samples (seconds instead of about a minute; noisier figures).
    #[arg(long)]
    quick: bool,
    /// Games of the tournament round robin at each concurrency, over 5 rounds
    /// [default: 1000; 40 in one round with --quick].
    #[arg(long)]
    games: Option<u32>,
    /// shared/bench/pingpong.c: compile it with $CC (default cc) and show its round trip
    /// and session figures beside arena's own.
    #[arg(long, value_name = "PATH")]
    pingpong: Option<PathBuf>,
    /// Only the scale section: runs of 10^3, 10^4, ... games (up to
    /// --scale-max) played as two shards, merged, reported and rated, with
    /// each step's games per second, peak memory and file sizes.
    #[arg(long)]
    scale: bool,
    /// The largest run of --scale [default: 10000; 1000 with --quick].
    #[arg(long, value_name = "GAMES", requires = "scale")]
    scale_max: Option<u64>,
}

/// `arena bench`: runs every section, prints the table or the JSON.
pub fn run(args: BenchArgs) -> Result<(), Error> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find the arena executable: {e}")))?;
    let mut opts = BenchOptions::new(exe, args.quick);
    if let Some(g) = args.games {
        opts.tournament_games = g;
    }
    opts.pingpong = args.pingpong;
    if args.scale {
        let max = args
            .scale_max
            .unwrap_or(if args.quick { 1000 } else { 10_000 });
        let report = bench::scale_bench(&opts.arena, &opts.bot, &bench::scale_sizes(max), |s| {
            eprintln!("arena bench: {s}")
        })?;
        show(&report, args.json);
        return Ok(());
    }
    let report = bench::run(&opts, |section| eprintln!("arena bench: {section}"))?;
    show(&report, args.json);
    Ok(())
}

/// Prints the figures as a table, or as one JSON object.
fn show<R: serde::Serialize + std::fmt::Display>(report: &R, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(report).expect("figures serialize")
        );
    } else {
        print!("{report}");
    }
}
