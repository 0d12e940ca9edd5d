//! The `arena` binary: the command line of `cli/` over the `arena` library.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::main()
}
