//! The manifest loader driven by arbitrary bytes.
//!
//! The input is split at NUL bytes: the first piece is the manifest
//! (`protocol.json`), the others are schema files named `s0.json`,
//! `s1.json`, ... Pieces that are not JSON are kept as JSON strings, so
//! the loader sees them and must refuse them by itself. The source is
//! bundled and compiled, and every method's parts are validated against
//! `null` once.
//!
//! A crash means a panic, or an error without a stable code, a message,
//! or a JSON pointer.

use serde_json::Value;
use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::{ProtocolError, ProtocolSource};
use wirekit::validate::{Part, Protocol};

fn check_error(error: &ProtocolError) {
    assert!(!error.kind().code().is_empty(), "error without a code");
    assert!(!error.message().is_empty(), "error without a message");
    assert!(
        error.pointer().is_empty() || error.pointer().starts_with('/'),
        "pointer is not a JSON pointer: {:?}",
        error.pointer()
    );
}

/// Loads one input (see the module docs).
pub fn load_protocol(data: &[u8]) {
    let mut pieces = data.split(|&byte| byte == 0);
    let Some(manifest) = pieces.next() else {
        return;
    };
    let as_json = |bytes: &[u8]| {
        serde_json::from_slice::<Value>(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
    };
    let manifest = as_json(manifest);
    let files: SchemaFiles = pieces
        .take(8)
        .enumerate()
        .map(|(index, bytes)| (format!("s{index}.json"), as_json(bytes)))
        .collect();
    let source = match ProtocolSource::new("fuzz/1.0.0", manifest, files) {
        Ok(source) => source,
        Err(error) => return check_error(&error),
    };
    let _ = source.id();
    let _ = source.bundled_schema();
    let protocol = match Protocol::compile(source) {
        Ok(protocol) => protocol,
        Err(error) => return check_error(&error),
    };
    let methods: Vec<String> = protocol.manifest().methods.keys().cloned().collect();
    for method in methods {
        for part in [Part::Params, Part::Result, Part::Item, Part::ErrorData] {
            for issue in protocol.validate(&method, part, Some(&Value::Null)) {
                assert!(!issue.message.is_empty(), "issue without a message");
                assert!(
                    issue.instance_path.is_empty() || issue.instance_path.starts_with('/'),
                    "instance path is not a JSON pointer"
                );
            }
        }
    }
}
