//! Negamax with alpha-beta pruning and iterative deepening.
//!
//! The side to move comes from `Game::to_move` at every node, never from
//! alternation: when a move leaves the same player to move (Dakon's bonus
//! moves) the child is searched with the same window and its value is not
//! negated. Every move counts one ply of depth, bonus moves included.
//!
//! Move ordering: the previous iteration's principal variation first, then
//! two killer moves per ply, then the children's static evaluation. At the
//! root, moves are first shuffled with the bot's RNG (so equal moves are
//! chosen at random, reproducibly) and then sorted by the previous
//! iteration's scores.

use std::time::Instant;

use arena_core::games::{Outcome, Seat};
use rand::RngExt;

use crate::algo::{Algorithm, Ctx};
use crate::eval::Evaluate;

/// The score of a won game (less the plies needed to win it).
pub const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;
/// Scores beyond this are proven wins or losses.
const PROVEN: i32 = WIN - 10_000;
const MAX_DEPTH: u32 = 64;

/// Negamax with alpha-beta pruning and iterative deepening (`arena-alphabeta`).
#[derive(Clone, Debug, Default)]
pub struct AlphaBeta {
    /// `Some(d)`: search exactly to depth `d` (deterministic); `None`:
    /// iterative deepening until the clock's budget is spent.
    pub depth: Option<u32>,
}

impl AlphaBeta {
    /// Alpha-beta to a fixed `depth`, or by the clock with `None`.
    pub fn new(depth: Option<u32>) -> AlphaBeta {
        AlphaBeta { depth }
    }
}

/// The value of a finished game for `seat`, found `ply` plies from the root
/// (quicker wins and slower losses score better).
fn terminal_score(outcome: &Outcome, seat: Seat, ply: usize) -> i32 {
    match outcome.winner {
        Some(w) if w == seat => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
        None => 0,
    }
}

struct Searcher<'a, G: Evaluate> {
    game: &'a G,
    stop: Option<Instant>,
    nodes: u64,
    /// A node budget (`nodes=` in `go`): the search stops once it is spent,
    /// at the same node whatever the machine's speed.
    max_nodes: Option<u64>,
    aborted: bool,
    killers: Vec<[Option<G::Move>; 2]>,
    /// Triangular principal-variation table of the current iteration.
    pv: Vec<Vec<G::Move>>,
    /// The previous iteration's principal variation.
    prev_pv: Vec<G::Move>,
    moves: Vec<G::Move>,
}

struct Child<G: Evaluate> {
    mv: G::Move,
    state: G::State,
    /// `Some` when the child is a finished game: its score for the mover.
    terminal: Option<i32>,
    /// Static evaluation for the mover (ordering, and the value at depth 1).
    stat: i32,
    key: i32,
}

