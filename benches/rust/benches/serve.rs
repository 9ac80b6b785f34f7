//! Request round trips over pipes: a wirekit server on the serve loop, driven
//! by the wirekit host, beside an `lsp-server` server doing the same exchange
//! (gzkit authoring guide: `initialize`, then `analyze` requests one at a
//! time, each answered with the spec's worked-example result).
//!
//! `serve_pipelined_pipes` sends 1,000 requests at once over the same pipes
//! (a thread writes them while the client reads the answers), to the
//! lsp-server server and to wirekit's `serve` and `serve_batched`.
//!
//! A last group, `serve_pipelined`, measures each server's own cost per
//! request without the pipe round trip: the serve loop reads a whole batch of
//! requests from memory and writes its answers to memory, beside lsp-server's
//! message layer (`Message::read`, `Response::new_ok`, `Message::write`) doing
//! the same exchange without any check; its times are the benchmark thread's
//! CPU time (everything runs on it), the round trips' are wall time.
//!
//! Both pipe groups have a row for the concurrent loop (`serve_concurrent`,
//! requests on a pool of threads), beside the sequential ones.
//!
//! `cargo bench -p wirekit-bench --bench serve`. The servers are this bench
//! binary itself, started again with `WIREKIT_BENCH_SERVER` set.

// criterion's macros generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::host::Host;
use wirekit::serve::{
    Batching, Concurrency, ConcurrentHandler, Handler, RequestContext, ServeOptions, Server,
};
use wirekit_bench::ThreadCpuTime;

const ROLE: &str = "WIREKIT_BENCH_SERVER";
const PROTOCOL: &str = "gzkit-authoring-guide";

fn initialize_result() -> Value {
    json!({"version": "1.0", "capabilities": ["analyze"]})
}

fn analyze_params() -> Value {
    json!({"file_path": "/src/mymodule/parser.py"})
}

fn analyze_result() -> Value {
    json!({"hints": [{
        "metric": "radon_cc", "precedence_band": "approaching", "crossing_value": 9.0,
        "archetype": "arrowhead", "doctrinal_frame_headline": "Nesting depth approaching warn threshold",
        "recommended_move": "Flatten nested conditions using early returns",
        "file_path": "/src/mymodule/parser.py", "start_line": 42, "end_line": 78
    }]})
}

/// The wirekit server's methods: fixed answers.
struct Guide;

impl Handler for Guide {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "analyze" | "shutdown")
    }

    fn handle(&mut self, method: &str, _params: Option<Value>) -> Result<Value, ErrorObject> {
        Ok(match method {
            "initialize" => initialize_result(),
            "analyze" => analyze_result(),
            _ => json!({}),
        })
    }
}

impl ConcurrentHandler for Guide {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "analyze" | "shutdown")
    }

    fn handle(
        &self,
        _context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        Handler::handle(&mut Guide, method, params)
    }
}

/// The wirekit server on the concurrent loop (`serve_concurrent`, 16 at once).
fn wirekit_concurrent_server() {
    let Ok(protocol) = wirekit_protocols::protocol(PROTOCOL) else {
        std::process::exit(2);
    };
    let mut server = Server::new(protocol, ServeOptions::default());
    let output = std::io::BufWriter::new(std::io::stdout());
    let served = server.serve_concurrent(&Guide, std::io::stdin(), output, Concurrency::default());
    if served.is_err() {
        std::process::exit(1);
    }
}

/// The wirekit server: `serve_batched` (answers to pipelined requests share
/// writes), or with `direct` `serve` (one write an answer).
fn wirekit_server(direct: bool) {
    let Ok(protocol) = wirekit_protocols::protocol(PROTOCOL) else {
        std::process::exit(2);
    };
    let mut server = Server::new(protocol, ServeOptions::default());
    let stdin = std::io::stdin().lock();
    let served = if direct {
        server.serve(&mut Guide, stdin, std::io::stdout().lock())
    } else {
        server.serve_batched(&mut Guide, stdin, std::io::stdout(), Batching::default())
    };
    if served.is_err() {
        std::process::exit(1);
    }
}

