//! Unpacking an uploaded bot directory (`.tar.gz` or `.zip`) safely, and
//! reading the `arena-bot.toml` at its top.
//!
//! An archive comes from a stranger (docs/design.md's ladder threat model), so
//! [`unpack`] trusts nothing it declares:
//! - sizes are counted as bytes are written, never taken from a header: the
//!   unpacked total stops at `max_unpacked` (a zip or gzip bomb costs at most
//!   that much disk, whatever its headers say);
//! - every entry counts against `max_files` (directories too), every path
//!   against `max_path` (bytes, after `./` and empty components are dropped);
//! - refused: `..` components, absolute paths, backslashes and control
//!   characters in names, names that are not UTF-8, symbolic and hard links,
//!   devices, fifos and sockets, a path given twice (or as both a file and a
//!   directory), encrypted zip entries;
//! - only the owner-executable bit of a file's mode is kept: a file is written
//!   0755 if its owner could execute it, 0644 otherwise; directories 0755
//!   (whatever the umask: a sandboxed bot runs as a user of its own).
//!   Owners, times and extended attributes are not restored.
//!
//! Files are created with `O_EXCL | O_NOFOLLOW` in a directory that
//! [`unpack`] creates itself (and removes again on any error), so nothing in
//! an archive can make it write outside `dest`.
//!
//! # The content address
//! [`Unpacked::sha256`] names what was unpacked, not how it was packed (tar or
//! zip, entry order, directory entries, timestamps, owners): it is the SHA-256,
//! in lower-case hex, of the text that has one line per regular file, sorted by
//! the bytes of its path,
//! ```text
//! <mode> <sha256 of the file's contents, hex> <path>\n
//! ```
//! where `<mode>` is `755` for an executable file and `644` otherwise, and
//! `<path>` is relative, `/`-separated, without a leading `./`. Directories
//! are not part of it (a packer may or may not list them), so two trees that
//! differ only in empty directories have the same address.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use arena::process::LimitSettings as BotLimits;

/// How an upload is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    /// A gzip-compressed tar (`application/gzip`).
    TarGz,
    /// A zip file (`application/zip`); entries stored or deflated.
    Zip,
}

impl ArchiveKind {
    /// The kind an upload's `Content-Type` names (parameters after `;` and
    /// case ignored): `application/gzip` (or `application/x-gzip`,
    /// `application/x-tar+gzip`) and `application/zip` (or
    /// `application/x-zip-compressed`); None for anything else.
    pub fn from_content_type(ct: &str) -> Option<ArchiveKind> {
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match essence.as_str() {
            "application/gzip" | "application/x-gzip" | "application/x-tar+gzip" => {
                Some(ArchiveKind::TarGz)
            }
            "application/zip" | "application/x-zip-compressed" => Some(ArchiveKind::Zip),
            _ => None,
        }
    }
}

/// The bounds of one upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Bytes of the archive as uploaded.
    pub max_compressed: u64,
    /// Bytes of all its files' contents together, counted as written.
    pub max_unpacked: u64,
    /// Entries (files and directories).
    pub max_files: u64,
    /// Bytes of one entry's path.
    pub max_path: usize,
}

impl Default for ArchiveLimits {
    /// 16 MB uploaded, 64 MB unpacked, 10,000 entries, paths of 255 bytes.
    fn default() -> Self {
        ArchiveLimits {
            max_compressed: 16 << 20,
            max_unpacked: 64 << 20,
            max_files: 10_000,
            max_path: 255,
        }
    }
}

/// What [`unpack`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// Regular files.
    pub files: u64,
    /// Bytes of their contents.
    pub bytes: u64,
    /// The content address of the tree (module doc, "The content address").
    pub sha256: String,
}

