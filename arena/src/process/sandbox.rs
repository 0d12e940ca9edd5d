//! The sandbox: each bot under bubblewrap (`bwrap`), seeing only what it
//! needs to run.
//!
//! Inside, a bot sees the system directories read-only (`/usr`, `/etc`,
//! `/opt`...), its program directory read-only at its own path, what its
//! command resolves to when that lives elsewhere (an interpreter under a
//! home directory: pyenv, nvm, conda, rustup), a fresh `/proc` and `/dev`,
//! and a private `/tmp` (also its `HOME`, `TMPDIR` and working directory,
//! with the program directory's entries linked into it so that relative
//! paths work) and `/dev/shm`, tmpfs of a bounded size. Nothing else: not
//! the run directory (masked where it lies inside a visible directory), not
//! other bots' files, not home directories. It has its own PID, IPC, UTS,
//! network and cgroup namespaces, no capabilities, no new privileges, and
//! dies with the referee.
//!
//! When arena runs as root, bubblewrap runs as root (so that it can mount
//! directories only root may enter) and the bot drops to a uid of its own
//! with `setpriv` before it starts. Otherwise bubblewrap runs unprivileged,
//! in a user namespace, and the bot keeps arena's uid.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::spec::Build;

/// How a bot is confined beyond its resource limits (the `sandbox` key of a
/// config, `--sandbox` on the command line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sandbox {
    /// `bwrap` where it works here, otherwise `none` with a warning.
    #[default]
    Auto,
    /// Under bubblewrap; a run stops before any game if it cannot be set up.
    Bwrap,
    /// A plain child process, for bots you trust.
    None,
}

/// A `--sandbox` value that is none of the settings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox `{0}` (auto, bwrap or none)")]
pub struct UnknownSandbox(pub String);

impl std::str::FromStr for Sandbox {
    type Err = UnknownSandbox;
    fn from_str(s: &str) -> Result<Self, UnknownSandbox> {
        match s {
            "auto" => Ok(Sandbox::Auto),
            "bwrap" => Ok(Sandbox::Bwrap),
            "none" => Ok(Sandbox::None),
            _ => Err(UnknownSandbox(s.to_string())),
        }
    }
}

/// Why bubblewrap cannot confine bots here.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Unusable {
    #[error("bwrap is not on PATH (Debian/Ubuntu: apt install bubblewrap)")]
    NoBwrap,
    /// arena runs as root and needs setpriv to drop to a bot's uid.
    #[error("setpriv is not on PATH (it is in util-linux)")]
    NoSetpriv,
    #[error("bwrap cannot be run: {0}")]
    CannotRun(Arc<io::Error>),
    /// bwrap ran `true` and failed: its exit status and last stderr line.
    #[error("bwrap failed ({status}): {message}")]
    Failed {
        status: std::process::ExitStatus,
        message: String,
    },
}

/// `sandbox = "bwrap"` was asked for and cannot be set up.
#[derive(Clone, Debug, thiserror::Error)]
#[error("sandbox = \"bwrap\" cannot be set up: {0}")]
pub struct SandboxError(pub Unusable);

impl std::fmt::Display for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sandbox::Auto => "auto",
            Sandbox::Bwrap => "bwrap",
            Sandbox::None => "none",
        })
    }
}

/// What a run does for a bot whose setting is `setting`: `Bwrap` or `None`,
/// with a warning when `auto` falls back to no sandbox; an error when
/// `bwrap` was asked for and cannot be set up (it names what is missing).
pub fn resolve(setting: Sandbox) -> Result<(Sandbox, Option<String>), SandboxError> {
    if setting == Sandbox::None {
        return Ok((Sandbox::None, None));
    }
    match (setting, usable()) {
        (_, Ok(())) => Ok((Sandbox::Bwrap, None)),
        (Sandbox::Auto, Err(why)) => Ok((
            Sandbox::None,
            Some(format!(
                "bots run WITHOUT a sandbox: {why}. Only run bots you trust \
                 (set sandbox = \"none\" to say so, or install bubblewrap)"
            )),
        )),
        (_, Err(why)) => Err(SandboxError(why)),
    }
}

