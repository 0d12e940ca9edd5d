//! Alpha-beta with iterative deepening; `--depth N` searches to a fixed depth.
use arena_bots::{alphabeta::AlphaBeta, cli, protocol};

fn main() -> std::io::Result<()> {
    let args = cli::from_env("arena-alphabeta", &["--depth"]);
    protocol::run_stdio(protocol::Agent::new(AlphaBeta::new(args.depth), args.seed))
}
