//! The serve-loop tests' Gaze traffic: the protocol, a quiet server, an
//! analyzer, the requests they send (`initialize`, `complexity`, NDJSON
//! lines of them, a transcript of good and bad input) and a writer that
//! records each flushed write.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use wirekit::serve::{Batching, ServeOptions, Server};
use wirekit::validate::Protocol;

use super::TableHandler;

pub fn gaze() -> Arc<Protocol> {
    wirekit_protocols::protocol("gaze-analyzer").expect("gaze is embedded")
}

/// A server on `protocol` that logs nothing.
pub fn server(protocol: &Arc<Protocol>) -> Server {
    Server::new(Arc::clone(protocol), ServeOptions::default()).with_logger(Box::new(|_: &str| {}))
}

/// A Gaze analyzer: `initialize` waits `initialize_delay` before it
/// answers; `complexity` lists as many functions as the request has
/// patterns.
pub fn analyzer(initialize_delay: Duration) -> TableHandler {
    TableHandler::default()
        .with("initialize", move |_| {
            std::thread::sleep(initialize_delay);
            Ok(json!({"capabilities": {"discover": true, "test_mapping": false, "classify_signals": false, "streaming": true},
                      "protocol_version": "1.1.0", "analyzer_name": "t", "language": "rust"}))
        })
        .with("complexity", |params| {
            let count = params
                .as_ref()
                .and_then(|p| p["patterns"].as_array())
                .map_or(1, Vec::len);
            let function = json!({"name": "f", "package": "p", "file": "p.rs", "line": 1, "complexity": 2});
            Ok(json!({"functions": vec![function; count]}))
        })
        .streaming(
            "analyze/stream",
            vec![json!({"name": "f", "package": "p", "file": "f.py", "line": 1, "side_effects": []}); 3],
        )
        .returning("shutdown", json!({}))
}

/// A batching that leaves every write to the loop (the watchdog never
/// comes due in a test's time).
pub fn no_watchdog() -> Batching {
    Batching {
        max_delay: Duration::from_secs(3600),
        ..Batching::default()
    }
}

/// Keeps every byte and the size of each flushed write.
#[derive(Default)]
pub struct Recorder {
    pub bytes: Vec<u8>,
    /// Bytes written since the last flush, at each flush.
    pub writes: Vec<usize>,
    pub unflushed: usize,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        self.unflushed += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.unflushed > 0 {
            self.writes.push(self.unflushed);
            self.unflushed = 0;
        }
        Ok(())
    }
}

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