/// Why an archive was refused. Each message says what, and which entry.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Over `max_compressed` or `max_unpacked`.
    #[error("archive too large: {what} is over the limit of {limit} bytes")]
    TooLarge {
        /// "the upload" or "the unpacked contents".
        what: &'static str,
        /// The limit, bytes.
        limit: u64,
    },
    /// More than `max_files` entries.
    #[error("archive has more than {limit} entries")]
    TooManyFiles {
        /// The limit.
        limit: u64,
    },
    /// A path over `max_path` bytes (its first 100 bytes are shown).
    #[error("path of {len} bytes is longer than the limit of {limit}: `{start}...`")]
    PathTooLong {
        /// Its length, bytes.
        len: usize,
        /// The limit.
        limit: usize,
        /// Its beginning.
        start: String,
    },
    /// A path with `..`, an absolute path, or a name that cannot be a plain
    /// relative path here.
    #[error("unsafe path `{0}`: {1}")]
    UnsafePath(String, &'static str),
    /// A symbolic or hard link.
    #[error("`{0}` is a link: links are not allowed")]
    Link(String),
    /// A device, fifo or socket.
    #[error("`{0}` is a device, fifo or socket: only files and directories are allowed")]
    Device(String),
    /// The same path twice, or a path both a file and a directory.
    #[error("`{0}` appears twice (or both as a file and as a directory)")]
    Duplicate(String),
    /// Not a readable archive of its kind (truncated, bad checksum,
    /// unsupported compression or entry type, encrypted).
    #[error("corrupt or unsupported archive: {0}")]
    Corrupt(String),
    /// Writing the unpacked tree failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// What was being written.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
}

/// Unpacks `bytes` into `dest`, which must not exist (its parent must):
/// [`unpack`] creates it (0755) and, on any error, removes it again. See the module doc for what is
/// refused and for the content address.
pub fn unpack(
    bytes: &[u8],
    kind: ArchiveKind,
    limits: &ArchiveLimits,
    dest: &Path,
) -> Result<Unpacked, ArchiveError> {
    if bytes.len() as u64 > limits.max_compressed {
        return Err(ArchiveError::TooLarge {
            what: "the upload",
            limit: limits.max_compressed,
        });
    }
    make_dir(dest)?;
    let mut tree = Tree {
        dest,
        limits,
        entries: 0,
        bytes: 0,
        paths: HashMap::new(),
        files: Vec::new(),
    };
    let done = match kind {
        ArchiveKind::TarGz => unpack_tar_gz(bytes, &mut tree),
        ArchiveKind::Zip => unpack_zip(bytes, &mut tree),
    };
    match done {
        Ok(()) => Ok(tree.finish()),
        Err(e) => {
            // Only what unpack created, and never a link (none is made).
            let _ = fs::remove_dir_all(dest);
            Err(e)
        }
    }
}

/// What one archive entry is, as far as unpacking cares.
enum Kind {
    File { executable: bool },
    Dir,
}

/// The tree being written, with the counts every bound is checked against.
struct Tree<'a> {
    dest: &'a Path,
    limits: &'a ArchiveLimits,
    entries: u64,
    bytes: u64,
    /// Every path seen: true for a directory.
    paths: HashMap<String, bool>,
    /// (path, executable, sha256 of contents) of each file.
    files: Vec<(String, bool, String)>,
}

