//! `arena bot-first` (hidden): a built-in bot that plays the first legal
//! move at once, for benchmarks and tests.

use std::io::{BufRead, Write};

use super::Error;

/// Answers `go` with the first move of the last `legal` line: plain blocking
/// I/O, a flush per answer.
pub fn run() -> Result<(), Error> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    let mut first = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(_) => {}
        }
        let text = line.trim_end();
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let reply = match word {
            "arena" => Some(format_args!("ready arena-first\n").to_string()),
            "legal" => {
                first.clear();
                first.push_str(rest.split(' ').next().unwrap_or(""));
                None
            }
            "go" => Some(format!("move {first}\n")),
            "quit" => return Ok(()),
            _ => None,
        };
        if let Some(reply) = reply {
            if out
                .write_all(reply.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return Ok(());
            }
        }
    }
}
