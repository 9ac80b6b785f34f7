//! Framing throughput: wirekit's push decoders and encoders beside their
//! peers and plain references, on the same 64 MiB of traffic in one run.
//!
//! Times are the benchmark thread's CPU time ([`ThreadCpuTime`]): the machine
//! is shared. `cargo bench -p wirekit-bench --bench framing`; `benches/rust/report.py`
//! turns the results into the tables of BENCHMARKS.md.

// criterion's macros generate undocumented items.
#![allow(missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use bytes::BytesMut;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use tokio_util::codec::{Decoder, LinesCodec};
use wirekit::framing::{
    ContentLengthDecoder, ContentLengthEncoder, FrameDecoder, FrameEncoder, FrameLimits,
    NdjsonDecoder, NdjsonEncoder,
};
use wirekit_bench::{bodies, content_length_stream, ndjson_stream, ThreadCpuTime, TRAFFIC_BYTES};

/// Bytes a decoder is handed at a time, as a reader of a pipe would.
const CHUNK: usize = 64 * 1024;

/// An output buffer is handed to the writer (here: dropped) past this size.
const WRITE_BUFFER: usize = 64 * 1024;

fn group<'a>(
    c: &'a mut Criterion<ThreadCpuTime>,
    name: &str,
    bytes: usize,
) -> BenchmarkGroup<'a, ThreadCpuTime> {
    let mut group = c.benchmark_group(name);
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(bytes as u64));
    group
}

/// Sum of body lengths, so no decoder's work can be optimised away.
fn consume(total: &mut usize, body: &str) {
    *total += black_box(body).len();
}

/// Decode `wire` in 64 KiB chunks through [`FrameDecoder::decode`]: frames
/// lent (`owned` false) or each made an owned `Frame` before the next.
fn decode_in_chunks<D: FrameDecoder>(mut decoder: D, wire: &[u8], owned: bool) -> usize {
    let mut total = 0;
    for chunk in wire.chunks(CHUNK) {
        let mut rest = chunk;
        loop {
            let step = decoder.decode(rest);
            rest = &rest[step.consumed..];
            match step.item {
                Some(Ok(frame)) if owned => consume(&mut total, frame.into_frame().body()),
                Some(Ok(frame)) => consume(&mut total, frame.body()),
                Some(Err(_)) => {}
                None => break,
            }
        }
    }
    decoder.finish();
    total
}

/// wirekit's three ways of decoding, the same for either framing: frames
/// lent by `decode`, each made owned by `into_frame`, and the owned-and-queued
/// `push` + `next_frame`.
fn wirekit_decoders<D: FrameDecoder>(
    g: &mut BenchmarkGroup<'_, ThreadCpuTime>,
    new_decoder: impl Fn() -> D,
    wire: &[u8],
    expected: usize,
) {
    g.bench_function("wirekit decode (lent frames)", |b| {
        b.iter(|| assert_eq!(decode_in_chunks(new_decoder(), wire, false), expected))
    });
    g.bench_function("wirekit decode + into_frame (owned)", |b| {
        b.iter(|| assert_eq!(decode_in_chunks(new_decoder(), wire, true), expected))
    });
    g.bench_function("wirekit push + next_frame (owned, queued)", |b| {
        b.iter(|| {
            let mut decoder = new_decoder();
            let mut total = 0;
            for chunk in wire.chunks(CHUNK) {
                decoder.push(chunk);
                while let Some(item) = decoder.next_frame() {
                    if let Ok(frame) = item {
                        consume(&mut total, frame.body());
                    }
                }
            }
            decoder.finish();
            assert_eq!(total, expected);
        })
    });
}