/// Whether bubblewrap works here as arena would use it (tried once, for
/// real, on `true`).
pub fn usable() -> Result<(), Unusable> {
    static PROBE: OnceLock<Result<(), Unusable>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

fn probe() -> Result<(), Unusable> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| super::SAFE_PATH.into());
    let Some(bwrap) = find_on_path("bwrap".as_ref(), &path) else {
        return Err(Unusable::NoBwrap);
    };
    let root = nix::unistd::geteuid().is_root();
    if root && find_on_path("setpriv".as_ref(), &path).is_none() {
        return Err(Unusable::NoSetpriv);
    }
    let lease = if root {
        Some(super::uids::lease().map_err(|e| Unusable::CannotRun(Arc::new(e)))?)
    } else {
        None
    };
    let uid = lease.as_ref().map(super::uids::BotUid::get);
    let plan = BwrapPlan::new(
        &["true".into()],
        Path::new("/"),
        super::limits::DEFAULT_DISK_BYTES,
        &[],
        uid,
        &path,
        None,
    );
    let out = std::process::Command::new(bwrap)
        .args(&plan.args)
        .env_clear()
        .env("PATH", &path)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Unusable::CannotRun(Arc::new(e)))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(Unusable::Failed {
            status: out.status,
            message: err
                .trim()
                .lines()
                .last()
                .unwrap_or("no message")
                .to_string(),
        })
    }
}

/// Top-level directories a sandboxed bot sees read-only (where they exist).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
];

/// bubblewrap's arguments for one bot, and what it will see.
#[derive(Clone, Debug, Default)]
pub struct BwrapPlan {
    pub args: Vec<OsString>,
    /// Directories outside the system ones the bot sees, read-only.
    pub extra: Vec<PathBuf>,
    /// Environment the bot needs for what was mounted (e.g. RUSTUP_HOME).
    pub env: Vec<(String, PathBuf)>,
}

