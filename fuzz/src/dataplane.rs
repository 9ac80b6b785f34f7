//! The data-plane decoder (`wirekit::dataplane::DataDecoder`) driven by
//! fuzz input.
//!
//! Byte 0 picks the negotiated bound (255: the protocol's default, else
//! `n * 64` bytes), byte 1 seeds the chunk sizes, byte 2 the mode:
//! * even: the rest is the raw stream;
//! * odd: the rest is a script of frames, encoded with `encode_frame` and
//!   concatenated, and an independent model of the plane's rules predicts
//!   every result (see [`script`]).
//!
//! Three streams are announced before any input: `s0` and `s1` of
//! invocation `i` attempt `a`, `s2` of invocation `j` attempt `a`.
//!
//! A crash means a panic, or one of these broken promises:
//! * the results do not depend on chunking (whole, seeded, byte by byte);
//! * the decoder never holds more than one frame's header or payload;
//! * nothing is decoded after a fault, and `finish` repeats it;
//! * every frame obeys the rules (bound, announced stream and identity,
//!   increasing sequence, nothing after `final`), and its header re-encodes
//!   and parses back to itself;
//! * in script mode, the results are the model's.

use std::collections::HashMap;

use wirekit::dataplane::{
    encode_frame, DataDecoder, DataFaultKind, DataFrame, DataFrameHeader,
    DEFAULT_MAX_DATA_FRAME_BYTES, MAX_HEADER_BYTES,
};

/// One decoder result, comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A whole frame.
    Frame(DataFrame),
    /// The fault that stopped decoding: its kind and frame offset.
    Fault(DataFaultKind, u64),
}

const STREAMS: [(&str, &str, &str); 3] = [("s0", "i", "a"), ("s1", "i", "a"), ("s2", "j", "a")];

fn decoder(bound: usize) -> DataDecoder {
    let mut decoder = DataDecoder::new(bound);
    for (stream, invocation, attempt) in STREAMS {
        decoder.announce(stream, invocation, attempt);
    }
    decoder
}

/// Decodes `stream` pushed in `sizes` (cycled), checking the memory bound
/// after every push and the silence after a fault.
pub fn decode(bound: usize, stream: &[u8], sizes: &[usize]) -> Vec<Outcome> {
    let mut decoder = decoder(bound);
    let held = decoder.max_frame_bytes().max(MAX_HEADER_BYTES);
    let mut out = Vec::new();
    let mut rest = stream;
    let mut sizes = sizes.iter().copied().cycle();
    while !rest.is_empty() {
        let size = sizes.next().unwrap_or(rest.len()).clamp(1, rest.len());
        let (chunk, after) = rest.split_at(size);
        rest = after;
        let faulted = decoder.fault().is_some();
        let results = decoder.push(chunk);
        assert!(!faulted || results.is_empty(), "results after a fault");
        assert!(
            decoder.held_bytes() <= held,
            "memory bound: {} bytes held, one frame is at most {held}",
            decoder.held_bytes()
        );
        for (i, result) in results.iter().enumerate() {
            let last = i + 1 == results.len();
            out.push(match result {
                Ok(frame) => Outcome::Frame(frame.clone()),
                Err(fault) => {
                    assert!(last, "results after a fault in one push");
                    assert!(!fault.message().is_empty(), "fault without a message");
                    Outcome::Fault(fault.kind(), fault.offset())
                }
            });
        }
    }
    let before = decoder.fault().cloned();
    match decoder.finish() {
        Ok(()) => assert!(before.is_none(), "finish forgot the fault"),
        Err(fault) => {
            if let Some(before) = before {
                assert_eq!(fault, before, "finish changed the fault");
            } else {
                out.push(Outcome::Fault(fault.kind(), fault.offset()));
            }
        }
    }
    assert!(decoder.finish().is_err() == decoder.fault().is_some());
    out
}