impl Tree<'_> {
    /// Counts one more entry against `max_files`.
    fn count(&mut self) -> Result<(), ArchiveError> {
        self.entries += 1;
        if self.entries > self.limits.max_files {
            return Err(ArchiveError::TooManyFiles {
                limit: self.limits.max_files,
            });
        }
        Ok(())
    }

    /// Checks a normalised path's place in the tree: not seen before, no
    /// ancestor of it a file, not an ancestor of a file seen. Records it and
    /// its ancestors (as directories), and makes the directories not made
    /// yet, 0755 whatever the umask (a sandboxed bot runs as another user).
    fn claim(&mut self, path: &str, dir: bool) -> Result<(), ArchiveError> {
        let dup = || ArchiveError::Duplicate(path.to_string());
        let mut new_dirs: Vec<&str> = Vec::new();
        match self.paths.get(path) {
            // A directory may be listed after a file inside it made it.
            Some(true) if dir => {}
            Some(_) => return Err(dup()),
            None => {}
        }
        for (i, _) in path.match_indices('/') {
            match self.paths.get(&path[..i]) {
                Some(false) => return Err(dup()),
                Some(true) => {}
                None => {
                    self.paths.insert(path[..i].to_string(), true);
                    new_dirs.push(&path[..i]);
                }
            }
        }
        if dir && self.paths.insert(path.to_string(), true).is_none() {
            new_dirs.push(path);
        }
        if !dir {
            self.paths.insert(path.to_string(), false);
        }
        for d in new_dirs {
            make_dir(&self.dest.join(d))?;
        }
        Ok(())
    }

    /// Writes one entry; `contents` is read to its end (files only).
    fn add(&mut self, path: &str, kind: Kind, contents: &mut dyn Read) -> Result<(), ArchiveError> {
        let target = self.dest.join(path);
        let io_err = |source| ArchiveError::Io {
            path: target.clone(),
            source,
        };
        match kind {
            Kind::Dir => self.claim(path, true)?,
            Kind::File { executable } => {
                self.claim(path, false)?;
                let mode = if executable { 0o755 } else { 0o644 };
                let mut file = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .custom_flags(nix::libc::O_NOFOLLOW)
                    .open(&target)
                    .map_err(io_err)?;
                let mut hash = Sha256::new();
                let mut buf = vec![0u8; 64 << 10];
                loop {
                    let n = match contents.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(corrupt(path, e)),
                    };
                    self.bytes += n as u64;
                    if self.bytes > self.limits.max_unpacked {
                        return Err(ArchiveError::TooLarge {
                            what: "the unpacked contents",
                            limit: self.limits.max_unpacked,
                        });
                    }
                    hash.update(&buf[..n]);
                    file.write_all(&buf[..n]).map_err(io_err)?;
                }
                // The umask may have taken bits off: set exactly these.
                fs::set_permissions(&target, fs::Permissions::from_mode(mode)).map_err(io_err)?;
                self.files.push((
                    path.to_string(),
                    executable,
                    format!("{:x}", hash.finalize()),
                ));
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Unpacked {
        self.files
            .sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut tree = Sha256::new();
        for (path, executable, sha) in &self.files {
            let mode = if *executable { "755" } else { "644" };
            tree.update(format!("{mode} {sha} {path}\n").as_bytes());
        }
        Unpacked {
            files: self.files.len() as u64,
            bytes: self.bytes,
            sha256: format!("{:x}", tree.finalize()),
        }
    }
}

/// Makes one directory, 0755.
fn make_dir(dir: &Path) -> Result<(), ArchiveError> {
    let io_err = |source| ArchiveError::Io {
        path: dir.to_path_buf(),
        source,
    };
    fs::create_dir(dir).map_err(io_err)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).map_err(io_err)
}

fn corrupt(path: &str, e: impl std::fmt::Display) -> ArchiveError {
    ArchiveError::Corrupt(format!("reading `{path}`: {e}"))
}

/// A printable form of a raw name for messages (control characters escaped).
fn shown(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).escape_debug().to_string()
}

/// The entry name made a plain relative path (`./` and empty components
/// dropped), or why it cannot be one. None: the name is the top itself
/// (`./`), which is skipped.
fn normalize(raw: &[u8], limits: &ArchiveLimits) -> Result<Option<String>, ArchiveError> {
    let unsafe_path = |why| ArchiveError::UnsafePath(shown(raw), why);
    let text = std::str::from_utf8(raw).map_err(|_| unsafe_path("the name is not UTF-8"))?;
    if text.starts_with('/') {
        return Err(unsafe_path("an absolute path"));
    }
    if text.contains('\\') {
        return Err(unsafe_path("a backslash in a name"));
    }
    if text.chars().any(char::is_control) {
        return Err(unsafe_path("a control character in a name"));
    }
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(unsafe_path("a `..` component")),
            p => parts.push(p),
        }
    }
    let path = parts.join("/");
    if path.len() > limits.max_path {
        let mut end = 100.min(path.len());
        while !path.is_char_boundary(end) {
            end -= 1;
        }
        return Err(ArchiveError::PathTooLong {
            len: path.len(),
            limit: limits.max_path,
            start: path[..end].to_string(),
        });
    }
    Ok((!path.is_empty()).then_some(path))
}

