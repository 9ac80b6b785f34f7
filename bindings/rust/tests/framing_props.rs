//! Property tests: encode/decode round trips under random chunking, random
//! byte soup (never panics, always terminates, chunking never matters), and
//! the memory bound.

use proptest::prelude::*;
use wirekit::framing::{
    decoder_for, encoder_for, FaultKind, FrameDecoder, FrameLimits, FrameReader, Framing,
    FramingError, ReadError,
};

/// A decoder result, comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Frame(u64, String),
    Fault(u64, FaultKind),
}

/// Decode `input` pushed in pieces of the given sizes (cycled), draining
/// after every push and checking the invariants every decoder keeps.
fn decode(framing: Framing, limits: FrameLimits, input: &[u8], sizes: &[usize]) -> Vec<Outcome> {
    let mut decoder = decoder_for(framing, limits);
    let mut out = Vec::new();
    let held = limits.max_frame_bytes + limits.max_header_bytes + 1;
    let mut rest = input;
    let mut sizes = sizes.iter().copied().cycle();
    while !rest.is_empty() {
        let size = sizes.next().unwrap_or(rest.len()).clamp(1, rest.len());
        let (chunk, after) = rest.split_at(size);
        rest = after;
        decoder.push(chunk);
        assert!(decoder.buffered_bytes() <= held + chunk.len());
        drain(framing, &mut *decoder, &mut out);
        assert!(decoder.buffered_bytes() <= held);
    }
    decoder.finish();
    drain(framing, &mut *decoder, &mut out);
    assert_eq!(decoder.buffered_bytes(), 0);
    // Outputs come in stream order, each from bytes of the input.
    let offsets: Vec<u64> = out
        .iter()
        .map(|o| match o {
            Outcome::Frame(offset, _) | Outcome::Fault(offset, _) => *offset,
        })
        .collect();
    assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
    assert!(offsets.iter().all(|&offset| offset < input.len() as u64));
    out
}

/// The same decoding through the borrowed-frame API ([`FrameDecoder::decode`]):
/// every chunk is handed over until it is consumed, nothing is queued.
fn decode_lent(
    framing: Framing,
    limits: FrameLimits,
    input: &[u8],
    sizes: &[usize],
) -> Vec<Outcome> {
    let mut decoder = decoder_for(framing, limits);
    let mut out = Vec::new();
    let held = limits.max_frame_bytes + limits.max_header_bytes + 1;
    let mut rest = input;
    let mut sizes = sizes.iter().copied().cycle();
    while !rest.is_empty() {
        let size = sizes.next().unwrap_or(rest.len()).clamp(1, rest.len());
        let (chunk, after) = rest.split_at(size);
        rest = after;
        let mut pending = chunk;
        loop {
            let step = decoder.decode(pending);
            assert!(step.consumed <= pending.len());
            pending = &pending[step.consumed..];
            match step.item {
                None => {
                    assert!(
                        pending.is_empty(),
                        "decode returned None before using its input up"
                    );
                    break;
                }
                Some(Ok(frame)) => {
                    if frame.is_borrowed_from_input() {
                        // Lent from the chunk: its bytes lie just before what is pending.
                        let consumed = chunk.len() - pending.len();
                        assert!(frame.len() <= consumed);
                    }
                    out.push(Outcome::Frame(frame.offset(), frame.body().to_string()));
                }
                Some(Err(error)) => {
                    check_error(framing, &error);
                    assert_eq!(decoder.is_dead(), error.ends_stream());
                    out.push(Outcome::Fault(error.offset(), error.kind()));
                }
            }
            assert!(decoder.buffered_bytes() <= held);
        }
    }
    decoder.finish();
    while let Some(item) = decoder.decode(&[]).item {
        out.push(match item {
            Ok(frame) => Outcome::Frame(frame.offset(), frame.into_frame().into_body()),
            Err(error) => Outcome::Fault(error.offset(), error.kind()),
        });
    }
    assert_eq!(decoder.buffered_bytes(), 0);
    out
}

