//! `wirekit lsp`: ask a language server one question, as a person would.
//!
//! The server starts in the root, gets the handshake (`wirekit_lsp`), the
//! asked files opened with their text, a quiet moment (work-done progress),
//! then the query; the answer is printed as text or as one JSON document,
//! and the server is stopped (`shutdown`, `exit`, a grace, kill). Nothing
//! is written but the recording: a rename prints its edit. Exit status
//! ([`EXIT_STATUS`], which `--help` prints): 0 answered, 1 not answered
//! (unsupported, unavailable, timed out, malformed, refused, diagnostics
//! unsettled, or a failure the server reported while it was asked), 2 usage.

mod answer;
mod places;
mod query;

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use wirekit_lsp::{Client, Options, Readiness};

use places::Places;
use query::Query;

/// The exit status of `wirekit lsp`, as `--help` prints it.
pub(crate) const EXIT_STATUS: &str = "Exit status:
  0  answered: the server's answer, \"no definition found\" and no diagnostics included
  1  not answered: the server did not start; the feature is unsupported (not advertised);
     unavailable (the server is gone, or answered nothing after reporting a failure);
     timed out; a malformed or refused answer; diagnostics unsettled at the deadline;
     or diagnostics while the server reported a failure (an error-level log), which
     cannot be called clean
  2  bad usage: the command line, a file to read, --settings or --init-options";

/// Arguments of `wirekit lsp`.
#[derive(Debug, clap::Args)]
pub struct LspArgs {
    /// The workspace root; files are relative to it (default: the current folder).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Record the session (both directions, exact bytes) for `wirekit validate --protocol lsp`.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// The most bytes `--record` writes: once a frame would pass it, the recording stops there
    /// (whole frames only, so it still validates) and the output says so.
    #[arg(long, value_name = "N", default_value_t = 64 * 1024 * 1024)]
    record_max_bytes: u64,
    /// How long each request may take, in milliseconds (the server's start gets six times as long).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    timeout_ms: u64,
    /// `initializationOptions` sent in `initialize`, as JSON (for example
    /// `{"tsserver":{"path":"node_modules/typescript/lib"}}`).
    #[arg(long, value_name = "JSON")]
    init_options: Option<String>,
    /// The new name of `rename`, any text: `--to=--primary` for a name that starts with `-`.
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    to: Option<String>,
    /// The language id of a kind of file, `EXT=ID` or `NAME=ID` (repeat for more):
    /// `--language-id tpl=html`. By default it comes from the file as editors choose
    /// it (the LSP specification's table: html, css, yaml, dockerfile, ...).
    #[arg(long, value_name = "EXT=ID")]
    language_id: Vec<String>,
    /// The settings `workspace/configuration` is answered from: a JSON object of
    /// sections (`{"css": {"validate": true}}`), each item answered by its section.
    /// Without it every section is `{}`, the server's defaults.
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// definition|references|hover|calls-incoming|calls-outgoing FILE:LINE:COL, symbols FILE,
    /// rename FILE:LINE:COL NEWNAME (or --to NAME), diagnostics FILE...
    #[arg(required = true, num_args = 1.., value_name = "QUERY ARGS")]
    query: Vec<String>,
    /// The language server and its arguments.
    #[arg(last = true, required = true, num_args = 1.., value_name = "SERVER")]
    server: Vec<String>,
}

