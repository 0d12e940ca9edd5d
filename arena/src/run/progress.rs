//! Progress on stderr while a run plays: a bar with ETA and live standings
//! on a terminal, a plain line every few seconds otherwise, nothing with
//! `--quiet`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use crate::standings::Standings;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar on a terminal, plain periodic lines otherwise.
    Auto,
    /// Plain lines every `every`.
    Plain,
    /// Nothing (`--quiet`).
    Quiet,
}

/// Progress on stderr: a bar with ETA and live standings on a terminal, a
/// plain line every few seconds otherwise, nothing with `--quiet`.
pub(super) struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: Option<std::sync::Mutex<(Instant, Instant)>>,
    name: String,
    total: u64,
    already: u64,
}

const PLAIN_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    pub(super) fn new(mode: ProgressMode, name: &str, total: u64, already: u64) -> Self {
        let tty = std::io::stderr().is_terminal();
        let (bar, plain) = match mode {
            ProgressMode::Quiet => (None, None),
            ProgressMode::Auto if tty => {
                let bar = indicatif::ProgressBar::new(total);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{prefix} [{bar:30}] {pos}/{len} games, {elapsed} elapsed, ETA {eta}\n  {wide_msg}",
                    )
                    .expect("valid template")
                    .progress_chars("=> "),
                );
                bar.set_prefix(name.to_string());
                bar.set_position(already);
                bar.reset_eta();
                (Some(bar), None)
            }
            _ => {
                let now = Instant::now();
                (None, Some(std::sync::Mutex::new((now, now))))
            }
        };
        Progress {
            bar,
            plain,
            name: name.to_string(),
            total,
            already,
        }
    }

    pub(super) fn update(&self, done: u64, standings: &Standings) {
        if let Some(bar) = &self.bar {
            bar.set_message(standings.one_line());
            bar.set_position(done);
        }
        if let Some(plain) = &self.plain {
            let mut times = plain.lock().expect("progress lock");
            let now = Instant::now();
            if done == self.already
                || (now.duration_since(times.1) < PLAIN_EVERY && done < self.total)
            {
                return;
            }
            times.1 = now;
            let played = done - self.already;
            let eta = if played > 0 {
                let per = now.duration_since(times.0).as_secs_f64() / played as f64;
                format!(", ETA {:.0}s", per * (self.total - done) as f64)
            } else {
                String::new()
            };
            eprintln!(
                "[{}] {done}/{} games{eta}; {}",
                self.name,
                self.total,
                standings.one_line()
            );
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
