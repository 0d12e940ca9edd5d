//! A minimal referee for tests: spawns a bot binary and plays whole games
//! against an in-process random mover over the wire protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use arena_core::games::{Game, Seat};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub struct BotProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Collects the bot's stderr (its warnings are for the tests to check,
    /// not for the terminal); `None` once [`BotProcess::quit`] took it.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl BotProcess {
    pub fn spawn(path: &str, args: &[&str]) -> BotProcess {
        let mut child = Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {path}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        });
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        BotProcess {
            child,
            stdin,
            lines,
            stderr: Some(stderr),
        }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line, within `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> String {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {timeout:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("bot closed its output"),
        }
    }

    /// Sends `go ...` and waits for `move`; returns the move, the `info`
    /// lines and the time from sending `go` to reading `move`.
    pub fn go(&mut self, go: &str, timeout: Duration) -> (String, Vec<String>, Duration) {
        let start = Instant::now();
        self.send(go);
        let mut infos = Vec::new();
        loop {
            let line = self.recv(timeout);
            if let Some(mv) = line.strip_prefix("move ") {
                return (mv.to_string(), infos, start.elapsed());
            }
            assert!(line.starts_with("info "), "unexpected line `{line}`");
            infos.push(line);
        }
    }

    /// Sends `quit` and checks the process exits promptly and cleanly;
    /// returns what it wrote to stderr.
    pub fn quit(mut self) -> String {
        self.send("quit");
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "bot exited with {status}");
                let stderr = self.stderr.take().expect("quit once");
                return stderr.join().expect("the stderr reader does not panic");
            }
            if start.elapsed() > Duration::from_secs(2) {
                let _ = self.child.kill();
                panic!("bot did not exit after quit");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for BotProcess {
    /// A test that failed before `quit`: stop the bot and show its stderr
    /// (the harness prints it with the failure only).
    fn drop(&mut self) {
        if let Some(stderr) = self.stderr.take() {
            let _ = self.child.kill();
            let _ = self.child.wait();
            if let Ok(text) = stderr.join() {
                if !text.is_empty() {
                    eprintln!("the bot's stderr:\n{text}");
                }
            }
        }
    }
}

/// What one game over the wire looked like.
pub struct WireGame {
    pub plies: usize,
    pub bot_moves: usize,
    /// Latencies of the bot's answers (go sent to move read).
    pub latencies: Vec<Duration>,
    pub infos: usize,
    pub finished: bool,
}

/// Plays `game` with the bot in `seat` against seeded random moves, for at
/// most `max_plies` plies (`usize::MAX`: to the end), checking every bot move
/// is legal. `go` is the text of each go line; a `{time}` in it is replaced
/// by what is left of a `clock_ms` game clock (the bot's answers are
/// charged to it).
pub fn play_over_wire<G: Game>(
    bot: &mut BotProcess,
    game: &G,
    seat: Seat,
    seed: u64,
    go: &str,
    clock_ms: u64,
    max_plies: usize,
) -> WireGame {
    let mut used = Duration::ZERO;
    let params: Vec<String> = game
        .params()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    bot.send(&format!(
        "newgame {} seat={seat} seed={seed} {}",
        G::NAME,
        params.join(" ")
    ));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    let mut out = WireGame {
        plies: 0,
        bot_moves: 0,
        latencies: Vec::new(),
        infos: 0,
        finished: false,
    };
    while out.plies < max_plies {
        game.legal_moves(&state, &mut legal);
        if legal.is_empty() {
            out.finished = true;
            break;
        }
        let mover = game.to_move(&state);
        let mv = if mover == seat {
            bot.send(&format!("position {state}"));
            let texts: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
            bot.send(&format!("legal {}", texts.join(" ")));
            let left = (clock_ms as u128).saturating_sub(used.as_millis());
            let line = go.replace("{time}", &left.to_string());
            let (text, infos, took) = bot.go(&line, Duration::from_secs(10));
            used += took;
            assert!(
                texts.contains(&text),
                "{}: illegal move `{text}` in `{state}`",
                G::NAME
            );
            out.bot_moves += 1;
            out.infos += infos.len();
            out.latencies.push(took);
            game.parse_move(&text).unwrap()
        } else {
            legal[rng.random_range(0..legal.len())].clone()
        };
        game.apply(&mut state, &mv);
        out.plies += 1;
        bot.send(&format!("played {mover} {mv}"));
    }
    let result = match game.outcome(&state) {
        Some(o) if o.winner == Some(seat) => "win",
        Some(o) if o.winner.is_some() => "loss",
        _ => "draw",
    };
    bot.send(&format!("gameover {result} test"));
    out
}
