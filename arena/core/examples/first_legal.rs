//! A complete arena bot on arena-core: it plays the first legal move.
//!
//!     cargo build -p arena-core --example first_legal
//!     arena check-bot --game dakon -- target/debug/examples/first_legal

use std::io::{BufRead, Write};

use arena_core::{FromBot, ToBot};

fn bot(input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut legal = Vec::new();
    for line in input.lines() {
        match line?.parse::<ToBot>() {
            Ok(ToBot::Hello) => writeln!(out, "{}", FromBot::Ready("first-legal".into()))?,
            Ok(ToBot::Legal(moves)) => legal = moves.into_owned(),
            Ok(ToBot::Go(_)) => writeln!(out, "{}", FromBot::Move(legal[0].clone()))?,
            Ok(ToBot::Quit) => break,
            _ => {} // newgame, played, position, gameover; unknown lines
        }
        out.flush()?;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    bot(std::io::stdin().lock(), std::io::stdout().lock())
}