impl BwrapPlan {
    /// The sandbox for `command` (argv, as the config gives it) whose
    /// program directory is `program_dir`, writing at most `tmp_bytes` to
    /// its `/tmp` (and as much to `/dev/shm`); `hide` lists paths it must
    /// not see even inside a visible directory (the run directory); `uid`
    /// is the uid to drop to when bubblewrap runs as root; `path` is the
    /// `PATH` the bot gets; `build` makes it a build's sandbox instead (the
    /// program directory writable and its working directory, the network
    /// shared if allowed).
    pub fn new(
        command: &[String],
        program_dir: &Path,
        tmp_bytes: u64,
        hide: &[PathBuf],
        uid: Option<u32>,
        path: &OsStr,
        build: Option<&Build>,
    ) -> BwrapPlan {
        let network = build.is_some_and(|b| b.network);
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |words: &[&OsStr]| a.extend(words.iter().map(|w| w.to_os_string()));
        if uid.is_some() {
            // Privileged bubblewrap: no user namespace, the bot drops to
            // `uid` itself (setpriv needs these three capabilities for that).
            push(&[
                "--unshare-ipc".as_ref(),
                "--unshare-pid".as_ref(),
                "--unshare-uts".as_ref(),
                "--unshare-cgroup-try".as_ref(),
                "--cap-drop".as_ref(),
                "ALL".as_ref(),
                "--cap-add".as_ref(),
                "CAP_SETUID".as_ref(),
                "--cap-add".as_ref(),
                "CAP_SETGID".as_ref(),
                "--cap-add".as_ref(),
                "CAP_SETPCAP".as_ref(),
            ]);
            if !network {
                push(&["--unshare-net".as_ref()]);
            }
        } else {
            // No user namespaces inside: the kernel's most attacked surface.
            push(&[
                "--unshare-all".as_ref(),
                "--unshare-user".as_ref(),
                "--disable-userns".as_ref(),
                "--cap-drop".as_ref(),
                "ALL".as_ref(),
            ]);
            if network {
                push(&["--share-net".as_ref()]);
            }
        }
        // The bot is PID 1 of its namespace: when it exits, everything it
        // started there dies with it.
        push(&["--die-with-parent".as_ref(), "--as-pid-1".as_ref()]);
        let mut visible: Vec<PathBuf> = Vec::new();
        for dir in SYSTEM {
            let p = Path::new(dir);
            match fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = fs::read_link(p) {
                        push(&["--symlink".as_ref(), target.as_os_str(), p.as_os_str()]);
                    }
                }
                Ok(m) if m.is_dir() => {
                    push(&["--ro-bind".as_ref(), p.as_os_str(), p.as_os_str()]);
                    visible.push(p.to_path_buf());
                }
                _ => {}
            }
        }
        // Its writable directories are tmpfs of a bounded size, fresh for
        // each bot process and gone with it: a bot cannot fill the disk, nor
        // (unprivileged, where /dev/shm would be bubblewrap's /dev, as large
        // as half the memory) the memory.
        let size = tmp_bytes.to_string();
        push(&[
            "--proc".as_ref(),
            "/proc".as_ref(),
            "--dev".as_ref(),
            "/dev".as_ref(),
        ]);
        for dir in ["/dev/shm", "/tmp"] {
            push(&[
                "--perms".as_ref(),
                "1777".as_ref(),
                "--size".as_ref(),
                size.as_ref(),
                "--tmpfs".as_ref(),
                dir.as_ref(),
            ]);
        }
        let mut plan = BwrapPlan::default();
        let mut wanted = vec![program_dir.to_path_buf()];
        for root in interpreter_roots(command, program_dir, path, &mut plan.env) {
            wanted.push(root);
        }
        let mut made: Vec<PathBuf> = Vec::new();
        // Each where it really is, and also where the command names it
        // (through a link, or with `..`), so that both paths work inside.
        let places: Vec<(PathBuf, PathBuf)> = wanted
            .into_iter()
            .flat_map(|dir| {
                let real = fs::canonicalize(&dir).unwrap_or_else(|_| lexical(&dir));
                let named = lexical(&dir);
                let mut both = vec![(real.clone(), real.clone())];
                if named != real {
                    both.push((real, named));
                }
                both
            })
            .collect();
        let boxes = box_root_of(std::process::id());
        let program_real = fs::canonicalize(program_dir).unwrap_or_else(|_| lexical(program_dir));
        for (source, dir) in places {
            // `/`, or a directory that holds the private ones of unsandboxed
            // bots, would show everything or other bots' files: not mounted.
            let writable = build.is_some() && dir == program_real;
            if boxes.starts_with(&dir) || (!writable && visible.iter().any(|v| dir.starts_with(v)))
            {
                continue;
            }
            // bubblewrap makes a missing parent 0700 (or with the mode of the
            // original, /root's 0700): make them traversable for the bot.
            if let Some(parent) = dir.parent() {
                for anc in dirs_to_make(parent, &mut made, &visible) {
                    push(&[
                        "--perms".as_ref(),
                        "0755".as_ref(),
                        "--dir".as_ref(),
                        anc.as_os_str(),
                    ]);
                }
            }
            // A build writes its program directory (and only that).
            let bind = if writable { "--bind" } else { "--ro-bind" };
            push(&[bind.as_ref(), source.as_os_str(), dir.as_os_str()]);
            visible.push(dir.clone());
            plan.extra.push(dir);
        }
        // A path named with `..` (`/x/bots/../test.py`) is walked through
        // `/x/bots`, which must exist inside even when nothing of it is shown.
        for dir in command.iter().flat_map(|w| walked_dirs(Path::new(w))) {
            for anc in dirs_to_make(&dir, &mut made, &visible) {
                push(&[
                    "--perms".as_ref(),
                    "0755".as_ref(),
                    "--dir".as_ref(),
                    anc.as_os_str(),
                ]);
            }
        }
        for h in hide {
            let h = fs::canonicalize(h).unwrap_or_else(|_| h.clone());
            if h.exists() && visible.iter().any(|v| h.starts_with(v)) {
                push(&[
                    "--tmpfs".as_ref(),
                    h.as_os_str(),
                    "--remount-ro".as_ref(),
                    h.as_os_str(),
                ]);
            }
        }
        // The program directory's entries, linked into /tmp (its working
        // directory) so that relative paths work; not over a mount point.
        if let Ok(entries) = fs::read_dir(program_dir) {
            for entry in entries.flatten() {
                let link = Path::new("/tmp").join(entry.file_name());
                if made.iter().chain(&visible).any(|m| m.starts_with(&link)) {
                    continue;
                }
                push(&[
                    "--symlink".as_ref(),
                    entry.path().as_os_str(),
                    link.as_os_str(),
                ]);
            }
        }
        // A bot works in its private /tmp; a build in its program directory.
        let workdir = match build {
            Some(_) => program_real.as_os_str(),
            None => "/tmp".as_ref(),
        };
        push(&["--chdir".as_ref(), workdir, "--".as_ref()]);
        if let Some(uid) = uid {
            let id = uid.to_string();
            // A bot's gid is its uid; a build keeps its directory's group.
            let gid = build
                .and_then(|b| b.owner)
                .map_or(uid, |(_, gid)| gid)
                .to_string();
            push(&[
                "setpriv".as_ref(),
                format!("--reuid={id}").as_ref(),
                format!("--regid={gid}").as_ref(),
                "--clear-groups".as_ref(),
                "--inh-caps=-all".as_ref(),
                "--bounding-set=-all".as_ref(),
                "--no-new-privs".as_ref(),
                "--".as_ref(),
            ]);
        }
        a.extend(command.iter().map(OsString::from));
        plan.args = a;
        plan
    }
}

