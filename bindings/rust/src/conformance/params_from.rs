//! Params taken from what the server answered earlier (a method's
//! `params_from`): the battery names the server's own tool, resource or
//! prompt (MCP's `tools/call` takes `tools/list`'s first tool and an
//! instance of its input schema) instead of a sampled one it would rightly
//! refuse. A source whose answer is missing or empty leaves the params as
//! the example or the schema made them.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::instance::Schemas;
use crate::protocol::pointer::set_at;
use crate::protocol::ParamsFrom;

/// The string a required named argument gets.
const ARGUMENT_VALUE: &str = "x";

/// `params` with every member `from` can fill from `results` (the last
/// result of each request).
pub(crate) fn fill(
    from: &[ParamsFrom],
    results: &HashMap<String, Value>,
    params: Option<Value>,
) -> Option<Value> {
    let mut params = params;
    for source in from {
        let Some(value) = results
            .get(&source.method)
            .and_then(|result| taken(source, result))
        else {
            continue;
        };
        let object = params.get_or_insert_with(|| Value::Object(Map::new()));
        set_at(object, &source.at, value);
    }
    params
}

/// What `source` takes from `result`, if it is there.
fn taken(source: &ParamsFrom, result: &Value) -> Option<Value> {
    if let Some(pointer) = &source.value {
        return result.pointer(pointer).cloned();
    }
    if let Some(pointer) = &source.schema {
        let schema = result.pointer(pointer)?;
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        return Schemas::new(&defs).minimal(schema);
    }
    let items = result.pointer(source.arguments.as_deref()?)?.as_array()?;
    let required = items
        .iter()
        .filter(|item| item.get("required") == Some(&Value::Bool(true)))
        .filter_map(|item| item.get("name").and_then(Value::as_str))
        .map(|name| (name.to_owned(), Value::String(ARGUMENT_VALUE.to_owned())));
    Some(Value::Object(required.collect()))
}

#[cfg(test)]
#[allow(clippy::panic)] // a test reports a failed expectation by panicking
mod tests {
    use super::*;
    use serde_json::json;

    fn from(json: Value) -> ParamsFrom {
        serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn each_source_fills_its_member_and_a_missing_one_leaves_the_params() {
        let results = HashMap::from([
            (
                "tools/list".to_owned(),
                json!({"tools": [{"name": "add", "inputSchema": {"type": "object",
                    "properties": {"a": {"type": "integer"}}, "required": ["a"]}}]}),
            ),
            (
                "prompts/list".to_owned(),
                json!({"prompts": [{"name": "explain", "arguments": [
                    {"name": "operation", "required": true}, {"name": "detail"}]}]}),
            ),
        ]);
        let tool = [
            from(json!({"method": "tools/list", "value": "/tools/0/name", "at": "/name"})),
            from(
                json!({"method": "tools/list", "schema": "/tools/0/inputSchema", "at": "/arguments"}),
            ),
        ];
        assert_eq!(
            fill(&tool, &results, Some(json!({"name": "x"}))),
            Some(json!({"name": "add", "arguments": {"a": 0}}))
        );
        let prompt = [from(
            json!({"method": "prompts/list", "arguments": "/prompts/0/arguments", "at": "/arguments"}),
        )];
        assert_eq!(
            fill(&prompt, &results, None),
            Some(json!({"arguments": {"operation": "x"}}))
        );
        let missing = [from(
            json!({"method": "resources/list", "value": "/resources/0/uri", "at": "/uri"}),
        )];
        assert_eq!(
            fill(&missing, &results, Some(json!({"uri": "x"}))),
            Some(json!({"uri": "x"}))
        );
    }
}
