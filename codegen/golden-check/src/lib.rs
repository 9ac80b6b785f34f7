//! Compiles the expected Rust of every golden fixture of `wirekit-codegen`
//! (`codegen/tests/golden/<fixture>/expected.rs`) with warnings denied, so
//! `cargo test` fails when a golden stops compiling or starts warning.
//!
//! A new fixture needs one line here.
//!
//! It also runs the Rust example of the repository's README as a doc test
//! (this crate is not published, so it may read a file outside its folder).
#![deny(warnings)]

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadme;

#[rustfmt::skip]
#[path = "../../tests/golden/basics/expected.rs"]
pub mod basics;

#[rustfmt::skip]
#[path = "../../tests/golden/enums/expected.rs"]
pub mod enums;

#[rustfmt::skip]
#[path = "../../tests/golden/keywords/expected.rs"]
pub mod keywords;


#[rustfmt::skip]
#[path = "../../tests/golden/refs/expected.rs"]
pub mod refs;

#[rustfmt::skip]
#[path = "../../tests/golden/unions/expected.rs"]
pub mod unions;

#[rustfmt::skip]
#[path = "../../tests/golden/rpc/expected.rs"]
pub mod rpc;
