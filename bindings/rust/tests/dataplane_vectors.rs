//! The data plane against the shared vectors (`tests/vectors/dataplane`),
//! whatever the chunking, and a 10 MiB payload through it in one-frame memory.

use proptest::prelude::*;
use serde_json::{json, Value};
use wirekit::dataplane::{
    encode_frame, DataDecoder, DataFrameHeader, DEFAULT_MAX_DATA_FRAME_BYTES, MAX_HEADER_BYTES,
};

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/dataplane/vectors.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("JSON")
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Decodes `input` pushed in the given chunk sizes; the results as the
/// vectors spell them.
fn decode(vector: &Value, input: &[u8], chunks: &[usize]) -> Vec<Value> {
    let limit = vector["max_frame_bytes"]
        .as_u64()
        .map_or(DEFAULT_MAX_DATA_FRAME_BYTES, |l| l as usize);
    let mut decoder = DataDecoder::new(limit);
    for stream in vector["announce"].as_array().expect("announce") {
        decoder.announce(
            stream["stream_id"].as_str().expect("id"),
            stream["invocation_id"].as_str().expect("inv"),
            stream["attempt_id"].as_str().expect("att"),
        );
    }
    let mut out = Vec::new();
    let mut rest = input;
    let mut sizes = chunks.iter().cycle();
    while !rest.is_empty() {
        let size = (*sizes.next().unwrap_or(&1)).clamp(1, rest.len());
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        for result in decoder.push(chunk) {
            out.push(match result {
                Ok(frame) => json!({"header": frame.header, "payload_hex": hex(&frame.payload)}),
                Err(fault) => json!({"fault": fault.kind().code()}),
            });
        }
        assert!(decoder.held_bytes() <= limit.max(MAX_HEADER_BYTES) + 4);
    }
    if decoder.fault().is_none() {
        if let Err(fault) = decoder.finish() {
            out.push(json!({"fault": fault.kind().code()}));
        }
    }
    out
}

#[test]
fn every_decode_vector_whole_bytewise_and_halved() {
    let vectors = vectors();
    let cases = vectors["decode"].as_array().expect("decode");
    assert!(cases.len() >= 20);
    for vector in cases {
        let input = unhex(vector["input_hex"].as_str().expect("input"));
        let expected = vector["expect"].as_array().expect("expect");
        let half = (input.len() / 2).max(1);
        for chunks in [vec![input.len().max(1)], vec![1], vec![half]] {
            assert_eq!(
                &decode(vector, &input, &chunks),
                expected,
                "{} (chunks {chunks:?})",
                vector["name"]
            );
        }
    }
}

#[test]
fn every_encode_vector_byte_for_byte() {
    for vector in vectors()["encode"].as_array().expect("encode") {
        let header: DataFrameHeader =
            serde_json::from_value(vector["header"].clone()).expect("header");
        let payload = unhex(vector["payload_hex"].as_str().expect("payload"));
        let frame = encode_frame(&header, &payload).expect("encodes");
        assert_eq!(hex(&frame), vector["frame_hex"].as_str().expect("frame"));
    }
}

#[test]
fn the_encoder_refuses_a_length_mismatch_and_an_oversized_payload() {
    let mut header: DataFrameHeader = serde_json::from_value(json!({
        "invocation_id": "i", "attempt_id": "a", "stream_id": "s", "sequence": 1, "length": 3, "final": true
    }))
    .expect("header");
    assert!(encode_frame(&header, b"ab").is_err());
    header.length = (DEFAULT_MAX_DATA_FRAME_BYTES + 1) as u32;
    let big = vec![0u8; DEFAULT_MAX_DATA_FRAME_BYTES + 1];
    assert_eq!(
        encode_frame(&header, &big)
            .expect_err("too large")
            .kind()
            .code(),
        "too-large"
    );
}

#[test]
fn a_ten_mib_payload_arrives_whole_in_one_frames_memory() {
    const TOTAL: usize = 10 << 20;
    let byte = |i: usize| (i.wrapping_mul(31) % 253) as u8;
    let mut decoder = DataDecoder::default();
    decoder.announce("big", "inv", "att");
    let (mut received, mut sum, mut frames) = (0usize, 0u64, 0u32);
    let mut sent = 0usize;
    let mut sequence = 0u64;
    while sent < TOTAL {
        let length = (TOTAL - sent).min(DEFAULT_MAX_DATA_FRAME_BYTES);
        let payload: Vec<u8> = (sent..sent + length).map(byte).collect();
        sequence += 1;
        let header = DataFrameHeader {
            invocation_id: "inv".into(),
            attempt_id: "att".into(),
            stream_id: "big".into(),
            sequence,
            length: length as u32,
            final_frame: sent + length == TOTAL,
        };
        let frame = encode_frame(&header, &payload).expect("encodes");
        // Pushed in odd chunks, as a pipe would deliver them.
        for chunk in frame.chunks(65_521) {
            for result in decoder.push(chunk) {
                let frame = result.expect("a clean stream");
                for (offset, value) in frame.payload.iter().enumerate() {
                    assert_eq!(*value, byte(received + offset));
                }
                received += frame.payload.len();
                sum += frame.payload.iter().map(|b| u64::from(*b)).sum::<u64>();
                frames += 1;
            }
            assert!(decoder.held_bytes() <= DEFAULT_MAX_DATA_FRAME_BYTES + MAX_HEADER_BYTES);
        }
        sent += length;
    }
    decoder.finish().expect("ends between frames");
    assert_eq!(received, TOTAL);
    assert_eq!(frames, 40);
    assert!(decoder.is_closed("big"));
    assert_eq!(sum, (0..TOTAL).map(|i| u64::from(byte(i))).sum::<u64>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any vector, cut anywhere: the same frames and fault.
    #[test]
    fn results_do_not_depend_on_chunking(index in 0usize..22, chunks in prop::collection::vec(1usize..40, 1..8)) {
        let vectors = vectors();
        let cases = vectors["decode"].as_array().expect("decode");
        let vector = &cases[index % cases.len()];
        let input = unhex(vector["input_hex"].as_str().expect("input"));
        let expected = vector["expect"].as_array().expect("expect");
        prop_assert_eq!(&decode(vector, &input, &chunks), expected);
    }
}
