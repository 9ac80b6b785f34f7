//! Replays the client side of every captured session
//! (`tests/sessions/<protocol>@<version>/`) through the Rust serve loop,
//! with a handler that answers each request as the capture's server did.
//! Every answer the loop writes must validate against the protocol's error
//! schemas (`error_data`, `error_object`) or the method's result schema, and
//! every error answer in a capture must be byte for byte what the loop
//! sends for it, so the captures show the loop's real answers (except in
//! the captures of other servers, marked `"foreign_server": true` in their
//! `.expect.json`: deliberately faulty servers the monitor must catch).
//!
//! `WIREKIT_UPDATE_SESSIONS=1 cargo test -p wirekit --test session_replay`
//! rewrites the captured error answers from the loop's output.

// A test harness reports a failed expectation by panicking.
#![allow(clippy::panic)]

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use wirekit::envelope::{self, ErrorObject, Message, Notification};
use wirekit::framing::{decoder_for, FramingError};
use wirekit::protocol::{Direction, MethodKind};
use wirekit::serve::{Emit, Handler, Server};
use wirekit::validate::{Part, Protocol};

fn sessions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sessions")
}

/// One captured frame: its body and its message (if it decodes).
struct Captured {
    body: String,
    message: Option<Message>,
    /// A framing fault (the client's) instead of a frame.
    fault: Option<FramingError>,
    /// The frame's bytes in the capture, header or line ending included.
    raw: Vec<u8>,
}

fn read_frames(protocol: &Protocol, bytes: &[u8]) -> Vec<Captured> {
    let transport = &protocol.manifest().transport;
    let mut decoder = decoder_for(transport.framing, transport.frame_limits());
    decoder.push(bytes);
    decoder.finish();
    let options = transport.envelope_options();
    let mut frames = Vec::new();
    let mut starts = Vec::new();
    while let Some(frame) = decoder.next_frame() {
        let frame = match frame {
            Ok(frame) => frame,
            Err(fault) => {
                starts.push(fault.offset());
                frames.push(Captured {
                    body: String::new(),
                    message: None,
                    fault: Some(fault),
                    raw: Vec::new(),
                });
                continue;
            }
        };
        starts.push(frame.offset());
        let body = frame.into_body();
        let message = envelope::decode(body.as_bytes(), &options).ok();
        frames.push(Captured {
            body,
            message,
            fault: None,
            raw: Vec::new(),
        });
    }
    for (index, frame) in frames.iter_mut().enumerate() {
        let start = usize::try_from(starts[index]).unwrap_or(bytes.len());
        let end = starts
            .get(index + 1)
            .map_or(bytes.len(), |&s| usize::try_from(s).unwrap_or(bytes.len()));
        frame.raw = bytes.get(start..end).unwrap_or_default().to_vec();
    }
    frames
}

/// Answers each request as the capture's server did (by id), then sends
/// the server notifications that followed that answer; streams the items
/// that followed a streamed request.
struct CapturedServer {
    answers: HashMap<String, Result<Value, ErrorObject>>,
    streams: HashMap<String, Vec<Value>>,
    after: HashMap<String, Vec<Notification>>,
    current: Option<String>,
    queued: Vec<Notification>,
}

fn key(id: &envelope::Id) -> String {
    id.to_value().to_string()
}

impl CapturedServer {
    fn new(protocol: &Protocol, frames: &[Captured]) -> Self {
        let mut server = CapturedServer {
            answers: HashMap::new(),
            streams: HashMap::new(),
            after: HashMap::new(),
            current: None,
            queued: Vec::new(),
        };
        let mut last_answer: Option<String> = None;
        let mut streaming: Option<String> = None;
        for frame in frames {
            match &frame.message {
                Some(Message::Request(request)) => {
                    let streamed = protocol
                        .method(&request.method)
                        .is_some_and(|spec| spec.result_stream.is_some());
                    if streamed {
                        streaming = Some(key(&request.id));
                    }
                }
                Some(Message::Response(response)) => {
                    streaming = None;
                    if let Some(id) = &response.id {
                        server
                            .answers
                            .entry(key(id))
                            .or_insert_with(|| response.outcome.clone());
                        last_answer = Some(key(id));
                    }
                }
                Some(Message::Notification(notification)) => {
                    let from_server = protocol.method(&notification.method).is_some_and(|s| {
                        s.kind == MethodKind::Notification
                            && s.direction == Direction::ServerToClient
                    });
                    if let (true, Some(id)) = (from_server, &last_answer) {
                        server
                            .after
                            .entry(id.clone())
                            .or_default()
                            .push(notification.clone());
                    }
                }
                None => {
                    if let (Some(id), Ok(item)) =
                        (&streaming, serde_json::from_str::<Value>(&frame.body))
                    {
                        server.streams.entry(id.clone()).or_default().push(item);
                    }
                }
            }
        }
        server
    }
}

