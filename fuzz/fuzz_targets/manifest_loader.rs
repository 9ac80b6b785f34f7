//! Fuzzes the manifest loader: a manifest and its schema files from
//! arbitrary bytes, bundled and compiled. See
//! `wirekit_fuzz::manifest::load_protocol`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wirekit_fuzz::manifest::load_protocol(data);
});
