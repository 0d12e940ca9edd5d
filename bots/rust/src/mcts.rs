//! Monte Carlo tree search with UCT selection and random playouts.
//!
//! Each node's statistics are kept from the point of view of the player who
//! made the move leading to it, and selection at a node maximises for the
//! player to move there (`Game::to_move`), so consecutive moves by the same
//! player (Dakon's bonus moves) need no special case.
//!
//! Playouts are uniformly random. In long games they are cut after a cap
//! (per game, see [`Evaluate::playout_cap`], or `--playout-depth`) and the
//! position is scored by the evaluation turned into a win chance.

use std::time::Instant;

use arena_core::games::Seat;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::algo::{Algorithm, Ctx};
use crate::eval::{result_for, Evaluate};

/// Monte Carlo tree search (`arena-mcts`): UCT selection, random playouts cut
/// at a cap and scored by the evaluation.
#[derive(Clone, Debug)]
pub struct Mcts {
    /// `Some(n)`: exactly `n` playouts per move (deterministic); `None`:
    /// as many as the clock's budget allows.
    pub playouts: Option<u32>,
    /// Overrides the game's playout cap: `Some(0)` plays to the end.
    pub playout_depth: Option<u32>,
    /// The UCT exploration constant (results are in `[0, 1]`).
    pub c: f64,
}

impl Default for Mcts {
    fn default() -> Self {
        Mcts {
            playouts: None,
            playout_depth: None,
            c: 0.7,
        }
    }
}

impl Mcts {
    /// MCTS with `playouts` per move (`None`: by the clock), the game's playout
    /// cap and the default exploration constant.
    pub fn new(playouts: Option<u32>) -> Mcts {
        Mcts {
            playouts,
            ..Mcts::default()
        }
    }
}

struct Node<M> {
    /// The move from the parent (`None` at the root).
    mv: Option<M>,
    /// Who made `mv`; the statistics are for this player.
    mover: Seat,
    children: Vec<usize>,
    /// Legal moves not yet expanded into children.
    untried: Vec<M>,
    visits: u32,
    /// Sum of playout results for `mover`.
    value: f64,
}

/// Plays random moves from `state` for at most `cap` plies (`None`: to the
/// end); returns seat 0's result in `[0, 1]`.
fn playout<G: Evaluate>(
    game: &G,
    state: &mut G::State,
    cap: Option<u32>,
    rng: &mut ChaCha8Rng,
    buf: &mut Vec<G::Move>,
) -> f64 {
    let mut plies = 0;
    loop {
        game.legal_moves(state, buf);
        if buf.is_empty() {
            return match game.outcome(state) {
                Some(o) => result_for(&o, 0),
                None => 0.5,
            };
        }
        if cap.is_some_and(|c| plies >= c) {
            let v = game.evaluate(state, 0) as f64 / game.eval_scale();
            return 1.0 / (1.0 + (-v).exp());
        }
        let i = rng.random_range(0..buf.len());
        game.apply(state, &buf[i]);
        plies += 1;
    }
}

impl Algorithm for Mcts {
    fn describe(&self) -> String {
        let budget = match self.playouts {
            Some(n) => format!("playouts={n}"),
            None => "time-managed".into(),
        };
        format!("arena-mcts {budget} c={}", self.c)
    }

    fn fixed_limit(&self) -> bool {
        self.playouts.is_some()
    }

    fn choose<G: Evaluate>(
        &mut self,
        game: &G,
        state: &G::State,
        legal: &[G::Move],
        ctx: &mut Ctx,
    ) -> G::Move {
        if legal.len() == 1 {
            ctx.info.push("playouts 0 single legal move".into());
            return legal[0].clone();
        }
        // A budget from `go` replaces the bot's own playout count.
        let playouts = ctx
            .budget
            .playouts
            .map(|n| n.min(u64::from(u32::MAX)) as u32)
            .or(self.playouts);
        let stop = ctx.clock.stop(playouts.is_some());
        let cap = match self.playout_depth {
            Some(0) => None,
            Some(d) => Some(d),
            None => game.playout_cap(),
        };
        let mut nodes: Vec<Node<G::Move>> = vec![Node {
            mv: None,
            mover: 1 - game.to_move(state),
            children: Vec::new(),
            untried: legal.to_vec(),
            visits: 0,
            value: 0.0,
        }];
        let mut buf = Vec::new();
        let mut path: Vec<usize> = Vec::new();
        let mut done: u32 = 0;
        let rng = &mut ctx.rng;
        loop {
            if let Some(n) = playouts {
                if done >= n {
                    break;
                }
            }
            if let Some(stop) = stop {
                if done.is_multiple_of(8) && Instant::now() >= stop {
                    break;
                }
            }
            let mut s = state.clone();
            let mut node = 0;
            path.clear();
            path.push(0);
            // Selection.
            while nodes[node].untried.is_empty() && !nodes[node].children.is_empty() {
                let ln_n = (nodes[node].visits.max(1) as f64).ln();
                let mut best = f64::NEG_INFINITY;
                let mut pick = nodes[node].children[0];
                for &ch in &nodes[node].children {
                    let c = &nodes[ch];
                    let u = c.value / c.visits as f64 + self.c * (ln_n / c.visits as f64).sqrt();
                    if u > best {
                        best = u;
                        pick = ch;
                    }
                }
                node = pick;
                game.apply(&mut s, nodes[node].mv.as_ref().expect("child has a move"));
                path.push(node);
            }
            // Expansion.
            if !nodes[node].untried.is_empty() {
                let k = rng.random_range(0..nodes[node].untried.len());
                let mv = nodes[node].untried.swap_remove(k);
                let mover = game.to_move(&s);
                game.apply(&mut s, &mv);
                game.legal_moves(&s, &mut buf);
                let id = nodes.len();
                nodes.push(Node {
                    mv: Some(mv),
                    mover,
                    children: Vec::new(),
                    untried: buf.clone(),
                    visits: 0,
                    value: 0.0,
                });
                nodes[node].children.push(id);
                node = id;
                path.push(node);
            }
            // Simulation (a terminal node's playout just reads the outcome).
            let _ = node;
            let r0 = playout(game, &mut s, cap, rng, &mut buf);
            // Backpropagation.
            for &n in &path {
                let nd = &mut nodes[n];
                nd.visits += 1;
                nd.value += if nd.mover == 0 { r0 } else { 1.0 - r0 };
            }
            done += 1;
        }
        let root = &nodes[0];
        if root.children.is_empty() {
            ctx.info.push("playouts 0 out of time".into());
            return legal[0].clone();
        }
        // The most visited child; ties go to the better average.
        let best = *root
            .children
            .iter()
            .max_by(|&&a, &&b| {
                let (na, nb) = (&nodes[a], &nodes[b]);
                na.visits.cmp(&nb.visits).then(
                    (na.value / na.visits as f64)
                        .partial_cmp(&(nb.value / nb.visits as f64))
                        .unwrap_or(std::cmp::Ordering::Equal),
                )
            })
            .expect("root has children");
        let b = &nodes[best];
        ctx.info.push(format!(
            "playouts {done} winrate {:.3} visits {} nodes {} time {}",
            b.value / b.visits as f64,
            b.visits,
            nodes.len(),
            ctx.clock.elapsed_ms()
        ));
        b.mv.clone().expect("child has a move")
    }
}