fn drain(framing: Framing, decoder: &mut dyn FrameDecoder, out: &mut Vec<Outcome>) {
    // Terminates: each push adds at most one result per input byte, plus one.
    while let Some(item) = decoder.next_frame() {
        out.push(match item {
            Ok(frame) => Outcome::Frame(frame.offset(), frame.into_body()),
            Err(error) => {
                check_error(framing, &error);
                assert_eq!(decoder.is_dead(), error.ends_stream());
                Outcome::Fault(error.offset(), error.kind())
            }
        });
    }
}

/// A reader that hands out its bytes in pieces of the given sizes (cycled).
struct Pieces<'a> {
    rest: &'a [u8],
    sizes: std::iter::Cycle<std::iter::Copied<std::slice::Iter<'a, usize>>>,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes.next().unwrap_or(1).clamp(1, buf.len().max(1));
        let size = size.min(self.rest.len()).min(buf.len());
        let (piece, rest) = self.rest.split_at(size);
        buf[..size].copy_from_slice(piece);
        self.rest = rest;
        Ok(size)
    }
}

/// `input` read through a [`FrameReader`] in pieces; where `buffered` says
/// (cycled), [`FrameReader::read_buffered_frame`] is asked first.
fn read_all(
    framing: Framing,
    limits: FrameLimits,
    input: &[u8],
    sizes: &[usize],
    buffered: &[bool],
) -> Vec<Result<String, String>> {
    let pieces = Pieces {
        rest: input,
        sizes: sizes.iter().copied().cycle(),
    };
    let mut reader = FrameReader::new(pieces, framing, limits).with_chunk_size(16);
    let mut buffered = buffered.iter().copied().cycle();
    let mut out = Vec::new();
    loop {
        let item = match buffered
            .next()
            .unwrap_or(false)
            .then(|| reader.read_buffered_frame())
        {
            Some(Some(item)) => Some(item.map_err(ReadError::Framing)),
            _ => reader.read_frame().transpose(),
        };
        match item {
            None => return out,
            Some(Ok(frame)) => out.push(Ok(frame.body().to_owned())),
            Some(Err(ReadError::Framing(fault))) => out.push(Err(format!("{:?}", fault.kind()))),
            Some(Err(ReadError::Io(error))) => out.push(Err(error.to_string())),
        }
    }
}

fn check_error(framing: Framing, error: &FramingError) {
    assert_eq!(error.framing(), framing);
    assert!(!error.is_encode());
    assert!(!error.detail().is_empty());
    assert!(!error.to_string().is_empty());
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1usize..4, 1usize..64, Just(8192usize)], 1..8)
}