/// What a sandboxed bot running `command` from `program_dir` sees, in
/// words: for `arena check-bot`, so that a bot author knows why a file is
/// not found.
pub fn view(command: &[String], program_dir: &Path) -> String {
    let path = std::env::var_os("PATH").unwrap_or_else(|| super::SAFE_PATH.into());
    let plan = BwrapPlan::new(
        command,
        program_dir,
        super::limits::DEFAULT_DISK_BYTES,
        &[],
        None,
        &path,
        None,
    );
    let system: Vec<&str> = SYSTEM
        .iter()
        .copied()
        .filter(|d| fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()))
        .collect();
    let mut seen = vec![program_dir.display().to_string()];
    seen.extend(plan.extra.iter().map(|p| p.display().to_string()));
    seen.dedup();
    format!(
        "it sees {} and {} read-only, a fresh /proc and /dev, and a private /tmp (its HOME, \
         TMPDIR and working directory, with the program directory's entries linked in) and \
         /dev/shm, in memory, of disk_mb each (64 MB unless set); \
         nothing else: no network, no home directories, no other bot's files",
        system.join(", "),
        seen.join(", ")
    )
}

/// What `command` needs from outside its program directory: the install
/// root of its program (and of a script's interpreter), so that an
/// interpreter under a home directory runs in the sandbox, and the
/// directory of every argument that is an absolute path to an existing file
/// (a script or data file named on the command line). Adds what such a tool
/// needs in its environment to `env`.
fn interpreter_roots(
    command: &[String],
    program_dir: &Path,
    path: &OsStr,
    env: &mut Vec<(String, PathBuf)>,
) -> Vec<PathBuf> {
    let Some(first) = command.first() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let program_real = fs::canonicalize(program_dir).unwrap_or_else(|_| program_dir.into());
    for arg in &command[1..] {
        let p = Path::new(arg);
        let inside = fs::canonicalize(p).is_ok_and(|r| r.starts_with(&program_real));
        if p.is_absolute() && p.exists() && !inside {
            found.push(if p.is_dir() {
                p.to_path_buf()
            } else {
                narrow(p.parent().unwrap_or(p), p)
            });
        }
    }
    let program = if first.contains('/') {
        Some(program_dir.join(first))
    } else {
        find_on_path(first.as_ref(), path)
    };
    let Some(program) = program else {
        return found;
    };
    let mut files = vec![program.clone()];
    if let Ok(real) = fs::canonicalize(&program) {
        files.push(real);
    }
    if let Some(interp) = shebang(&program, path) {
        if let Ok(real) = fs::canonicalize(&interp) {
            files.push(real);
        }
        files.push(interp);
    }
    for f in &files {
        if f.starts_with(program_dir) {
            continue;
        }
        found.push(install_root(f));
        // rustup's proxies (cargo, rustc...) look for their toolchains in
        // RUSTUP_HOME, by default under HOME, which the bot does not share.
        if f.file_name() == Some(OsStr::new("rustup")) {
            let home = std::env::var_os("RUSTUP_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rustup")));
            if let Some(home) = home.filter(|h| h.is_dir()) {
                env.push(("RUSTUP_HOME".into(), home.clone()));
                found.push(home);
            }
        }
    }
    found
}

/// The interpreter of a `#!` script (through `env`), if `file` is one.
fn shebang(file: &Path, path: &OsStr) -> Option<PathBuf> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = fs::File::open(file).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let mut words = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .map(OsStr::from_bytes);
    let interp = PathBuf::from(words.next()?);
    if interp.file_name() == Some(OsStr::new("env")) {
        let name = words.find(|w| !w.as_bytes().starts_with(b"-"))?;
        return find_on_path(name, path);
    }
    Some(interp)
}