impl<'a, G: Evaluate> Searcher<'a, G> {
    fn new(game: &'a G, stop: Option<Instant>) -> Self {
        Searcher {
            game,
            stop,
            nodes: 0,
            max_nodes: None,
            aborted: false,
            killers: vec![[None, None]; MAX_DEPTH as usize + 2],
            pv: vec![Vec::new(); MAX_DEPTH as usize + 2],
            prev_pv: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Called once per interior node, each of which expands all its
    /// children: reading the clock is cheap next to that.
    fn check_time(&mut self) {
        if self.max_nodes.is_some_and(|n| self.nodes >= n) {
            self.aborted = true;
            return;
        }
        if let Some(stop) = self.stop {
            if Instant::now() >= stop {
                self.aborted = true;
            }
        }
    }

    /// Expands `state` into its children, scored for `me`, ordered best first.
    fn children(&mut self, state: &G::State, me: Seat, ply: usize, on_pv: bool) -> Vec<Child<G>> {
        self.game.legal_moves(state, &mut self.moves);
        let pv_move = if on_pv { self.prev_pv.get(ply) } else { None };
        let killers = &self.killers[ply];
        let mut out = Vec::with_capacity(self.moves.len());
        for mv in &self.moves {
            let mut child = state.clone();
            self.game.apply(&mut child, mv);
            let terminal = self
                .game
                .outcome(&child)
                .map(|o| terminal_score(&o, me, ply + 1));
            let stat = match terminal {
                Some(t) => t,
                None => self.game.evaluate(&child, me),
            };
            let key = if pv_move == Some(mv) {
                i32::MAX
            } else if terminal.is_some_and(|t| t > 0) {
                i32::MAX - 1
            } else if killers[0].as_ref() == Some(mv) {
                i32::MAX - 2
            } else if killers[1].as_ref() == Some(mv) {
                i32::MAX - 3
            } else {
                stat
            };
            out.push(Child {
                mv: mv.clone(),
                state: child,
                terminal,
                stat,
                key,
            });
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.key));
        out
    }

    /// The value of `child` (reached by a move of `me`) for `me`.
    #[allow(clippy::too_many_arguments)]
    fn child_value(
        &mut self,
        c: &Child<G>,
        me: Seat,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        on_pv: bool,
    ) -> i32 {
        if let Some(t) = c.terminal {
            return t;
        }
        if depth <= 1 {
            self.nodes += 1;
            return c.stat;
        }
        if self.game.to_move(&c.state) == me {
            self.negamax(&c.state, depth - 1, alpha, beta, ply + 1, on_pv)
        } else {
            -self.negamax(&c.state, depth - 1, -beta, -alpha, ply + 1, on_pv)
        }
    }

    /// A node one ply above the leaves: children are evaluated one at a
    /// time (PV move and killers first) so a cutoff saves the rest.
    fn frontier(
        &mut self,
        state: &G::State,
        me: Seat,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        on_pv: bool,
    ) -> i32 {
        self.game.legal_moves(state, &mut self.moves);
        let mut moves = std::mem::take(&mut self.moves);
        let pv_move = if on_pv { self.prev_pv.get(ply) } else { None };
        let [k0, k1] = &self.killers[ply];
        let mut front = 0;
        for want in [pv_move, k0.as_ref(), k1.as_ref()].into_iter().flatten() {
            if let Some(i) = moves[front..].iter().position(|m| m == want) {
                moves.swap(front, front + i);
                front += 1;
            }
        }
        let mut best = -INF;
        for mv in &moves {
            self.nodes += 1;
            let mut child = state.clone();
            self.game.apply(&mut child, mv);
            let v = match self.game.outcome(&child) {
                Some(o) => terminal_score(&o, me, ply + 1),
                None => self.game.evaluate(&child, me),
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    self.pv[ply].clear();
                    self.pv[ply].push(mv.clone());
                }
            }
            if alpha >= beta {
                if self.killers[ply][0].as_ref() != Some(mv) {
                    self.killers[ply][1] = self.killers[ply][0].take();
                    self.killers[ply][0] = Some(mv.clone());
                }
                break;
            }
        }
        self.moves = moves;
        best
    }

    /// Fail-soft negamax: the value of `state` (not over) for its mover.
    fn negamax(
        &mut self,
        state: &G::State,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        on_pv: bool,
    ) -> i32 {
        self.nodes += 1;
        self.check_time();
        if self.aborted {
            return 0;
        }
        self.pv[ply].clear();
        let me = self.game.to_move(state);
        if depth == 0 || ply >= MAX_DEPTH as usize {
            return self.game.evaluate(state, me);
        }
        if depth == 1 {
            return self.frontier(state, me, alpha, beta, ply, on_pv);
        }
        let children = self.children(state, me, ply, on_pv);
        let pv_move = if on_pv {
            self.prev_pv.get(ply).cloned()
        } else {
            None
        };
        let mut best = -INF;
        for c in &children {
            let child_on_pv = pv_move.as_ref() == Some(&c.mv);
            let v = self.child_value(c, me, depth, alpha, beta, ply, child_on_pv);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    let line = &mut head[ply];
                    line.clear();
                    line.push(c.mv.clone());
                    if c.terminal.is_none() && depth > 1 {
                        line.extend(tail[0].iter().cloned());
                    }
                }
            }
            if alpha >= beta {
                if c.terminal.is_none() && self.killers[ply][0].as_ref() != Some(&c.mv) {
                    self.killers[ply][1] = self.killers[ply][0].take();
                    self.killers[ply][0] = Some(c.mv.clone());
                }
                break;
            }
        }
        best
    }
}

impl Algorithm for AlphaBeta {
    fn describe(&self) -> String {
        match self.depth {
            Some(d) => format!("arena-alphabeta depth={d}"),
            None => "arena-alphabeta time-managed".into(),
        }
    }

    fn fixed_limit(&self) -> bool {
        self.depth.is_some()
    }

