//! `arena serve` and `arena ladder ...`: handed to the `arena-ladder`
//! binary (the ladder crate depends on arena, so arena cannot contain it),
//! found beside this executable, else on PATH, the way cargo and git run
//! their external subcommands. It replaces this process (`exec`), so
//! signals such as SIGTERM reach the ladder itself.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// The subcommands that belong to `arena-ladder`.
const LADDER_COMMANDS: [&str; 3] = ["serve", "ladder", "worker"];

/// Where `arena-ladder` is: beside this executable, else on PATH.
fn ladder_binary() -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("arena-ladder")))
        .filter(|p| p.is_file());
    beside.or_else(|| {
        let path = std::env::var_os("PATH")?;
        arena::process::sandbox::find_on_path("arena-ladder".as_ref(), &path)
    })
}

/// If the command line is `arena serve ...` or `arena ladder ...`, runs
/// `arena-ladder` with the same arguments in place of this process and
/// returns only if that fails (with the exit code to use).
pub fn forward_if_asked() -> Option<ExitCode> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let sub = args.get(1)?.to_str()?;
    if !LADDER_COMMANDS.contains(&sub) {
        return None;
    }
    let Some(bin) = ladder_binary() else {
        eprintln!(
            "arena {sub}: the ladder is the separate program `arena-ladder`, found neither \
             beside arena nor on PATH: build it with `cargo build -p arena-ladder` (it goes \
             beside arena in target/) or install it on PATH"
        );
        return Some(ExitCode::from(2));
    };
    let e = std::process::Command::new(&bin).args(&args[1..]).exec();
    eprintln!("arena {sub}: cannot run {}: {e}", bin.display());
    Some(ExitCode::from(2))
}
