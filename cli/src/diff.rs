//! `wirekit diff`: compare two versions of a protocol (manifest and
//! schemas) for its maintainers. Every change is printed with whom it breaks
//! (clients, servers, both, or no one) and its JSON pointer.
//!
//! OLD and NEW are versions of the protocol (`1.0.0`) or folders holding a
//! version's `protocol.json` and schema files (a working copy under edit).
//! Exit status 0 when nothing breaks or the major version moved, 1 on a
//! breaking change within one major version (under the manifest's
//! `version_scheme: date`, on any breaking change: a date announces none),
//! 2 for bad usage.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use wirekit::diff::{self, Impact, Report};
use wirekit::protocol::{ProtocolSource, VersionScheme};

/// Arguments of `wirekit diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The protocol (e.g. `gaze-analyzer`), from `--schemas`, the nearest `schemas/` folder, or the built-in ones.
    #[arg(long)]
    protocol: String,
    /// Look for the protocol in this folder (laid out `NAME/VERSION/protocol.json`) instead of the nearest `schemas/`; the built-in protocols come after it.
    #[arg(long, value_name = "DIR")]
    schemas: Option<std::path::PathBuf>,
    /// Print one JSON object a change instead of text.
    #[arg(long)]
    json: bool,
    /// The old version: a version of the protocol, or a folder holding its `protocol.json`.
    #[arg(value_name = "OLD")]
    old: String,
    /// The new version: a version of the protocol, or a folder holding its `protocol.json`.
    #[arg(value_name = "NEW")]
    new: String,
}

/// Runs `wirekit diff`.
pub fn run(args: DiffArgs) -> ExitCode {
    let report = match load(&args, &args.old).and_then(|old| {
        let new = load(&args, &args.new)?;
        diff::compare(&old, &new).map_err(|e| e.to_string())
    }) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("wirekit diff: {error}");
            return ExitCode::from(2);
        }
    };
    let mut changes = report.changes.clone();
    changes.sort_by_key(|c| c.impact);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for change in &changes {
        let written = if args.json {
            serde_json::to_writer(&mut out, change)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        } else {
            writeln!(out, "{change}")
        };
        if written.is_err() {
            break;
        }
    }
    let _ = out.flush();
    eprintln!("wirekit diff: {}", summary(&report));
    if report.is_breaking() && !report.major_moved() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn summary(report: &Report) -> String {
    let counts = format!(
        "{} breaking for clients, {} breaking for servers, {} breaking for both, {} compatible",
        report.count(Impact::BreaksClients),
        report.count(Impact::BreaksServers),
        report.count(Impact::BreaksClientsAndServers),
        report.count(Impact::Compatible),
    );
    let verdict = match (
        report.is_breaking(),
        report.major_moved(),
        report.version_scheme,
    ) {
        (false, _, _) => "a compatible change: peers of either version work together",
        (true, true, _) => "breaking, and the major version moved",
        (true, false, VersionScheme::Date) => {
            "breaking between dated versions, which announce no breaking change: peers must negotiate the version, or undo the breaking changes"
        }
        (true, false, VersionScheme::Semver) => {
            "breaking within one major version: move the major version or undo the breaking changes"
        }
    };
    format!(
        "{} {} -> {}: {counts}; {verdict}",
        report.protocol, report.old_version, report.new_version
    )
}

/// A version of the protocol, or a folder holding one.
fn load(args: &DiffArgs, which: &str) -> Result<ProtocolSource, String> {
    let path = Path::new(which);
    if path.is_dir() || which.contains(std::path::MAIN_SEPARATOR) {
        return ProtocolSource::from_dir(path, &path.display().to_string())
            .map_err(|e| e.to_string());
    }
    let spec = format!("{}@{which}", args.protocol);
    crate::catalog::find(&args.protocol, args.schemas.as_deref(), "wirekit diff")?.source(&spec)
}