impl Handler for CapturedServer {
    fn implements(&self, _method: &str) -> bool {
        true
    }

    fn handle(&mut self, method: &str, _params: Option<Value>) -> Result<Value, ErrorObject> {
        let id = self.current.take().unwrap_or_default();
        self.queued
            .extend(self.after.remove(&id).unwrap_or_default());
        self.answers
            .remove(&id)
            .unwrap_or_else(|| Err(wirekit::serve::method_not_found(method)))
    }

    fn handle_stream(
        &mut self,
        method: &str,
        _params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        let id = self.current.take().unwrap_or_default();
        match self.streams.remove(&id) {
            Some(items) => {
                for item in items {
                    emit(item).map_err(|e| ErrorObject::new(-32603, e.to_string()))?;
                }
                Ok(())
            }
            None => match self.answers.remove(&id) {
                Some(Err(error)) => Err(error),
                _ => Err(wirekit::serve::method_not_found(method)),
            },
        }
    }

    fn take_notifications(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.queued)
    }
}

/// What the loop answered, by request id (`null` for id-less answers).
struct LoopRun {
    answers: Vec<(String, String, Message)>,
}

fn replay(protocol: &Arc<Protocol>, frames: &[Captured]) -> LoopRun {
    let transport = &protocol.manifest().transport;
    let mut client = decoder_for(transport.framing, transport.frame_limits());
    let mut handler = CapturedServer::new(protocol, frames);
    let mut server = Server::new(Arc::clone(protocol), Default::default())
        .with_logger(Box::new(|_line: &str| {}));
    let mut answers = Vec::new();
    for frame in frames {
        let from_client = match &frame.message {
            Some(Message::Request(request)) => {
                handler.current = Some(key(&request.id));
                true
            }
            Some(Message::Notification(notification)) => protocol
                .method(&notification.method)
                .is_none_or(|s| s.direction == Direction::ClientToServer),
            // A frame that does not decode was sent by the client when it
            // is not a stream item.
            None => {
                frame.fault.is_some()
                    || !frame.body.trim_start().starts_with('{')
                    || frame.body.contains("\"method\"")
            }
            Some(Message::Response(_)) => false,
        };
        if !from_client {
            continue;
        }
        // The server reads the client's frames as one stream of its own.
        client.push(&frame.raw);
        let mut output = Vec::new();
        let mut flow = wirekit::serve::Flow::Continue;
        while let Some(input) = client.next_frame() {
            let mut sink = |b: &[u8]| -> std::io::Result<()> {
                output.extend_from_slice(b);
                Ok(())
            };
            flow = server
                .on_frame(&mut handler, input, &mut sink)
                .unwrap_or_else(|e| panic!("the loop failed: {e}"));
        }
        for body in read_frames(protocol, &output) {
            if let Some(message @ Message::Response(_)) = body.message {
                let id = match &message {
                    Message::Response(r) => r.id.as_ref().map_or("null".to_owned(), key),
                    _ => String::new(),
                };
                answers.push((id, body.body, message));
            }
        }
        if flow == wirekit::serve::Flow::Stop {
            break;
        }
    }
    LoopRun { answers }
}

fn check_answers(protocol: &Protocol, frames: &[Captured], run: &LoopRun) -> Vec<String> {
    let methods: HashMap<String, String> = frames
        .iter()
        .filter_map(|f| match &f.message {
            Some(Message::Request(r)) => Some((key(&r.id), r.method.clone())),
            _ => None,
        })
        .collect();
    let mut faults = Vec::new();
    for (id, body, message) in &run.answers {
        let Message::Response(response) = message else {
            continue;
        };
        let issues = match &response.outcome {
            Err(error) => protocol.validate_error(error),
            Ok(result) => match methods.get(id) {
                Some(method) => protocol.validate(method, Part::Result, Some(result)),
                None => Vec::new(),
            },
        };
        for issue in issues {
            faults.push(format!("answer {body}: {issue}"));
        }
    }
    faults
}

