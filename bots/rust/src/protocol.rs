//! The bot side of the arena wire protocol, shared by every bot.
//!
//! One message per line, read with arena-core's protocol types; the loop
//! answers `arena 1` with `ready`, keeps its own copy of the game by applying
//! every `played` move (so game states that carry history, like Latrunculi's
//! repetition count, stay exact), checks it against each `position` line
//! (re-parsing it when they disagree), and answers `go` with `info` lines and
//! one `move`.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use arena_core::games::{ParamError, Seat};
use arena_core::protocol::{FromBot, ToBot};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::algo::{mix_seed, Algorithm, Ctx};
use crate::eval::Evaluate;
use crate::limits::{Clock, Go};

/// One game in progress, for an algorithm `A`, with the game type erased.
pub trait Session<A> {
    /// Applies `seat`'s move `mv` to the session's own copy of the game.
    fn played(&mut self, seat: Seat, mv: &str);
    /// Checks the referee's `position` against the own copy, and takes the
    /// referee's when they differ.
    fn position(&mut self, text: &str);
    /// Keeps the referee's legal moves for the coming `go` (ignored if they do
    /// not parse).
    fn legal(&mut self, moves: &[&str]);
    /// Chooses a move; returns the `info` texts and the move, or `None` when
    /// there is nothing to play.
    fn go(&mut self, alg: &mut A, go: &Go, start: Instant) -> (Vec<String>, Option<String>);
}

/// Builds a session from the `newgame` parameters, the seat and an RNG seed.
pub type SessionMaker<A> =
    fn(&[(String, String)], Seat, u64) -> Result<Box<dyn Session<A>>, ParamError>;

struct GameSession<G: Evaluate> {
    game: G,
    seat: Seat,
    state: G::State,
    /// The referee's legal list for the coming `go`, when it parsed.
    legal: Option<Vec<G::Move>>,
    rng: ChaCha8Rng,
}

/// A [`SessionMaker`] for game `G`.
pub fn session<G: Evaluate, A: Algorithm>(
    params: &[(String, String)],
    seat: Seat,
    seed: u64,
) -> Result<Box<dyn Session<A>>, ParamError> {
    let game = G::from_params(params)?;
    let state = game.initial_state();
    Ok(Box::new(GameSession {
        game,
        seat,
        state,
        legal: None,
        rng: ChaCha8Rng::seed_from_u64(seed),
    }))
}

impl<G: Evaluate, A: Algorithm> Session<A> for GameSession<G> {
    fn played(&mut self, seat: Seat, mv: &str) {
        match self.game.parse_move(mv) {
            Ok(m) => {
                if let Err(e) = self.game.play(&mut self.state, &m) {
                    eprintln!("[bot] seat {seat} played {mv}: {e}; waiting for position");
                }
            }
            Err(e) => eprintln!("[bot] seat {seat} played {mv}: {e}"),
        }
        self.legal = None;
    }

    fn position(&mut self, text: &str) {
        let ours = self.state.to_string();
        if ours.split_whitespace().eq(text.split_whitespace()) {
            return;
        }
        match self.game.parse_state(text) {
            Ok(s) => {
                eprintln!("[bot] resync: had `{ours}`, referee says `{text}`");
                self.state = s;
            }
            Err(e) => eprintln!("[bot] bad position: {e}"),
        }
    }

    fn legal(&mut self, moves: &[&str]) {
        let parsed: Result<Vec<G::Move>, _> =
            moves.iter().map(|m| self.game.parse_move(m)).collect();
        self.legal = match parsed {
            Ok(v) if !v.is_empty() => Some(v),
            Ok(_) => None,
            Err(e) => {
                eprintln!("[bot] bad legal list: {e}");
                None
            }
        };
    }

    fn go(&mut self, alg: &mut A, go: &Go, start: Instant) -> (Vec<String>, Option<String>) {
        let legal = match self.legal.take() {
            Some(l) => l,
            None => {
                let mut l = Vec::new();
                self.game.legal_moves(&self.state, &mut l);
                l
            }
        };
        if legal.is_empty() {
            return (vec!["no legal move".into()], None);
        }
        if self.game.to_move(&self.state) != self.seat {
            eprintln!(
                "[bot] asked to move for seat {} but playing seat {}",
                self.game.to_move(&self.state),
                self.seat
            );
        }
        let rng = self.rng.clone();
        let mut ctx = Ctx::new(rng, Clock::from_go(go, start));
        ctx.budget = go.budget;
        let mv = alg.choose(&self.game, &self.state, &legal, &mut ctx);
        // Carry the RNG on, so later moves draw fresh numbers.
        self.rng = ctx.rng;
        (ctx.info, Some(mv.to_string()))
    }
}

