//! `Server::serve_batched`: the same bytes as `Server::serve` for every
//! input however it arrives, fewer writes to a pipelining client, each
//! answer out before the loop waits for input, no answer held behind a slow
//! request past `max_delay`, and a failed write ending the loop.

mod common;

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::gaze_traffic::{
    analyzer, complexity, gaze, lines, no_watchdog, server, transcript, Recorder, INIT,
};
use common::{frame_all, TableHandler};
use proptest::prelude::*;
use serde_json::json;
use wirekit::serve::{Batching, ServeOutcome};

/// Hands out its bytes `sizes` at a time (cycling), as a pipe may.
struct Chunked {
    bytes: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    reads: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.reads % self.sizes.len()].min(buf.len());
        self.reads += 1;
        let end = (self.at + size).min(self.bytes.len());
        let taken = end - self.at;
        buf[..taken].copy_from_slice(&self.bytes[self.at..end]);
        self.at = end;
        Ok(taken)
    }
}

#[test]
fn batched_answers_are_the_same_bytes_however_the_input_arrives() {
    let gaze = gaze();
    let input = lines(&transcript());
    let mut expected = Vec::new();
    let outcome = server(&gaze)
        .serve(&mut analyzer(Duration::ZERO), &input[..], &mut expected)
        .expect("served");
    assert_eq!(outcome, ServeOutcome::Ended, "the stream ends the session");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    for sizes in [vec![usize::MAX], vec![1], vec![7, 300, 2], vec![80, 81, 79]] {
        for batching in [
            no_watchdog(),
            Batching::default(),
            Batching {
                max_delay: Duration::ZERO,
                max_bytes: 1,
            },
            Batching {
                max_delay: Duration::from_secs(3600),
                max_bytes: 200,
            },
        ] {
            let reader = Chunked {
                bytes: input.clone(),
                at: 0,
                sizes: sizes.clone(),
                reads: 0,
            };
            let mut output = Recorder::default();
            let outcome = server(&gaze)
                .serve_batched(&mut analyzer(Duration::ZERO), reader, &mut output, batching)
                .expect("served");
            assert_eq!(outcome, ServeOutcome::Ended);
            assert_eq!(
                text(&output.bytes),
                text(&expected),
                "reads of {sizes:?}, {batching:?}"
            );
            assert_eq!(output.unflushed, 0, "every byte was flushed");
        }
    }
}