fn unpack_tar_gz(bytes: &[u8], tree: &mut Tree) -> Result<(), ArchiveError> {
    use tar::EntryType;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
        let kind = entry.header().entry_type();
        // A pax global header (as `git archive` writes) carries no file.
        if kind == EntryType::XGlobalHeader {
            continue;
        }
        tree.count()?;
        let raw = entry.path_bytes().into_owned();
        let Some(path) = normalize(&raw, tree.limits)? else {
            continue;
        };
        let kind = match kind {
            EntryType::Regular | EntryType::Continuous => {
                let mode = entry
                    .header()
                    .mode()
                    .map_err(|e| corrupt(&path, format!("its mode: {e}")))?;
                Kind::File {
                    executable: mode & 0o100 != 0,
                }
            }
            EntryType::Directory => Kind::Dir,
            EntryType::Symlink | EntryType::Link => return Err(ArchiveError::Link(path)),
            EntryType::Char | EntryType::Block | EntryType::Fifo => {
                return Err(ArchiveError::Device(path))
            }
            other => {
                return Err(corrupt(
                    &path,
                    format!("unsupported tar entry type {:?}", other.as_byte() as char),
                ))
            }
        };
        tree.add(&path, kind, &mut entry)?;
    }
    Ok(())
}

fn unpack_zip(bytes: &[u8], tree: &mut Tree) -> Result<(), ArchiveError> {
    let mut archive = zip::ZipArchive::new(io::Cursor::new(bytes))
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    if archive.len() as u64 > tree.limits.max_files {
        return Err(ArchiveError::TooManyFiles {
            limit: tree.limits.max_files,
        });
    }
    for i in 0..archive.len() {
        let mut file = archive
            .by_index(i)
            .map_err(|e| ArchiveError::Corrupt(format!("entry {i}: {e}")))?;
        tree.count()?;
        let raw = file.name_raw().to_vec();
        let Some(path) = normalize(&raw, tree.limits)? else {
            continue;
        };
        if file.encrypted() {
            return Err(corrupt(&path, "it is encrypted"));
        }
        let mode = file.unix_mode();
        // The file type bits of a zip made on Unix; 0 (none) is a file.
        let kind = match mode.map_or(0, |m| m & 0o170000) {
            0o120000 => return Err(ArchiveError::Link(path)),
            0o040000 => Kind::Dir,
            0 | 0o100000 if file.is_dir() => Kind::Dir,
            0 | 0o100000 => Kind::File {
                executable: mode.is_some_and(|m| m & 0o100 != 0),
            },
            _ => return Err(ArchiveError::Device(path)),
        };
        tree.add(&path, kind, &mut file)?;
    }
    Ok(())
}

/// The name of the manifest at the top of a bot's directory.
pub const MANIFEST: &str = "arena-bot.toml";

/// The manifest's largest size: it is a few lines.
const MANIFEST_MAX_BYTES: u64 = 64 << 10;

/// `arena-bot.toml`, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotManifest {
    /// The command that starts the bot, run in its directory: `command = "./bot"`
    /// (a string is split at whitespace) or `command = ["python3", "bot.py"]`.
    pub command: Vec<String>,
    /// `build = "make"`: a shell command line (`sh -c`) run once in the bot's
    /// directory before it is checked; None: nothing to build.
    pub build: Option<String>,
    /// `[limits]`, with the keys of a tournament's `[bots.limits]`; a key
    /// left out gets the ladder's maximum, a key over it is refused.
    pub limits: BotLimits,
}

