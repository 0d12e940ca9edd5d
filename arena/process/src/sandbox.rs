//! The sandbox: each bot under bubblewrap (`bwrap`), seeing only what it
//! needs to run.
//!
//! Inside, a bot sees the system directories read-only (`/usr`, `/etc`,
//! `/opt`...), its program directory read-only at its own path, what its
//! command resolves to when that lives elsewhere (an interpreter under a
//! home directory: pyenv, nvm, conda, rustup; what the bot's own `#!` line
//! names only within the system directories or the organiser's
//! `interpreters`, see [`Roots`]), a fresh `/proc` and `/dev`, and a
//! private `/tmp` (also its `HOME`, `TMPDIR` and working directory, with
//! the program directory's entries linked into it so that relative paths
//! work) and `/dev/shm`, tmpfs of a bounded size and number of files
//! ([`files_for`]). Nothing else: not
//! the run directory (masked where it lies inside a visible directory), not
//! other bots' files, not home directories. It has its own PID, IPC, UTS,
//! network and cgroup namespaces, no capabilities, no new privileges, and
//! dies with the referee.
//!
//! When arena runs as root, bubblewrap runs as root (so that it can mount
//! directories only root may enter) and the bot drops to a uid of its own
//! before it starts, in the init step ([`super::sandbox_init`]) that also
//! bounds its files. Otherwise bubblewrap runs unprivileged, in a user
//! namespace, and the bot keeps arena's uid.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::sandbox_init;
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
    /// No `bwrap` on PATH.
    #[error("bwrap is not on PATH (Debian/Ubuntu: apt install bubblewrap)")]
    NoBwrap,
    /// The init step inside the sandbox is the arena binary, not found.
    #[error("{0}")]
    NoInit(String),
    /// `bwrap` is there but could not be started.
    #[error("bwrap cannot be run: {0}")]
    CannotRun(Arc<io::Error>),
    /// bwrap ran `true` and failed: its exit status and last stderr line.
    #[error("bwrap failed ({status}): {message}")]
    Failed {
        /// How it exited.
        status: std::process::ExitStatus,
        /// The last line it wrote on stderr.
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

/// How a bot is confined on this machine: a [`Sandbox`] setting decided
/// (`auto` is never left). What a [`super::BotSpec`] carries to the spawner,
/// so that a bot's start does not decide anything: the settings funnel
/// (`run::settings`), `arena check-bot` and the ladder decide it once, with
/// [`resolve`], before the first bot starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolvedSandbox {
    /// Under bubblewrap, which was tried here and works.
    Bwrap,
    /// A plain child process: asked for (`none`), or `auto` without a
    /// working bubblewrap (then with a warning, see [`resolve`]).
    None,
}

impl ResolvedSandbox {
    /// Whether the bot runs under bubblewrap.
    pub fn is_bwrap(self) -> bool {
        self == ResolvedSandbox::Bwrap
    }
}

impl From<ResolvedSandbox> for Sandbox {
    /// The setting that asks for exactly this (what `arena match`'s
    /// manifest has always kept: the sandbox its bots ran under).
    fn from(s: ResolvedSandbox) -> Sandbox {
        match s {
            ResolvedSandbox::Bwrap => Sandbox::Bwrap,
            ResolvedSandbox::None => Sandbox::None,
        }
    }
}

impl std::fmt::Display for ResolvedSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Sandbox::from(*self).fmt(f)
    }
}