#[test]
fn every_answer_of_the_loop_to_every_captured_session_validates() {
    let update = std::env::var_os("WIREKIT_UPDATE_SESSIONS").is_some();
    let mut report = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sessions_dir())
        .unwrap_or_else(|e| panic!("tests/sessions: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut totals = Vec::new();
    for dir in dirs {
        let spec = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let protocol = wirekit_protocols::protocol(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{spec}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ndjson" || x == "bin"))
            .collect();
        files.sort();
        let (mut sessions, mut answers, mut errors) = (0, 0, 0);
        for file in files {
            let name = format!(
                "{spec}/{}",
                file.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            );
            let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
            let frames = read_frames(&protocol, &bytes);
            let run = replay(&protocol, &frames);
            sessions += 1;
            answers += run.answers.len();
            errors += run
                .answers
                .iter()
                .filter(|(_, _, m)| matches!(m, Message::Response(r) if r.outcome.is_err()))
                .count();
            for fault in check_answers(&protocol, &frames, &run) {
                report.push(format!("{name}: {fault}"));
            }
            if foreign_server(&file) {
                // Another server's answers (a deliberately faulty one, for
                // the monitor): only the loop's own answers are checked.
                continue;
            }
            let (rewritten, mismatches) = captured_errors_match(&protocol, &bytes, &frames, &run);
            if update && !mismatches.is_empty() {
                std::fs::write(&file, rewritten).unwrap_or_else(|e| panic!("{name}: {e}"));
            } else {
                report.extend(mismatches.into_iter().map(|m| format!("{name}: {m}")));
            }
        }
        totals.push(format!(
            "{spec}: {sessions} sessions, {answers} answers ({errors} errors) valid"
        ));
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
    println!("{}", totals.join("\n"));
}

/// Whether the capture's `.expect.json` says its answers come from a
/// server other than wirekit's serve loop (`"foreign_server": true`).
fn foreign_server(capture: &Path) -> bool {
    let stem = capture.with_extension("");
    let expect = PathBuf::from(format!("{}.expect.json", stem.display()));
    std::fs::read_to_string(&expect)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|doc| doc["foreign_server"] == Value::Bool(true))
}

/// Compares each captured error answer with the loop's answer to the same
/// request; returns the capture (`raw`) with the loop's answers in their
/// place, and the differences.
fn captured_errors_match(
    protocol: &Protocol,
    raw: &[u8],
    frames: &[Captured],
    run: &LoopRun,
) -> (Vec<u8>, Vec<String>) {
    let content_length =
        protocol.manifest().transport.framing == wirekit::framing::Framing::ContentLength;
    let framed = |body: &str| -> Vec<u8> {
        if content_length {
            format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
        } else {
            format!("{body}\n").into_bytes()
        }
    };
    let mut by_id: HashMap<&str, VecDeque<&str>> = HashMap::new();
    for (id, body, message) in &run.answers {
        if matches!(message, Message::Response(r) if r.outcome.is_err()) {
            by_id
                .entry(id.as_str())
                .or_default()
                .push_back(body.as_str());
        }
    }
    let mut out = raw.to_vec();
    let mut cursor = 0;
    let mut mismatches = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for frame in frames {
        let Some(Message::Response(response)) = &frame.message else {
            continue;
        };
        if response.outcome.is_ok() {
            continue;
        }
        let body = frame.body.as_str();
        let id = response.id.as_ref().map_or("null".to_owned(), key);
        let nth = seen.entry(id.clone()).or_insert(0);
        let answer = by_id.get(id.as_str()).and_then(|q| q.get(*nth));
        *nth += 1;
        let Some(answer) = answer else { continue };
        let same =
            serde_json::from_str::<Value>(answer).ok() == serde_json::from_str::<Value>(body).ok();
        let old = framed(body);
        let Some(at) = out[cursor..]
            .windows(old.len())
            .position(|w| w == old.as_slice())
            .map(|p| p + cursor)
        else {
            continue;
        };
        if same {
            cursor = at + old.len();
            continue;
        }
        mismatches.push(format!(
            "captured error answer\n  {body}\nbut the loop sends\n  {answer}\n\
             (WIREKIT_UPDATE_SESSIONS=1 cargo test -p wirekit --test session_replay rewrites it)"
        ));
        let new = framed(answer);
        out.splice(at..at + old.len(), new.iter().copied());
        cursor = at + new.len();
    }
    (out, mismatches)
}
