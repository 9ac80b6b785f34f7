//! Fuzzes validation reports: a schema from a grammar driven by the input,
//! instances from the rest, each verdict against the `jsonschema` crate. See
//! `wirekit_fuzz::report::check_reports`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wirekit_fuzz::report::check_reports(data);
});
