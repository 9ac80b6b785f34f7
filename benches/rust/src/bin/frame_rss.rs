//! Peak memory of decoding one 16 MiB frame pushed in 64 KiB chunks.
//!
//! `cargo run --release -p wirekit-bench --bin frame_rss` runs every case in
//! a fresh process of its own and prints a table: the growth of the peak
//! resident set (`VmHWM`) over the process's size before decoding, as a
//! multiple of the frame's size. The input is generated chunk by chunk, so
//! only the decoder (and the frame it hands over) holds memory.

use std::process::Command;

use wirekit::framing::{
    ContentLengthDecoder, Frame, FrameDecoder, FrameLimits, Framing, NdjsonDecoder,
};

const FRAME_BYTES: usize = 16 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// Kibibytes of a `/proc/self/status` field.
fn status_kib(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The wire bytes of one frame of `FRAME_BYTES` (a JSON string) in `framing`,
/// produced a chunk at a time.
fn feed(framing: Framing, mut push: impl FnMut(&[u8])) {
    let header = match framing {
        Framing::ContentLength => format!("Content-Length: {FRAME_BYTES}\r\n\r\n"),
        Framing::Ndjson => String::new(),
    };
    push(header.as_bytes());
    let mut chunk = vec![b'a'; CHUNK];
    let mut sent = 0;
    while sent < FRAME_BYTES {
        let size = CHUNK.min(FRAME_BYTES - sent);
        let piece = &mut chunk[..size];
        piece.fill(b'a');
        if sent == 0 {
            piece[0] = b'"';
        }
        if sent + size == FRAME_BYTES {
            piece[size - 1] = b'"';
        }
        push(piece);
        sent += size;
    }
    if framing == Framing::Ndjson {
        push(b"\n");
    }
}

fn decoder(framing: Framing) -> Box<dyn FrameDecoder> {
    let limits = FrameLimits::content_length_default().with_max_frame_bytes(FRAME_BYTES);
    match framing {
        Framing::Ndjson => Box::new(NdjsonDecoder::new(limits)),
        Framing::ContentLength => Box::new(ContentLengthDecoder::new(limits)),
    }
}

/// One case, in this process: prints the peak growth in bytes.
fn run_case(framing: Framing, api: &str) {
    let before = status_kib("VmRSS:");
    let mut decoder = decoder(framing);
    let mut frames: Vec<Frame> = Vec::new();
    let mut lent_len = 0;
    feed(framing, |chunk| match api {
        "push" => {
            decoder.push(chunk);
            while let Some(Ok(frame)) = decoder.next_frame() {
                frames.push(frame);
            }
        }
        _ => {
            let mut rest = chunk;
            loop {
                let step = decoder.decode(rest);
                rest = &rest[step.consumed..];
                match step.item {
                    Some(Ok(frame)) => lent_len += frame.len(),
                    Some(Err(error)) => {
                        eprintln!("{error}");
                        std::process::exit(1);
                    }
                    None => break,
                }
            }
        }
    });
    decoder.finish();
    let got: usize = frames.iter().map(Frame::len).sum::<usize>() + lent_len;
    assert_eq!(got, FRAME_BYTES, "the frame was not decoded whole");
    let peak = status_kib("VmHWM:");
    println!("{}", (peak.saturating_sub(before)) * 1024);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, framing, api] = args.as_slice() {
        let framing: Framing = framing.parse().unwrap_or(Framing::ContentLength);
        run_case(framing, api);
        return;
    }
    let exe = std::env::current_exe().unwrap_or_default();
    println!("| framing | API | peak RSS growth | x frame size |");
    println!("| --- | --- | ---: | ---: |");
    for framing in Framing::ALL {
        for api in ["push", "decode"] {
            let output = Command::new(&exe).arg(framing.name()).arg(api).output();
            let growth: Option<usize> = output
                .ok()
                .filter(|out| out.status.success())
                .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok());
            let label = match api {
                "push" => "push + next_frame (frame kept by the caller)",
                _ => "decode (frame lent)",
            };
            match growth {
                Some(bytes) => println!(
                    "| {framing} | {label} | {:.1} MiB | {:.2}x |",
                    bytes as f64 / 1048576.0,
                    bytes as f64 / FRAME_BYTES as f64
                ),
                None => println!("| {framing} | {label} | failed | |"),
            }
        }
    }
}
