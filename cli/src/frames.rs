//! `wirekit frames` (filled in once the framing layer lands).

use std::process::ExitCode;

/// Arguments of `wirekit frames`.
#[derive(Debug, clap::Args)]
pub struct FramesArgs {}

/// Runs `wirekit frames`.
pub fn run(_args: FramesArgs) -> ExitCode {
    ExitCode::from(2)
}