/// What a bot binary runs: an algorithm, its seed, and the games it has a
/// heuristic for (another game gets the first legal move).
pub struct Agent<A> {
    /// The algorithm that chooses every move.
    pub alg: A,
    /// The bot's `--seed`, mixed with each game's seed and seat.
    pub seed: u64,
    /// The games it has a heuristic for, by wire name, with how to start a
    /// session of each.
    pub games: Vec<(&'static str, SessionMaker<A>)>,
}

impl<A: Algorithm> Agent<A> {
    /// An agent for every game the bots have a heuristic for.
    pub fn new(alg: A, seed: u64) -> Agent<A> {
        Agent {
            alg,
            seed,
            games: known_games::<A>(),
        }
    }
}

/// Every game the bots have a heuristic ([`Evaluate`]) for, by wire name.
///
/// The one list of games the bots keep: the rest of a game (its rules,
/// notation, parameters) comes from arena-core's registry, but a heuristic
/// is the bots' own knowledge of the game, written in this crate
/// (`dakon.rs`, `latrunculi.rs`), and the searches are monomorphised for
/// it. A registered game without one here is still played, with the
/// referee's first legal move (see [`run`]).
pub fn known_games<A: Algorithm>() -> Vec<(&'static str, SessionMaker<A>)> {
    vec![
        entry::<arena_core::games::dakon::Dakon, A>(),
        entry::<arena_core::games::latrunculi::Latrunculi, A>(),
    ]
}

/// Register `G` in a game list (for tests with their own games).
pub fn entry<G: Evaluate, A: Algorithm>() -> (&'static str, SessionMaker<A>) {
    (G::NAME, session::<G, A>)
}

fn send(out: &mut impl Write, msg: FromBot) -> io::Result<()> {
    writeln!(out, "{msg}")?;
    out.flush()
}

/// Runs the protocol until `quit` or end of input. Lines that do not read
/// as a referee's message are ignored, as protocol.md asks.
pub fn run<A: Algorithm>(
    mut agent: Agent<A>,
    input: impl BufRead,
    mut out: impl Write,
) -> io::Result<()> {
    let mut session: Option<Box<dyn Session<A>>> = None;
    // The referee's last legal list as text: the fallback without a session.
    let mut last_legal: Vec<String> = Vec::new();
    for line in input.lines() {
        let line = line?;
        let start = Instant::now();
        let Ok(msg) = line.parse::<ToBot>() else {
            continue;
        };
        match msg {
            ToBot::Hello => send(&mut out, FromBot::Ready(agent.alg.describe()))?,
            ToBot::NewGame {
                game,
                seat,
                seed,
                params,
            } => {
                session = None;
                let rng_seed = mix_seed(&[agent.seed, seed, seat as u64]);
                match agent.games.iter().find(|(n, _)| *n == game) {
                    Some((_, make)) => match make(&params, seat, rng_seed) {
                        Ok(s) => session = Some(s),
                        Err(e) => eprintln!("[bot] cannot set up {game}: {e}"),
                    },
                    None => {
                        eprintln!("[bot] unknown game `{game}`; will play the first legal move")
                    }
                }
            }
            ToBot::Played { seat, mv } => {
                if let Some(s) = session.as_mut() {
                    s.played(seat, &mv);
                }
            }
            ToBot::Position(text) => {
                if let Some(s) = session.as_mut() {
                    s.position(&text);
                }
            }
            ToBot::Legal(moves) => {
                last_legal = moves.into_owned();
                if let Some(s) = session.as_mut() {
                    let refs: Vec<&str> = last_legal.iter().map(String::as_str).collect();
                    s.legal(&refs);
                }
            }
            ToBot::Go(go) => {
                let (info, mv) = match session.as_mut() {
                    Some(s) => s.go(&mut agent.alg, &go, start),
                    None => (Vec::new(), last_legal.first().cloned()),
                };
                for i in info {
                    send(&mut out, FromBot::Info(i))?;
                }
                match mv {
                    Some(mv) => send(&mut out, FromBot::Move(mv))?,
                    None => eprintln!("[bot] go with no legal move known"),
                }
                last_legal.clear();
            }
            ToBot::GameOver { .. } => session = None,
            // Never sent: these bots do not ask for it in `ready`.
            ToBot::IsReady => send(&mut out, FromBot::ReadyOk)?,
            ToBot::Quit => break,
        }
    }
    Ok(())
}

/// Runs a bot on stdin/stdout: what each binary's `main` does.
pub fn run_stdio<A: Algorithm>(agent: Agent<A>) -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    run(agent, stdin.lock(), stdout.lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabeta::AlphaBeta;
    use arena_core::games::GAMES;

    /// Every registered game (Nim too: the tests build arena-core with it)
    /// gets a legal move from a bot: searched when the bots have its
    /// heuristic, the first legal move otherwise. And the bots know no game
    /// the registry does not.
    #[test]
    fn every_registered_game_gets_a_legal_move() {
        let known = known_games::<AlphaBeta>();
        for (name, _) in &known {
            assert!(
                GAMES.iter().any(|g| g.name == *name),
                "{name} not registered"
            );
        }
        assert!(GAMES.iter().any(|g| g.name == "nim"));
        for g in GAMES {
            let game = g.default_game();
            let params: Vec<String> = game
                .params()
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let state = game.initial_state();
            let legal = state.legal_moves();
            let script = format!(
                "arena 1\nnewgame {} seat=0 seed=1 {}\nposition {state}\nlegal {}\n\
                 go time=- opptime=- inc=0 movetime=200\nquit\n",
                g.name,
                params.join(" "),
                legal.join(" ")
            );
            let mut out = Vec::new();
            run(
                Agent::new(AlphaBeta::new(Some(2)), 7),
                script.as_bytes(),
                &mut out,
            )
            .unwrap();
            let out = String::from_utf8(out).unwrap();
            let mv = out
                .lines()
                .find_map(|l| l.strip_prefix("move "))
                .unwrap_or_else(|| panic!("{}: no move in {out}", g.name));
            assert!(legal.iter().any(|l| l == mv), "{}: {mv} not legal", g.name);
            let searched = out.lines().any(|l| l.starts_with("info "));
            let has_heuristic = known.iter().any(|(n, _)| *n == g.name);
            assert_eq!(searched, has_heuristic, "{}: {out}", g.name);
            if !has_heuristic {
                assert_eq!(mv, legal[0], "{}: the first legal move", g.name);
            }
        }
    }
}
