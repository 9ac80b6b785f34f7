//! `wirekit validate`: check a captured session against a protocol.
//!
//! The capture holds the messages of both directions in one stream, in the
//! order they passed, framed as the protocol frames them. Both sides are
//! judged (see `wirekit::monitor`). Each problem is printed with its frame
//! index (framing faults count as frames) and JSON pointer, and its
//! severity: an error, or a warning for what JSON-RPC 2.0 allows but
//! discourages (a `null` or fractional request id in a lenient protocol).
//! Exit status 0 when no error was found (warnings do not count), 1 when
//! one was (an empty capture included), 2 for bad usage.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use wirekit::capture::Sides;
use wirekit::monitor::{Party, Severity};
use wirekit::validate::Protocol;

/// Arguments of `wirekit validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The protocol: `NAME@VERSION`, or its name alone: the version the session
    /// declares (or negotiates) when the protocol has it, else the newest.
    #[arg(long)]
    protocol: String,
    /// Look for the protocol in this folder (laid out `NAME/VERSION/protocol.json`) instead of the nearest `schemas/`; the built-in protocols come after it.
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
    /// Print one JSON object a problem instead of a line of text.
    #[arg(long)]
    json: bool,
    /// Who sent which bytes of the capture (`<byte offset> client|server`
    /// lines, as `wirekit lsp --record` and `wirekit drive --record` write
    /// them): each message's direction is checked and its faults blamed on
    /// its sender. Default: `<FILE>.sides` where it exists.
    #[arg(long, value_name = "FILE")]
    sides: Option<PathBuf>,
    /// The captured session (standard input when absent or `-`).
    file: Option<PathBuf>,
}

/// Where the sides file of the capture `capture` is written and looked for:
/// `<capture>.sides`.
pub fn sides_path(capture: &Path) -> PathBuf {
    let mut name = capture.as_os_str().to_owned();
    name.push(".sides");
    PathBuf::from(name)
}

/// The sides file `--sides` names, or the one beside the capture file.
fn sides(args: &ValidateArgs) -> Result<Option<Sides>, String> {
    let path = match (&args.sides, &args.file) {
        (Some(path), _) => path.clone(),
        (None, Some(file)) if file.as_os_str() != "-" => {
            let beside = sides_path(file);
            if !beside.exists() {
                return Ok(None);
            }
            beside
        }
        (None, _) => return Ok(None),
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the sides file {}: {e}", path.display()))?;
    Sides::parse(&text)
        .map(Some)
        .map_err(|e| format!("the sides file {}: {e}", path.display()))
}

/// Runs `wirekit validate`.
pub fn run(args: ValidateArgs) -> ExitCode {
    let mut input = match crate::input::open(args.file.as_deref()) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("wirekit validate: {message}");
            return ExitCode::from(2);
        }
    };
    // The whole capture first: a protocol named without a version is
    // checked against the version the session declares.
    let mut capture = Vec::new();
    if let Err(error) = input.read_to_end(&mut capture) {
        eprintln!("wirekit validate: {error}");
        return ExitCode::from(2);
    }
    let protocol = match load(&args, &capture) {
        Ok(protocol) => protocol,
        Err(error) => {
            eprintln!("wirekit validate: {error}");
            return ExitCode::from(2);
        }
    };
    let sides = match sides(&args) {
        Ok(sides) => sides,
        Err(message) => {
            eprintln!("wirekit validate: {message}");
            return ExitCode::from(2);
        }
    };
    let judged = wirekit::monitor::judge(&protocol, &capture, sides.as_ref());
    let (frames, problems) = (judged.frames, &judged.problems);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for problem in problems {
        let written = if args.json {
            serde_json::to_writer(&mut out, problem)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        } else {
            writeln!(out, "{problem}")
        };
        if written.is_err() {
            break;
        }
    }
    let _ = out.flush();
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let warned = if warnings == 0 {
        String::new()
    } else {
        format!(" ({warnings} warning(s): what the protocol allows but discourages or leaves to implementations)")
    };
    if frames == 0 {
        eprintln!("wirekit validate: the capture holds no frames");
        ExitCode::from(1)
    } else if errors == 0 {
        eprintln!(
            "wirekit validate: {} session is clean{warned}",
            protocol.id()
        );
        ExitCode::SUCCESS
    } else {
        let count = |party: Party| {
            problems
                .iter()
                .filter(|p| p.severity == Severity::Error && p.blame == party)
                .count()
        };
        let (client, server, capture) = (
            count(Party::Client),
            count(Party::Server),
            count(Party::Capture),
        );
        eprintln!(
            "wirekit validate: {errors} problem(s) in a session of {} ({client} by the client, {server} by the server, {capture} in the capture){warned}",
            protocol.id()
        );
        ExitCode::from(1)
    }
}

/// The protocol to check `capture` against: `NAME@VERSION` as given, or
/// for a name alone the version the session declares (or negotiates) when
/// the protocol has it, else the newest.
fn load(args: &ValidateArgs, capture: &[u8]) -> Result<Arc<Protocol>, String> {
    let found = crate::catalog::find(&args.protocol, args.schemas.as_deref(), "wirekit validate")?;
    let spec = if args.protocol.contains('@') {
        args.protocol.clone()
    } else {
        crate::session_version::follow(&found.registry, &args.protocol, capture)
    };
    found.compile(&spec)
}
