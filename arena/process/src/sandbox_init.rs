//! The first program a sandboxed bot's bubblewrap runs, before the bot:
//! `arena-sandbox-init`, a small binary of its own installed beside `arena`
//! ([`program`]), bound read-only into the sandbox at [`PATH`]. Where it is
//! missing, the `arena` binary itself serves, run under that name (checked at
//! the very top of its `main`, before anything else); the small one starts
//! in about half the CPU time (no 40 MB executable to map and relocate), and
//! it starts twice a game.
//!
//! bubblewrap 0.8 can bound a tmpfs's bytes (`--size`) but not its files,
//! and an empty file costs the host about 1 KB of kernel memory that no
//! limit counts (300,000 of them: 300 MB, with `disk_mb` 64). So this step,
//! holding `CAP_SYS_ADMIN` (given by bubblewrap for it alone):
//!
//! 1. unprivileged, enters a mount namespace of its own: bubblewrap runs it
//!    in a user namespace nested in the one that owns the sandbox's mounts
//!    (for `--dev` and `--disable-userns`), so it cannot change those; in a
//!    mount namespace of its own it can mount over them. As root (`--uid`)
//!    it holds `CAP_SYS_ADMIN` over bubblewrap's own mount namespace, which
//!    nothing else uses, and mounts there (a namespace less to make and
//!    tear down per bot);
//! 2. mounts a fresh tmpfs on `/tmp` and on `/dev/shm`, of `--size` bytes
//!    and with `nr_inodes` set: what arena put in `/tmp` (links into the
//!    program directory, the directories leading to mounts there) plus
//!    `--files` more. What bubblewrap had put in its `/tmp` is copied over:
//!    directories and links as they were, mounts moved (the step's own
//!    binary is not: it is gone from the bot's sight);
//! 3. remounts `/` and `/dev` (bubblewrap's own tmpfs, unbounded)
//!    read-only: unprivileged they belong to the bot's uid, which could
//!    otherwise fill them with files and bytes;
//! 4. as root (`--uid`), drops to the bot's uid and gid with no
//!    supplementary groups;
//! 5. drops every capability (bounding set, permitted, effective,
//!    inheritable, ambient), sets no_new_privs, and execs the bot (through
//!    PATH, as bubblewrap would), still PID 1 of the sandbox.
//!
//! Whatever fails, the bot does not run: the step says why on stderr (the
//! bot's log) and exits with 127.

use std::ffi::{CString, OsStr, OsString};
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use nix::libc;

/// Where bubblewrap binds the `arena` binary for the init step (in its
/// `/tmp`, which the step covers before the bot starts), and the name the
/// step is recognised by.
pub const PATH: &str = "/tmp/.arena-sandbox-init";

/// Set by `main` of the `arena` binary: its own executable can be the init
/// step. Other programs using the library look for `arena` beside them.
static IS_ARENA: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called first thing in `main` of the `arena` binary: if this process is
/// the init step, runs it (it never returns: it execs the bot or exits);
/// otherwise notes that this executable can be one.
pub fn run_if_asked() {
    let is_init = std::env::args_os()
        .next()
        .as_deref()
        .and_then(|a0| Path::new(a0).file_name())
        .is_some_and(|n| Some(n) == Path::new(PATH).file_name());
    if !is_init {
        IS_ARENA.store(true, std::sync::atomic::Ordering::Relaxed);
        return;
    }
    run()
}

/// The init step (`main` of `arena-sandbox-init`): prepares the sandbox
/// from its arguments and execs the bot, or says why not and exits 127.
pub fn run() -> ! {
    let err = match init(std::env::args_os().skip(1).collect()) {
        Ok(never) => match never {},
        Err(e) => e,
    };
    // Only stderr: nothing may reach the bot's stdout, read by the referee.
    eprintln!("arena sandbox: {err}");
    std::process::exit(127);
}

/// The small init binary's name, beside `arena`.
const BINARY: &str = "arena-sandbox-init";

