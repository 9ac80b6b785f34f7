//! `wirekit drive`: be the host. Start a server, send it the calls of a
//! requests file (one `{"method": ..., "params": ...}` a line; a method the
//! protocol defines as a client notification is sent as one), each checked
//! before it is sent and its result after, with the method's timeout; print
//! one JSON line a call and one a notification from the server, in arrival
//! order (a call whose method declares a `lifecycle.completion`, such as
//! `driver.invoke`, is followed until that notification arrives before a
//! call the state refuses is sent); optionally record both directions as a capture
//! for `wirekit validate` (the exact bytes, headers included).
//!
//! Before the server's input is closed, the answers it still owes are
//! awaited, each within its timeout: a request cancelled at its timeout
//! whose answer the protocol requires (LSP), so the recording holds them.
//!
//! The server's own requests are answered at once, while any call waits: a
//! request the protocol declares `server-to-client` with the canned answer
//! `--answers` gives its method (else its manifest example's result, MCP's
//! `ping`: `{}`), anything else with -32601; each is printed
//! as one line (`{"server_request": ..., "id": ..., "params": ..., "result"
//! | "error": ...}`), a refused one with a `problem`, one answered but with
//! an id JSON-RPC 2.0 discourages (`null`, a fraction) with a `warning`
//! (`{"severity": "warning", "kind": "discouraged_id", "message"}`), which
//! does not fail the run.
//!
//! Exit status, which means the protocol:
//! - 0, clean: every answer is one the protocol allows (a result that fits
//!   its schema, or an error the method declares: its `errors`, or where it
//!   declares none a code of the protocol's `errors` table other than
//!   JSON-RPC's -32700, -32600, -32601 and -32603; such a line carries
//!   `"declared": true`), the server sent nothing refused, and it exited
//!   as the protocol's exit sequence says;
//! - 1, not clean: a call refused before sending (the requests file does
//!   not fit the protocol), an error the protocol does not allow, an
//!   invalid result or notification, a timeout, a server that died or had
//!   to be killed, or a fault line on the server's stderr (wirekit's serve
//!   loop refusing an invalid result or notification on the server's behalf,
//!   printed as `{"fault": kind, "method", "pointer", "message"}`); the tail
//!   of the server's stderr is then printed;
//! - 2: bad usage (an unknown protocol, a malformed requests file, a
//!   server that cannot be started).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::live::LiveLine;
use serde_json::{json, Value};
use wirekit::dataplane::DataFrame;
use wirekit::host::{DataPlaneOffer, Ending, Host, HostError, HostErrorKind, Recording};
use wirekit::monitor::{ProblemKind, Severity};
use wirekit::protocol::MethodKind;
use wirekit::serve::RuntimeFault;
use wirekit::validate::Protocol;

/// Arguments of `wirekit drive`.
#[derive(Debug, clap::Args)]
pub struct DriveArgs {
    /// The protocol: `NAME` (its newest version) or `NAME@VERSION`, from `--schemas`, the nearest `schemas/` folder, or the built-in ones.
    #[arg(long)]
    protocol: String,
    /// Look for the protocol in this folder (laid out `NAME/VERSION/protocol.json`) instead of the nearest `schemas/`; the built-in protocols come after it.
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
    /// The calls, one `{"method": ..., "params": ...}` a line (standard input when absent or `-`:
    /// then read one at a time, each sent as it comes and answered before the next is read).
    /// A value `{"$from": NAME, "pointer": "/x"}` in params is the result of the latest call
    /// whose `name` (or method) is NAME, at that pointer: a server-chosen id reaches later calls.
    #[arg(long, value_name = "FILE")]
    requests: Option<PathBuf>,
    /// Record both directions, in order, into this file: the exact bytes
    /// written and read, headers and line endings included.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// One timeout for every call, instead of each method's own.
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Offer the server the driver protocol's companion data plane (a Unix
    /// socket in its environment) and write each data stream's bytes into
    /// this folder, one file a stream.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The data plane's frame bound (at most the protocol's 256 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = wirekit::dataplane::DEFAULT_MAX_DATA_FRAME_BYTES)]
    data_max_frame_bytes: usize,
    /// Canned answers to the server's requests: a JSON object mapping each
    /// method to `{"result": ...}` or `{"error": {"code": ..., "message": ...}}`.
    /// Only methods the protocol declares server-to-client are answered from
    /// it; the others get their manifest example's result where it gives one
    /// (MCP's `ping`), else -32601.
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// The server's command line.
    #[arg(last = true, required = true, num_args = 1..)]
    command: Vec<String>,
}