/// Bytes that exercise both parsers: header fragments, line endings, digits,
/// UTF-8 fragments, and arbitrary bytes.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(b"Content-Length: ".to_vec()),
        Just(b"content-length:".to_vec()),
        Just(b"X-Other: y".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r\n\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n".to_vec()),
        Just(b":".to_vec()),
        Just(b" ".to_vec()),
        Just(b"{}".to_vec()),
        Just("é".as_bytes().to_vec()),
        Just(vec![0xE6]),
        Just(vec![0x97, 0xA5]),
        (0u32..40).prop_map(|n| n.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

fn small_limits() -> impl Strategy<Value = FrameLimits> {
    (0usize..48, 0usize..64, any::<bool>()).prop_map(|(frame, header, strict)| {
        FrameLimits::new(frame, header).with_strict_line_endings(strict)
    })
}

fn framing() -> impl Strategy<Value = Framing> {
    prop_oneof![Just(Framing::Ndjson), Just(Framing::ContentLength)]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn content_length_round_trip(
        bodies in prop::collection::vec(any::<String>(), 0..12),
        sizes in chunk_sizes(),
    ) {
        let limits = FrameLimits::content_length_default();
        let encoder = encoder_for(Framing::ContentLength, limits);
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        for body in &bodies {
            expected.push(Outcome::Frame(wire.len() as u64, body.clone()));
            encoder.encode_into(body.as_bytes(), &mut wire).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert_eq!(decode_lent(Framing::ContentLength, limits, &wire, &sizes), expected.clone());
        prop_assert_eq!(decode(Framing::ContentLength, limits, &wire, &sizes), expected);
    }

    #[test]
    fn ndjson_round_trip(
        bodies in prop::collection::vec("[^\r\n]{1,40}", 0..12),
        sizes in chunk_sizes(),
    ) {
        let limits = FrameLimits::ndjson_default();
        let encoder = encoder_for(Framing::Ndjson, limits);
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        for body in &bodies {
            expected.push(Outcome::Frame(wire.len() as u64, body.clone()));
            encoder.encode_into(body.as_bytes(), &mut wire).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert_eq!(decode_lent(Framing::Ndjson, limits, &wire, &sizes), expected.clone());
        prop_assert_eq!(decode(Framing::Ndjson, limits, &wire, &sizes), expected);
    }

    #[test]
    fn ndjson_crlf_and_missing_final_lf(
        lines in prop::collection::vec(("[^\r\n]{1,20}", any::<bool>()), 1..10),
        final_lf in any::<bool>(),
        sizes in chunk_sizes(),
    ) {
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        let last = lines.len() - 1;
        for (index, (body, crlf)) in lines.iter().enumerate() {
            expected.push(Outcome::Frame(wire.len() as u64, body.clone()));
            wire.extend_from_slice(body.as_bytes());
            if index < last || final_lf {
                wire.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
            }
        }
        let limits = FrameLimits::ndjson_default();
        prop_assert_eq!(decode_lent(Framing::Ndjson, limits, &wire, &sizes), expected.clone());
        prop_assert_eq!(decode(Framing::Ndjson, limits, &wire, &sizes), expected);
    }

    #[test]
    fn soup_never_panics_and_chunking_never_matters(
        framing in framing(),
        input in soup(),
        limits in small_limits(),
        sizes in chunk_sizes(),
    ) {
        let whole = decode(framing, limits, &input, &[input.len().max(1)]);
        prop_assert!(whole.len() <= input.len() + 1);
        prop_assert_eq!(decode(framing, limits, &input, &sizes), whole.clone());
        prop_assert_eq!(decode_lent(framing, limits, &input, &sizes), whole.clone());
        prop_assert_eq!(decode(framing, limits, &input, &[1]), whole);
    }

    #[test]
    fn reading_buffered_frames_first_changes_nothing(
        framing in framing(),
        input in soup(),
        limits in small_limits(),
        sizes in chunk_sizes(),
        buffered in prop::collection::vec(any::<bool>(), 1..6),
    ) {
        let plain = read_all(framing, limits, &input, &sizes, &[false]);
        prop_assert_eq!(read_all(framing, limits, &input, &sizes, &buffered), plain);
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        framing in framing(),
        input in prop::collection::vec(any::<u8>(), 0..512),
        limits in small_limits(),
        sizes in chunk_sizes(),
    ) {
        let whole = decode(framing, limits, &input, &[input.len().max(1)]);
        prop_assert_eq!(decode(framing, limits, &input, &sizes), whole.clone());
        prop_assert_eq!(decode_lent(framing, limits, &input, &sizes), whole);
    }

    #[test]
    fn encoders_refuse_or_round_trip(
        framing in framing(),
        body in prop::collection::vec(any::<u8>(), 0..64),
        limits in small_limits(),
    ) {
        let encoder = encoder_for(framing, limits);
        let mut out = b"prefix".to_vec();
        match encoder.encode_into(&body, &mut out) {
            Ok(()) => {
                let wire = out.split_off(6);
                let text = String::from_utf8(body).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(
                    decode(framing, limits, &wire, &[1, 7]),
                    vec![Outcome::Frame(0, text)]
                );
            }
            Err(error) => {
                prop_assert_eq!(out, b"prefix".to_vec());
                prop_assert!(error.is_encode() && !error.ends_stream());
                prop_assert_eq!(error.framing(), framing);
            }
        }
    }
}