/// Runs `wirekit lsp`.
pub fn run(args: LspArgs) -> ExitCode {
    let root = match args
        .root
        .clone()
        .unwrap_or_else(|| PathBuf::from("."))
        .canonicalize()
    {
        Ok(root) if root.is_dir() => root,
        _ => {
            return usage(&format!(
                "the root {} is not a folder",
                args.root.unwrap_or_default().display()
            ))
        }
    };
    let query = match query::parse(&args.query[0], &args.query[1..], &root, args.to.as_deref()) {
        Ok(query) => query,
        Err(message) => return usage(&message),
    };
    let mut texts = Vec::new();
    for file in query.files() {
        match std::fs::read_to_string(&file) {
            Ok(text) => texts.push((file, text)),
            Err(error) => return usage(&format!("cannot read {}: {error}", file.display())),
        }
    }
    let mut languages = Vec::new();
    for text in &args.language_id {
        match query::language_override(text) {
            Ok(pair) => languages.push(pair),
            Err(message) => return usage(&message),
        }
    }
    let mut options = Options::new(&root);
    if let Some(path) = &args.settings {
        let settings = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read --settings {}: {e}", path.display()))
            .and_then(|text| {
                serde_json::from_str::<Value>(&text)
                    .map_err(|e| format!("--settings {} is not JSON: {e}", path.display()))
            })
            .and_then(|value| {
                if value.is_object() {
                    Ok(value)
                } else {
                    Err(format!(
                        "--settings {} must hold a JSON object of sections",
                        path.display()
                    ))
                }
            });
        match settings {
            Ok(value) => options.settings = Some(value),
            Err(message) => return usage(&message),
        }
    }
    if let Some(text) = &args.init_options {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => options.initialization_options = Some(value),
            Err(error) => {
                return usage(&format!("--init-options is not JSON: {error}"));
            }
        }
    }
    options.request_timeout = Duration::from_millis(args.timeout_ms);
    options.handshake_timeout = Duration::from_millis(args.timeout_ms.saturating_mul(6));
    let recording_stopped: Arc<Mutex<Option<u64>>> = Arc::default();
    if let Some(path) = &args.record {
        let sides = crate::validate::sides_path(path);
        match File::create(&sides) {
            Ok(file) => options.recording_sides = Some(Box::new(file)),
            Err(error) => return usage(&format!("cannot create {}: {error}", sides.display())),
        }
        match File::create(path) {
            Ok(file) => {
                options.recording = Some(Box::new(CappedRecording {
                    file,
                    written: 0,
                    limit: args.record_max_bytes,
                    stopped_at: Arc::clone(&recording_stopped),
                }))
            }
            Err(error) => return usage(&format!("cannot create {}: {error}", path.display())),
        }
    }
    let mut command = Command::new(&args.server[0]);
    command.args(&args.server[1..]);
    let mut client = match Client::start(command, options) {
        Ok(client) => client,
        Err(error) => {
            return finish(
                &args,
                &query,
                Err(("start_failed", format!("{} ({})", error, error.code()))),
                None,
                None,
            )
        }
    };
    let timeout = Duration::from_millis(args.timeout_ms);
    let mut places = Places::new(&root);
    let outcome = ask(
        &mut client,
        &query,
        &texts,
        timeout,
        &mut places,
        &languages,
    );
    let server = json!({
        "capabilities": client.capabilities().raw().clone(),
        "server_requests": client.server_requests_seen(),
        "late_answers_dropped": client.dropped().late_answers,
        "notifications_dropped": client.dropped().notifications,
    });
    let mut server = server;
    let stop = client.stop(Duration::from_secs(2));
    let stop = json!({"outcome": stop.name(), "detail": match &stop {
        wirekit_lsp::StopReport::Graceful => Value::Null,
        wirekit_lsp::StopReport::Forced(why) | wirekit_lsp::StopReport::AlreadyGone(why) => json!(why),
    }});
    let stopped_at = recording_stopped.lock().ok().and_then(|at| *at);
    if let Some(stopped_at) = stopped_at {
        server["recording_stopped_at_bytes"] = json!(stopped_at);
        eprintln!(
            "wirekit lsp: the recording stopped at {stopped_at} bytes, before the frame that would \
             pass --record-max-bytes {}; it holds the session up to there",
            args.record_max_bytes
        );
    }
    finish(&args, &query, outcome, Some(server), Some(stop))
}

/// The `--record` file, written up to `limit` bytes: the first chunk (a
/// frame, as the client records them) that would pass it stops the
/// recording, so the file ends on a whole frame; `stopped_at` says where.
struct CappedRecording {
    file: File,
    written: u64,
    limit: u64,
    stopped_at: Arc<Mutex<Option<u64>>>,
}

