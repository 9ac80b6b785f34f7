//! `Wire::frame_result_in_place`: the frame `Wire::frame_result` makes of
//! the same result, for every framing, envelope, id and result, the
//! re-encoding cases (a canonical protocol, a raw line break under NDJSON)
//! and the bound included.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::value::RawValue;
use wirekit::envelope::Id;
use wirekit::serve::{Wire, WireError};
use wirekit::validate::Protocol;

fn protocol(name: &str) -> Arc<Protocol> {
    wirekit_protocols::protocol(name).expect("embedded")
}

/// Both frames of `result` (JSON text) for `id`, each as bytes or the
/// error's code.
fn both(wire: &Wire, id: &Id, result: &str) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let code = |error: WireError| error.code().to_owned();
    let raw = RawValue::from_string(result.to_owned()).expect("test results are JSON");
    let plain = wire.frame_result(id, &raw).map_err(code);
    let in_place = wire
        .frame_result_in_place(id, 0, |out| {
            out.extend_from_slice(result.as_bytes());
            true
        })
        .expect("the writer did not decline")
        .map(|frame| frame.bytes().to_vec())
        .map_err(code);
    (plain, in_place)
}

const PROTOCOLS: [&str; 4] = [
    "gaze-analyzer",
    "gzkit-authoring-guide",
    "agentapi-driver",
    "lsp",
];

#[test]
fn the_same_frame_for_every_framing_and_envelope() {
    let ids = [
        Id::Number(7.into()),
        Id::Number((-3).into()),
        Id::String("a \"b\"\n".into()),
        Id::Null,
    ];
    let results = [
        "{}",
        r#"{"b":1,"a":[1.0,-0.5,"x"]}"#,
        "null",
        r#""line\nbreak""#,
        "[1,\n2]",
        "{\"crlf\":\r\n1}",
        r#"{"é":"ü"}"#,
    ];
    for name in PROTOCOLS {
        let wire = Wire::new(&protocol(name).manifest().transport);
        for id in &ids {
            for result in results {
                let (plain, in_place) = both(&wire, id, result);
                assert_eq!(
                    in_place
                        .as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                    plain
                        .as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                    "{name}, id {id:?}, result {result:?}"
                );
            }
        }
    }
}

#[test]
fn over_the_bound_is_the_same_error() {
    // The driver protocol's bound is 1 MiB.
    let wire = Wire::new(&protocol("agentapi-driver").manifest().transport);
    let big = format!("\"{}\"", "x".repeat(1 << 20));
    let (plain, in_place) = both(&wire, &Id::Number(1.into()), &big);
    assert_eq!(plain, Err("too-long".to_owned()));
    assert_eq!(in_place, plain);
    let wire = Wire::new(&protocol("gaze-analyzer").manifest().transport);
    let limit = protocol("gaze-analyzer").manifest().transport.frame_bound();
    let padding = limit - r#"{"jsonrpc":"2.0","id":1,"result":""}"#.len();
    for extra in [0, 1] {
        let result = format!("\"{}\"", "y".repeat(padding + extra));
        let (plain, in_place) = both(&wire, &Id::Number(1.into()), &result);
        assert_eq!(plain.is_ok(), extra == 0, "exactly at the bound is allowed");
        assert_eq!(in_place.map(|b| b.len()), plain.map(|b| b.len()));
    }
}

#[test]
fn a_writer_that_declines_gets_no_frame() {
    let wire = Wire::new(&protocol("gzkit-authoring-guide").manifest().transport);
    let declined = wire.frame_result_in_place(&Id::Number(1.into()), 100, |out| {
        out.extend_from_slice(b"{\"half");
        false
    });
    assert!(declined.is_none());
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        "[a-z\\n\\r\"\\\\é]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-z]{0,4}", inner, 0..6)
                .prop_map(|members| { serde_json::Value::Object(members.into_iter().collect()) }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_result_frames_the_same(value in json_value(), id in any::<i64>(), which in 0usize..4) {
        let wire = Wire::new(&protocol(PROTOCOLS[which]).manifest().transport);
        let text = serde_json::to_string(&value).expect("a Value serializes");
        let (plain, in_place) = both(&wire, &Id::Number(id.into()), &text);
        prop_assert_eq!(in_place, plain);
    }
}
