//! Checks shared by the wirekit fuzz targets. A failed check panics, which
//! libFuzzer reports as a crash with the input that caused it.

pub mod dataplane;
pub mod manifest;
pub mod report;
pub mod session;

use wirekit::framing::{decoder_for, encoder_for, FaultKind, FrameDecoder, FrameLimits, Framing};

/// A decoder result, comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A frame: its offset and body.
    Frame(u64, String),
    /// A fault: its offset and kind.
    Fault(u64, FaultKind),
}

/// Limits and chunk sizes from the first three bytes of a fuzz input:
/// byte 0 is the frame bound (255: the framing's default), byte 1 the header
/// bound (255: default), byte 2 seeds the chunk sizes.
pub fn config(framing: Framing, data: &[u8]) -> Option<(FrameLimits, Vec<usize>, &[u8])> {
    let ([frame, header, seed], stream) = data.split_first_chunk::<3>()?;
    let defaults = framing.default_limits();
    let frame = match *frame {
        255 => defaults.max_frame_bytes,
        n => usize::from(n),
    };
    let header = match *header {
        255 => defaults.max_header_bytes,
        n => usize::from(n),
    };
    let seed = usize::from(*seed);
    let sizes = vec![1 + seed % 7, 1 + seed % 61, 1 + seed, 1 + seed % 3];
    Some((FrameLimits::new(frame, header), sizes, stream))
}

/// Decode `stream` pushed in pieces of `sizes` (cycled), checking the
/// invariants every decoder keeps after every push.
pub fn decode(
    framing: Framing,
    limits: FrameLimits,
    stream: &[u8],
    sizes: &[usize],
) -> Vec<Outcome> {
    let mut decoder = decoder_for(framing, limits);
    let mut out = Vec::new();
    let held = limits.max_frame_bytes + limits.max_header_bytes + 1;
    let mut rest = stream;
    let mut sizes = sizes.iter().copied().cycle();
    while !rest.is_empty() {
        let size = sizes.next().unwrap_or(rest.len()).clamp(1, rest.len());
        let (chunk, after) = rest.split_at(size);
        rest = after;
        decoder.push(chunk);
        assert!(
            decoder.buffered_bytes() <= held + chunk.len(),
            "memory bound"
        );
        drain(&mut *decoder, &mut out);
        assert!(
            decoder.buffered_bytes() <= held,
            "memory bound after draining"
        );
    }
    decoder.finish();
    drain(&mut *decoder, &mut out);
    assert_eq!(decoder.buffered_bytes(), 0, "memory held after finish");
    let mut last = 0;
    for outcome in &out {
        let (Outcome::Frame(offset, _) | Outcome::Fault(offset, _)) = outcome;
        assert!(
            *offset >= last && *offset < stream.len() as u64,
            "offset order"
        );
        last = *offset;
    }
    out
}

fn drain(decoder: &mut dyn FrameDecoder, out: &mut Vec<Outcome>) {
    while let Some(item) = decoder.next_frame() {
        out.push(match item {
            Ok(frame) => Outcome::Frame(frame.offset(), frame.into_body()),
            Err(error) => {
                assert!(!error.detail().is_empty());
                assert_eq!(decoder.is_dead(), error.ends_stream());
                Outcome::Fault(error.offset(), error.kind())
            }
        });
    }
}

/// The whole check: the same results whatever the chunking (whole, seeded
/// chunks, byte by byte), and every decoded body re-encodes and decodes back
/// to itself (or is refused for a documented reason).
pub fn check_decoder(framing: Framing, data: &[u8]) {
    let Some((limits, sizes, stream)) = config(framing, data) else {
        return;
    };
    let whole = decode(framing, limits, stream, &[stream.len().max(1)]);
    assert!(whole.len() <= stream.len() + 1, "more results than bytes");
    assert_eq!(decode(framing, limits, stream, &sizes), whole, "chunked");
    assert_eq!(decode(framing, limits, stream, &[1]), whole, "byte by byte");

    let encoder = encoder_for(framing, limits);
    for outcome in &whole {
        let Outcome::Frame(_, body) = outcome else {
            continue;
        };
        match encoder.encode(body.as_bytes()) {
            Ok(wire) => {
                let again = decode(framing, limits, &wire, &[1 + wire.len() / 2]);
                assert_eq!(again, vec![Outcome::Frame(0, body.clone())], "re-encoded");
            }
            // A line may hold a CR the NDJSON encoder refuses; the canonical
            // header may be a byte longer than the shortest one decoded.
            Err(error) => assert!(
                matches!(
                    (framing, error.kind()),
                    (Framing::Ndjson, FaultKind::EmbeddedNewline)
                        | (Framing::ContentLength, FaultKind::HeaderTooLong)
                ),
                "decoded body refused by the encoder: {error}"
            ),
        }
    }
}