/// The program bubblewrap runs as the init step: `arena-sandbox-init`
/// beside the running executable (or one directory up, where cargo puts a
/// test's), else the `arena` binary (this one, or the one found there).
pub fn program() -> std::io::Result<PathBuf> {
    static FOUND: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| format!("cannot find arena: {e}"))?;
            let dir = exe.parent().unwrap_or(Path::new("/"));
            let beside = |name: &str| {
                [dir.join(name), dir.join("..").join(name)]
                    .into_iter()
                    .find(|p| p.is_file())
                    .and_then(|p| p.canonicalize().ok())
            };
            if let Some(small) = beside(BINARY) {
                return Ok(small);
            }
            if IS_ARENA.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(exe);
            }
            beside("arena").ok_or_else(|| {
                format!(
                    "the sandbox's init step is {BINARY} or the arena binary, and neither is \
                     beside {}",
                    exe.display()
                )
            })
        })
        .clone()
        .map_err(std::io::Error::other)
}

/// Where the bot's stdin and stdout pipes arrive with `--stdio`, to be
/// moved onto 0 and 1: bubblewrap keeps its own 0, 1 and 2 open for as long
/// as the sandbox runs, but closes these in its own process, so that the
/// bot is the only holder of its stdout (the referee sees it close).
pub const STDIO_FDS: [i32; 2] = [5, 6];

/// The init step's arguments: `[--stdio] --files N --size BYTES [--uid U
/// [--gid G]] [--cwd DIR] -- COMMAND...` (the gid is the uid unless given;
/// the working directory /tmp unless given: a build works in its program
/// directory).
fn init(args: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    if args.first().is_some_and(|a| a == UNSANDBOXED) {
        return unsandboxed(args[1..].to_vec());
    }
    let mut files: Option<u64> = None;
    let mut size: Option<u64> = None;
    let mut uid: Option<u32> = None;
    let mut gid: Option<u32> = None;
    let mut cwd: Option<OsString> = None;
    let mut it = args.into_iter();
    let mut command: Vec<OsString> = Vec::new();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--files") => files = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--size") => size = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--uid") => uid = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--gid") => gid = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--cwd") => cwd = it.next(),
            Some("--stdio") => {
                for (from, to) in STDIO_FDS.into_iter().zip([0, 1]) {
                    // SAFETY: dup2 and close on plain descriptor numbers.
                    if unsafe { libc::dup2(from, to) } < 0 || unsafe { libc::close(from) } < 0 {
                        let e = std::io::Error::last_os_error();
                        return Err(format!("stdio from descriptor {from}: {e}"));
                    }
                }
            }
            Some("--") => {
                command = it.by_ref().collect();
                break;
            }
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    let (Some(files), Some(size)) = (files, size) else {
        return Err("--files N and --size BYTES are required".into());
    };
    if command.is_empty() {
        return Err("no command".into());
    }
    // 1. Unprivileged, a mount namespace of its own, whose mounts go
    // nowhere else (as root, bubblewrap's is already that).
    if uid.is_none() {
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNS)
            .map_err(|e| format!("a mount namespace: {e}"))?;
        mount(None, "/", None, libc::MS_REC | libc::MS_PRIVATE, None)
            .map_err(|e| format!("making / private: {e}"))?;
    }
    // 2. What bubblewrap put in /tmp, then a bounded tmpfs instead.
    let entries = survey(Path::new("/tmp")).map_err(|e| format!("reading /tmp: {e}"))?;
    let held = entries.len() as u64 + 1; // and the root directory
    let tmpfs = |dir: &str, inodes: u64| {
        let data = format!("mode=1777,size={size},nr_inodes={inodes}");
        mount(
            Some("tmpfs"),
            dir,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(&data),
        )
        .map_err(|e| format!("tmpfs on {dir} ({data}): {e}"))
    };
    tmpfs("/tmp", held + files)?;
    for entry in entries {
        rebuild(&entry).map_err(|e| format!("{} in /tmp: {e}", entry.path.display()))?;
    }
    std::env::set_current_dir("/tmp").map_err(|e| format!("cd /tmp: {e}"))?;
    tmpfs("/dev/shm", 1 + files)?;
    // 3. bubblewrap's own tmpfs, unbounded: read-only (device nodes stay
    // writable: they are bind mounts of the host's).
    for dir in ["/", "/dev"] {
        let st = nix::sys::statvfs::statvfs(dir).map_err(|e| format!("statvfs {dir}: {e}"))?;
        let flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | kept_flags(&st);
        mount(None, dir, None, flags, None).map_err(|e| format!("{dir} read-only: {e}"))?;
    }
    // 4 and 5. The bounding set first: dropping it needs CAP_SETPCAP,
    // which the change of uid takes away.
    drop_bounding_set()?;
    if let Some(id) = uid {
        nix::unistd::setgroups(&[]).map_err(|e| format!("setgroups: {e}"))?;
        let g = nix::unistd::Gid::from_raw(gid.unwrap_or(id));
        nix::unistd::setresgid(g, g, g).map_err(|e| format!("setresgid {g}: {e}"))?;
        let u = nix::unistd::Uid::from_raw(id);
        nix::unistd::setresuid(u, u, u).map_err(|e| format!("setresuid {id}: {e}"))?;
    }
    if let Some(dir) = &cwd {
        std::env::set_current_dir(dir).map_err(|e| format!("cd {dir:?}: {e}"))?;
    }
    drop_capabilities()?;
    // SAFETY: prctl with integer arguments only.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("no_new_privs: {}", std::io::Error::last_os_error()));
    }
    let argv: Vec<CString> = command
        .iter()
        .map(|a| CString::new(a.as_bytes()).map_err(|_| format!("a NUL in argument {a:?}")))
        .collect::<Result<_, _>>()?;
    let e = nix::unistd::execvp(&argv[0], &argv).unwrap_err();
    Err(format!("{}: {e}", command[0].to_string_lossy()))
}

