//! UCT Monte Carlo tree search; `--playouts N` runs a fixed number of playouts.
use arena_bots::{cli, mcts::Mcts, protocol};

fn main() -> std::io::Result<()> {
    let args = cli::from_env("arena-mcts", &["--playouts", "--playout-depth", "--uct-c"]);
    let mut mcts = Mcts::new(args.playouts);
    mcts.playout_depth = args.playout_depth;
    if let Some(c) = args.uct_c {
        mcts.c = c;
    }
    protocol::run_stdio(protocol::Agent::new(mcts, args.seed))
}
