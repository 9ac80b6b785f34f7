//! Compiles the expected Rust of every golden fixture of `wirekit-codegen`
//! (`codegen/tests/golden/<fixture>/expected.rs`) with warnings denied, so
//! `cargo test` fails when a golden stops compiling or starts warning.
//!
//! A new fixture needs one line here.
//!
//! It also runs the Rust examples of the repository's README and of
//! `docs/concurrency.md` as doc tests (this crate is not published, so it
//! may read a file outside its folder).
#![deny(warnings)]

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadme;

#[cfg(doctest)]
#[doc = include_str!("../../../docs/concurrency.md")]
pub struct ConcurrencyGuide;

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

#[cfg(test)]
mod bounded {
    use super::basics::types::Chunk;

    #[test]
    fn a_bounded_golden_field_refuses_what_its_schema_refuses() {
        let ok: Chunk = serde_json::from_str(r#"{"length":262144,"sequence":7,"offset":4095}"#)
            .expect("within bounds");
        assert_eq!(
            (ok.length.get(), ok.offset.map(|o| o.get())),
            (262_144, Some(4095))
        );
        for (text, why) in [
            (
                r#"{"length":262145,"sequence":0}"#,
                "262145 is more than the maximum 262144",
            ),
            (
                r#"{"length":-1,"sequence":0}"#,
                "-1 is less than the minimum 0",
            ),
            (
                r#"{"length":1,"sequence":0,"offset":4096}"#,
                "4096 is more than the maximum 4095",
            ),
            (
                r#"{"length":1,"sequence":0,"percent":101}"#,
                "101 is more than the maximum 100",
            ),
        ] {
            let err = serde_json::from_str::<Chunk>(text)
                .expect_err(text)
                .to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}

#[cfg(test)]
mod driver_bounds {
    use wirekit_protocols::agentapi_driver::types::DataFrameHeader;

    #[test]
    fn the_generated_data_frame_header_carries_the_256_kib_bound() {
        let header = |length: i64| {
            serde_json::json!({
                "invocation_id": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
                "attempt_id": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c", "stream_id": "s",
                "sequence": 0, "length": length, "final": true
            })
        };
        let ok: DataFrameHeader =
            serde_json::from_value(header(262_144)).expect("the bound itself");
        assert_eq!(ok.length.get(), 262_144);
        for refused in [262_145, -1] {
            let err = serde_json::from_value::<DataFrameHeader>(header(refused))
                .expect_err("out of bounds");
            assert!(err.to_string().contains(&refused.to_string()), "{err}");
        }
    }
}

#[cfg(test)]
mod presence {
    use super::basics::types::Shape;

    #[test]
    fn an_empty_optional_member_is_not_an_absent_one() {
        for text in [
            r#"{"kind":"polygon","points":[]}"#,
            r#"{"kind":"polygon","points":[],"tags":[],"matrix":[],"meta":{},"counts":{}}"#,
            r#"{"kind":"polygon","points":[],"tags":["a"],"meta":{"k":null},"counts":{"n":1}}"#,
        ] {
            let shape: Shape = serde_json::from_str(text).expect(text);
            let back = serde_json::to_string(&shape).expect("serializes");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&back).expect("json"),
                serde_json::from_str::<serde_json::Value>(text).expect("json"),
                "{text} came back as {back}"
            );
        }
        let absent: Shape =
            serde_json::from_str(r#"{"kind":"polygon","points":[]}"#).expect("absent");
        let empty: Shape =
            serde_json::from_str(r#"{"kind":"polygon","points":[],"meta":{},"tags":[]}"#)
                .expect("empty");
        assert_eq!((absent.meta, absent.tags), (None, None));
        assert_eq!(
            (empty.meta, empty.tags),
            (Some(serde_json::Map::new()), Some(Vec::new()))
        );
    }
}