fn ndjson_decode(c: &mut Criterion<ThreadCpuTime>, wire: &[u8], expected: usize) {
    let limits = FrameLimits::ndjson_default();
    let mut g = group(c, "ndjson_decode", wire.len());
    wirekit_decoders(&mut g, || NdjsonDecoder::new(limits), wire, expected);
    g.bench_function("tokio-util LinesCodec (owned)", |b| {
        b.iter(|| {
            let mut codec = LinesCodec::new_with_max_length(limits.max_frame_bytes);
            let mut buffer = BytesMut::with_capacity(CHUNK);
            let mut total = 0;
            for chunk in wire.chunks(CHUNK) {
                buffer.extend_from_slice(chunk);
                while let Ok(Some(line)) = codec.decode(&mut buffer) {
                    consume(&mut total, &line);
                }
            }
            assert_eq!(total, expected);
        })
    });
    g.bench_function("BufRead::read_until, reused Vec", |b| {
        b.iter(|| {
            let mut reader = BufReader::with_capacity(CHUNK, wire);
            let mut line = Vec::new();
            let mut total = 0;
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let body = line.strip_suffix(b"\n").unwrap_or(&line);
                if let Ok(text) = std::str::from_utf8(body) {
                    consume(&mut total, text);
                }
            }
            assert_eq!(total, expected);
        })
    });
    g.bench_function("reference: memchr + copy + UTF-8 check", |b| {
        b.iter(|| {
            let mut total = 0;
            let mut line = Vec::new();
            let mut partial = false;
            for chunk in wire.chunks(CHUNK) {
                let mut rest = chunk;
                while let Some(lf) = memchr::memchr(b'\n', rest) {
                    if !partial {
                        line.clear();
                    }
                    line.extend_from_slice(&rest[..lf]);
                    partial = false;
                    if let Ok(text) = std::str::from_utf8(&line) {
                        consume(&mut total, text);
                    }
                    rest = &rest[lf + 1..];
                }
                if !rest.is_empty() {
                    if !partial {
                        line.clear();
                    }
                    line.extend_from_slice(rest);
                    partial = true;
                }
            }
            assert_eq!(total, expected);
        })
    });
    g.bench_function("floor: memchr count alone", |b| {
        b.iter(|| black_box(memchr::memchr_iter(b'\n', black_box(wire)).count()))
    });
    g.finish();
}

/// The length in a `Content-Length: N` header section (the reference's
/// minimal parse: the digits after the last colon).
fn declared_length(header: &[u8]) -> usize {
    let colon = memchr::memrchr(b':', header).map_or(0, |at| at + 1);
    header[colon..]
        .iter()
        .filter(|b| b.is_ascii_digit())
        .fold(0, |acc, &d| acc * 10 + usize::from(d - b'0'))
}

/// The `Content-Length` reference: memmem finds the header's end, the body
/// is copied into a reused buffer and checked as UTF-8.
struct MemmemReference {
    finder: memchr::memmem::Finder<'static>,
    header: Vec<u8>,
    body: Vec<u8>,
    need: Option<usize>,
    total: usize,
}