#[test]
fn the_gzkit_framing_batches_to_the_same_bytes() {
    let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").expect("gzkit is embedded");
    let mut bodies =
        vec![r#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#.to_owned()];
    bodies.extend((2..30).map(|id| {
        format!(r#"{{"id":{id},"method":"analyze","params":{{"file_path":"/src/m.py"}}}}"#)
    }));
    bodies.push(r#"{"id":99,"method":"analyze","params":{}}"#.to_owned());
    let input = {
        let bodies: Vec<&str> = bodies.iter().map(String::as_str).collect();
        frame_all(&gzkit, &bodies)
    };
    let guide = || {
        TableHandler::default()
            .returning(
                "initialize",
                json!({"version": "1.0", "capabilities": ["analyze"]}),
            )
            .returning("analyze", json!({"hints": []}))
    };
    let mut expected = Vec::new();
    server(&gzkit)
        .serve(&mut guide(), &input[..], &mut expected)
        .expect("served");
    let mut output = Recorder::default();
    server(&gzkit)
        .serve_batched(&mut guide(), &input[..], &mut output, no_watchdog())
        .expect("served");
    assert_eq!(output.bytes, expected);
    assert!(
        output.writes.len() < 5,
        "30 answers read ahead in one chunk share writes: {:?}",
        output.writes
    );
}

#[test]
fn answers_to_requests_read_ahead_share_writes() {
    let gaze = gaze();
    let mut bodies = vec![INIT.to_owned()];
    bodies.extend((2..202).map(complexity));
    let input = lines(&bodies);
    let mut direct = Recorder::default();
    server(&gaze)
        .serve(&mut analyzer(Duration::ZERO), &input[..], &mut direct)
        .expect("served");
    assert_eq!(direct.writes.len(), 201, "serve writes each answer");
    let mut batched = Recorder::default();
    server(&gaze)
        .serve_batched(
            &mut analyzer(Duration::ZERO),
            &input[..],
            &mut batched,
            no_watchdog(),
        )
        .expect("served");
    assert_eq!(batched.bytes, direct.bytes);
    // 17 KB of requests come in three 8 KiB reads; their answers leave
    // before each next read.
    assert!(
        (2..=4).contains(&batched.writes.len()),
        "{:?}",
        batched.writes
    );
    let mut capped = Recorder::default();
    let batching = Batching {
        max_bytes: 512,
        ..no_watchdog()
    };
    server(&gaze)
        .serve_batched(
            &mut analyzer(Duration::ZERO),
            &input[..],
            &mut capped,
            batching,
        )
        .expect("served");
    assert_eq!(capped.bytes, direct.bytes);
    let answer = direct.writes[1];
    assert!(
        capped.writes.iter().all(|&size| size < 512 + answer),
        "a batch is written once it holds max_bytes: {:?}",
        capped.writes
    );
}

/// Input handed out in `chunks`, one a read, noting before each read how
/// many answers are already out.
struct Watched {
    chunks: Vec<Vec<u8>>,
    given: usize,
    output: Arc<Mutex<Vec<u8>>>,
    /// (whole requests given, answers out) at each read.
    seen: Arc<Mutex<Vec<(usize, usize)>>>,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'\n').count();
        let out = count(&self.output.lock().expect("output"));
        let requests = count(&self.chunks[..self.given].concat());
        self.seen.lock().expect("seen").push((requests, out));
        let Some(chunk) = self.chunks.get(self.given) else {
            return Ok(0);
        };
        self.given += 1;
        buf[..chunk.len()].copy_from_slice(chunk);
        Ok(chunk.len())
    }
}

struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("output").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What `Watched` saw, serving the requests in the chunks that `split`
/// makes of each line.
fn reads_seen(split: impl Fn(&[u8]) -> Vec<Vec<u8>>) -> Vec<(usize, usize)> {
    let gaze = gaze();
    let mut bodies = vec![INIT.to_owned()];
    bodies.extend((2..12).map(complexity));
    let output = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let input = Watched {
        chunks: split(&lines(&bodies)),
        given: 0,
        output: Arc::clone(&output),
        seen: Arc::clone(&seen),
    };
    server(&gaze)
        .serve_batched(
            &mut analyzer(Duration::ZERO),
            input,
            Shared(Arc::clone(&output)),
            no_watchdog(),
        )
        .expect("served");
    let seen = seen.lock().expect("seen").clone();
    seen
}

#[test]
fn every_answer_is_out_before_the_loop_reads_again() {
    // One request a read: nothing is read ahead, each answer goes at once.
    let whole = reads_seen(|input| {
        input
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    });
    assert_eq!(whole.len(), 12, "one read a request and one at the end");
    // Reads that end inside the next request: the answers to the requests
    // whole so far are held (bytes are read ahead) but written before the
    // loop reads the rest.
    let torn = reads_seen(|input| input.chunks(50).map(<[u8]>::to_vec).collect());
    assert!(torn.len() > 12);
    for (requests, out) in whole.into_iter().chain(torn) {
        assert_eq!(
            out, requests,
            "every whole request given was answered before the next read"
        );
    }
}

/// `initialize`, a quick `complexity` (id 2), then `discover` (id 3): the
/// tests' slow, failing or stopping request.
fn quick_then_discover() -> Vec<String> {
    vec![
        INIT.to_owned(),
        complexity(2),
        r#"{"jsonrpc":"2.0","id":3,"method":"discover","params":{"root_path":"/p"}}"#.to_owned(),
    ]
}

fn discover_result() -> serde_json::Value {
    json!({"source_files": [], "test_files": [], "framework": "cargo"})
}

fn discovering() -> TableHandler {
    analyzer(Duration::ZERO).returning("discover", discover_result())
}

/// Sends every flushed write to a channel.
struct Forward {
    unflushed: Vec<u8>,
    sent: Sender<Vec<u8>>,
}

impl Write for Forward {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.unflushed.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.unflushed.is_empty() {
            let _ = self.sent.send(std::mem::take(&mut self.unflushed));
        }
        Ok(())
    }
}