/// The first argument of the other job this binary does: starting an
/// unsandboxed bot that needs a uid of its own or resource limits, which
/// would otherwise take a `fork` of the referee (see `spawn.rs`).
pub const UNSANDBOXED: &str = "--unsandboxed";

/// Where the step waits for its go (a byte; end of file: give up), and
/// where it reports a failed `exec` (the errno, 4 bytes; end of file when
/// the bot runs), as in `unsandboxed`.
pub const HOLD_FDS: [i32; 2] = [3, 4];

/// `--unsandboxed [--uid U [--gid G]] --program PATH [--env K=V]... -- ARGV...`: started
/// by posix_spawn (which does not copy the referee's address space as
/// `fork` does: with a large, threaded referee, such as the ladder's
/// server, every page it writes afterwards faults once, a fifth of its CPU
/// with instant bots), it waits on descriptor 3 while the referee puts it
/// in the bot's cgroups and sets its resource limits (`prlimit`), then
/// drops to the bot's uid and gid with no supplementary groups and execs
/// PATH with ARGV (ARGV\[0\] as given) and exactly the `--env` entries as
/// its environment: the step itself runs, as root, with none (a variable
/// such as `LD_PRELOAD` meant for the bot never reaches it). If the exec fails its errno goes
/// to descriptor 4, so that the referee reports it as it would a failed
/// spawn.
fn unsandboxed(args: Vec<OsString>) -> Result<std::convert::Infallible, String> {
    let mut uid: Option<u32> = None;
    let mut gid: Option<u32> = None;
    let mut program: Option<OsString> = None;
    let mut env: Vec<OsString> = Vec::new();
    let mut it = args.into_iter();
    let mut argv: Vec<OsString> = Vec::new();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--uid") => uid = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--gid") => gid = it.next().and_then(|v| v.to_str()?.parse().ok()),
            Some("--program") => program = it.next(),
            Some("--env") => env.extend(it.next()),
            Some("--") => {
                argv = it.by_ref().collect();
                break;
            }
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    let (Some(program), false) = (program, argv.is_empty()) else {
        return Err("--program PATH and a command are required".into());
    };
    let [hold, report] = HOLD_FDS;
    let mut go = [0u8; 1];
    // SAFETY: read into a local buffer, then close, of a plain descriptor number.
    let n = unsafe {
        let n = libc::read(hold, go.as_mut_ptr().cast(), 1);
        libc::close(hold);
        n
    };
    if n != 1 {
        // The referee gave up on this bot (it could not set it up).
        std::process::exit(127);
    }
    // SAFETY: fcntl with integer arguments: the report descriptor closes
    // on a successful exec, which is how the referee learns of it.
    if unsafe { libc::fcntl(report, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return Err(format!(
            "descriptor {report}: {}",
            std::io::Error::last_os_error()
        ));
    }
    if let Some(id) = uid {
        nix::unistd::setgroups(&[]).map_err(|e| format!("setgroups: {e}"))?;
        let g = nix::unistd::Gid::from_raw(gid.unwrap_or(id));
        nix::unistd::setresgid(g, g, g).map_err(|e| format!("setresgid {g}: {e}"))?;
        let u = nix::unistd::Uid::from_raw(id);
        nix::unistd::setresuid(u, u, u).map_err(|e| format!("setresuid {id}: {e}"))?;
    }
    // Rust's start-up ignores SIGPIPE, and an ignored signal stays ignored
    // across exec: the bot gets it back at its default.
    // SAFETY: signal with a standard disposition.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let c = |a: &OsStr| CString::new(a.as_bytes()).map_err(|_| format!("a NUL in {a:?}"));
    let path = c(&program)?;
    let argv: Vec<CString> = argv.iter().map(|a| c(a)).collect::<Result<_, _>>()?;
    let env: Vec<CString> = env.iter().map(|a| c(a)).collect::<Result<_, _>>()?;
    let e = nix::unistd::execve(&path, &argv, &env).unwrap_err();
    let errno = (e as i32).to_ne_bytes();
    // SAFETY: write of a local buffer to a plain descriptor number.
    unsafe { libc::write(report, errno.as_ptr().cast(), errno.len()) };
    Err(format!("{}: {e}", program.to_string_lossy()))
}

