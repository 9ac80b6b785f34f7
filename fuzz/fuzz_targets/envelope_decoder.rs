//! Fuzzes `wirekit::envelope::decode` with arbitrary bytes in both dialects,
//! lenient and strict.
//!
//! A crash means a panic, or one of these broken promises:
//! * a decoded message must encode to bytes that decode to an equal message;
//! * a canonical encoding must decode and be a fixed point;
//! * whatever strict mode accepts, lenient mode accepts as the same message;
//! * an error's code matches its kind, its pointer is a JSON pointer, and a
//!   parse-level error carries no answer id.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wirekit::envelope::{decode, encode, encode_canonical, EnvelopeOptions};

const ALL_OPTIONS: [EnvelopeOptions; 4] = [
    EnvelopeOptions::JSONRPC_2,
    EnvelopeOptions::JSONRPC_2_STRICT,
    EnvelopeOptions::BARE,
    EnvelopeOptions::BARE_STRICT,
];

fuzz_target!(|data: &[u8]| {
    for opts in ALL_OPTIONS {
        match decode(data, &opts) {
            Ok(message) => {
                let bytes = encode(&message, &opts);
                match decode(&bytes, &opts) {
                    Ok(again) => assert_eq!(again, message, "re-decoded message differs"),
                    Err(e) => panic!("encoding of a decoded message does not decode: {e:?}"),
                }
                if let Ok(canonical) = encode_canonical(&message, &opts) {
                    let decoded = decode(&canonical, &opts);
                    let again = decoded.as_ref().ok().map(|m| encode_canonical(m, &opts));
                    assert!(
                        matches!(&again, Some(Ok(bytes)) if *bytes == canonical),
                        "canonical form is not a fixed point: {decoded:?}"
                    );
                }
                if opts.strict {
                    let lenient = decode(data, &opts.with_strict(false));
                    assert_eq!(
                        lenient.ok(),
                        Some(message),
                        "strict accepted what lenient refused"
                    );
                }
            }
            Err(error) => {
                assert_eq!(error.code(), error.kind().code());
                assert!(error.pointer().is_empty() || error.pointer().starts_with('/'));
                assert!(!error.message().is_empty());
                if error.kind().is_parse_level() {
                    assert!(error.id().is_none(), "parse-level error with an id");
                }
                let answer = error.to_response();
                assert_eq!(answer.id.as_ref(), error.id());
                let _ = encode(&answer.into(), &opts);
            }
        }
    }
});