/// Why a manifest was refused.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// No `arena-bot.toml` at the top of the directory.
    #[error("{MANIFEST} is missing at the top of the bot's directory (pack its contents, not the directory: `tar -czf bot.tar.gz -C mybot .`)")]
    Missing,
    /// Not a regular file, too large or unreadable.
    #[error("{MANIFEST}: {0}")]
    Unreadable(String),
    /// Not TOML, an unknown key, or a value of the wrong type (the message
    /// names the key).
    #[error("{MANIFEST}: {0}")]
    Parse(String),
    /// A key whose value is not usable.
    #[error("{MANIFEST}: {key}: {reason}")]
    Invalid {
        /// The key, as written (`limits.memory_mb`).
        key: String,
        /// What is wrong and what would be valid.
        reason: String,
    },
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum CommandText {
    Line(String),
    Words(Vec<String>),
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    command: CommandText,
    build: Option<String>,
    #[serde(default)]
    limits: BotLimits,
}

/// Reads and validates `dir/arena-bot.toml`. `maxima` are the ladder's
/// per-bot limits: a manifest's limit must not exceed the maximum of its key
/// (a key without a maximum may be anything but zero), and a key it leaves
/// out gets the maximum.
pub fn read_manifest(dir: &Path, maxima: &BotLimits) -> Result<BotManifest, ManifestError> {
    let path = dir.join(MANIFEST);
    let meta = match fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ManifestError::Missing),
        Err(e) => return Err(ManifestError::Unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return Err(ManifestError::Unreadable("not a regular file".into()));
    }
    if meta.len() > MANIFEST_MAX_BYTES {
        return Err(ManifestError::Unreadable(format!(
            "{} bytes, more than the {MANIFEST_MAX_BYTES} a manifest may have",
            meta.len()
        )));
    }
    let text = fs::read_to_string(&path).map_err(|e| ManifestError::Unreadable(e.to_string()))?;
    parse_manifest(&text, maxima)
}

/// [`read_manifest`] for the manifest's text.
pub fn parse_manifest(text: &str, maxima: &BotLimits) -> Result<BotManifest, ManifestError> {
    let raw: RawManifest =
        toml::from_str(text).map_err(|e| ManifestError::Parse(e.message().to_string()))?;
    let invalid = |key: &str, reason: String| ManifestError::Invalid {
        key: key.to_string(),
        reason,
    };
    let command: Vec<String> = match raw.command {
        CommandText::Line(line) => line.split_whitespace().map(str::to_string).collect(),
        CommandText::Words(words) => words,
    };
    if command.first().is_none_or(|c| c.is_empty()) {
        return Err(invalid(
            "command",
            "empty: give the program to run, e.g. `command = [\"python3\", \"bot.py\"]`".into(),
        ));
    }
    if command.iter().any(|w| w.chars().any(char::is_control)) {
        return Err(invalid("command", "contains a control character".into()));
    }
    if let Some(build) = &raw.build {
        if build.trim().is_empty() {
            return Err(invalid(
                "build",
                "empty: leave the key out for no build".into(),
            ));
        }
        if build.chars().any(|c| c.is_control() && c != '\t') {
            return Err(invalid("build", "contains a control character".into()));
        }
    }
    let limits = within(&raw.limits, maxima).map_err(|(key, reason)| invalid(key, reason))?;
    Ok(BotManifest {
        command,
        build: raw.build,
        limits,
    })
}