fn lsp_server_server() {
    use lsp_server::{Connection, Message, Response};
    let (connection, threads) = Connection::stdio();
    for message in &connection.receiver {
        let Message::Request(request) = message else {
            continue;
        };
        let result = match request.method.as_str() {
            "initialize" => initialize_result(),
            "analyze" => analyze_result(),
            _ => json!({}),
        };
        let last = request.method == "shutdown";
        if connection
            .sender
            .send(Response::new_ok(request.id, result).into())
            .is_err()
            || last
        {
            break;
        }
    }
    drop(connection);
    let _ = threads.join();
}

fn spawn(role: &str) -> std::io::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    command.env(ROLE, role);
    Ok(command)
}

/// A client writing the requests' bytes and reading answers with
/// `lsp-server`'s `Message::read`: the same client for both servers.
struct RawClient {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawClient {
    fn start(role: &str) -> std::io::Result<Self> {
        let mut child = spawn(role)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("no pipes"));
        };
        let mut client = RawClient {
            child,
            input,
            output: BufReader::new(output),
            next_id: 0,
        };
        client.call("initialize", &json!({"clientVersion": "1.0"}))?;
        Ok(client)
    }

    fn call(&mut self, method: &str, params: &Value) -> std::io::Result<lsp_server::Message> {
        self.next_id += 1;
        let body = json!({"id": self.next_id, "method": method, "params": params}).to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.input.flush()?;
        lsp_server::Message::read(&mut self.output)?
            .ok_or_else(|| std::io::Error::other("the server closed its output"))
    }

    /// Sends `count` `analyze` requests from a thread of its own without
    /// waiting, and reads their `count` answers.
    fn pipeline(&mut self, count: usize, params: &Value) -> std::io::Result<()> {
        let mut wire = Vec::new();
        for _ in 0..count {
            self.next_id += 1;
            let body =
                json!({"id": self.next_id, "method": "analyze", "params": params}).to_string();
            write!(wire, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        }
        let input = &mut self.input;
        let output = &mut self.output;
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || input.write_all(&wire).and_then(|()| input.flush()));
            for _ in 0..count {
                match lsp_server::Message::read(output)? {
                    Some(lsp_server::Message::Response(_)) => {}
                    _ => return Err(std::io::Error::other("no answer")),
                }
            }
            writer
                .join()
                .map_err(|_| std::io::Error::other("the writer panicked"))?
        })
    }

    fn stop(mut self) {
        let _ = self.call("shutdown", &json!({}));
        drop(self.input);
        let _ = self.output.read_to_end(&mut Vec::new());
        let _ = self.child.wait();
    }
}

/// One row a `(name, role)`: a raw client of that server, timed (wall
/// time) doing `exchange` once an iteration.
fn raw_client_rows(
    g: &mut BenchmarkGroup<'_, WallTime>,
    rows: &[(&str, &str)],
    mut exchange: impl FnMut(&mut RawClient),
) {
    for &(name, role) in rows {
        let Ok(mut client) = RawClient::start(role) else {
            eprintln!("cannot start the {role} server; skipped");
            continue;
        };
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    exchange(&mut client);
                }
                start.elapsed()
            })
        });
        client.stop();
    }
}

fn round_trips(c: &mut Criterion) {
    let mut g = c.benchmark_group("serve_round_trip");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(1));
    let params = analyze_params();
    raw_client_rows(
        &mut g,
        &[
            (
                "lsp-server server, raw client (Message::read)",
                "lsp-server",
            ),
            ("wirekit serve loop, raw client (Message::read)", "wirekit"),
            (
                "wirekit concurrent loop, raw client (Message::read)",
                "wirekit-concurrent",
            ),
        ],
        |client| {
            let answer = client.call("analyze", &params);
            assert!(matches!(answer, Ok(lsp_server::Message::Response(_))));
        },
    );
    let host = wirekit_protocols::protocol(PROTOCOL)
        .ok()
        .zip(spawn("wirekit").ok())
        .and_then(|(protocol, mut command)| Host::spawn(protocol, &mut command).ok());
    if let Some(mut host) = host {
        if host
            .call("initialize", Some(json!({"clientVersion": "1.0"})))
            .is_ok()
        {
            g.bench_function("wirekit serve loop, wirekit host (both validate)", |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        let answer = host.call("analyze", Some(params.clone()));
                        assert!(answer.is_ok());
                    }
                    start.elapsed()
                })
            });
        }
        let _ = host.call("shutdown", Some(json!({})));
        let _ = host.close(Duration::from_secs(2));
    }
    g.finish();
}

