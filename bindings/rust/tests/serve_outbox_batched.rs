//! `Server::serve_with_outbox_batched`: the bytes `Server::serve` writes,
//! fewer writes to a pipelining client, and every answer out before the
//! loop waits for the next event (a client that waits for its answers
//! before it sends more is never left waiting).

mod common;

use std::collections::HashMap;
use std::io::{self, Cursor, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::gaze_traffic::{
    analyzer, complexity, gaze, lines, no_watchdog, server, transcript, Recorder, INIT,
};
use serde_json::Value;
use wirekit::envelope::{self, Message, Response};
use wirekit::serve::{outbox, Batching, ServeOutcome};
use wirekit::validate::Protocol;

#[test]
fn batched_outbox_answers_are_the_bytes_serve_writes() {
    let gaze = gaze();
    let input = lines(&transcript());
    let mut expected = Vec::new();
    let outcome = server(&gaze)
        .serve(&mut analyzer(Duration::ZERO), &input[..], &mut expected)
        .expect("served");
    assert_eq!(outcome, ServeOutcome::Ended, "the stream ends the session");
    assert_errors_are_the_protocols(&gaze, &expected);
    for batching in [
        Batching::default(),
        Batching {
            max_delay: Duration::ZERO,
            max_bytes: 1,
        },
        Batching {
            max_bytes: 300,
            ..no_watchdog()
        },
    ] {
        let (_outbox, inbox) = outbox();
        let mut output = Recorder::default();
        let outcome = server(&gaze)
            .serve_with_outbox_batched(
                &mut analyzer(Duration::from_millis(20)),
                inbox,
                Cursor::new(input.clone()),
                &mut output,
                batching,
            )
            .expect("served");
        assert_eq!(outcome, ServeOutcome::Ended);
        assert_eq!(
            String::from_utf8_lossy(&output.bytes),
            String::from_utf8_lossy(&expected),
            "{batching:?}"
        );
        assert_eq!(output.unflushed, 0, "every byte was flushed");
    }
}

/// Each error answer in `output` (answers to the transcript's bad input;
/// the bare lines of a stream's items are passed over)
/// validates against the protocol's error schemas, the method's own where
/// the request named one.
fn assert_errors_are_the_protocols(gaze: &Protocol, output: &[u8]) {
    let methods: HashMap<String, String> = transcript()
        .iter()
        .filter_map(|body| serde_json::from_str::<Value>(body).ok())
        .filter_map(|request| {
            Some((
                request.get("id")?.to_string(),
                request.get("method")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let options = gaze.manifest().transport.envelope_options();
    let mut errors = 0;
    for line in output
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
    {
        let text = String::from_utf8_lossy(line);
        let value: Value = serde_json::from_slice(line).expect("an answer is JSON");
        if value.get("jsonrpc").is_none() {
            continue; // an item of analyze/stream
        }
        let message = envelope::decode(line, &options).expect("an answer is a message");
        let Message::Response(Response {
            id,
            outcome: Err(error),
        }) = &message
        else {
            continue;
        };
        errors += 1;
        let method = id
            .as_ref()
            .and_then(|id| serde_json::to_value(id).ok())
            .and_then(|id| methods.get(&id.to_string()));
        let issues = gaze.validate_error_of(method.map(String::as_str), error);
        assert!(issues.is_empty(), "{text}: {issues:?}");
    }
    // The request before `initialize`, 50 (params), 51 (method) and "not
    // json"; the empty line, the request without an id and the stray
    // response get no answer.
    assert_eq!(errors, 4, "error answers");
}

#[test]
fn answers_to_events_waiting_in_the_inbox_share_writes() {
    let gaze = gaze();
    let mut bodies = vec![INIT.to_owned()];
    bodies.extend((2..202).map(complexity));
    let input = lines(&bodies);
    let batching = no_watchdog();
    let (_plain_outbox, plain_inbox) = outbox();
    let mut plain = Recorder::default();
    server(&gaze)
        .serve_with_outbox(
            &mut analyzer(Duration::ZERO),
            plain_inbox,
            Cursor::new(input.clone()),
            &mut plain,
        )
        .expect("served");
    assert_eq!(
        plain.writes.len(),
        201,
        "serve_with_outbox writes each answer"
    );
    let (_outbox, inbox) = outbox();
    let mut batched = Recorder::default();
    // `initialize` takes 50 ms: the reader thread frames what follows into
    // the inbox meanwhile, so the next answers find events waiting.
    server(&gaze)
        .serve_with_outbox_batched(
            &mut analyzer(Duration::from_millis(50)),
            inbox,
            Cursor::new(input),
            &mut batched,
            batching,
        )
        .expect("served");
    assert_eq!(batched.bytes, plain.bytes);
    assert!(
        batched.writes.len() < 100,
        "200 answers to requests read ahead share writes: {} writes",
        batched.writes.len()
    );
}

/// Hands out its requests, then waits (up to 10 s) for all their answers
/// before it ends the input: a client that waits for its answers.
struct Waiting {
    input: Cursor<Vec<u8>>,
    expected: usize,
    answered: Receiver<usize>,
    verdict: Sender<bool>,
}

impl Read for Waiting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.input.read(buf)?;
        if read > 0 {
            return Ok(read);
        }
        let mut got = 0;
        while got < self.expected {
            match self.answered.recv_timeout(Duration::from_secs(10)) {
                Ok(count) => got = count,
                Err(_) => break,
            }
        }
        let _ = self.verdict.send(got >= self.expected);
        Ok(0)
    }
}

/// Counts the answers written and flushed, for `Waiting`.
struct Counting {
    lines: Arc<Mutex<usize>>,
    unflushed: usize,
    answered: Sender<usize>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.unflushed += buf.iter().filter(|&&b| b == b'\n').count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut lines = self.lines.lock().expect("lines");
        *lines += std::mem::take(&mut self.unflushed);
        let _ = self.answered.send(*lines);
        Ok(())
    }
}

#[test]
fn every_answer_is_out_before_the_loop_waits_for_the_next_event() {
    let gaze = gaze();
    let mut bodies = vec![INIT.to_owned()];
    bodies.extend((2..30).map(complexity));
    let (answered, answers) = mpsc::channel();
    let (verdict, verdicts) = mpsc::channel();
    let input = Waiting {
        input: Cursor::new(lines(&bodies)),
        expected: bodies.len(),
        answered: answers,
        verdict,
    };
    let lines = Arc::new(Mutex::new(0));
    let output = Counting {
        lines: Arc::clone(&lines),
        unflushed: 0,
        answered,
    };
    let (_outbox, inbox) = outbox();
    let batching = no_watchdog();
    let outcome = server(&gaze)
        .serve_with_outbox_batched(
            &mut analyzer(Duration::from_millis(20)),
            inbox,
            input,
            output,
            batching,
        )
        .expect("served");
    assert_eq!(outcome, ServeOutcome::EndOfInput);
    assert_eq!(
        verdicts.recv_timeout(Duration::from_secs(15)),
        Ok(true),
        "the client had every answer before it ended its input (the watchdog never comes due)"
    );
    assert_eq!(*lines.lock().expect("lines"), bodies.len());
}
