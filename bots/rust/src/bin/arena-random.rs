//! Plays uniformly random legal moves (the baseline).
use arena_bots::{cli, protocol, random::RandomBot};

fn main() -> std::io::Result<()> {
    let args = cli::from_env("arena-random", &[]);
    protocol::run_stdio(protocol::Agent::new(RandomBot, args.seed))
}
