//! Gaze requests the serve-loop tests send: `initialize`, `complexity`,
//! NDJSON lines of them, and a transcript of good and bad input.

pub const INIT: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#;

pub fn complexity(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"complexity","params":{{"root_path":"/p"}}}}"#)
}

/// Gaze's input: one body a line (an empty one included).
pub fn lines(bodies: &[String]) -> Vec<u8> {
    bodies
        .iter()
        .flat_map(|body| format!("{body}\n").into_bytes())
        .collect()
}

/// Good and bad input of every kind, then a stream (which ends the session).
pub fn transcript() -> Vec<String> {
    let mut bodies = vec![complexity(100), INIT.to_owned()];
    bodies.extend((2..40).map(complexity));
    bodies.extend(
        [
            r#"{"jsonrpc":"2.0","id":50,"method":"complexity","params":{"root_path":7}}"#,
            r#"{"jsonrpc":"2.0","id":51,"method":"nope","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"complexity","params":{"root_path":"/p"}}"#,
            r#"{"jsonrpc":"2.0","id":52,"result":{}}"#,
            "not json",
            "",
            r#"{"jsonrpc":"2.0","id":53,"method":"complexity","params":{"root_path":"/p","patterns":["a","b","c","d","e","f","g","h"]}}"#,
            r#"{"jsonrpc":"2.0","id":54,"method":"analyze/stream","params":{"root_path":"/p"}}"#,
            r#"{"jsonrpc":"2.0","id":55,"method":"complexity","params":{"root_path":"/p"}}"#,
        ]
        .map(str::to_owned),
    );
    bodies
}
