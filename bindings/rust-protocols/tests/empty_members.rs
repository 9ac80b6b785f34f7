//! Absent and empty are different values: an optional member whose schema
//! is an object without properties or an array comes back from the
//! generated types exactly as it went in, `{}` as `{}`, `[]` as `[]` and
//! absent as absent (issue 35: MCP's `"logging": {}` declares the logging
//! capability, and a typed server used to drop it).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// `value` decoded as `T` and encoded again.
fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> Value {
    let typed: T = serde_json::from_value(value.clone()).expect("decodes");
    serde_json::to_value(&typed).expect("encodes")
}

#[cfg(feature = "mcp")]
mod mcp {
    use super::*;
    use serde_json::Map;
    use wirekit_protocols::{mcp_v2025_06_18, mcp_v2025_11_25};

    fn initialize_result(capabilities: Value) -> Value {
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "serverInfo": {"name": "s", "version": "1"}})
    }

    #[test]
    fn an_initialize_result_keeps_its_empty_capabilities() {
        for capabilities in [
            json!({"logging": {}, "completions": {}}),
            json!({"logging": {}, "completions": {}, "experimental": {}, "tools": {},
                   "prompts": {}, "resources": {}}),
            json!({"experimental": {"x": {}}, "logging": {"level": "debug"}}),
            json!({}),
        ] {
            let value = initialize_result(capabilities);
            assert_eq!(
                round_trip::<mcp_v2025_11_25::types::InitializeResult>(&value),
                value
            );
            assert_eq!(
                round_trip::<mcp_v2025_06_18::types::InitializeResult>(&value),
                value
            );
        }
        let mut with_meta = initialize_result(json!({"logging": {}}));
        with_meta["_meta"] = json!({});
        assert_eq!(
            round_trip::<mcp_v2025_11_25::types::InitializeResult>(&with_meta),
            with_meta
        );
    }

    #[test]
    fn absent_is_none_and_empty_is_some() {
        let value = initialize_result(json!({"logging": {}}));
        let result: mcp_v2025_11_25::types::InitializeResult =
            serde_json::from_value(value).expect("decodes");
        assert_eq!(result.capabilities.logging, Some(Map::new()));
        assert_eq!(result.capabilities.completions, None);
        assert_eq!(result.capabilities.experimental, None);
        assert_eq!(result.meta, None);

        // Built in Rust: `Some(Map::new())` is written as `{}`, `None` not at all.
        let capabilities = mcp_v2025_11_25::types::ServerCapabilities {
            logging: Some(Map::new()),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&capabilities).expect("encodes"),
            json!({"logging": {}})
        );
        assert_eq!(
            serde_json::to_value(mcp_v2025_11_25::types::ServerCapabilities::default())
                .expect("encodes"),
            json!({})
        );
    }

    #[test]
    fn client_capabilities_and_request_meta_keep_theirs() {
        let params = json!({"protocolVersion": "2025-11-25",
            "capabilities": {"roots": {}, "sampling": {}, "elicitation": {}, "experimental": {}},
            "clientInfo": {"name": "c", "version": "1"}, "_meta": {}});
        assert_eq!(
            round_trip::<mcp_v2025_11_25::types::InitializeRequestParams>(&params),
            params
        );
        // 2025-06-18's `InitializeRequestParams` has no `_meta` member.
        let mut params = params;
        params
            .as_object_mut()
            .map(|members| members.remove("_meta"));
        assert_eq!(
            round_trip::<mcp_v2025_06_18::types::InitializeRequestParams>(&params),
            params
        );
        let call = json!({"name": "t", "arguments": {}});
        assert_eq!(
            round_trip::<mcp_v2025_11_25::types::CallToolRequestParams>(&call),
            call
        );
        let call = json!({"name": "t"});
        assert_eq!(
            round_trip::<mcp_v2025_11_25::types::CallToolRequestParams>(&call),
            call
        );
    }
}

/// The Gaze analyzer protocol has both shapes: `config` (an object without
/// properties) and `source_files`, `test_files` (arrays).
mod gaze {
    use super::*;
    use wirekit_protocols::gaze_analyzer_v1_1_0::types::{DiscoverResult, InitializeParams};

    #[test]
    fn an_empty_config_and_empty_file_lists_come_back() {
        for params in [
            json!({"root_path": "/p", "config": {}}),
            json!({"root_path": "/p", "config": {"k": 1}}),
            json!({"root_path": "/p"}),
        ] {
            assert_eq!(round_trip::<InitializeParams>(&params), params);
        }
        for result in [
            json!({"source_files": [], "test_files": []}),
            json!({"source_files": ["a.go"]}),
            json!({}),
        ] {
            assert_eq!(round_trip::<DiscoverResult>(&result), result);
        }
        let empty: DiscoverResult =
            serde_json::from_value(json!({"source_files": []})).expect("decodes");
        assert_eq!(
            (empty.source_files, empty.test_files),
            (Some(Vec::new()), None)
        );
    }
}
