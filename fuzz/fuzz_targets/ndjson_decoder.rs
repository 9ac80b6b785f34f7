//! Fuzzes the NDJSON decoder: see `wirekit_fuzz::check_decoder`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wirekit::framing::Framing;

fuzz_target!(|data: &[u8]| {
    wirekit_fuzz::check_decoder(Framing::Ndjson, data);
});
