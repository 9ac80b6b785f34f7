//! `wirekit conformance`: start a server and put it through a battery
//! built from its protocol's manifest and schemas (the core's
//! [`wirekit::conformance`]): the real host's lifecycle, every answer
//! judged by the monitor, capability honesty, faults and their answers, the
//! exit. Prints a readable report with a summary table (or `--json`),
//! writes JUnit XML with `--junit`, records the sessions with `--record`.
//!
//! Exit status 0 when no check failed, 1 when one did, 2 for bad usage.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use wirekit::conformance::{self, Options};
use wirekit::validate::Protocol;

/// Arguments of `wirekit conformance`.
#[derive(Debug, clap::Args)]
pub struct ConformanceArgs {
    /// The protocol: `NAME` (its newest version) or `NAME@VERSION`, from `--schemas`, the nearest `schemas/` folder, or the built-in ones.
    #[arg(long)]
    protocol: String,
    /// Look for the protocol in this folder (laid out `NAME/VERSION/protocol.json`) instead of the nearest `schemas/`; the built-in protocols come after it.
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the report as JUnit XML into this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Run only this group of checks (repeatable): lifecycle, capabilities,
    /// exit, state, params, envelope, framing, output.
    #[arg(long, value_name = "GROUP")]
    only: Vec<String>,
    /// The project root: the server's working directory, and the params
    /// member the protocol names for it (default: the current directory).
    /// A relative server path (`./server`, `bin/server`) is a file in this root.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Record the first session into this file, the others beside it
    /// (FILE.2, ...), in the format `wirekit validate` reads.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// One timeout, in seconds, for every answer (default: each method's
    /// own, and 10 s for faults).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Params to send instead of the manifest's examples: a JSON object,
    /// method name to params.
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// Answers to the server's own requests (a permission it asks mid-call),
    /// as `wirekit drive --answers`: a JSON object mapping each method to
    /// `{"result": ...}` or `{"error": {"code": ..., "message": ...}}`. The
    /// methods it leaves out get their manifest example's result, else -32601.
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// The server's command line.
    #[arg(last = true, required = true, num_args = 1..)]
    command: Vec<String>,
}

/// Runs `wirekit conformance`.
pub fn run(args: ConformanceArgs) -> ExitCode {
    match conformance(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("wirekit conformance: {message}");
            ExitCode::from(2)
        }
    }
}

fn load(args: &ConformanceArgs) -> Result<Arc<Protocol>, String> {
    crate::catalog::find(
        &args.protocol,
        args.schemas.as_deref(),
        "wirekit conformance",
    )?
    .compile(&args.protocol)
}

fn params(path: &PathBuf) -> Result<BTreeMap<String, Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let Value::Object(members) = value else {
        return Err(format!(
            "{} must hold a JSON object: method name to params",
            path.display()
        ));
    };
    Ok(members.into_iter().collect())
}

fn conformance(args: ConformanceArgs) -> Result<bool, String> {
    let protocol = load(&args)?;
    let mut options = Options::new(args.command.clone());
    options.root = args.root.clone();
    options.only = args
        .only
        .iter()
        .flat_map(|g| g.split(','))
        .map(|g| g.trim().to_owned())
        .filter(|g| !g.is_empty())
        .collect();
    options.record = args.record.clone();
    if let Some(secs) = args.timeout {
        if !(secs.is_finite() && secs > 0.0) {
            return Err(format!(
                "--timeout must be a positive number of seconds, not {secs}"
            ));
        }
        options.timeout = Some(Duration::from_secs_f64(secs));
    }
    if let Some(path) = &args.params {
        options.params = params(path)?;
    }
    if let Some(path) = &args.answers {
        options.answers = Some(crate::answers::read(path, &protocol)?);
    }
    let live = std::io::stderr().is_terminal();
    if live {
        options.progress = Some(Box::new(|what: &str, done: usize| {
            let mut err = std::io::stderr().lock();
            let line: String = what.chars().take(100).collect();
            let _ = write!(err, "\r\x1b[2K[{done} checks] {line}");
            let _ = err.flush();
        }));
    }
    let report = conformance::run(protocol, options).map_err(|e| e.to_string())?;
    if live {
        eprint!("\r\x1b[2K");
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, report.to_junit())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let text = if args.json {
        let mut text =
            serde_json::to_string_pretty(&report.to_json()).map_err(|e| e.to_string())?;
        text.push('\n');
        text
    } else {
        report.to_text()
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(report.passed())
}
