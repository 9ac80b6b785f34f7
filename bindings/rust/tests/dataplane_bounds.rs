//! The data-plane decoder holds at most one frame's header or payload,
//! however the header arrives. Found by reading the decoder while writing
//! the `dataplane_decoder` fuzz target (whose inputs never grew long enough
//! to reach it): a header over 2 KiB grown piece by piece doubled its buffer
//! past the header bound.

use wirekit::dataplane::{encode_frame, DataDecoder, DataFrameHeader, MAX_HEADER_BYTES};

fn long_header_frame() -> (Vec<u8>, usize) {
    let header = DataFrameHeader {
        invocation_id: "i".repeat(3900),
        attempt_id: "a".into(),
        stream_id: "s".into(),
        sequence: 1,
        length: 3,
        final_frame: true,
    };
    let frame = encode_frame(&header, b"abc").expect("encodes");
    let header_len = u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
    (frame, header_len)
}

#[test]
fn a_header_pushed_in_pieces_is_held_in_at_most_the_header_bound() {
    let (frame, header_len) = long_header_frame();
    assert!(header_len > 2048 && header_len <= MAX_HEADER_BYTES);
    for first in [1, 100, 2049, 2100, header_len - 1] {
        let mut decoder = DataDecoder::default();
        decoder.announce("s", &"i".repeat(3900), "a");
        let mut rest = &frame[..];
        let mut frames = Vec::new();
        for size in [4 + first, 1, 1, 7, usize::MAX] {
            let (chunk, after) = rest.split_at(size.min(rest.len()));
            rest = after;
            frames.extend(decoder.push(chunk));
            assert!(
                decoder.held_bytes() <= MAX_HEADER_BYTES,
                "{} bytes held after a first piece of {first}",
                decoder.held_bytes()
            );
        }
        assert_eq!(frames.len(), 1);
        assert!(frames[0].is_ok(), "{:?}", frames[0]);
        assert!(decoder.finish().is_ok());
    }
}