    fn choose<G: Evaluate>(
        &mut self,
        game: &G,
        state: &G::State,
        legal: &[G::Move],
        ctx: &mut Ctx,
    ) -> G::Move {
        let me = game.to_move(state);
        // A budget from `go` replaces the bot's own limit: depth, or a node
        // count (then deepening goes on until the nodes are spent).
        let budget = ctx.budget;
        let depth = match (budget.depth, budget.nodes) {
            (Some(d), _) => Some(d.min(u64::from(MAX_DEPTH)) as u32),
            (None, Some(_)) => None,
            (None, None) => self.depth,
        };
        let fixed = depth.is_some() || budget.nodes.is_some();
        let stop = ctx.clock.stop(fixed);
        let max_depth = depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        if legal.len() == 1 {
            ctx.info.push("depth 0 single legal move".into());
            return legal[0].clone();
        }

        // Root moves: shuffled once (random tie-breaking), then re-sorted by
        // each iteration's scores (kept in `key`).
        let mut root: Vec<Child<G>> = legal
            .iter()
            .map(|mv| {
                let mut child = state.clone();
                game.apply(&mut child, mv);
                let terminal = game.outcome(&child).map(|o| terminal_score(&o, me, 1));
                let stat = terminal.unwrap_or_else(|| game.evaluate(&child, me));
                Child {
                    mv: mv.clone(),
                    state: child,
                    terminal,
                    stat,
                    key: stat,
                }
            })
            .collect();
        for i in (1..root.len()).rev() {
            let j = ctx.rng.random_range(0..=i);
            root.swap(i, j);
        }
        root.sort_by_key(|c| std::cmp::Reverse(c.key));

        let mut s = Searcher::new(game, stop);
        s.max_nodes = budget.nodes;
        let mut best_move = root[0].mv.clone();
        let mut best_score = root[0].key;
        let mut completed = 0;
        for depth in 1..=max_depth {
            if !fixed && depth > 1 {
                // Do not start an iteration that is unlikely to finish.
                if let Some(soft) = stop {
                    let now = Instant::now();
                    if now >= soft || (soft - now) < (now - ctx.clock.start) {
                        break;
                    }
                }
            }
            let mut alpha = -INF;
            let mut iter_best: Option<(usize, i32)> = None;
            s.pv[0].clear();
            for (i, c) in root.iter_mut().enumerate() {
                let v = if depth == 1 {
                    // The static scores are exact at depth 1.
                    s.nodes += 1;
                    c.stat
                } else {
                    s.child_value(c, me, depth, alpha, INF, 0, i == 0)
                };
                if s.aborted {
                    break;
                }
                if v > alpha {
                    c.key = v;
                    alpha = v;
                    iter_best = Some((i, v));
                    let (head, tail) = s.pv.split_at_mut(1);
                    head[0].clear();
                    head[0].push(c.mv.clone());
                    if c.terminal.is_none() && depth > 1 {
                        head[0].extend(tail[0].iter().cloned());
                    }
                } else {
                    // Failed low: only an upper bound; keep it below the best.
                    c.key = v.min(alpha - 1);
                }
            }
            if let Some((i, v)) = iter_best {
                // Moves completed in an aborted iteration are still exact
                // improvements on the previous best (searched first).
                best_move = root[i].mv.clone();
                best_score = v;
            }
            if s.aborted {
                break;
            }
            completed = depth;
            s.prev_pv = s.pv[0].clone();
            // Best first next time; the sort is stable, so ties keep the
            // shuffled order.
            root.sort_by_key(|c| std::cmp::Reverse(c.key));
            let pv: Vec<String> = s.prev_pv.iter().map(|m| m.to_string()).collect();
            ctx.info.push(format!(
                "depth {depth} score {best_score} nodes {} time {} pv {}",
                s.nodes,
                ctx.clock.elapsed_ms(),
                pv.join(" ")
            ));
            if best_score.abs() >= PROVEN {
                break;
            }
        }
        if s.aborted {
            let why = if s.max_nodes.is_some_and(|n| s.nodes >= n) {
                "stopped at its node budget"
            } else {
                "stopped on time"
            };
            ctx.info.push(format!(
                "depth {completed} {why} nodes {} time {} best {best_move} score {best_score}",
                s.nodes,
                ctx.clock.elapsed_ms()
            ));
        }
        best_move
    }
}
