//! The `wirekit` command: inspect captured frames, validate captured
//! sessions against a protocol, drive a server, and generate bindings from
//! `schemas/`.
//!
//! The command is a library too ([`run`]), so other front ends (the Python
//! package's `wirekit` script) run the very same command.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod answers;
mod catalog;
mod check;
mod conformance;
mod diff;
mod drive;
mod frames;
mod generate;
mod init;
mod input;
mod live;
mod lsp;
mod project;
mod session_version;
mod validate;
pub use validate::sides_path;

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
    #[command(
        override_usage = "wirekit frames [OPTIONS] <--framing <FRAMING>|--protocol <PROTOCOL>> [FILE]"
    )]
    Frames(frames::FramesArgs),
    /// Check a captured session (both directions, in order) against a protocol.
    #[command(override_usage = "wirekit validate [OPTIONS] --protocol <PROTOCOL> [FILE]")]
    Validate(validate::ValidateArgs),
    /// Start a server and drive it with checked calls from a requests file, as its host.
    #[command(override_usage = "wirekit drive [OPTIONS] --protocol <PROTOCOL> -- <COMMAND>...")]
    Drive(drive::DriveArgs),
    /// Start a server and put it through a battery built from its protocol: lifecycle, faults, exit.
    #[command(
        override_usage = "wirekit conformance [OPTIONS] --protocol <PROTOCOL> -- <COMMAND>..."
    )]
    Conformance(conformance::ConformanceArgs),
    /// Ask a language server one question: definition, references, hover, calls, symbols, rename, diagnostics.
    #[command(
        override_usage = "wirekit lsp [OPTIONS] <QUERY> <ARGS>... -- <SERVER>...",
        after_help = lsp::EXIT_STATUS
    )]
    Lsp(lsp::LspArgs),
    /// Compare two versions of a protocol and classify every change by whom it breaks.
    #[command(override_usage = "wirekit diff [OPTIONS] --protocol <PROTOCOL> <OLD> <NEW>")]
    Diff(diff::DiffArgs),
    /// Write a protocol of one's own (schemas, a Python server, calls, a README), ready for `conformance`.
    Init(init::InitArgs),
    /// Lint protocols of one's own: the manifest, the schemas, every example against its schema.
    Check(check::CheckArgs),
    /// Generate the Rust, Python and TypeScript bindings and the docs of protocols from their schemas
    /// (`--out DIR` or `wirekit.toml` in a project of one's own).
    Generate(generate::GenerateArgs),
}

/// Runs the command with `args` (the first is the program name, as in
/// `std::env::args_os()`) and returns its exit status: 0 success, 1 a
/// problem found (a fault, a drifted file, a failed check), 2 a usage or I/O
/// error.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    status(run_command(args))
}

fn run_command<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `wirekit lsp ... rename ...`: a new name that clap took for an option.
    let lsp_rename = args.get(1).is_some_and(|arg| arg == "lsp")
        && args
            .iter()
            .take_while(|arg| *arg != "--")
            .any(|arg| arg == "rename");
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) if lsp_rename && error.kind() == clap::error::ErrorKind::UnknownArgument => {
            // clap's tip (`-- VALUE`) is wrong here: `--` starts the server command.
            let argument = error
                .get(clap::error::ContextKind::InvalidArg)
                .map(ToString::to_string)
                .unwrap_or_default();
            eprintln!(
                "error: unexpected argument '{argument}' found\n\n  \
                 tip: a new name of `rename` that starts with '-' is given with --to: \
                 `--to={argument}` (`--` starts the server command)\n\n\
                 Usage: wirekit lsp [OPTIONS] <QUERY> <ARGS>... -- <SERVER>...\n\n\
                 For more information, try '--help'."
            );
            return ExitCode::from(2);
        }
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
        Command::Conformance(args) => conformance::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Init(args) => init::run(args),
        Command::Check(args) => check::run(args),
    }
}

/// The number behind an [`ExitCode`] (the subcommands return 0, 1 or 2).
fn status(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|n| ExitCode::from(*n) == code)
        .unwrap_or(1)
}
