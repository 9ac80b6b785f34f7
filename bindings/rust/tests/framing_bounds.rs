//! Memory bounds on hostile input: a decoder never holds more than the frame
//! bound, plus the header bound, plus the chunk being pushed.

// A test harness reports a failed expectation by panicking.
#![allow(clippy::panic)]

use wirekit::framing::{ContentLengthDecoder, FaultKind, FrameDecoder, FrameLimits, NdjsonDecoder};

const CHUNK: usize = 64 * 1024;
const MIB: usize = 1024 * 1024;

/// Push `total` bytes of `fill` in 64 KiB chunks, asserting the bound after
/// every push; returns every result.
fn flood(
    decoder: &mut dyn FrameDecoder,
    bound: usize,
    total: usize,
    fill: u8,
) -> Vec<Result<wirekit::framing::Frame, wirekit::framing::FramingError>> {
    let chunk = vec![fill; CHUNK];
    let mut results = Vec::new();
    let mut sent = 0;
    while sent < total {
        let n = CHUNK.min(total - sent);
        decoder.push(&chunk[..n]);
        sent += n;
        assert!(
            decoder.buffered_bytes() <= bound + n,
            "{} bytes held after {sent} bytes pushed",
            decoder.buffered_bytes()
        );
        results.extend(std::iter::from_fn(|| decoder.next_frame()));
    }
    results
}

#[test]
fn content_length_100_mib_declared_frame_is_refused_on_its_header() {
    let limits = FrameLimits::content_length_default();
    let mut decoder = ContentLengthDecoder::new(limits);
    let header = b"Content-Length: 104857600\r\n\r\n";
    decoder.push(header);
    let fault = decoder.next_frame().and_then(Result::err).expect("a fault");
    assert_eq!((fault.kind(), fault.offset()), (FaultKind::FrameTooLong, 0));
    assert_eq!(
        fault.detail(),
        "declared Content-Length 104857600 exceeds the frame bound of 16777216 bytes"
    );
    assert_eq!(decoder.buffered_bytes(), 0);
    let rest = flood(&mut decoder, 0, 100 * MIB, b'x');
    assert!(rest.is_empty());
    assert!(decoder.is_dead());
    assert_eq!(decoder.buffered_bytes(), 0);
}

#[test]
fn content_length_frame_at_the_bound_is_held_within_the_bound() {
    let limits = FrameLimits::content_length_default();
    let bound = limits.max_frame_bytes + limits.max_header_bytes;
    let mut decoder = ContentLengthDecoder::new(limits);
    let header = format!("Content-Length: {}\r\n\r\n", limits.max_frame_bytes);
    decoder.push(header.as_bytes());
    let results = flood(&mut decoder, bound, limits.max_frame_bytes, b' ');
    assert_eq!(results.len(), 1);
    let frame = results
        .into_iter()
        .next()
        .and_then(Result::ok)
        .expect("one frame");
    assert_eq!((frame.offset(), frame.len()), (0, limits.max_frame_bytes));
    assert_eq!(decoder.buffered_bytes(), 0);
}

#[test]
fn content_length_header_flood_is_refused_at_the_header_bound() {
    let limits = FrameLimits::content_length_default();
    let mut decoder = ContentLengthDecoder::new(limits);
    decoder.push(b"X-Flood: ");
    let results = flood(&mut decoder, limits.max_header_bytes, 10 * MIB, b'a');
    let kinds: Vec<_> = results
        .iter()
        .map(|r| r.as_ref().err().map(|e| e.kind()))
        .collect();
    assert_eq!(kinds, vec![Some(FaultKind::HeaderTooLong)]);
    assert_eq!(decoder.buffered_bytes(), 0);
}

#[test]
fn ndjson_50_mib_line_is_skipped_holding_at_most_the_bound() {
    let limits = FrameLimits::ndjson_default();
    let mut decoder = NdjsonDecoder::new(limits);
    let results = flood(&mut decoder, limits.max_frame_bytes + 1, 50 * MIB, b'x');
    let fault = match results.as_slice() {
        [Err(fault)] => fault.clone(),
        other => panic!("expected one fault, got {other:?}"),
    };
    assert_eq!((fault.kind(), fault.offset()), (FaultKind::FrameTooLong, 0));
    assert_eq!(decoder.buffered_bytes(), 0);
    // The stream carries on after the line's LF.
    decoder.push(b"\n{\"id\":1}\n");
    let next = decoder
        .next_frame()
        .and_then(Result::ok)
        .expect("next frame");
    assert_eq!(
        (next.offset(), next.body()),
        (50 * MIB as u64 + 1, "{\"id\":1}")
    );
    assert!(!decoder.is_dead());
}

#[test]
fn ndjson_many_small_lines_in_one_chunk_are_queued_not_duplicated() {
    let mut decoder = NdjsonDecoder::new(FrameLimits::ndjson_default());
    let chunk = "{}\n".repeat(CHUNK / 3);
    decoder.push(chunk.as_bytes());
    assert!(decoder.buffered_bytes() <= chunk.len());
    let frames = std::iter::from_fn(|| decoder.next_frame()).count();
    assert_eq!(frames, CHUNK / 3);
    assert_eq!(decoder.buffered_bytes(), 0);
}