/// Serves a quick request and a slow one sent together. The slow handler
/// waits (at most `wait`) until the quick answer has been written; whether
/// it was written while the slow handler ran is returned.
fn quick_then_slow(batching: Batching, wait: Duration) -> bool {
    let gaze = gaze();
    let (release, released) = mpsc::channel::<()>();
    let (sent, writes): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::channel();
    let watcher = std::thread::spawn(move || {
        let mut out = Vec::new();
        while let Ok(bytes) = writes.recv() {
            out.extend_from_slice(&bytes);
            if String::from_utf8_lossy(&out).contains(r#""id":2,"result""#) {
                let _ = release.send(());
            }
        }
    });
    let was_released = Arc::new(Mutex::new(None));
    let noted = Arc::clone(&was_released);
    let mut handler = analyzer(Duration::ZERO).with("discover", move |_| {
        let got = released.recv_timeout(wait).is_ok();
        *noted.lock().expect("noted") = Some(got);
        Ok(discover_result())
    });
    let input = lines(&quick_then_discover());
    let outcome = server(&gaze)
        .serve_batched(
            &mut handler,
            &input[..],
            Forward {
                unflushed: Vec::new(),
                sent,
            },
            batching,
        )
        .expect("served");
    assert_eq!(outcome, ServeOutcome::EndOfInput);
    watcher.join().expect("the watcher ends with the output");
    let got = *was_released.lock().expect("noted");
    got.expect("discover was called")
}

#[test]
fn a_quick_answer_is_not_held_behind_a_slow_request_past_max_delay() {
    let batching = Batching {
        max_delay: Duration::from_millis(5),
        ..Batching::default()
    };
    assert!(
        quick_then_slow(batching, Duration::from_secs(20)),
        "the quick answer was written while the slow handler ran"
    );
    // The control: without the watchdog the quick answer would wait for
    // the slow request, so the watchdog is what sent it above.
    assert!(!quick_then_slow(no_watchdog(), Duration::from_millis(300)));
}

/// Fails every write once `room` bytes are taken.
struct Closing {
    room: usize,
}

impl Write for Closing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.room {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client left"));
        }
        self.room -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_ends_the_loop_with_its_error() {
    let gaze = gaze();
    let mut bodies = vec![INIT.to_owned()];
    bodies.extend((2..500).map(complexity));
    let input = lines(&bodies);
    for batching in [
        no_watchdog(),
        Batching::default(),
        Batching {
            max_delay: Duration::ZERO,
            max_bytes: 64,
        },
    ] {
        for room in [0, 100, 5_000] {
            let error = server(&gaze)
                .serve_batched(
                    &mut analyzer(Duration::ZERO),
                    &input[..],
                    Closing { room },
                    batching,
                )
                .expect_err("the write fails");
            assert_eq!(
                error.kind(),
                io::ErrorKind::BrokenPipe,
                "{batching:?}, room {room}"
            );
        }
    }
}

#[test]
fn a_write_failed_by_the_watchdog_is_the_loops_error() {
    // The quick answer is the watchdog's to write while the slow handler
    // runs; its write fails, and the loop's next send returns that error.
    let gaze = gaze();
    let mut handler = analyzer(Duration::ZERO).with("discover", |_| {
        std::thread::sleep(Duration::from_millis(200));
        Ok(discover_result())
    });
    let input = lines(&quick_then_discover());
    let init_answer = {
        let mut out = Vec::new();
        server(&gaze)
            .serve(
                &mut analyzer(Duration::ZERO),
                &lines(&[INIT.to_owned()])[..],
                &mut out,
            )
            .expect("served");
        out.len()
    };
    let batching = Batching {
        max_delay: Duration::from_millis(1),
        ..Batching::default()
    };
    let error = server(&gaze)
        .serve_batched(
            &mut handler,
            &input[..],
            Closing { room: init_answer },
            batching,
        )
        .expect_err("the watchdog's write fails");
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn the_handler_sees_the_same_calls() {
    // Batching changes only the writes: the handler sees the same calls.
    let gaze = gaze();
    let input = lines(&transcript());
    let mut direct = analyzer(Duration::ZERO);
    server(&gaze)
        .serve(&mut direct, &input[..], io::sink())
        .expect("served");
    let mut batched = analyzer(Duration::ZERO);
    server(&gaze)
        .serve_batched(&mut batched, &input[..], io::sink(), Batching::default())
        .expect("served");
    assert_eq!(batched.calls, direct.calls);
    assert!(batched.calls.len() > 40, "{:?}", batched.calls);
}

#[test]
#[allow(clippy::panic)] // the case under test: a handler that panics
fn a_panicking_handler_panics_through_instead_of_hanging() {
    // The watchdog is joined when the loop ends; a panic must stop it too.
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let gaze = gaze();
        let mut handler =
            analyzer(Duration::ZERO).with("discover", |_| panic!("a handler's own bug"));
        let input = lines(&quick_then_discover());
        let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            server(&gaze).serve_batched(&mut handler, &input[..], io::sink(), Batching::default())
        }));
        let _ = done.send(served.is_err());
    });
    let panicked = finished
        .recv_timeout(Duration::from_secs(20))
        .expect("serve_batched returned (or panicked) instead of hanging");
    assert!(panicked, "the handler's panic reached the caller");
}

