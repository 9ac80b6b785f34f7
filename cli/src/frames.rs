//! `wirekit frames`: split a captured byte stream into frames and print one
//! JSON object a line, for a person inspecting a session.
//!
//! `{"frame": 0, "len": 63, "body": "..."}` for each frame (a
//! `Content-Length` frame also shows its header lines as they came:
//! `"headers": ["Content-Length: 63", "Content-Type: ..."]`) and
//! `{"fault": "FrameTooLong", "offset": 120, "detail": "..."}` for each fault.
//! Exit status 0 when there was no fault, 1 when there was one, 2 for bad usage.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;
use wirekit::framing::{FrameReader, Framing, ReadError, TeeReader};

/// Arguments of `wirekit frames`.
#[derive(Debug, clap::Args)]
pub struct FramesArgs {
    /// How the stream is framed: `ndjson` or `content-length` (default: the framing of `--protocol`).
    #[arg(long, required_unless_present = "protocol")]
    framing: Option<Framing>,
    /// The protocol whose transport frames the stream (`NAME` or
    /// `NAME@VERSION`, found as `validate` finds it): its framing and frame bound.
    #[arg(long, value_name = "PROTOCOL")]
    protocol: Option<String>,
    /// Look for the protocol in this folder instead of the nearest `schemas/`.
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
    /// The largest frame body in bytes (default: the protocol's bound; else 1 MiB for NDJSON, 16 MiB for Content-Length).
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
    let transport = match &args.protocol {
        None => None,
        Some(spec) => match crate::catalog::find(spec, args.schemas.as_deref(), "wirekit frames")
            .and_then(|found| found.compile(spec))
        {
            Ok(protocol) => Some(protocol.manifest().transport.clone()),
            Err(message) => {
                eprintln!("wirekit frames: {message}");
                return ExitCode::from(2);
            }
        },
    };
    let Some(framing) = args.framing.or(transport.as_ref().map(|t| t.framing)) else {
        eprintln!("wirekit frames: pass --framing or --protocol");
        return ExitCode::from(2);
    };
    let mut limits = match (&transport, args.framing) {
        (Some(transport), None) => transport.frame_limits(),
        _ => framing.default_limits(),
    };
    if let Some(max) = args.max_frame_bytes {
        limits = limits.with_max_frame_bytes(max);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let kept = limits
        .max_frame_bytes
        .saturating_add(limits.max_header_bytes);
    let reader = FrameReader::new(TeeReader::new(input, kept), framing, limits);
    match print_frames(reader, framing, &mut out) {
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
    mut reader: FrameReader<TeeReader<R>>,
    framing: Framing,
    out: &mut impl Write,
) -> std::io::Result<bool> {
    let mut index = 0usize;
    let mut faulted = false;
    loop {
        let read = reader.read_frame();
        let until = reader.consumed();
        let bytes = reader.get_mut().take(until);
        let line = match read {
            Ok(None) => break,
            Ok(Some(frame)) => {
                index += 1;
                let mut line = json!({"frame": index - 1, "len": frame.len()});
                if framing == Framing::ContentLength {
                    line["headers"] = json!(header_lines(&bytes, frame.len()));
                }
                line["body"] = json!(frame.body());
                line
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

/// The header lines of a `Content-Length` frame whose exact bytes are
/// `bytes` and whose body is the last `body_len` of them, as written
/// (without their line endings).
fn header_lines(bytes: &[u8], body_len: usize) -> Vec<String> {
    let header = &bytes[..bytes.len().saturating_sub(body_len)];
    String::from_utf8_lossy(header)
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}