/// One thing in bubblewrap's `/tmp`, to be made again in the new one.
struct Entry {
    path: PathBuf,
    kind: Kind,
}

enum Kind {
    Dir(u32),
    Link(PathBuf),
    /// A mount (of a directory or not), cloned with what is mounted in it.
    Mount {
        tree: OwnedFd,
        dir: bool,
    },
}

/// What is in `root` (parents before children), a mount taken whole: the
/// mount points below it come from /proc/self/mountinfo.
fn survey(root: &Path) -> std::io::Result<Vec<Entry>> {
    let info = std::fs::read("/proc/self/mountinfo")?;
    let mounts: Vec<PathBuf> = info
        .split(|&b| b == b'\n')
        .filter_map(|line| line.split(|&b| b == b' ').nth(4))
        .map(unescape)
        .filter(|p| p.starts_with(root) && p != root)
        .collect();
    let mut out = Vec::new();
    walk(root, &mounts, &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, mounts: &[PathBuf], out: &mut Vec<Entry>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let path = e?.path();
        if path == Path::new(PATH) {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path)?;
        if mounts.contains(&path) {
            let tree = open_tree(&path)?;
            out.push(Entry {
                path,
                kind: Kind::Mount {
                    tree,
                    dir: meta.is_dir(),
                },
            });
        } else if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path)?;
            out.push(Entry {
                path,
                kind: Kind::Link(target),
            });
        } else if meta.is_dir() {
            out.push(Entry {
                path: path.clone(),
                kind: Kind::Dir(meta.permissions().mode() & 0o7777),
            });
            walk(&path, mounts, out)?;
        }
        // Nothing else is put there (the bot has not run yet).
    }
    Ok(())
}

