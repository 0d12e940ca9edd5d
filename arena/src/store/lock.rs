//! The lock of a run directory.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::files::{private_dir, private_options};
use super::{io_err, StoreError, LOCK};

/// The lock of a run directory: held while a process runs (or merges) in
/// it, so that two never write the same directory at once; released when
/// dropped (or when the process dies).
pub struct RunLock {
    _lock: nix::fcntl::Flock<File>,
    path: PathBuf,
    created: bool,
}

impl RunLock {
    /// Makes `dir` private ([`private_dir`]) and takes its lock.
    pub fn acquire(dir: &Path) -> Result<RunLock, StoreError> {
        private_dir(dir)?;
        let path = dir.join(LOCK);
        let (file, created) = match private_options().write(true).create_new(true).open(&path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => (
                private_options()
                    .write(true)
                    .open(&path)
                    .map_err(io_err(&path))?,
                false,
            ),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let lock = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
            .map_err(|(_, errno)| {
                if errno == nix::errno::Errno::EWOULDBLOCK {
                    StoreError::Locked {
                        dir: dir.to_path_buf(),
                        lock: path.clone(),
                    }
                } else {
                    io_err(&path)(errno.into())
                }
            });
        let lock = match lock {
            Ok(l) => l,
            Err(e) => {
                if created {
                    let _ = fs::remove_file(&path);
                }
                return Err(e);
            }
        };
        Ok(RunLock {
            _lock: lock,
            path,
            created,
        })
    }

    /// Gives the lock up for a directory that was refused: a lock file this
    /// process created goes too, so a refusal leaves the directory as it was.
    pub fn refused(self) {
        if self.created {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_of_a_refused_directory_goes() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = RunLock::acquire(tmp.path()).unwrap();
        assert!(tmp.path().join(LOCK).exists());
        let e = RunLock::acquire(tmp.path()).err().unwrap().to_string();
        assert!(e.contains("another arena is running"), "{e}");
        lock.refused();
        assert!(!tmp.path().join(LOCK).exists());
        // A lock file that was there before stays.
        fs::write(tmp.path().join(LOCK), "").unwrap();
        RunLock::acquire(tmp.path()).unwrap().refused();
        assert!(tmp.path().join(LOCK).exists());
    }
}
