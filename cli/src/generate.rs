//! `wirekit generate` (stub: the codegen work replaces this file).

use std::process::ExitCode;

/// Arguments of `wirekit generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {}

/// Runs `wirekit generate`.
pub fn run(_args: GenerateArgs) -> ExitCode {
    eprintln!("wirekit generate: not built yet");
    ExitCode::from(2)
}
