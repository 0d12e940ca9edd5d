//! Reading a bot's output line by line, without buffering more than two
//! maximal lines whatever the bot sends.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

use arena_core::protocol::{self, MAX_LINE};

/// Why no line could be read.
#[derive(Debug)]
pub enum LineReadError {
    /// End of output; `partial` holds bytes of an unfinished last line.
    Eof {
        /// How many bytes of an unfinished last line were left (0: the output
        /// ended on a newline).
        partial: usize,
    },
    /// More than [`MAX_LINE`] bytes without a newline (the start of it).
    TooLong(String),
    /// More bytes than allowed (see [`LineReader::flood_at`]).
    Flood,
    /// Reading the pipe failed.
    Io(io::Error),
}

/// Reads `\n`-terminated lines with a fixed buffer: never holds more than
/// about two maximal lines, so a bot flooding without newlines cannot make
/// the referee buffer without bound. Cancel-safe: a cancelled
/// [`LineReader::next_line`] loses nothing.
pub struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Bytes in `buf[start..scanned]` hold no newline.
    scanned: usize,
    /// Every byte returned or consumed so far (lines with their newlines).
    pub consumed: u64,
    /// Returning a line that takes `consumed` past this is a [`LineReadError::Flood`].
    pub flood_at: u64,
}

const READ_BUF: usize = 2 * (MAX_LINE + 2);

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of `inner` with an empty buffer and no flood limit.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: vec![0; READ_BUF].into_boxed_slice(),
            start: 0,
            end: 0,
            scanned: 0,
            consumed: 0,
            flood_at: u64::MAX,
        }
    }

    /// A complete line already in the buffer, without its `\n`.
    fn buffered_line(&mut self) -> Option<Result<(usize, usize), LineReadError>> {
        let from = self.scanned.max(self.start);
        match memchr(b'\n', &self.buf[from..self.end]) {
            Some(i) => {
                let (s, e) = (self.start, from + i);
                if self.consumed + (e + 1 - s) as u64 > self.flood_at {
                    return Some(Err(LineReadError::Flood));
                }
                self.start = e + 1;
                self.scanned = self.start;
                self.consumed += (e + 1 - s) as u64;
                Some(Ok((s, e)))
            }
            None => {
                self.scanned = self.end;
                if self.end - self.start > MAX_LINE + 1 {
                    let shown = protocol::show_bytes(&self.buf[self.start..self.end]);
                    Some(Err(LineReadError::TooLong(shown)))
                } else {
                    None
                }
            }
        }
    }

    /// The next line, without its `\n` (a `\r` is left for the parser).
    pub async fn next_line(&mut self) -> Result<&[u8], LineReadError> {
        loop {
            match self.buffered_line() {
                Some(Ok((s, e))) => return Ok(&self.buf[s..e]),
                Some(Err(err)) => return Err(err),
                None => {}
            }
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
                self.scanned = 0;
            } else if self.end == self.buf.len() || self.start > self.buf.len() / 2 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.scanned -= self.start;
                self.start = 0;
            }
            let n = match self.inner.read(&mut self.buf[self.end..]).await {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineReadError::Io(e)),
            };
            if n == 0 {
                return Err(LineReadError::Eof {
                    partial: self.end - self.start,
                });
            }
            self.end += n;
        }
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn line_reader_splits_caps_and_reports_eof() {
        let data: &[u8] = b"one\r\ntwo\n\nthree";
        let mut r = LineReader::new(data);
        assert_eq!(r.next_line().await.unwrap(), b"one\r");
        assert_eq!(r.next_line().await.unwrap(), b"two");
        assert_eq!(r.next_line().await.unwrap(), b"");
        assert!(matches!(
            r.next_line().await,
            Err(LineReadError::Eof { partial: 5 })
        ));

        let mut big = vec![b'a'; MAX_LINE];
        big.push(b'\n');
        big.extend(vec![b'b'; 3 * MAX_LINE]);
        let mut r = LineReader::new(&big[..]);
        assert_eq!(r.next_line().await.unwrap().len(), MAX_LINE);
        assert!(matches!(
            r.next_line().await,
            Err(LineReadError::TooLong(_))
        ));
    }

    #[tokio::test]
    async fn line_reader_handles_many_small_lines_across_refills() {
        let mut data = Vec::new();
        for i in 0..50_000 {
            data.extend(format!("info {i}\n").as_bytes());
        }
        let mut r = LineReader::new(&data[..]);
        for i in 0..50_000 {
            assert_eq!(r.next_line().await.unwrap(), format!("info {i}").as_bytes());
        }
        assert_eq!(r.consumed, data.len() as u64);
    }
}