impl Write for CappedRecording {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Ok(mut stopped_at) = self.stopped_at.lock() else {
            return Ok(buf.len());
        };
        let size = u64::try_from(buf.len()).unwrap_or(u64::MAX);
        if stopped_at.is_some() || self.written.saturating_add(size) > self.limit {
            stopped_at.get_or_insert(self.written);
            return Ok(buf.len());
        }
        let count = self.file.write(buf)?;
        self.written += u64::try_from(count).unwrap_or(u64::MAX);
        Ok(count)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// An answer: the text for people and the JSON result, and whether it
/// counts as answered (diagnostics unsettled does not).
pub(super) struct Answer {
    pub(super) text: String,
    pub(super) json: Value,
    pub(super) answered: bool,
}

/// The answer and what the server was still busy with when it was asked
/// (work-done progress titles; the JSON document's `still_busy`).
type Outcome = Result<(Answer, Vec<String>), (&'static str, String)>;

fn ask(
    client: &mut Client,
    query: &Query,
    texts: &[(PathBuf, String)],
    timeout: Duration,
    places: &mut Places,
    languages: &[(String, String)],
) -> Outcome {
    let failed = |error: wirekit_lsp::RequestError| (error.code(), error.to_string());
    // Indexing first: a server still loading answers nothing rather than an error.
    let busy = match client
        .ready(Duration::from_millis(300), timeout)
        .map_err(failed)?
    {
        Readiness::Quiet => Vec::new(),
        Readiness::StillBusy(titles) => titles,
    };
    for (file, text) in texts {
        client
            .sync(file, &query::language_id(file, languages), text)
            .map_err(failed)?;
    }
    // A server may start loading the project only once a file is open
    // (typescript-language-server does): asked at once, it answers from the
    // file's syntax alone. So the client waits until the server has looked
    // at the files (its first publication for them), then the quiet window
    // runs again, following any work-done progress it begins; all within
    // the request's timeout.
    let files: Vec<PathBuf> = texts.iter().map(|(file, _)| file.clone()).collect();
    let looked_at = client.looked_at(&files, timeout).map_err(failed)?;
    let mut busy = busy;
    if !looked_at {
        busy.push("no diagnostics published for the file yet".to_owned());
    }
    if let Readiness::StillBusy(titles) = client
        .ready(Duration::from_millis(300), timeout)
        .map_err(failed)?
    {
        for title in titles {
            if !busy.contains(&title) {
                busy.push(title);
            }
        }
    }
    let mut answer = answer::answer(client, query, texts, timeout, places)?;
    if !busy.is_empty() {
        answer.text.push_str(&format!(
            "(the server was still busy: {})\n",
            busy.join(", ")
        ));
    }
    Ok((answer, busy))
}

fn finish(
    args: &LspArgs,
    query: &Query,
    outcome: Outcome,
    server: Option<Value>,
    stop: Option<Value>,
) -> ExitCode {
    let answered = matches!(&outcome, Ok((answer, _)) if answer.answered);
    if args.json {
        let mut document = json!({"query": query.name(), "server_command": args.server});
        match &outcome {
            Ok((answer, busy)) => {
                document["result"] = answer.json.clone();
                if !busy.is_empty() {
                    document["still_busy"] = json!(busy);
                }
            }
            Err((code, message)) => document["error"] = json!({"code": code, "message": message}),
        }
        if let Some(server) = server {
            document["server"] = server;
        }
        if let Some(stop) = stop {
            document["stop"] = stop;
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&document).unwrap_or_default()
        );
    } else {
        match &outcome {
            Ok((answer, _)) => print!("{}", answer.text),
            Err((code, message)) => {
                eprintln!("wirekit lsp: {} failed ({code}): {message}", query.name())
            }
        }
        if let Some(stop) = stop.filter(|s| s["outcome"] != "graceful") {
            eprintln!(
                "wirekit lsp: the server stopped {}: {}",
                stop["outcome"], stop["detail"]
            );
        }
    }
    if answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("wirekit lsp: {message}");
    ExitCode::from(2)
}
