//! Fuzzes the session checker (`wirekit::session::Session`): the input is a
//! script of lifecycle steps against one embedded protocol. See
//! `wirekit_fuzz::run_session`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wirekit_fuzz::session::run_session(data);
});
