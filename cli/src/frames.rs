//! `wirekit frames`: split a captured byte stream into frames and print one
//! JSON object a line, for a person inspecting a session.
//!
//! `{"frame": 0, "len": 63, "body": "..."}` for each frame and
//! `{"fault": "FrameTooLong", "offset": 120, "detail": "..."}` for each fault.
//! Exit status 0 when there was no fault, 1 when there was one, 2 for bad usage.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use wirekit::framing::{FrameReader, Framing, ReadError};

/// Arguments of `wirekit frames`.
#[derive(Debug, clap::Args)]
pub struct FramesArgs {
    /// How the stream is framed: `ndjson` or `content-length`.
    #[arg(long)]
    framing: Framing,
    /// The largest frame body in bytes (default: 1 MiB for NDJSON, 16 MiB for Content-Length).
    #[arg(long, value_name = "N")]
    max_frame_bytes: Option<usize>,
    /// The captured stream (standard input when absent or `-`).
    file: Option<PathBuf>,
}

/// Runs `wirekit frames`.
pub fn run(args: FramesArgs) -> ExitCode {
    let input = match crate::input::open(args.file.as_deref()) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("wirekit frames: {message}");
            return ExitCode::from(2);
        }
    };
    let mut limits = args.framing.default_limits();
    if let Some(max) = args.max_frame_bytes {
        limits = limits.with_max_frame_bytes(max);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match print_frames(FrameReader::new(input, args.framing, limits), &mut out) {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wirekit frames: {error}");
            ExitCode::from(2)
        }
    }
}

/// Prints every frame and fault; returns whether there was a fault.
fn print_frames<R: Read>(
    mut reader: FrameReader<R>,
    out: &mut impl Write,
) -> std::io::Result<bool> {
    let mut index = 0usize;
    let mut faulted = false;
    loop {
        let line = match reader.read_frame() {
            Ok(None) => break,
            Ok(Some(frame)) => {
                index += 1;
                json!({"frame": index - 1, "len": frame.len(), "body": frame.body()})
            }
            Err(ReadError::Framing(fault)) => {
                faulted = true;
                json!({"fault": fault.kind().name(), "offset": fault.offset(), "detail": fault.detail()})
            }
            Err(ReadError::Io(error)) => return Err(error),
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(faulted)
}
