//! The conversation with one bot, both ways, as it happened (`transcript =
//! true`, `--transcript`): each line the referee wrote (`>`) and each line
//! the bot wrote on stdout (`<`), with the time since the transcript
//! started. Kept in memory, bounded like a stderr log, until the game's end
//! takes it; what does not fit is counted, not kept.

use std::io::Write as _;
use std::time::Instant;

/// One bot's transcript in progress.
#[derive(Debug)]
pub struct Transcript {
    since: Instant,
    text: Vec<u8>,
    cap: u64,
    dropped: u64,
}

/// Which way a line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Referee to bot (`>`).
    ToBot,
    /// Bot to referee (`<`).
    FromBot,
}

impl Transcript {
    /// An empty transcript that keeps at most `cap` bytes.
    pub fn new(cap: u64) -> Self {
        Transcript {
            since: Instant::now(),
            text: Vec::new(),
            cap,
            dropped: 0,
        }
    }

    /// Adds one line (without its `\n`), as it went, timed now: `12.345 >
    /// go ...`, milliseconds since the transcript started.
    pub fn line(&mut self, way: Way, line: &[u8]) {
        let ms = self.since.elapsed().as_secs_f64() * 1e3;
        let arrow = match way {
            Way::ToBot => '>',
            Way::FromBot => '<',
        };
        let head = format!("{ms:.3} {arrow} ");
        if (self.text.len() + head.len() + line.len() + 1) as u64 > self.cap {
            self.dropped += 1;
            return;
        }
        self.text.extend_from_slice(head.as_bytes());
        self.text.extend_from_slice(line);
        self.text.push(b'\n');
    }

    /// Adds every line of what the referee writes in one write.
    pub fn written(&mut self, bytes: &[u8]) {
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.line(Way::ToBot, line);
        }
    }

    /// The text so far, with a last line saying how many lines did not
    /// fit; the transcript starts again, empty, its clock at 0.
    pub fn take(&mut self) -> Vec<u8> {
        let mut text = std::mem::take(&mut self.text);
        if self.dropped > 0 {
            let _ = writeln!(
                text,
                "[arena: {} more lines not kept: the transcript is bounded to {} bytes]",
                self.dropped, self.cap
            );
        }
        self.dropped = 0;
        self.since = Instant::now();
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_go_each_way_timed_and_bounded() {
        let mut t = Transcript::new(50);
        t.written(b"position x\nlegal a b\ngo movetime=10\n");
        t.line(Way::FromBot, b"move a");
        let text = String::from_utf8(t.take()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // 50 bytes hold the first two lines (about 20 bytes each) only.
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].ends_with(" > position x"), "{text}");
        assert!(lines[1].ends_with(" > legal a b"), "{text}");
        assert!(lines[2].contains("2 more lines not kept"), "{text}");
        let ms: f64 = lines[0].split(' ').next().unwrap().parse().unwrap();
        assert!(ms >= 0.0);
        // Taken, it starts again.
        t.line(Way::FromBot, b"move b");
        assert!(String::from_utf8(t.take())
            .unwrap()
            .ends_with(" < move b\n"));
    }
}
