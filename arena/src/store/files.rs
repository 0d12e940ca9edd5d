//! Directories and files only arena writes, and bounded reads of what
//! users hand to it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{io_err, StoreError};

/// Makes `dir` a private directory: created mode 0700 (with its missing
/// parents), or, when it exists, checked to be a directory owned by the
/// user running arena and tightened to 0700. A directory of another user
/// is refused: its owner could write forged results into it.
pub fn private_dir(dir: &Path) -> Result<(), StoreError> {
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(parent).map_err(io_err(parent))?;
            }
            match fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_err(dir)(e)),
            }
            check_private(dir, &fs::metadata(dir).map_err(io_err(dir))?)
        }
        Err(e) => Err(io_err(dir)(e)),
        Ok(meta) => check_private(dir, &meta),
    }
}

/// `name` in `dir` as a private directory; a symbolic link there is refused
/// rather than followed.
pub fn private_subdir(dir: &Path, name: &str) -> Result<PathBuf, StoreError> {
    let path = dir.join(name);
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(StoreError::Symlink { path }),
        Ok(m) => check_private(&path, &m).map(|()| path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => private_dir(&path).map(|()| path),
        Err(e) => Err(io_err(&path)(e)),
    }
}

fn check_private(dir: &Path, meta: &fs::Metadata) -> Result<(), StoreError> {
    if !meta.is_dir() {
        return Err(StoreError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(StoreError::NotOurs {
            path: dir.to_path_buf(),
            owner: meta.uid(),
            me,
        });
    }
    if meta.mode() & 0o7777 != 0o700 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_err(dir))?;
    }
    Ok(())
}

/// Options that create a file 0600 and never follow a symbolic link.
pub(super) fn private_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    o
}

/// Opens `path` for writing, private and never through a link: created or
/// emptied, or with `append` appended to (files made again from the
/// records, such as the report's replay blocks).
pub fn create_or_append(path: &Path, append: bool) -> Result<File, StoreError> {
    let mut o = private_options();
    if append {
        o.append(true).create(true);
    } else {
        o.write(true).create(true).truncate(true);
    }
    let f = o.open(path).map_err(io_err(path))?;
    restrict(&f, path)?;
    Ok(f)
}

/// Opens an existing file of the run for appending (never through a link),
/// made 0600 if an older arena left it wider.
pub fn open_append(path: &Path) -> Result<File, StoreError> {
    let f = private_options()
        .append(true)
        .open(path)
        .map_err(io_err(path))?;
    restrict(&f, path)?;
    Ok(f)
}

fn restrict(f: &File, path: &Path) -> Result<(), StoreError> {
    let mode = f.metadata().map_err(io_err(path))?.mode();
    if mode & 0o077 != 0 {
        f.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(io_err(path))?;
    }
    Ok(())
}

/// Makes each of `names` in `dir` that exists 0600 (for files written by
/// code that does not create them private itself).
pub fn restrict_files(dir: &Path, names: &[&str]) -> Result<(), StoreError> {
    for name in names {
        let path = dir.join(name);
        match private_options().read(true).open(&path) {
            Ok(f) => restrict(&f, &path)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&path)(e)),
        }
    }
    Ok(())
}

/// Writes `name` in `dir` through a fresh 0600 temporary file, fsync and
/// rename: readers see the old file or the new one, never half of one.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&tmp)(e)),
    }
    let mut f = private_options()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, &path).map_err(io_err(&path))?;
    sync_dir(dir)
}

/// Fsyncs directory `dir`, so that the files just created or renamed in it
/// survive a crash.
pub fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

// ---------------------------------------------------------------------------
// Reading what users and other machines hand us.

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    /// Not a regular file but what the field names (a FIFO, a device, a
    /// directory): reading one could block or never end.
    #[error("not a regular file (it is a {0}); arena reads only regular files")]
    NotRegular(&'static str),
    /// Bigger than the bound for that kind of file.
    #[error("{size} bytes is too big (at most {max} bytes)")]
    TooBig {
        /// Its size in bytes.
        size: u64,
        /// The most arena reads.
        max: u64,
    },
}

/// The contents of `path`, which must be a regular file (a FIFO or device
/// is refused without being read) of at most `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    check_regular(&fs::metadata(path)?, Some(max))?;
    // O_NONBLOCK: were the file swapped for a FIFO since, opening it must
    // not wait for a writer; the check below then refuses it.
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    check_regular(&f.metadata()?, Some(max))?;
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooBig {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

pub(super) fn check_regular(meta: &fs::Metadata, max: Option<u64>) -> Result<(), ReadError> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if !t.is_file() {
        return Err(ReadError::NotRegular(if t.is_dir() {
            "directory"
        } else if t.is_fifo() {
            "FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "device"
        } else if t.is_socket() {
            "socket"
        } else {
            "special file"
        }));
    }
    match max {
        Some(max) if meta.len() > max => Err(ReadError::TooBig {
            size: meta.len(),
            max,
        }),
        _ => Ok(()),
    }
}

/// Writes `name` in `dir` (made if missing, with its parents) as
/// [`write_atomic`] does: the report files, which `arena ratings --out`
/// and `arena report` may also write outside a run directory.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, StoreError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    write_atomic(dir, name, bytes)?;
    Ok(dir.join(name))
}

/// Appends `bytes` to `file` and syncs it; if that fails (a full disk), the
/// file is cut back to where it was, so that it never ends in half a
/// record (the journal has the games; a resume writes them again).
pub(super) fn append_whole(file: &mut File, bytes: &[u8], path: &Path) -> Result<(), StoreError> {
    let before = file.metadata().map_err(io_err(path))?.len();
    let written = file.write_all(bytes).and_then(|()| file.sync_data());
    if let Err(e) = written {
        let _ = file.set_len(before);
        let _ = file.sync_data();
        return Err(io_err(path)(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_run_directory_is_private_and_an_existing_one_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("a/b/run");
        private_dir(&fresh).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(mode(&fresh), 0o700);
        let open = tmp.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
        private_dir(&open).unwrap();
        assert_eq!(mode(&open), 0o700);
        write_atomic(&open, "x.json", b"{}").unwrap();
        assert_eq!(mode(&open.join("x.json")), 0o600);

        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(private_dir(&file)
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
        std::os::unix::fs::symlink(&file, open.join("logs")).unwrap();
        let e = private_subdir(&open, "logs").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("not root: cannot make a directory of another user");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let theirs = tmp.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(4242), Some(4242)).unwrap();
        let e = private_dir(&theirs).unwrap_err().to_string();
        assert!(e.contains("belongs to uid 4242"), "{e}");
    }

    #[test]
    fn read_bounded_refuses_fifos_devices_and_big_files_without_reading() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Opening a FIFO for reading would wait for a writer: this returns.
        let e = read_bounded(&fifo, 100).unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
        let e = read_bounded(Path::new("/dev/zero"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("device"), "{e}");
        let big = tmp.path().join("big");
        fs::write(&big, vec![b'#'; 101]).unwrap();
        let e = read_bounded(&big, 100).unwrap_err().to_string();
        assert!(e.contains("101 bytes is too big"), "{e}");
        assert_eq!(read_bounded(&big, 101).unwrap().len(), 101);
    }
}
