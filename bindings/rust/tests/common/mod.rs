//! Test helpers: a handler answering from a table, and a runner that frames
//! requests, serves them and splits the answers.

#![allow(dead_code)]

pub mod gaze_traffic;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use wirekit::envelope::ErrorObject;
use wirekit::framing::{decoder_for, encoder_for};
use wirekit::serve::{Emit, Handler, ServeOptions, ServeOutcome, Server};
use wirekit::validate::Protocol;

type Answer = Box<dyn FnMut(Option<Value>) -> Result<Value, ErrorObject> + Send>;

/// Answers each method from a closure; counts the calls.
#[derive(Default)]
pub struct TableHandler {
    pub answers: HashMap<String, Answer>,
    pub streams: HashMap<String, Vec<Value>>,
    pub calls: Vec<String>,
    /// Once this method has been called, the handler asks the loop to stop
    /// (`Handler::stopped`).
    pub stops_after: Option<String>,
}

impl TableHandler {
    pub fn with(
        mut self,
        method: &str,
        answer: impl FnMut(Option<Value>) -> Result<Value, ErrorObject> + Send + 'static,
    ) -> Self {
        self.answers.insert(method.to_owned(), Box::new(answer));
        self
    }

    pub fn returning(self, method: &str, value: Value) -> Self {
        self.with(method, move |_| Ok(value.clone()))
    }

    pub fn stopping_after(mut self, method: &str) -> Self {
        self.stops_after = Some(method.to_owned());
        self
    }

    pub fn streaming(mut self, method: &str, items: Vec<Value>) -> Self {
        self.streams.insert(method.to_owned(), items);
        self
    }
}

impl Handler for TableHandler {
    fn implements(&self, method: &str) -> bool {
        self.answers.contains_key(method) || self.streams.contains_key(method)
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        self.calls.push(method.to_owned());
        match self.answers.get_mut(method) {
            Some(answer) => answer(params),
            None => Err(wirekit::serve::method_not_found(method)),
        }
    }

    fn stopped(&self) -> bool {
        self.stops_after
            .as_ref()
            .is_some_and(|method| self.calls.contains(method))
    }

    fn handle_stream(
        &mut self,
        method: &str,
        _params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        self.calls.push(method.to_owned());
        for item in self.streams.get(method).cloned().unwrap_or_default() {
            emit(item).map_err(|e| ErrorObject::new(-32603, e.to_string()))?;
        }
        Ok(())
    }
}

/// What a serve run produced.
pub struct Run {
    pub output: Vec<u8>,
    pub outcome: ServeOutcome,
    pub log: Vec<String>,
}

impl Run {
    /// The answer bodies, unframed.
    pub fn bodies(&self, protocol: &Protocol) -> Vec<String> {
        let transport = &protocol.manifest().transport;
        let mut decoder = decoder_for(transport.framing, transport.framing.default_limits());
        decoder.push(&self.output);
        decoder.finish();
        let mut bodies = Vec::new();
        while let Some(frame) = decoder.next_frame() {
            bodies.push(frame.expect("server output frames cleanly").into_body());
        }
        bodies
    }

    /// The answers as JSON.
    pub fn answers(&self, protocol: &Protocol) -> Vec<Value> {
        self.bodies(protocol)
            .iter()
            .map(|b| serde_json::from_str(b).expect("answer is JSON"))
            .collect()
    }
}

/// Frames each body as the protocol does.
pub fn frame_all(protocol: &Protocol, bodies: &[&str]) -> Vec<u8> {
    let transport = &protocol.manifest().transport;
    let encoder = encoder_for(transport.framing, transport.framing.default_limits());
    let mut out = Vec::new();
    for body in bodies {
        encoder
            .encode_into(body.as_bytes(), &mut out)
            .expect("frames");
    }
    out
}

/// Serves `input` with `handler`.
pub fn serve_bytes(
    protocol: &Arc<Protocol>,
    handler: &mut TableHandler,
    options: ServeOptions,
    input: &[u8],
) -> Run {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    let mut server =
        Server::new(Arc::clone(protocol), options).with_logger(Box::new(move |line| {
            sink.lock().expect("log").push(line.to_owned())
        }));
    let mut output = Vec::new();
    let outcome = server.serve(handler, input, &mut output).expect("serve");
    let log = log.lock().expect("log").clone();
    Run {
        output,
        outcome,
        log,
    }
}

/// Serves the bodies (framed as the protocol frames them).
pub fn serve(protocol: &Arc<Protocol>, handler: &mut TableHandler, bodies: &[&str]) -> Run {
    let input = frame_all(protocol, bodies);
    serve_bytes(protocol, handler, ServeOptions::default(), &input)
}

/// A Content-Length server in Python: `body` runs with `read()` (the next
/// message) and `write(obj)` (sent with a Content-Type header, as pygls
/// writes its frames).
pub fn python_server(body: &str) -> std::process::Command {
    let prelude = r#"
import json, sys
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
def write(obj):
    data = json.dumps(obj).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(data) + data)
    sys.stdout.buffer.flush()
"#;
    let mut command = std::process::Command::new("python3");
    command.arg("-c").arg(format!("{prelude}\n{body}"));
    command
}
