//! The referee's own cost per decision, with instantly answering bots (the
//! C first-legal bot, or `arena bot-first` without a C compiler; separate
//! processes on pipes), beside the pipe round trip measured in the same run:
//! a thin wrapper over the referee, pipe-floor and process-start sections of
//! `arena bench` (`arena::tools::bench`).
//!
//!     cargo bench --bench referee            # PINGPONG_C=/path/to/pingpong.c to add the C floor

use std::path::PathBuf;

use arena::tools::bench::{self, BenchOptions};

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too:
    // keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let mut opts = BenchOptions::new(PathBuf::from(env!("CARGO_BIN_EXE_arena")), quick);
    opts.pingpong = std::env::var_os("PINGPONG_C")
        .map(PathBuf::from)
        .or_else(|| {
            let p = PathBuf::from("/work/shared/bench/pingpong.c");
            p.exists().then_some(p)
        });
    let pipe = bench::pipe_floor(&opts).expect("pipe floor");
    let referee = bench::referee(&opts, &pipe).expect("referee figures");
    let start = bench::process_start(&opts).expect("process start figures");
    println!("load average: {:?}", bench::load_average());
    println!("{pipe:#?}\n{referee:#?}\n{start:#?}");
}
