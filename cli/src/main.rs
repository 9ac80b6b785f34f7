//! The `wirekit` binary: the command of the `wirekit_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(wirekit_cli::run(std::env::args_os()))
}