/// `asked` with each key at most its maximum, and the keys left out at it;
/// or the first key over its maximum (or zero).
fn within(asked: &BotLimits, maxima: &BotLimits) -> Result<BotLimits, (&'static str, String)> {
    let pick = |key: &'static str, a: Option<u64>, max: Option<u64>| match (a, max) {
        (Some(0), _) => Err((
            key,
            "must be at least 1 (leave it out for the ladder's maximum)".to_string(),
        )),
        (Some(a), Some(max)) if a > max => {
            Err((key, format!("{a} is over the ladder's maximum of {max}")))
        }
        (Some(a), _) => Ok(Some(a)),
        (None, max) => Ok(max),
    };
    Ok(BotLimits {
        memory_mb: pick("limits.memory_mb", asked.memory_mb, maxima.memory_mb)?,
        address_space_mb: pick(
            "limits.address_space_mb",
            asked.address_space_mb,
            maxima.address_space_mb,
        )?,
        cpu_seconds: pick("limits.cpu_seconds", asked.cpu_seconds, maxima.cpu_seconds)?,
        processes: pick("limits.processes", asked.processes, maxima.processes)?,
        open_files: pick("limits.open_files", asked.open_files, maxima.open_files)?,
        file_size_mb: pick(
            "limits.file_size_mb",
            asked.file_size_mb,
            maxima.file_size_mb,
        )?,
        stderr_kb: pick("limits.stderr_kb", asked.stderr_kb, maxima.stderr_kb)?,
        disk_mb: pick("limits.disk_mb", asked.disk_mb, maxima.disk_mb)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert_eq!(
            ArchiveKind::from_content_type("application/gzip"),
            Some(ArchiveKind::TarGz)
        );
        assert_eq!(
            ArchiveKind::from_content_type("Application/ZIP; charset=binary"),
            Some(ArchiveKind::Zip)
        );
        assert_eq!(ArchiveKind::from_content_type("text/plain"), None);
    }

    #[test]
    fn normalize_drops_dots_and_refuses_parents() {
        let l = ArchiveLimits::default();
        assert_eq!(
            normalize(b"./a//b/./c", &l).unwrap().as_deref(),
            Some("a/b/c")
        );
        assert_eq!(normalize(b"./", &l).unwrap(), None);
        assert!(matches!(
            normalize(b"a/../../x", &l),
            Err(ArchiveError::UnsafePath(..))
        ));
        assert!(matches!(
            normalize(b"/etc/x", &l),
            Err(ArchiveError::UnsafePath(..))
        ));
        assert!(matches!(
            normalize(b"a\\b", &l),
            Err(ArchiveError::UnsafePath(..))
        ));
        assert!(matches!(
            normalize(b"a\nb", &l),
            Err(ArchiveError::UnsafePath(..))
        ));
        assert!(matches!(
            normalize(b"\xff", &l),
            Err(ArchiveError::UnsafePath(..))
        ));
    }

    #[test]
    fn manifest_command_forms_and_limits() {
        let max = BotLimits {
            memory_mb: Some(512),
            ..Default::default()
        };
        let m = parse_manifest("command = \"./bot --fast\"", &max).unwrap();
        assert_eq!(m.command, ["./bot", "--fast"]);
        assert_eq!(m.limits.memory_mb, Some(512), "left out: the maximum");
        let m = parse_manifest(
            "command = [\"python3\", \"my bot.py\"]\nbuild = \"make\"\n[limits]\nmemory_mb = 256\ncpu_seconds = 30",
            &max,
        )
        .unwrap();
        assert_eq!(m.command, ["python3", "my bot.py"]);
        assert_eq!(m.build.as_deref(), Some("make"));
        assert_eq!(
            (m.limits.memory_mb, m.limits.cpu_seconds),
            (Some(256), Some(30))
        );

        let e = parse_manifest("command = \"x\"\n[limits]\nmemory_mb = 4096", &max).unwrap_err();
        assert_eq!(
            e.to_string(),
            "arena-bot.toml: limits.memory_mb: 4096 is over the ladder's maximum of 512"
        );
        let e = parse_manifest("command = \"x\"\n[limits]\nprocesses = 0", &max).unwrap_err();
        assert!(
            e.to_string()
                .contains("limits.processes: must be at least 1"),
            "{e}"
        );
        let e = parse_manifest("command = \"x\"\nnetwork = true", &max).unwrap_err();
        assert!(e.to_string().contains("unknown field `network`"), "{e}");
        let e = parse_manifest("command = \"x\"\n[limits]\ngpus = 1", &max).unwrap_err();
        assert!(e.to_string().contains("unknown field `gpus`"), "{e}");
        let e = parse_manifest("command = []", &max).unwrap_err();
        assert!(
            e.to_string().starts_with("arena-bot.toml: command: empty"),
            "{e}"
        );
        let e = parse_manifest("build = \"make\"", &max).unwrap_err();
        assert!(e.to_string().contains("missing field `command`"), "{e}");
    }
}
