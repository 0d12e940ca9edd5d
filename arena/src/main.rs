//! The `arena` binary: the command line of `cli/` over the `arena` library.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    // Before clap and tokio: run as a sandbox's init step (under the name
    // bubblewrap gives it), this process only prepares the sandbox and
    // execs the bot.
    arena::process::sandbox_init::run_if_asked();
    cli::main()
}
