//! A closed stdout (`arena ratings DIR | head -1`) ends arena the way it ends
//! any Unix filter: at once, quietly, killed by SIGPIPE.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with EPIPE and
//! `println!` panics. Restoring SIGPIPE's default action for the whole
//! process is not an option: the referee writes to its bots' pipes too, and a
//! bot that closes its input must cost it the game, not kill arena. So
//! SIGPIPE stays ignored, and the panic of a failed print to stdout or stderr
//! becomes the quiet end instead; every other panic is reported as before.

/// Installs the panic hook; call once, first thing in `main`.
pub fn install() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // `PanicHookInfo::payload_as_str` is Rust 1.91, past the workspace's MSRV.
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        let print_failed = message.starts_with("failed printing to stdout")
            || message.starts_with("failed printing to stderr");
        if print_failed && message.contains("Broken pipe") {
            end_as_by_sigpipe();
        }
        report(info);
    }));
}

/// Whether an I/O error of arena's own output means its reader went away.
pub fn is_closed(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Kills the bots still running (and whatever they left), then dies of
/// SIGPIPE, as `cat` would.
pub fn end_as_by_sigpipe() -> ! {
    use nix::sys::signal::{raise, signal, SigHandler, Signal};
    arena::process::keeper::finish();
    // SAFETY: the default action needs no handler code; nothing else runs
    // on this process's behalf any more.
    unsafe {
        let _ = signal(Signal::SIGPIPE, SigHandler::SigDfl);
    }
    let _ = raise(Signal::SIGPIPE);
    std::process::exit(128 + Signal::SIGPIPE as i32)
}
