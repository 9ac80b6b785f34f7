//! Fuzzes the data-plane decoder (`wirekit::dataplane::DataDecoder`): raw
//! streams and scripts of frames checked against a model. See
//! `wirekit_fuzz::dataplane`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wirekit_fuzz::dataplane::check(data);
});
