//! One-ply lookahead with the per-game evaluation.
use arena_bots::{cli, greedy::Greedy, protocol};

fn main() -> std::io::Result<()> {
    let args = cli::from_env("arena-greedy", &[]);
    protocol::run_stdio(protocol::Agent::new(Greedy, args.seed))
}