/// What a run does for a bot whose setting is `setting`: bubblewrap or
/// none, with a warning when `auto` falls back to no sandbox; an error when
/// `bwrap` was asked for and cannot be set up (it names what is missing).
/// The one place a setting is decided: every way in calls it once per run
/// (bubblewrap itself is tried once per process, see [`usable`]).
pub fn resolve(setting: Sandbox) -> Result<(ResolvedSandbox, Option<String>), SandboxError> {
    if setting == Sandbox::None {
        return Ok((ResolvedSandbox::None, None));
    }
    match (setting, usable()) {
        (_, Ok(())) => Ok((ResolvedSandbox::Bwrap, None)),
        (Sandbox::Auto, Err(why)) => Ok((
            ResolvedSandbox::None,
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
    sandbox_init::program().map_err(|e| Unusable::NoInit(e.to_string()))?;
    let root = nix::unistd::geteuid().is_root();
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
        Roots::default(),
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

/// Directories never shown to a bot beyond what bubblewrap makes of them
/// (its own `/proc`, `/dev`, `/tmp`), nor anything inside them: the host's
/// processes, devices, sockets and kernel settings.
const NEVER_INSIDE: &[&str] = &["/proc", "/sys", "/dev", "/run"];

/// Where the interpreters a bot's own files name may come from, and what
/// must never be shown to it, beyond the run directory (`hide`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Roots<'a> {
    /// The organiser's `interpreters` (config key, `--interpreter`): a `#!`
    /// line of a file in the program directory may name an interpreter
    /// here (or in the system directories), nowhere else.
    pub interpreters: &'a [PathBuf],
    /// Every bot's program directory (the bot's own is skipped): nothing
    /// inside one, nor containing one, is shown for an interpreter.
    pub bot_dirs: &'a [PathBuf],
    /// Set for a bot's sandboxed `build` ([`Build`]): its program directory
    /// is writable and its working directory, and it may share the network.
    pub build: Option<&'a Build>,
}

/// bubblewrap's arguments for one bot, and what it will see.
#[derive(Clone, Debug, Default)]
pub struct BwrapPlan {
    /// The arguments to `bwrap`, up to and including the command it runs.
    pub args: Vec<OsString>,
    /// Directories outside the system ones the bot sees, read-only.
    pub extra: Vec<PathBuf>,
    /// Environment the bot needs for what was mounted (e.g. RUSTUP_HOME).
    pub env: Vec<(String, PathBuf)>,
    /// What the command asked to be shown and was not, and why (for
    /// `arena check-bot`).
    pub refused: Vec<String>,
}

/// Files the sandbox holds beyond those arena puts there, per byte of
/// `disk_mb`: 16 per MB, so that what a bot's files cost the kernel (about
/// 1 KB each, counted by no limit) stays small beside the bytes it may write.
pub fn files_for(tmp_bytes: u64) -> u64 {
    (tmp_bytes >> 16).max(16)
}

impl BwrapPlan {
    /// The sandbox for `command` (argv, as the config gives it) whose
    /// program directory is `program_dir`, writing at most `tmp_bytes` and
    /// [`files_for`]`(tmp_bytes)` files to its `/tmp` (and as much to
    /// `/dev/shm`); `hide` lists paths it must not see even inside a
    /// visible directory (the run directory); `uid` is the uid to drop to
    /// when bubblewrap runs as root; `path` is the `PATH` the bot gets;
    /// `roots` says where interpreters may be shown from.
    pub fn new(
        command: &[String],
        program_dir: &Path,
        tmp_bytes: u64,
        hide: &[PathBuf],
        uid: Option<u32>,
        path: &OsStr,
        roots: Roots<'_>,
    ) -> BwrapPlan {
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |words: &[&OsStr]| a.extend(words.iter().map(|w| w.to_os_string()));
        let build = roots.build;
        let network = build.is_some_and(|b| b.network);
        if uid.is_some() {
            // Privileged bubblewrap: no user namespace; the init step
            // (sandbox_init) bounds the files of /tmp and /dev/shm (a mount:
            // CAP_SYS_ADMIN) and drops to `uid` (the other three) before
            // the bot runs, with none of them.
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
                "--cap-add".as_ref(),
                "CAP_SYS_ADMIN".as_ref(),
            ]);
            if !network {
                push(&["--unshare-net".as_ref()]);
            }
        } else {
            // No user namespaces inside: the kernel's most attacked surface.
            // The init step gets, in the sandbox's user namespace,
            // CAP_SYS_ADMIN (to mount its tmpfs) and CAP_SETPCAP (to drop
            // the bounding set), and the bot none.
            push(&[
                "--unshare-all".as_ref(),
                "--unshare-user".as_ref(),
                "--disable-userns".as_ref(),
                "--cap-drop".as_ref(),
                "ALL".as_ref(),
                "--cap-add".as_ref(),
                "CAP_SETPCAP".as_ref(),
                "--cap-add".as_ref(),
                "CAP_SYS_ADMIN".as_ref(),
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
        // Its writable directories, /tmp and /dev/shm, are tmpfs of a
        // bounded size and number of files, fresh for each bot process and
        // gone with it: a bot cannot fill the disk, nor (unprivileged, where
        // /dev/shm would be bubblewrap's /dev, as large as half the memory)
        // the memory. The init step mounts both (bubblewrap cannot bound the
        // files); what bubblewrap puts in /tmp below (links, mount points)
        // lies in its root until then, and the init step carries it over.
        let size = tmp_bytes.to_string();
        push(&[
            "--proc".as_ref(),
            "/proc".as_ref(),
            "--dev".as_ref(),
            "/dev".as_ref(),
        ]);
        let mut plan = BwrapPlan::default();
        let program_real = fs::canonicalize(program_dir).unwrap_or_else(|_| lexical(program_dir));
        let system: Vec<PathBuf> = visible.clone();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let home_real = home.as_ref().and_then(|h| fs::canonicalize(h).ok());
        let hidden: Vec<PathBuf> = hide
            .iter()
            .map(|h| fs::canonicalize(h).unwrap_or_else(|_| lexical(h)))
            .collect();
        let others: Vec<PathBuf> = roots
            .bot_dirs
            .iter()
            .filter_map(|d| fs::canonicalize(d).ok())
            .filter(|d| *d != program_real)
            .collect();
        let listed: Vec<PathBuf> = roots
            .interpreters
            .iter()
            .filter_map(|d| fs::canonicalize(d).ok())
            .collect();
        let boxes = box_root_of(std::process::id());
        // Why `dir` (canonical, or a mount point as named) must not be
        // shown, if it must not.
        let forbidden = |dir: &Path| -> Option<String> {
            if dir == Path::new("/") || dir == Path::new("/tmp") {
                return Some(format!("{} is never shown", dir.display()));
            }
            if let Some(n) = NEVER_INSIDE.iter().find(|n| dir.starts_with(n)) {
                return Some(format!("nothing in {n} is shown"));
            }
            let is_home = dir == Path::new("/root")
                || dir.parent() == Some(Path::new("/home"))
                || home.as_deref() == Some(dir)
                || home_real.as_deref() == Some(dir);
            if is_home {
                return Some("a home directory is never shown whole".into());
            }
            if boxes.starts_with(dir) {
                return Some("it holds the private directories of bots".into());
            }
            if hidden
                .iter()
                .any(|h| h.starts_with(dir) || dir.starts_with(h))
            {
                return Some("it is, holds or lies in the run directory".into());
            }
            if others
                .iter()
                .any(|o| o.starts_with(dir) || dir.starts_with(o))
            {
                return Some("it is, holds or lies in another bot's program directory".into());
            }
            None
        };
        let mut wanted: Vec<(PathBuf, PathBuf)> =
            vec![(program_real.clone(), program_real.clone())];
        if lexical(program_dir) != program_real {
            wanted.push((program_real.clone(), lexical(program_dir)));
        }
        for want in interpreter_roots(command, program_dir, path, &mut plan.env) {
            // Only what exists, where it really is: a path that does not
            // resolve here may resolve otherwise inside (through the links
            // in /tmp), so nothing is shown for it.
            let Ok(mut real) = fs::canonicalize(&want.dir) else {
                plan.refused.push(format!(
                    "{} (for {}): not shown, it does not resolve to a directory here",
                    want.dir.display(),
                    want.what
                ));
                continue;
            };
            if real.starts_with(&program_real) || system.iter().any(|s| real.starts_with(s)) {
                continue; // seen already
            }
            // What the bot's author wrote (a `#!` line, a link in the
            // program directory) shows only what the organiser lets it.
            let mut allowed = match want.trust {
                Trust::Organiser => true,
                Trust::Author => listed.iter().any(|l| real.starts_with(l)),
                Trust::AuthorLink => {
                    listed.iter().any(|l| real.starts_with(l))
                        || path_roots(path).iter().any(|r| real.starts_with(r))
                }
            };
            // An install root above a listed directory (`/x/tool` for a
            // listed `/x/tool/bin`): the listed directory alone.
            if !allowed && want.trust != Trust::Organiser {
                let file = fs::canonicalize(&want.file).unwrap_or_default();
                if let Some(l) = listed.iter().find(|l| file.starts_with(l)) {
                    real = l.clone();
                    allowed = true;
                }
            }
            if !allowed {
                plan.refused.push(format!(
                    "{} (for {}): not shown, {}",
                    real.display(),
                    want.what,
                    match want.trust {
                        Trust::AuthorLink =>
                            "a link in the program directory may only lead to \
                             the system directories, the install root of a PATH directory or \
                             an `interpreters` directory",
                        _ =>
                            "a `#!` line of the program directory's files may only name an \
                             interpreter in the system directories or an `interpreters` \
                             directory",
                    }
                ));
                continue;
            }
            if let Some(why) = forbidden(&real) {
                plan.refused.push(format!(
                    "{} (for {}): not shown, {why}",
                    real.display(),
                    want.what
                ));
                continue;
            }
            wanted.push((real.clone(), real.clone()));
            // Also where the organiser's command names it (through a link,
            // or with `..`), so that both paths work inside.
            let named = lexical(&want.dir);
            if want.trust == Trust::Organiser && named != real && forbidden(&named).is_none() {
                wanted.push((real, named));
            }
        }
        let mut made: Vec<PathBuf> = Vec::new();
        for (source, dir) in wanted {
            // A build writes its program directory (and only that).
            let writable = build.is_some() && dir == program_real;
            // `/`, or a directory that holds the private ones of unsandboxed
            // bots, would show everything or other bots' files: not mounted.
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
        for h in &hidden {
            if h.exists() && visible.iter().any(|v| h.starts_with(v)) {
                push(&[
                    "--tmpfs".as_ref(),
                    h.as_os_str(),
                    "--remount-ro".as_ref(),
                    h.as_os_str(),
                ]);
            }
        }
        // The init step, where it removes itself from before the bot runs.
        let init = sandbox_init::program()
            .unwrap_or_else(|_| PathBuf::from("/nonexistent/arena-sandbox-init"));
        let init_at = Path::new(sandbox_init::PATH);
        push(&["--ro-bind".as_ref(), init.as_os_str(), init_at.as_os_str()]);
        made.push(init_at.to_path_buf());
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
        let files = files_for(tmp_bytes).to_string();
        push(&[
            "--chdir".as_ref(),
            "/tmp".as_ref(),
            "--".as_ref(),
            init_at.as_os_str(),
            "--files".as_ref(),
            files.as_ref(),
        ]);
        push(&["--size".as_ref(), size.as_ref()]);
        if let Some(uid) = uid {
            push(&["--uid".as_ref(), uid.to_string().as_ref()]);
            // A bot's gid is its uid; a build keeps its directory's group.
            if let Some((_, gid)) = build.and_then(|b| b.owner) {
                push(&["--gid".as_ref(), gid.to_string().as_ref()]);
            }
        }
        // A bot works in its private /tmp; a build in its program directory.
        if build.is_some() {
            push(&["--cwd".as_ref(), program_real.as_os_str()]);
        }
        push(&["--".as_ref()]);
        a.extend(command.iter().map(OsString::from));
        plan.args = a;
        plan
    }
}

impl BwrapPlan {
    /// Has the init step take the bot's stdin and stdout from
    /// [`sandbox_init::STDIO_FDS`], where the spawn puts them
    /// (`spawn::Launch::stdio_at`).
    pub fn take_stdio(&mut self) {
        let init = self
            .args
            .windows(2)
            .position(|w| w[0] == "--" && w[1] == sandbox_init::PATH)
            .expect("a plan runs the init step");
        self.args.insert(init + 2, "--stdio".into());
    }
}

/// What a sandboxed bot running `command` from `program_dir` sees, in
/// words: for `arena check-bot`, so that a bot author knows why a file is
/// not found (and why an interpreter was not shown). `interpreters` are the
/// organiser's (config key, `--interpreter`).
pub fn view(command: &[String], program_dir: &Path, interpreters: &[PathBuf]) -> String {
    let path = std::env::var_os("PATH").unwrap_or_else(|| super::SAFE_PATH.into());
    let plan = BwrapPlan::new(
        command,
        program_dir,
        super::limits::DEFAULT_DISK_BYTES,
        &[],
        None,
        &path,
        Roots {
            interpreters,
            bot_dirs: &[],
            build: None,
        },
    );
    let system: Vec<&str> = SYSTEM
        .iter()
        .copied()
        .filter(|d| fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()))
        .collect();
    let mut seen = vec![program_dir.display().to_string()];
    seen.extend(plan.extra.iter().map(|p| p.display().to_string()));
    seen.dedup();
    let mut words = format!(
        "it sees {} and {} read-only, a fresh /proc and /dev, and a private /tmp (its HOME, \
         TMPDIR and working directory, with the program directory's entries linked in) and \
         /dev/shm, in memory, of disk_mb each (64 MB and {} files unless set); \
         nothing else: no network, no home directories, no other bot's files",
        system.join(", "),
        seen.join(", "),
        files_for(super::limits::DEFAULT_DISK_BYTES),
    );
    for r in &plan.refused {
        words.push_str("; ");
        words.push_str(r);
    }
    words
}

/// How far what a directory was asked for by is trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trust {
    /// The organiser's command: its program found on PATH or named by an
    /// absolute path outside the program directory, that file's own `#!`
    /// interpreter, an absolute path among its arguments.
    Organiser,
    /// Where a link in the program directory (the command's program, as a
    /// venv's `bin/python`) leads: the system directories, an
    /// `interpreters` directory or the install root of a PATH directory.
    AuthorLink,
    /// The `#!` line of a file in the program directory: the system
    /// directories or an `interpreters` directory only.
    Author,
}

/// A directory the command needs shown: as named (not resolved yet), the
/// file that needs it, what that is (for messages) and who asked.
#[derive(Clone, Debug)]
struct Wanted {
    dir: PathBuf,
    file: PathBuf,
    what: String,
    trust: Trust,
}

/// The install roots of the directories on `path` (`/root/.pyenv` for
/// `/root/.pyenv/shims`), canonical, never a home directory or `/`.
fn path_roots(path: &OsStr) -> Vec<PathBuf> {
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .filter_map(|d| fs::canonicalize(&d).ok())
        .map(|d| install_root(&d.join("x")))
        .filter(|r| r.parent().is_some())
        .collect()
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
) -> Vec<Wanted> {
    let Some(first) = command.first() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let program_real = fs::canonicalize(program_dir).unwrap_or_else(|_| program_dir.into());
    let in_program_dir = |p: &Path| {
        lexical(p).starts_with(&program_real)
            || lexical(p).starts_with(lexical(program_dir))
            || fs::canonicalize(p).is_ok_and(|r| r.starts_with(&program_real))
    };
    for arg in &command[1..] {
        let p = Path::new(arg);
        if p.is_absolute() && p.exists() && !in_program_dir(p) {
            found.push(Wanted {
                dir: if p.is_dir() {
                    p.to_path_buf()
                } else {
                    narrow(p.parent().unwrap_or(p), p)
                },
                file: p.to_path_buf(),
                what: format!("argument {arg}"),
                trust: Trust::Organiser,
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
    // The program as named, and the file it resolves to.
    let authors = in_program_dir(&program);
    let mut files = vec![(
        program.clone(),
        if authors {
            None
        } else {
            Some(Trust::Organiser)
        },
    )];
    let real = fs::canonicalize(&program).ok();
    if let Some(real) = &real {
        let link_trust = if authors {
            Trust::AuthorLink
        } else {
            Trust::Organiser
        };
        files.push((real.clone(), Some(link_trust)));
    }
    // The interpreter of the file that is run: the author's if that file
    // is in the program directory.
    let script = real.clone().unwrap_or_else(|| program.clone());
    if let Some(interp) = shebang(&script, path) {
        let trust = if in_program_dir(&script) {
            Trust::Author
        } else if authors {
            Trust::AuthorLink
        } else {
            Trust::Organiser
        };
        if let Ok(real) = fs::canonicalize(&interp) {
            files.push((real, Some(trust)));
        }
        files.push((interp, Some(trust)));
    }
    for (f, trust) in &files {
        let Some(trust) = *trust else { continue };
        if in_program_dir(f) {
            continue;
        }
        found.push(Wanted {
            dir: install_root(f),
            file: f.clone(),
            what: f.display().to_string(),
            trust,
        });
        // rustup's proxies (cargo, rustc...) look for their toolchains in
        // RUSTUP_HOME, by default under HOME, which the bot does not share.
        if trust == Trust::Organiser && f.file_name() == Some(OsStr::new("rustup")) {
            let home = std::env::var_os("RUSTUP_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rustup")));
            if let Some(home) = home.filter(|h| h.is_dir()) {
                env.push(("RUSTUP_HOME".into(), home.clone()));
                found.push(Wanted {
                    dir: home.clone(),
                    file: home,
                    what: "rustup".into(),
                    trust,
                });
            }
        }
    }
    found
}

/// The interpreter of a `#!` script (through `env`), if `file` is one, read
/// as the kernel reads it (fs/binfmt_script.c): within the first 256 bytes,
/// after `#!` and any spaces or tabs, up to a space, tab, NUL or newline.
fn shebang(file: &Path, path: &OsStr) -> Option<PathBuf> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let mut n = 0;
    let mut f = fs::File::open(file).ok()?;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => return None,
        }
    }
    let (interp, arg) = parse_shebang(&head[..n])?;
    let interp = PathBuf::from(OsStr::from_bytes(interp));
    if interp.file_name() == Some(OsStr::new("env")) {
        // env's one argument (`-S python3 -u` with -S): the first word not
        // an option is the program, looked up on PATH unless it has a `/`.
        let name = arg?
            .split(|&b| b == b' ' || b == b'\t')
            .find(|w| !w.is_empty() && !w.starts_with(b"-"))?;
        let name = OsStr::from_bytes(name);
        if name.as_bytes().contains(&b'/') {
            let p = Path::new(name);
            return p.is_absolute().then(|| p.to_path_buf());
        }
        return find_on_path(name, path);
    }
    Some(interp)
}

/// The interpreter and optional argument of a `#!` line in `buf` (a file's
/// first bytes, at most 256), split as Linux does: no newline within them
/// is accepted only if the interpreter ends before their end; the argument
/// is the rest of the line, trimmed, up to a NUL.
fn parse_shebang(buf: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    let spacetab = |b: u8| b == b' ' || b == b'\t';
    let rest = buf.strip_prefix(b"#!")?;
    // The line ends at a newline, or (as the kernel's strnchr stops at a
    // NUL) at the end of the buffer.
    let line = match rest.iter().position(|&b| b == b'\n' || b == 0) {
        Some(i) if rest[i] == b'\n' => &rest[..i],
        _ => {
            let start = rest.iter().position(|&b| !spacetab(b))?;
            // No space, tab or NUL after the name: it may be cut; refused.
            rest[start..].iter().position(|&b| spacetab(b) || b == 0)?;
            rest
        }
    };
    let start = line.iter().position(|&b| !spacetab(b))?;
    let line = &line[start..];
    let end = line
        .iter()
        .position(|&b| spacetab(b) || b == 0)
        .unwrap_or(line.len());
    let interp = &line[..end];
    if interp.is_empty() {
        return None;
    }
    let arg = match line.get(end) {
        Some(&b) if spacetab(b) => {
            let rest = &line[end..];
            let rest = &rest[rest
                .iter()
                .position(|&b| !spacetab(b))
                .unwrap_or(rest.len())..];
            let rest = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
            let trimmed = rest.len() - rest.iter().rev().take_while(|&&b| spacetab(b)).count();
            Some(&rest[..trimmed]).filter(|r| !r.is_empty())
        }
        _ => None,
    };
    Some((interp, arg))
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

    /// The directory: the bot's HOME and TMPDIR.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The `#!` line as Linux splits it (fs/binfmt_script.c).
    #[test]
    fn a_shebang_line_is_read_as_the_kernel_reads_it() {
        let p = |b: &[u8]| parse_shebang(b).map(|(i, a)| (i.to_vec(), a.map(<[u8]>::to_vec)));
        let some = |i: &[u8], a: Option<&[u8]>| Some((i.to_vec(), a.map(<[u8]>::to_vec)));
        assert_eq!(p(b"#!/bin/sh\necho"), some(b"/bin/sh", None));
        assert_eq!(
            p(b"#! \t/usr/bin/env  python3 -u \nx"),
            some(b"/usr/bin/env", Some(b"python3 -u"))
        );
        // The interpreter ends at a NUL, and so does the argument.
        assert_eq!(
            p(b"#!/usr/bin/perl\0/../../../etc/x\n"),
            some(b"/usr/bin/perl", None)
        );
        assert_eq!(p(b"#!/bin/sh -e\0/../x\n"), some(b"/bin/sh", Some(b"-e")));
        // No newline within the bytes read: only if the name ends before.
        assert_eq!(p(b"#!/bin/sh"), None);
        assert_eq!(p(b"#!/bin/sh "), some(b"/bin/sh", None));
        assert_eq!(p(b"#!   \n"), None);
        assert_eq!(p(b"#!/bin/sh\r\n"), some(b"/bin/sh\r", None));
        assert_eq!(p(b"no"), None);
    }

    fn plan_for(script: &[u8], interpreters: &[PathBuf]) -> (tempfile::TempDir, BwrapPlan) {
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("prog");
        fs::create_dir(&prog).unwrap();
        fs::write(prog.join("bot"), script).unwrap();
        let plan = BwrapPlan::new(
            &["./bot".into()],
            &prog,
            1 << 20,
            &[],
            None,
            OsStr::new("/usr/bin:/bin"),
            Roots {
                interpreters,
                bot_dirs: &[],
                build: None,
            },
        );
        (dir, plan)
    }

    /// A `#!` line of the bot's own file shows nothing outside the system
    /// directories unless the organiser lists where it points, and never
    /// what does not resolve, or /proc.
    #[test]
    fn a_bots_own_shebang_shows_only_what_the_organiser_allows() {
        let outside = tempfile::tempdir().unwrap();
        let bin = outside.path().canonicalize().unwrap().join("tool/bin");
        fs::create_dir_all(&bin).unwrap();
        fs::write(bin.join("interp"), "").unwrap();
        let line = format!("#!{}/interp\n", bin.display());
        let (_d, plan) = plan_for(line.as_bytes(), &[]);
        assert!(
            plan.extra.iter().all(|e| !e.starts_with(outside.path())),
            "{:?}",
            plan.extra
        );
        assert!(
            plan.refused.iter().any(|r| r.contains("`interpreters`")),
            "{:?}",
            plan.refused
        );
        let (_d, plan) = plan_for(line.as_bytes(), &[outside.path().to_path_buf()]);
        assert!(
            plan.extra.contains(&bin.parent().unwrap().to_path_buf()),
            "{:?} {:?}",
            plan.extra,
            plan.refused
        );
        let (_d, plan) = plan_for(line.as_bytes(), &[bin.clone()]);
        assert!(
            plan.extra.contains(&bin),
            "{:?} {:?}",
            plan.extra,
            plan.refused
        );
        // Listed or not, nothing from /proc, nothing that does not resolve.
        let (_d, plan) = plan_for(b"#!/proc/1/root/bin/sh\n", &[PathBuf::from("/proc")]);
        assert!(
            plan.extra.iter().all(|e| !e.starts_with("/proc")),
            "{:?}",
            plan.extra
        );
        let (_d, plan) = plan_for(b"#!/tmp/no-such-link/../../etc/sh\n", &[PathBuf::from("/")]);
        assert!(
            plan.refused.iter().any(|r| r.contains("does not resolve")),
            "{:?}",
            plan.refused
        );
        let nul = format!("#!/bin/sh\0/../../..{}/x\n", bin.display());
        let (_d, plan) = plan_for(nul.as_bytes(), &[]);
        assert!(
            plan.extra.iter().all(|e| !e.starts_with(outside.path())),
            "{:?}",
            plan.extra
        );
    }
}