/// One body of a generated session.
fn any_body() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (2u64..1000).prop_map(complexity),
        1 => (0usize..40).prop_map(|count| {
            let patterns = vec!["p"; count];
            json!({"jsonrpc": "2.0", "id": 7, "method": "complexity", "params": {"root_path": "/p", "patterns": patterns}}).to_string()
        }),
        1 => Just(INIT.to_owned()),
        1 => Just(r#"{"jsonrpc":"2.0","id":8,"method":"complexity","params":{"root_path":7}}"#.to_owned()),
        1 => Just(r#"{"jsonrpc":"2.0","method":"complexity","params":{"root_path":"/p"}}"#.to_owned()),
        1 => Just(r#"{"jsonrpc":"2.0","id":9,"method":"nope"}"#.to_owned()),
        1 => Just("not json".to_owned()),
        1 => Just(String::new()),
        1 => Just(r#"{"jsonrpc":"2.0","id":10,"method":"shutdown"}"#.to_owned()),
    ]
}

proptest! {
    // 128 cases, or `PROPTEST_CASES` for a longer run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(128),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any session, read in any chunks, batched with any bounds: the bytes
    /// `serve` writes, every one flushed.
    #[test]
    fn batching_never_changes_the_bytes(
        bodies in proptest::collection::vec(any_body(), 0..60),
        sizes in proptest::collection::vec(1usize..300, 1..8),
        max_bytes in 1usize..4096,
        delay in prop_oneof![Just(Duration::ZERO), Just(Duration::from_millis(1)), Just(Duration::from_secs(3600)), Just(Duration::MAX)],
    ) {
        let gaze = gaze();
        let mut input = lines(&[INIT.to_owned()]);
        input.extend(lines(&bodies));
        let mut expected = Vec::new();
        let outcome = server(&gaze)
            .serve(&mut analyzer(Duration::ZERO), &input[..], &mut expected)
            .expect("served");
        let reader = Chunked { bytes: input, at: 0, sizes, reads: 0 };
        let mut output = Recorder::default();
        let batching = Batching { max_delay: delay, max_bytes };
        let batched = server(&gaze)
            .serve_batched(&mut analyzer(Duration::ZERO), reader, &mut output, batching)
            .expect("served");
        prop_assert_eq!(batched, outcome);
        prop_assert_eq!(String::from_utf8_lossy(&output.bytes), String::from_utf8_lossy(&expected));
        prop_assert_eq!(output.unflushed, 0);
    }
}

#[test]
fn a_handler_that_stops_ends_the_loop_after_its_answer() {
    let gaze = gaze();
    let mut bodies = quick_then_discover();
    bodies.push(complexity(4));
    let input = lines(&bodies);
    let mut direct = Vec::new();
    let mut handler = discovering().stopping_after("discover");
    let error = server(&gaze)
        .serve(&mut handler, &input[..], &mut direct)
        .expect_err("the handler stopped the loop");
    assert_eq!(error.to_string(), "a handler stopped the serve loop");
    assert_eq!(handler.calls, ["initialize", "complexity", "discover"]);
    for batching in [Batching::default(), no_watchdog()] {
        let mut handler = discovering().stopping_after("discover");
        let mut output = Recorder::default();
        let error = server(&gaze)
            .serve_batched(&mut handler, &input[..], &mut output, batching)
            .expect_err("the handler stopped the loop");
        assert_eq!(error.to_string(), "a handler stopped the serve loop");
        assert_eq!(
            handler.calls,
            ["initialize", "complexity", "discover"],
            "no handler after the stop"
        );
        // The answers made before the stop are written, the stop's own too.
        assert_eq!(output.bytes, direct);
        assert_eq!(String::from_utf8_lossy(&output.bytes).lines().count(), 3);
    }
}