/// Every frame obeys the plane's rules, whatever produced it.
fn check_rules(bound: usize, outcomes: &[Outcome]) {
    let mut last: HashMap<&str, (u64, bool)> = HashMap::new();
    for outcome in outcomes {
        let Outcome::Frame(frame) = outcome else {
            continue;
        };
        let header = &frame.header;
        assert_eq!(frame.payload.len(), header.length as usize, "payload length");
        assert!(frame.payload.len() <= bound.min(DEFAULT_MAX_DATA_FRAME_BYTES), "bound");
        let announced = STREAMS
            .iter()
            .find(|(s, _, _)| *s == header.stream_id)
            .expect("a frame of a stream never announced");
        assert_eq!(
            (announced.1, announced.2),
            (header.invocation_id.as_str(), header.attempt_id.as_str()),
            "identity"
        );
        if let Some((sequence, closed)) = last.get(announced.0) {
            assert!(!closed, "a frame after final");
            assert!(header.sequence > *sequence, "sequence not increasing");
        }
        last.insert(announced.0, (header.sequence, header.final_frame));
        let wire = encode_frame(header, &frame.payload).expect("a decoded frame re-encodes");
        let length = u32::from_be_bytes([wire[0], wire[1], wire[2], wire[3]]) as usize;
        let again = DataFrameHeader::parse(&wire[4..4 + length], 0).expect("re-encoded header");
        assert_eq!(&again, header, "header round trip");
    }
}

/// A script of frames: each is 4 bytes (stream and identity, sequence,
/// flags, payload length), then the payload. Flags bit 0: final; bit 1: a
/// payload one byte longer than the header says is not sent (the input is
/// cut there). Returns the wire and the model's results.
pub fn script(bound: usize, mut data: &[u8]) -> (Vec<u8>, Vec<Outcome>) {
    let bound = bound.min(DEFAULT_MAX_DATA_FRAME_BYTES);
    let mut wire = Vec::new();
    let mut expect = Vec::new();
    let mut last: HashMap<&str, (u64, bool)> = HashMap::new();
    while let Some((&[who, sequence, flags, length], rest)) = data.split_first_chunk::<4>() {
        let length = usize::from(length) * 7;
        let payload = &rest[..length.min(rest.len())];
        data = &rest[payload.len()..];
        let (stream, invocation, attempt) = match who % 5 {
            n @ 0..=2 => STREAMS[usize::from(n)],
            3 => ("s0", "j", "a"),
            _ => ("s9", "i", "a"),
        };
        let header = DataFrameHeader {
            invocation_id: invocation.into(),
            attempt_id: attempt.into(),
            stream_id: stream.into(),
            sequence: u64::from(sequence),
            length: payload.len() as u32,
            final_frame: flags & 1 == 1,
        };
        let Ok(frame) = encode_frame(&header, payload) else {
            unreachable!("a script frame is always encodable");
        };
        let offset = wire.len() as u64;
        let fault = if payload.len() > bound {
            Some(DataFaultKind::TooLarge)
        } else if who % 5 == 4 {
            Some(DataFaultKind::UnknownStream)
        } else if who % 5 == 3 {
            Some(DataFaultKind::IdentityMismatch)
        } else {
            match last.get(stream) {
                Some((_, true)) => Some(DataFaultKind::AfterFinal),
                Some((previous, _)) if header.sequence <= *previous => {
                    Some(DataFaultKind::OutOfSequence)
                }
                _ => None,
            }
        };
        if let Some(kind) = fault {
            wire.extend_from_slice(&frame);
            expect.push(Outcome::Fault(kind, offset));
            return (wire, expect);
        }
        if flags & 2 == 2 {
            wire.extend_from_slice(&frame[..frame.len() - 1]);
            expect.push(Outcome::Fault(DataFaultKind::Truncated, offset));
            return (wire, expect);
        }
        wire.extend_from_slice(&frame);
        last.insert(stream, (header.sequence, header.final_frame));
        expect.push(Outcome::Frame(DataFrame {
            header,
            payload: payload.to_vec(),
        }));
    }
    (wire, expect)
}

/// The whole check (see the module's documentation).
pub fn check(data: &[u8]) {
    let Some(([bound, seed, mode], rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let bound = match *bound {
        255 => DEFAULT_MAX_DATA_FRAME_BYTES,
        n => usize::from(n) * 64,
    };
    let seed = usize::from(*seed);
    let sizes = [1 + seed % 7, 1 + seed * 13, 1 + seed % 3, 2 + seed * 40];
    let (stream, expect) = if mode % 2 == 1 {
        let (wire, expect) = script(bound, rest);
        (wire, Some(expect))
    } else {
        (rest.to_vec(), None)
    };
    let whole = decode(bound, &stream, &[stream.len().max(1)]);
    assert_eq!(decode(bound, &stream, &sizes), whole, "chunked");
    assert_eq!(decode(bound, &stream, &[1]), whole, "byte by byte");
    check_rules(bound, &whole);
    if let Some(expect) = expect {
        assert_eq!(whole, expect, "the model's results");
    }
}
