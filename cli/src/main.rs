//! The `wirekit` command: inspect captured frames, validate captured
//! sessions against a protocol, and generate bindings from `schemas/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod drive;
mod frames;
mod generate;
mod input;
mod validate;

/// JSON-RPC over stdio, driven by JSON Schemas.
#[derive(Debug, Parser)]
#[command(name = "wirekit", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Split a captured byte stream into frames and print one JSON object a frame.
    Frames(frames::FramesArgs),
    /// Check a captured session (both directions, in order) against a protocol.
    Validate(validate::ValidateArgs),
    /// Start a server and drive it with checked calls from a requests file, as its host.
    Drive(drive::DriveArgs),
    /// Regenerate the Rust, Python and TypeScript bindings and the docs from `schemas/`.
    Generate(generate::GenerateArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version on stdout with exit 0; usage errors exit 2.
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Frames(args) => frames::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Drive(args) => drive::run(args),
        Command::Generate(args) => generate::run(args),
    }
}