/// Runs `wirekit drive`.
pub fn run(args: DriveArgs) -> ExitCode {
    match drive(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("wirekit drive: {message}");
            ExitCode::from(2)
        }
    }
}

fn drive(args: &DriveArgs) -> Result<bool, String> {
    let protocol = crate::catalog::find(&args.protocol, args.schemas.as_deref(), "wirekit drive")?
        .compile(&args.protocol)?;
    let answers = match &args.answers {
        None => crate::answers::Answers::from_examples(&protocol),
        Some(path) => crate::answers::read(path, &protocol)?,
    };
    let input = crate::input::open(args.requests.as_deref())?;
    let from_stdin = args
        .requests
        .as_deref()
        .is_none_or(|p| p.as_os_str() == "-");
    // A file is read (and refused when malformed) before the server starts;
    // standard input is read a call at a time, each sent as it comes.
    let mut calls = if from_stdin {
        Calls::streamed(input)
    } else {
        Calls::read(input)?
    };
    let (program, rest) = args.command.split_first().ok_or("no server command")?;
    let mut command = Command::new(program);
    command.args(rest);
    let streams: Streams = Arc::new(Mutex::new(BTreeMap::new()));
    let offer = match &args.data_dir {
        None => None,
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let offer = DataPlaneOffer::new(
                args.data_max_frame_bytes,
                data_sink(dir.clone(), Arc::clone(&streams)),
            )
            .map_err(|e| e.to_string())?;
            offer.offer_to(&mut command);
            Some(offer)
        }
    };
    let mut host = Host::spawn(Arc::clone(&protocol), &mut command).map_err(|e| e.to_string())?;
    if let Some(offer) = offer {
        host = host.with_data_plane(offer);
    }
    if let Some(ms) = args.timeout_ms {
        host = host.with_timeout(Duration::from_millis(ms));
    }
    host = host.with_request_handler(answers.into_handler());
    if let Some(path) = &args.record {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let sides = crate::validate::sides_path(path);
        let sides = std::fs::File::create(&sides)
            .map_err(|e| format!("cannot create {}: {e}", sides.display()))?;
        host = host.with_transcript(Recording::new(Box::new(file)).with_sides(Box::new(sides)));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_ok = true;
    // Each call's result, by its `name` and its method (the latest wins),
    // for the `{"$from": ...}` references of later calls.
    let mut results: BTreeMap<String, Value> = BTreeMap::new();
    while let Some(call) = calls.next_call()? {
        let Call {
            method,
            mut params,
            name,
        } = call;
        if let Some(params) = params.as_mut() {
            if let Err(why) = resolve_references(params, &results) {
                all_ok = false;
                let line = json!({"method": method, "error": {"kind": "unresolved", "sent": false, "message": why}});
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
                continue;
            }
        }
        let notification = protocol
            .method(&method)
            .is_some_and(|spec| spec.kind == MethodKind::Notification);
        if notification {
            // A client notification (LSP's `initialized`, `exit`): sent,
            // checked like a call, nothing to wait for.
            let line = match host.notify(&method, params) {
                Ok(()) => json!({"notification": method, "sent": true}),
                Err(error) => {
                    all_ok = false;
                    json!({"notification": method, "error": describe(&error)})
                }
            };
            all_ok &= print_received(&mut out, &mut host, &streams)?;
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
            continue;
        }
        let streamed = protocol
            .method(&method)
            .is_some_and(|spec| spec.result_stream.is_some());
        let timeout = args
            .timeout_ms
            .or_else(|| protocol.method(&method).and_then(|spec| spec.timeout_ms));
        let pending = match timeout {
            Some(ms) => format!("waiting for `{method}` (timeout {})", seconds(ms)),
            None => format!("waiting for `{method}`"),
        };
        let live = LiveLine::start("wirekit drive", pending);
        let outcome = if streamed {
            host.call_stream(&method, params).map(Value::Array)
        } else {
            host.call(&method, params)
        };
        drop(live);
        // Notifications that came before the answer (while a completion
        // was awaited, or before the response) go first: arrival order.
        all_ok &= print_received(&mut out, &mut host, &streams)?;
        let (line, fatal) = match outcome {
            Ok(result) => {
                if let Some(name) = &name {
                    results.insert(name.clone(), result.clone());
                }
                results.insert(method.clone(), result.clone());
                (json!({"method": method, "result": result}), false)
            }
            Err(error) if allowed_error(&protocol, &method, &error) => {
                // An answer the protocol allows: the run stays clean.
                let mut line = json!({"method": method, "error": describe(&error)});
                line["declared"] = json!(true);
                (line, false)
            }
            Err(error) => {
                all_ok = false;
                // A timed-out request the protocol cancels leaves the session going.
                let fatal = match error.kind() {
                    HostErrorKind::Exited | HostErrorKind::Framing => true,
                    HostErrorKind::Timeout => host.session().is_ended(),
                    _ => false,
                };
                (json!({"method": method, "error": describe(&error)}), fatal)
            }
        };
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
        if fatal {
            break;
        }
    }
    // What the last answer started runs to its completion.
    let awaiting = host.session().awaiting().map(str::to_owned);
    let live = awaiting
        .map(|awaited| LiveLine::start("wirekit drive", format!("waiting for `{awaited}`")));
    let completion = host.await_completion();
    drop(live);
    if let Err(error) = completion {
        all_ok = false;
        print_received(&mut out, &mut host, &streams)?;
        let awaited = host
            .session()
            .awaiting()
            .unwrap_or("a completion")
            .to_owned();
        writeln!(
            out,
            "{}",
            json!({"awaiting": awaited, "error": describe(&error)})
        )
        .map_err(|e| e.to_string())?;
    }
    // Answers still owed (a request cancelled at its timeout whose answer
    // the protocol requires): the session, and its recording, end after them.
    if host.session().is_ended() {
        // Nothing more comes from a session that ended.
    } else if let Err(error) = host.await_owed_answers() {
        all_ok = false;
        print_received(&mut out, &mut host, &streams)?;
        writeln!(
            out,
            "{}",
            json!({"awaiting": "the answers owed to cancelled requests", "error": describe(&error)})
        )
        .map_err(|e| e.to_string())?;
    }
    all_ok &= print_received(&mut out, &mut host, &streams)?;
    let (ending, stderr) = host
        .end_with_stderr(Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    // Faults wirekit's own serve loop refused on the server's behalf (an
    // invalid result answered -32603 instead, a notification dropped): the
    // wire looks clean, the server is not.
    for fault in stderr.lines().filter_map(RuntimeFault::parse) {
        all_ok = false;
        writeln!(
            out,
            "{}",
            json!({"fault": fault.kind, "method": fault.method, "pointer": fault.pointer, "message": fault.message})
        )
        .map_err(|e| e.to_string())?;
    }
    let status = ending.status();
    let code = match (status.code(), exit_signal(&status)) {
        (Some(code), _) => format!("status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    };
    let how = match ending {
        Ending::Exited(_) if status.code().is_some() => format!("by itself ({code})"),
        Ending::Exited(_) => format!("({code})"),
        Ending::Terminated(_) => {
            format!("on SIGTERM, as the protocol's exit sequence allows ({code})")
        }
        Ending::Killed(_) => {
            all_ok = false;
            format!("only when killed: it did not exit when its input closed ({code})")
        }
    };
    eprintln!("wirekit drive: the server exited {how}");
    eprintln!(
        "wirekit drive: {}",
        if all_ok {
            "clean: every answer is one the protocol allows"
        } else {
            "not clean: see the lines with `error` or `problem` above"
        }
    );
    if !all_ok {
        print_stderr_tail(&stderr);
    }
    Ok(all_ok)
}

/// The signal that ended the process, where there was one.
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The last lines the server wrote to stderr, for a run that was not clean.
fn print_stderr_tail(stderr: &str) {
    const LINES: usize = 20;
    let lines: Vec<&str> = stderr.lines().collect();
    if lines.is_empty() {
        eprintln!("wirekit drive: the server wrote nothing to stderr");
        return;
    }
    let from = lines.len().saturating_sub(LINES);
    eprintln!(
        "wirekit drive: the server's stderr ({}):",
        if from == 0 {
            "all of it".to_owned()
        } else {
            format!("its last {LINES} lines")
        }
    );
    for line in &lines[from..] {
        eprintln!("  | {line}");
    }
}

/// Whether `error` is an error answer the protocol allows for `method`:
/// one of the method's declared `errors`, or where it declares none, a
/// code of the protocol's `errors` table. JSON-RPC's internal error
/// (-32603), parse error and invalid request never are, nor is "method not
/// found" to a method the protocol defines unless the method declares it.
fn allowed_error(protocol: &Protocol, method: &str, error: &HostError) -> bool {
    if error.kind() != HostErrorKind::Remote {
        return false;
    }
    let (Some(object), Some(spec)) = (error.error_object(), protocol.method(method)) else {
        return false;
    };
    let errors = &protocol.manifest().errors;
    if spec.errors.is_empty() {
        const NEVER: [i64; 4] = [-32700, -32600, -32601, -32603];
        !NEVER.contains(&object.code) && errors.iter().any(|e| e.code == object.code)
    } else {
        errors
            .iter()
            .any(|e| e.code == object.code && spec.errors.contains(&e.name))
    }
}

/// `300 s`, `1.5 s`.
fn seconds(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// Prints the server's requests answered so far and the notifications
/// received, one JSON line each (a refused one with its problem); false
/// when one was refused.
fn print_received(
    out: &mut impl Write,
    host: &mut Host,
    streams: &Streams,
) -> Result<bool, String> {
    let mut all_ok = true;
    for asked in host.take_server_requests() {
        let mut line = json!({
            "server_request": asked.request.method,
            "id": asked.request.id.to_value(),
            "params": asked.request.params,
        });
        match &asked.answer {
            Ok(result) => line["result"] = result.clone(),
            Err(error) => line["error"] = crate::answers::error_json(error),
        }
        if let Some(problem) = &asked.problem {
            all_ok = false;
            line["problem"] = describe(problem);
        }
        if let Some(warning) = &asked.warning {
            // Answered as asked: reported, and the run does not fail on it.
            line["warning"] = json!({
                "severity": Severity::Warning.name(),
                "kind": ProblemKind::DiscouragedId.name(),
                "message": warning,
            });
        }
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    for received in host.take_received() {
        let line = match received {
            Ok(notification) => {
                let mut line =
                    json!({"notification": notification.method, "params": notification.params});
                let stream = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.pointer("/data_stream/stream_id"))
                    .and_then(Value::as_str);
                if let Some(stream) = stream {
                    if let Some(received) = streams.lock().ok().and_then(|s| s.get(stream).cloned())
                    {
                        line["data"] = received;
                    }
                }
                line
            }
            Err(error) => {
                all_ok = false;
                let refused = error.refused_notification();
                json!({
                    "notification": refused.map(|n| n.method.clone()),
                    "params": refused.and_then(|n| n.params.clone()),
                    "error": describe(&error),
                })
            }
        };
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(all_ok)
}

/// What each data stream brought: frames, bytes, the file holding them.
type Streams = Arc<Mutex<BTreeMap<String, Value>>>;

/// Writes each frame's payload to its stream's file as it comes (one frame
/// in memory at a time) and counts them.
fn data_sink(dir: PathBuf, streams: Streams) -> Box<wirekit::host::DataSink> {
    Box::new(move |frame: &DataFrame| {
        let name: String = frame
            .header
            .stream_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(name);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(&frame.payload));
        if let Ok(mut streams) = streams.lock() {
            let entry = streams
                .entry(frame.header.stream_id.clone())
                .or_insert_with(
                    || json!({"frames": 0, "bytes": 0, "file": path.display().to_string()}),
                );
            entry["frames"] = json!(entry["frames"].as_u64().unwrap_or(0) + 1);
            entry["bytes"] =
                json!(entry["bytes"].as_u64().unwrap_or(0) + frame.payload.len() as u64);
            if let Err(error) = written {
                entry["write_error"] = json!(error.to_string());
            }
        }
    })
}

/// One call of the requests file.
struct Call {
    method: String,
    params: Option<Value>,
    /// The name later calls' `{"$from": NAME}` use (besides the method).
    name: Option<String>,
}

/// The calls: read whole before the server starts (a file), or a line at
/// a time as they come (standard input: a person or a script feeding calls
/// live, each answered before the next is read).
enum Calls {
    Read(std::collections::VecDeque<Call>),
    Streamed {
        lines: std::io::Lines<BufReader<Box<dyn Read>>>,
        number: usize,
    },
}

impl Calls {
    fn read(input: Box<dyn Read>) -> Result<Self, String> {
        let mut calls = std::collections::VecDeque::new();
        for (number, line) in BufReader::new(input).lines().enumerate() {
            let line = line.map_err(|e| e.to_string())?;
            if let Some(call) = parse_call(&line, number + 1)? {
                calls.push_back(call);
            }
        }
        Ok(Calls::Read(calls))
    }

    fn streamed(input: Box<dyn Read>) -> Self {
        Calls::Streamed {
            lines: BufReader::new(input).lines(),
            number: 0,
        }
    }

    /// The next call; an error for a line that is no call.
    fn next_call(&mut self) -> Result<Option<Call>, String> {
        match self {
            Calls::Read(calls) => Ok(calls.pop_front()),
            Calls::Streamed { lines, number } => loop {
                let Some(line) = lines.next() else {
                    return Ok(None);
                };
                *number += 1;
                let line = line.map_err(|e| e.to_string())?;
                if let Some(call) = parse_call(&line, *number)? {
                    return Ok(Some(call));
                }
            },
        }
    }
}

/// A line of the requests file: `{"method", "params", "name"}`, or `None`
/// for a blank line.
fn parse_call(line: &str, number: usize) -> Result<Option<Call>, String> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let call: Value =
        serde_json::from_str(line).map_err(|e| format!("requests line {number}: {e}"))?;
    let method = call["method"]
        .as_str()
        .ok_or_else(|| format!("requests line {number}: needs a string `method`"))?;
    let name = match call.get("name") {
        None => None,
        Some(Value::String(name)) => Some(name.clone()),
        Some(_) => return Err(format!("requests line {number}: `name` must be a string")),
    };
    Ok(Some(Call {
        method: method.to_owned(),
        params: call.get("params").cloned(),
        name,
    }))
}

/// Replaces every `{"$from": NAME}` or `{"$from": NAME, "pointer": P}` in
/// `value` with the result of the latest call named NAME (its `name`, or
/// its method), or the part of it at the JSON pointer P: a value a server
/// chose (a session id) reaches the calls after it. A reference to no
/// result, or to a place the result lacks, is an error naming it.
fn resolve_references(value: &mut Value, results: &BTreeMap<String, Value>) -> Result<(), String> {
    match value {
        Value::Object(members) => {
            let reference = members.get("$from").and_then(Value::as_str);
            let only_reference = members.keys().all(|k| k == "$from" || k == "pointer");
            if let (Some(from), true) = (reference, only_reference) {
                let pointer = match members.get("pointer") {
                    None => "",
                    Some(Value::String(p)) => p.as_str(),
                    Some(_) => {
                        return Err(format!(
                            "`{{\"$from\": \"{from}\"}}`: `pointer` must be a string"
                        ))
                    }
                };
                let Some(result) = results.get(from) else {
                    let known: Vec<&str> = results.keys().map(String::as_str).collect();
                    return Err(format!(
                        "`$from` names `{from}`, which no earlier call answered with a result (answered: {})",
                        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                    ));
                };
                let Some(found) = result.pointer(pointer) else {
                    return Err(format!(
                        "`$from` `{from}` at `{pointer}`: the result of `{from}` has nothing there"
                    ));
                };
                *value = found.clone();
                return Ok(());
            }
            for member in members.values_mut() {
                resolve_references(member, results)?;
            }
            Ok(())
        }
        Value::Array(items) => {
            for item in items {
                resolve_references(item, results)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn describe(error: &HostError) -> Value {
    let issues: Vec<Value> = error
        .validation_issues()
        .iter()
        .map(|i| i.to_json())
        .collect();
    let mut described = json!({"kind": error.kind().name(), "message": error.message()});
    if error.kind().refused_before_sending() {
        // The host's own refusal: no server answered, so no JSON-RPC code
        // is shown as if one had.
        described["sent"] = json!(false);
    } else if let Some(object) = error.error_object() {
        described["code"] = json!(object.code);
        if let Some(data) = &object.data {
            described["data"] = data.clone();
        }
    }
    if !issues.is_empty() {
        described["issues"] = Value::Array(issues);
    }
    if !error.stderr().is_empty() {
        described["stderr"] = json!(error.stderr());
    }
    described
}
