//! A bot's stderr: drained at once, kept up to a cap in a log file that is
//! created new and never through a link.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

/// Where a bot's stderr goes: a file, capped; bytes beyond the cap (or with
/// no file) are read and dropped so the bot never blocks on stderr. The file
/// is created at the first byte: most bots write nothing, and creating two
/// empty files per game was a fifth of a fast tournament's CPU time.
///
/// A bot may have planted a link where its log will be: the file is made
/// new (`O_EXCL`), never through a link (`O_NOFOLLOW`, in a directory
/// opened without following links), mode 0600.
#[derive(Debug, Default)]
pub(super) struct LogSink {
    pub(super) path: Option<PathBuf>,
    pub(super) file: Option<std::fs::File>,
    pub(super) written: u64,
    pub(super) cap: u64,
    pub(super) noted: bool,
}

/// Opens the directory of `path` (made if missing, mode 0700) without
/// following a link, and gives the file's name in it.
fn log_dir(path: &Path) -> io::Result<(std::os::fd::OwnedFd, &std::ffi::OsStr)> {
    use nix::fcntl::{open, OFlag};
    use std::os::unix::fs::DirBuilderExt as _;
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file path",
        ));
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let flags = OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_RDONLY;
    let fd = open(dir, flags, nix::sys::stat::Mode::empty())?;
    Ok((fd, name))
}

/// Removes the file at `path` (never what a link there points to).
pub(super) fn remove_log(path: &Path) {
    if let Ok((dir, name)) = log_dir(path) {
        let _ = nix::unistd::unlinkat(&dir, name, nix::unistd::UnlinkatFlags::NoRemoveDir);
    }
}

/// Creates the log file at `path`: new, mode 0600, never through a link.
fn create_log(path: &Path) -> io::Result<std::fs::File> {
    use nix::fcntl::{openat, OFlag};
    let (dir, name) = log_dir(path)?;
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mode = nix::sys::stat::Mode::from_bits_truncate(0o600);
    let fd = openat(&dir, name, flags, mode)?;
    Ok(std::fs::File::from(fd))
}

impl LogSink {
    fn write(&mut self, data: &[u8]) {
        if self.file.is_none() {
            let Some(path) = &self.path else { return };
            match create_log(path) {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    self.path = None;
                    return;
                }
            }
        }
        let file = self.file.as_mut().expect("created above");
        let room = self.cap.saturating_sub(self.written);
        let take = (data.len() as u64).min(room) as usize;
        if take > 0 && file.write_all(&data[..take]).is_ok() {
            self.written += take as u64;
        }
        if take < data.len() && !self.noted {
            self.noted = true;
            let _ = writeln!(
                file,
                "\n[arena: log capped at {} bytes; the rest was discarded]",
                self.cap
            );
        }
    }
}

pub(super) fn spawn_drain(mut stderr: pipe::Receiver, sink: Arc<Mutex<LogSink>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .write(&buf[..n]),
            }
        }
    })
}