fn rebuild(e: &Entry) -> std::io::Result<()> {
    match &e.kind {
        Kind::Dir(mode) => {
            std::fs::DirBuilder::new().mode(*mode).create(&e.path)?;
            std::fs::set_permissions(&e.path, std::fs::Permissions::from_mode(*mode))
        }
        Kind::Link(target) => std::os::unix::fs::symlink(target, &e.path),
        Kind::Mount { tree, dir } => {
            if *dir {
                std::fs::DirBuilder::new().mode(0o755).create(&e.path)?;
            } else {
                std::fs::File::create(&e.path)?;
            }
            move_mount(tree, &e.path)
        }
    }
}

/// A path of /proc/self/mountinfo, whose spaces and such are `\ooo`.
fn unescape(field: &[u8]) -> PathBuf {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let oct = field
            .get(i + 1..i + 4)
            .filter(|o| o.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (field[i], oct) {
            (b'\\', Some(o)) => {
                out.push(o.iter().fold(0u8, |n, d| n.wrapping_mul(8) + (d - b'0')));
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    PathBuf::from(OsStr::from_bytes(&out))
}

fn cstr(path: &OsStr) -> std::io::Result<CString> {
    CString::new(path.as_bytes()).map_err(std::io::Error::other)
}

fn check(r: libc::c_long) -> std::io::Result<libc::c_long> {
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A detached copy of the mount at `path` and of every mount inside it.
fn open_tree(path: &Path) -> std::io::Result<OwnedFd> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    const AT_RECURSIVE: libc::c_uint = 0x8000;
    let p = cstr(path.as_os_str())?;
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: a valid C string; the descriptor returned is ours.
    let fd =
        check(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, p.as_ptr(), flags) })?;
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Attaches the detached mount `tree` at `path`.
fn move_mount(tree: &OwnedFd, path: &Path) -> std::io::Result<()> {
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
    let to = cstr(path.as_os_str())?;
    let empty = c"";
    // SAFETY: valid C strings and a descriptor we hold.
    check(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })?;
    Ok(())
}

fn mount(
    source: Option<&str>,
    target: &str,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> std::io::Result<()> {
    let c = |s: Option<&str>| s.map(|s| cstr(OsStr::new(s))).transpose();
    let (source, target, fstype, data) =
        (c(source)?, cstr(OsStr::new(target))?, c(fstype)?, c(data)?);
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: valid C strings or null.
    let r = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    check(r.into()).map(drop)
}

/// The flags a remount must keep (in a user namespace, dropping nosuid,
/// nodev, noexec or the atime setting of a mount is refused).
fn kept_flags(st: &nix::sys::statvfs::Statvfs) -> libc::c_ulong {
    use nix::sys::statvfs::FsFlags;
    [
        (FsFlags::ST_NOSUID, libc::MS_NOSUID),
        (FsFlags::ST_NODEV, libc::MS_NODEV),
        (FsFlags::ST_NOEXEC, libc::MS_NOEXEC),
        (FsFlags::ST_NOATIME, libc::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, libc::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, libc::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(have, _)| st.flags().contains(*have))
    .fold(0, |all, (_, ms)| all | ms)
}

/// Every capability out of the bounding set (those this kernel knows).
fn drop_bounding_set() -> Result<(), String> {
    for cap in 0..64 {
        // SAFETY: prctl with integer arguments only.
        let held = unsafe { libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) };
        if held < 0 {
            break; // beyond the last capability
        }
        // SAFETY: as above.
        if held == 1 && unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!(
                "dropping capability {cap} from the bounding set: {e}"
            ));
        }
    }
    Ok(())
}

/// No ambient, permitted, effective or inheritable capability left.
fn drop_capabilities() -> Result<(), String> {
    // SAFETY: prctl with integer arguments only.
    let r = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("clearing ambient capabilities: {e}"));
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let none = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset with a version 3 header and its two data structs.
    let r = unsafe { libc::syscall(libc::SYS_capset, &header, none.as_ptr()) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("dropping capabilities: {e}"));
    }
    Ok(())
}