/// What to show for a program at `file`: its install root (the parent of
/// its `bin`), never a whole home directory, `/` or `/tmp` (then only its
/// directory, or only the file).
fn install_root(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new("/"));
    let up = dir
        .file_name()
        .is_some_and(|n| ["bin", "sbin", "shims", "libexec"].iter().any(|b| n == *b));
    let root = if up { dir.parent().unwrap_or(dir) } else { dir };
    narrow(root, &narrow(dir, file))
}

/// `dir`, unless showing it would show a whole home directory, `/` or
/// `/tmp` (the bot's own): then only `inner`.
fn narrow(dir: &Path, inner: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let too_wide = [Path::new("/"), Path::new("/root"), Path::new("/tmp")].contains(&dir)
        || dir.parent() == Some(Path::new("/home"))
        || home.as_deref() == Some(dir);
    if too_wide { inner } else { dir }.to_path_buf()
}

/// The directories a walk of the absolute path `p` goes through just before
/// each of its `..` components.
fn walked_dirs(p: &Path) -> Vec<PathBuf> {
    use std::path::Component;
    if !p.is_absolute() {
        return Vec::new();
    }
    let mut dirs = Vec::new();
    let mut at = PathBuf::new();
    for c in p.components() {
        if c == Component::ParentDir {
            dirs.push(lexical(&at));
        }
        at.push(c);
    }
    dirs
}

/// `p` without `.` and `..` components (as written: links not followed).
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The directories from the root down to `dir` (itself included) that the
/// sandbox lacks: not made yet (`made`, which they join), not `/tmp` (the
/// private directory) and not inside anything shown (`visible`).
fn dirs_to_make(dir: &Path, made: &mut Vec<PathBuf>, visible: &[PathBuf]) -> Vec<PathBuf> {
    let mut new = Vec::new();
    for anc in dir
        .ancestors()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .skip(1)
    {
        let exists = made.iter().any(|m| m == anc)
            || anc == Path::new("/tmp")
            || visible.iter().any(|v| anc.starts_with(v));
        if !exists {
            made.push(anc.to_path_buf());
            new.push(anc.to_path_buf());
        }
    }
    new
}

/// `name` looked up in `path` (an executable file), as a shell would.
pub fn find_on_path(name: &OsStr, path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

// ---------------------------------------------------------------------------
// Private directories.

/// Where this process's private directories live: made when the first
/// one is, mode 0711, removed with the last one (and at exit by the keeper
/// if the referee was killed), so that no process, a test binary included,
/// leaves it behind.
fn box_root_of(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("arena-box-{pid}"))
}

/// How many private directories exist in the box root.
static LIVE_DIRS: Mutex<usize> = Mutex::new(0);

/// Counts one more private directory, making the box root for the first.
fn box_root_enter() -> io::Result<PathBuf> {
    let dir = box_root_of(std::process::id());
    let mut live = LIVE_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    if *live == 0 {
        // A leftover of an earlier process with the same pid.
        let _ = fs::remove_dir_all(&dir);
        // 0711: an unsandboxed bot under a uid of its own reaches its own
        // directory (0700, its own) without seeing the others.
        fs::DirBuilder::new()
            .mode(0o711)
            .create(&dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    }
    *live += 1;
    Ok(dir)
}

/// Counts one private directory less, removing the box root with the last.
fn box_root_leave() {
    let mut live = LIVE_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    *live -= 1;
    if *live == 0 {
        let _ = fs::remove_dir_all(box_root_of(std::process::id()));
    }
}

use std::os::unix::fs::DirBuilderExt as _;

/// Removes the private directories of the arena process `pid` (at its end).
pub fn remove_box_root(pid: u32) {
    let _ = fs::remove_dir_all(box_root_of(pid));
}

/// An unsandboxed bot's private writable directory (its HOME and TMPDIR):
/// fresh for each bot process, shared with no other bot and no run file,
/// removed when dropped. A sandboxed bot has a tmpfs instead
/// ([`BwrapPlan::new`]).
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Makes one, owned by `uid` (when arena is root).
    pub fn create(uid: Option<u32>) -> io::Result<PrivateDir> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = box_root_enter()?.join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
        if let Err(e) = fs::DirBuilder::new().mode(0o700).create(&path) {
            box_root_leave();
            return Err(e);
        }
        let dir = PrivateDir { path };
        if let Some(uid) = uid {
            let id = Some(nix::unistd::Uid::from_raw(uid));
            let gid = Some(nix::unistd::Gid::from_raw(uid));
            nix::unistd::chown(&dir.path, id, gid).map_err(io::Error::from)?;
        }
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        box_root_leave();
    }
}