/// Requests sent at once, over pipes.
const PIPELINED: usize = 1_000;

fn pipelined_over_pipes(c: &mut Criterion) {
    let mut g = c.benchmark_group("serve_pipelined_pipes");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(PIPELINED as u64));
    let params = analyze_params();
    raw_client_rows(
        &mut g,
        &[
            ("lsp-server server, raw client", "lsp-server"),
            (
                "wirekit serve (one write an answer), raw client",
                "wirekit-direct",
            ),
            ("wirekit serve_batched, raw client", "wirekit"),
            ("wirekit serve_concurrent, raw client", "wirekit-concurrent"),
        ],
        |client| assert!(client.pipeline(PIPELINED, &params).is_ok()),
    );
    g.finish();
}

/// Requests in one pipelined batch.
const BATCH: usize = 2_000;

/// `initialize`, then [`BATCH`] `analyze` requests, as `Content-Length`
/// frames (the guide's framing).
fn pipelined_input() -> Vec<u8> {
    let mut wire = Vec::new();
    let mut frame = |id: usize, method: &str, params: &Value| {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        wire.extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    };
    frame(0, "initialize", &json!({"clientVersion": "1.0"}));
    let params = analyze_params();
    for id in 1..=BATCH {
        frame(id, "analyze", &params);
    }
    wire
}

fn pipelined(c: &mut Criterion<ThreadCpuTime>) {
    let Ok(protocol) = wirekit_protocols::protocol(PROTOCOL) else {
        eprintln!("no {PROTOCOL} protocol; serve_pipelined skipped");
        return;
    };
    let input = pipelined_input();
    let mut g = c.benchmark_group("serve_pipelined");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(BATCH as u64));
    g.bench_function(
        "wirekit serve loop (checks envelope, lifecycle, params, result)",
        |b| {
            let mut output = Vec::with_capacity(4 * input.len());
            b.iter(|| {
                output.clear();
                let mut server = Server::new(protocol.clone(), ServeOptions::default());
                let served = server.serve(&mut Guide, &input[..], &mut output);
                assert!(served.is_ok());
                black_box(output.len())
            })
        },
    );
    g.bench_function(
        "lsp-server Message::read + Response + write (no checks)",
        |b| {
            let mut output = Vec::with_capacity(4 * input.len());
            b.iter(|| {
                output.clear();
                let mut reader = &input[..];
                while let Ok(Some(message)) = lsp_server::Message::read(&mut reader) {
                    let lsp_server::Message::Request(request) = message else {
                        continue;
                    };
                    let result = match request.method.as_str() {
                        "initialize" => initialize_result(),
                        "analyze" => analyze_result(),
                        _ => json!({}),
                    };
                    let answer: lsp_server::Message =
                        lsp_server::Response::new_ok(request.id, result).into();
                    assert!(answer.write(&mut output).is_ok());
                }
                black_box(output.len())
            })
        },
    );
    g.finish();
}

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("wirekit") => return wirekit_server(false),
        Ok("wirekit-direct") => return wirekit_server(true),
        Ok("wirekit-concurrent") => return wirekit_concurrent_server(),
        Ok("lsp-server") => return lsp_server_server(),
        _ => {}
    }
    let mut criterion = Criterion::default().configure_from_args();
    round_trips(&mut criterion);
    pipelined_over_pipes(&mut criterion);
    criterion.final_summary();
    let mut criterion = Criterion::default()
        .with_measurement(ThreadCpuTime)
        .configure_from_args();
    pipelined(&mut criterion);
    criterion.final_summary();
}
