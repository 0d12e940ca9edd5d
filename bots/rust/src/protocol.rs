//! The bot side of the arena wire protocol, shared by every bot.
//!
//! One message per line; the loop answers `arena 1` with `ready`, keeps its
//! own copy of the game by applying every `played` move (so game states that
//! carry history, like Latrunculi's repetition count, stay exact), checks it
//! against each `position` line (re-parsing it when they disagree), and
//! answers `go` with `info` lines and one `move`.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use arena_core::games::Seat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::algo::{mix_seed, Algorithm, Ctx};
use crate::eval::Evaluate;
use crate::limits::{Clock, Go};

/// One game in progress, for an algorithm `A`, with the game type erased.
pub trait Session<A> {
    fn played(&mut self, seat: Seat, mv: &str);
    fn position(&mut self, text: &str);
    fn legal(&mut self, moves: &[&str]);
    /// Chooses a move; returns the `info` texts and the move, or `None` when
    /// there is nothing to play.
    fn go(&mut self, alg: &mut A, go: &Go, start: Instant) -> (Vec<String>, Option<String>);
}

/// Builds a session from the `newgame` parameters, the seat and an RNG seed.
pub type SessionMaker<A> =
    fn(&[(String, String)], Seat, u64) -> Result<Box<dyn Session<A>>, String>;

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
) -> Result<Box<dyn Session<A>>, String> {
    let game = G::from_params(params).map_err(|e| e.to_string())?;
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
        let mv = alg.choose(&self.game, &self.state, &legal, &mut ctx);
        // Carry the RNG on, so later moves draw fresh numbers.
        self.rng = ctx.rng;
        (ctx.info, Some(mv.to_string()))
    }
}

/// A bot: an algorithm, its seed, and the games it can play.
pub struct Bot<A> {
    pub alg: A,
    pub seed: u64,
    pub games: Vec<(&'static str, SessionMaker<A>)>,
}

impl<A: Algorithm> Bot<A> {
    /// A bot for every game arena's engines implement.
    pub fn new(alg: A, seed: u64) -> Bot<A> {
        Bot {
            alg,
            seed,
            games: known_games::<A>(),
        }
    }
}

/// Every game the bots know, by wire name.
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

fn send(out: &mut impl Write, line: &str) -> io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Runs the protocol until `quit` or end of input.
pub fn run<A: Algorithm>(
    mut bot: Bot<A>,
    input: impl BufRead,
    mut out: impl Write,
) -> io::Result<()> {
    let mut session: Option<Box<dyn Session<A>>> = None;
    // The referee's last legal list as text: the fallback without a session.
    let mut last_legal: Vec<String> = Vec::new();
    for line in input.lines() {
        let line = line?;
        let start = Instant::now();
        let line = line.trim_end_matches('\r');
        let mut tokens = line.split_whitespace();
        let Some(cmd) = tokens.next() else { continue };
        match cmd {
            "arena" => send(&mut out, &format!("ready {}", bot.alg.describe()))?,
            "newgame" => {
                session = None;
                let Some(name) = tokens.next() else {
                    eprintln!("[bot] newgame without a game name");
                    continue;
                };
                let mut seat: Seat = 0;
                let mut seed: u64 = 0;
                let mut params = Vec::new();
                for tok in tokens {
                    match tok.split_once('=') {
                        Some(("seat", v)) => seat = v.parse().unwrap_or(0),
                        Some(("seed", v)) => seed = v.parse().unwrap_or(0),
                        Some((k, v)) => params.push((k.to_string(), v.to_string())),
                        None => eprintln!("[bot] ignoring newgame token `{tok}`"),
                    }
                }
                let rng_seed = mix_seed(&[bot.seed, seed, seat as u64]);
                match bot.games.iter().find(|(n, _)| *n == name) {
                    Some((_, make)) => match make(&params, seat, rng_seed) {
                        Ok(s) => session = Some(s),
                        Err(e) => eprintln!("[bot] cannot set up {name}: {e}"),
                    },
                    None => {
                        eprintln!("[bot] unknown game `{name}`; will play the first legal move")
                    }
                }
            }
            "played" => {
                let seat = tokens.next().and_then(|t| t.parse().ok());
                let mv = tokens.collect::<Vec<_>>().join(" ");
                if let (Some(s), Some(seat)) = (session.as_mut(), seat) {
                    s.played(seat, &mv);
                }
            }
            "position" => {
                let text = tokens.collect::<Vec<_>>().join(" ");
                if let Some(s) = session.as_mut() {
                    s.position(&text);
                }
            }
            "legal" => {
                last_legal = tokens.map(str::to_string).collect();
                if let Some(s) = session.as_mut() {
                    let refs: Vec<&str> = last_legal.iter().map(String::as_str).collect();
                    s.legal(&refs);
                }
            }
            "go" => {
                let go = Go::parse(tokens);
                let (info, mv) = match session.as_mut() {
                    Some(s) => s.go(&mut bot.alg, &go, start),
                    None => (Vec::new(), last_legal.first().cloned()),
                };
                for i in info {
                    send(&mut out, &format!("info {i}"))?;
                }
                match mv {
                    Some(mv) => send(&mut out, &format!("move {mv}"))?,
                    None => eprintln!("[bot] go with no legal move known"),
                }
                last_legal.clear();
            }
            "gameover" => session = None,
            "quit" => break,
            _ => {}
        }
    }
    Ok(())
}

/// Runs a bot on stdin/stdout: what each binary's `main` does.
pub fn run_stdio<A: Algorithm>(bot: Bot<A>) -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    run(bot, stdin.lock(), stdout.lock())
}
