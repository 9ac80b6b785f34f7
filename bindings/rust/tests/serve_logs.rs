//! What the serve loop tells the server's author on its log (stderr by
//! default): an invalid result refused and answered -32603 is logged with
//! every JSON pointer, as a raising Python handler's traceback is.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::serve::{Handler, ServeOptions, Server};

/// Answers `initialize` with a version that is a number, not a string.
struct Broken;

impl Handler for Broken {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "analyze" | "shutdown")
    }
    fn handle(&mut self, _method: &str, _params: Option<Value>) -> Result<Value, ErrorObject> {
        Ok(json!({"version": 1, "capabilities": "analyze"}))
    }
}

#[test]
fn a_refused_result_is_logged_with_every_pointer() {
    let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").expect("shipped");
    let body = r#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#;
    let input = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&log);
    let mut output = Vec::new();
    Server::new(gzkit, ServeOptions::default())
        .with_logger(Box::new(move |line| {
            sink.lock().expect("log").push(line.to_owned())
        }))
        .serve(&mut Broken, input.as_bytes(), &mut output)
        .expect("serves");
    let sent = String::from_utf8_lossy(&output);
    assert!(sent.contains("\"code\":-32603"), "{sent}");
    let log = log.lock().expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].starts_with("fault invalid_result method=initialize pointer=/result/")
            && log[0].contains(
                " : the handler's result for `initialize` is invalid; answered an internal error instead: "
            ),
        "{}",
        log[0]
    );
    assert!(
        log[0].contains("/version") && log[0].contains("/capabilities"),
        "{}",
        log[0]
    );
}