impl MemmemReference {
    fn new() -> Self {
        MemmemReference {
            finder: memchr::memmem::Finder::new(b"\r\n\r\n"),
            header: Vec::new(),
            body: Vec::new(),
            need: None,
            total: 0,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        while !rest.is_empty() {
            match self.need {
                Some(need) => {
                    let take = (need - self.body.len()).min(rest.len());
                    self.body.extend_from_slice(&rest[..take]);
                    rest = &rest[take..];
                    if self.body.len() == need {
                        if let Ok(text) = std::str::from_utf8(&self.body) {
                            consume(&mut self.total, text);
                        }
                        self.body.clear();
                        self.need = None;
                    }
                }
                None if self.header.is_empty() => match self.finder.find(rest) {
                    Some(at) => {
                        self.need = Some(declared_length(&rest[..at]));
                        rest = &rest[at + 4..];
                    }
                    None => {
                        self.header.extend_from_slice(rest);
                        rest = &[];
                    }
                },
                None => {
                    let held = self.header.len();
                    // Look from a few bytes back, in case the CRLFCRLF straddles chunks.
                    self.header.extend_from_slice(rest);
                    let from = held.saturating_sub(3);
                    match self.finder.find(&self.header[from..]) {
                        Some(at) => {
                            let end = from + at + 4;
                            self.need = Some(declared_length(&self.header[..end - 4]));
                            rest = &rest[end - held..];
                            self.header.clear();
                        }
                        None => rest = &[],
                    }
                }
            }
        }
    }
}

fn content_length_decode(c: &mut Criterion<ThreadCpuTime>, wire: &[u8], expected: usize) {
    let limits = FrameLimits::content_length_default();
    let mut g = group(c, "content_length_decode", wire.len());
    wirekit_decoders(&mut g, || ContentLengthDecoder::new(limits), wire, expected);
    g.bench_function("reference: memmem + copy + UTF-8 check", |b| {
        b.iter(|| {
            let mut reference = MemmemReference::new();
            for chunk in wire.chunks(CHUNK) {
                reference.push(chunk);
            }
            assert_eq!(reference.total, expected);
        })
    });
    g.bench_function("floor: memmem header scan, bodies skipped", |b| {
        b.iter(|| {
            let finder = memchr::memmem::Finder::new(b"\r\n\r\n");
            let mut at = 0;
            let mut frames = 0;
            while let Some(end) = finder.find(&wire[at..]) {
                at += end + 4 + declared_length(&wire[at..at + end]);
                frames += 1;
            }
            black_box(frames)
        })
    });
    g.bench_function("lsp-server Message::read (parses the JSON too)", |b| {
        b.iter(|| {
            let mut reader = BufReader::with_capacity(CHUNK, wire);
            let mut messages = 0;
            while let Ok(Some(message)) = lsp_server::Message::read(&mut reader) {
                black_box(&message);
                messages += 1;
            }
            black_box(messages)
        })
    });
    g.finish();
}

/// wirekit's `encode_into` over every body, the output handed on (dropped)
/// every [`WRITE_BUFFER`] bytes, as a writer would.
fn wirekit_encoder<E: FrameEncoder>(
    g: &mut BenchmarkGroup<'_, ThreadCpuTime>,
    encoder: &E,
    bodies: &[String],
) {
    g.bench_function("wirekit encode_into", |b| {
        let mut out = Vec::with_capacity(2 * WRITE_BUFFER);
        b.iter(|| {
            for body in bodies {
                if encoder.encode_into(body.as_bytes(), &mut out).is_ok()
                    && out.len() >= WRITE_BUFFER
                {
                    black_box(&out);
                    out.clear();
                }
            }
        })
    });
}

fn ndjson_encode(c: &mut Criterion<ThreadCpuTime>, bodies: &[String], bytes: usize) {
    let limits = FrameLimits::ndjson_default();
    let encoder = NdjsonEncoder::new(limits);
    let mut g = group(c, "ndjson_encode", bytes);
    wirekit_encoder(&mut g, &encoder, bodies);
    g.bench_function("plain write_all + LF", |b| {
        let mut out = Vec::with_capacity(2 * WRITE_BUFFER);
        b.iter(|| {
            for body in bodies {
                let _ = out.write_all(body.as_bytes());
                let _ = out.write_all(b"\n");
                if out.len() >= WRITE_BUFFER {
                    black_box(&out);
                    out.clear();
                }
            }
        })
    });
    g.bench_function(
        "plain write_all + LF, same checks (bound, CR/LF, UTF-8)",
        |b| {
            let mut out = Vec::with_capacity(2 * WRITE_BUFFER);
            b.iter(|| {
                for body in bodies {
                    let bytes = body.as_bytes();
                    if bytes.is_empty()
                        || bytes.len() > limits.max_frame_bytes
                        || memchr::memchr2(b'\n', b'\r', bytes).is_some()
                        || std::str::from_utf8(bytes).is_err()
                    {
                        continue;
                    }
                    let _ = out.write_all(bytes);
                    let _ = out.write_all(b"\n");
                    if out.len() >= WRITE_BUFFER {
                        black_box(&out);
                        out.clear();
                    }
                }
            })
        },
    );
    g.finish();
}

fn content_length_encode(c: &mut Criterion<ThreadCpuTime>, bodies: &[String], bytes: usize) {
    let limits = FrameLimits::content_length_default();
    let encoder = ContentLengthEncoder::new(limits);
    let mut g = group(c, "content_length_encode", bytes);
    wirekit_encoder(&mut g, &encoder, bodies);
    g.bench_function("plain write! header + body", |b| {
        let mut out = Vec::with_capacity(2 * WRITE_BUFFER);
        b.iter(|| {
            for body in bodies {
                let _ = write!(out, "Content-Length: {}\r\n\r\n", body.len());
                let _ = out.write_all(body.as_bytes());
                if out.len() >= WRITE_BUFFER {
                    black_box(&out);
                    out.clear();
                }
            }
        })
    });
    g.bench_function(
        "plain write! header + body, same checks (bound, UTF-8)",
        |b| {
            let mut out = Vec::with_capacity(2 * WRITE_BUFFER);
            b.iter(|| {
                for body in bodies {
                    let bytes = body.as_bytes();
                    if bytes.len() > limits.max_frame_bytes || std::str::from_utf8(bytes).is_err() {
                        continue;
                    }
                    let _ = write!(out, "Content-Length: {}\r\n\r\n", bytes.len());
                    let _ = out.write_all(bytes);
                    if out.len() >= WRITE_BUFFER {
                        black_box(&out);
                        out.clear();
                    }
                }
            })
        },
    );
    g.finish();
}

fn framing(c: &mut Criterion<ThreadCpuTime>) {
    let bodies = bodies(TRAFFIC_BYTES);
    let expected: usize = bodies.iter().map(String::len).sum();
    let ndjson = ndjson_stream(&bodies);
    let content_length = content_length_stream(&bodies);
    ndjson_decode(c, &ndjson, expected);
    content_length_decode(c, &content_length, expected);
    ndjson_encode(c, &bodies, ndjson.len());
    content_length_encode(c, &bodies, content_length.len());
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = framing
}
criterion_main!(benches);
