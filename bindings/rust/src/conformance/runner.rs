//! The state of a run: spawning server processes, the params of each
//! method (examples or generated, with the project root), timeouts, calls
//! and the checks of the answers that every group shares.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::check::{Check, Outcome};
use super::conversation::{Answer, Conversation};
use super::instance::Schemas;
use super::options::{Options, DEFAULT_FAULT_TIMEOUT};
use super::process::ServerProcess;
use super::report::SessionInfo;
use crate::envelope::{ErrorObject, Id, Response};
use crate::protocol::{EnforcedBy, ErrorCodes, MethodKind, MethodSpec};
use crate::validate::{Part, Protocol};

/// Timeouts after which the battery stops sending faults: a server that
/// hangs on everything would otherwise cost a timeout a check.
const MAX_HANGS: usize = 3;
/// The method of the request that checks a server still answers.
pub(crate) const PROBE_METHOD: &str = "wirekit.conformance/probe";

/// How a call went.
#[derive(Debug)]
pub(crate) enum Called {
    /// The server answered with a result or an error.
    Answered(Result<Value, ErrorObject>),
    /// Nothing usable: the call could not be made or the answer was no
    /// valid envelope (the check says why); the server is still there.
    Unusable,
    /// The server exited or hung (the check says which).
    Gone,
}

/// A run in progress.
pub(crate) struct Run<'a> {
    pub(crate) protocol: Arc<Protocol>,
    pub(crate) options: &'a mut Options,
    root: PathBuf,
    pub(crate) checks: Vec<Check>,
    pub(crate) sessions: Vec<SessionInfo>,
    pub(crate) not_exercised: Vec<String>,
    pub(crate) noise: Vec<(usize, String)>,
    /// How many lines of noise every session wrote (`noise` keeps the first of each).
    pub(crate) noise_count: usize,
    spawned: usize,
    hangs: usize,
    /// The last result of each request, for `params_from`.
    pub(crate) results: HashMap<String, Value>,
    /// Fault lines of the server's runtime not yet claimed by a check
    /// (see [`super::refused`]), with their session.
    pub(crate) pending_faults: Vec<(usize, crate::serve::RuntimeFault)>,
    /// The faults already reported (kind, method, pointer).
    pub(crate) faults_seen: HashSet<(String, String, String)>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(protocol: Arc<Protocol>, options: &'a mut Options, root: PathBuf) -> Self {
        Run {
            protocol,
            options,
            root,
            checks: Vec::new(),
            sessions: Vec::new(),
            not_exercised: Vec::new(),
            noise: Vec::new(),
            noise_count: 0,
            spawned: 0,
            hangs: 0,
            results: HashMap::new(),
            pending_faults: Vec::new(),
            faults_seen: HashSet::new(),
        }
    }

    /// Whether the server hung so often that sending more is pointless.
    pub(crate) fn gave_up(&self) -> bool {
        self.hangs >= MAX_HANGS
    }

    /// Starts a fresh server process.
    pub(crate) fn spawn(&mut self) -> Result<Conversation, String> {
        self.spawned += 1;
        let index = self.spawned;
        let (program, args) = self
            .options
            .command
            .split_first()
            .ok_or("no server command")?;
        let mut command = Command::new(program);
        command.args(args).current_dir(&self.root);
        let process = ServerProcess::spawn(&mut command, &self.protocol.manifest().transport)
            .map_err(|e| format!("cannot start `{}`: {e}", self.options.command.join(" ")))?;
        let record = match &self.options.record {
            None => None,
            Some(path) => {
                let path = record_path(path, index);
                let file = std::fs::File::create(&path)
                    .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
                Some(Box::new(std::io::BufWriter::new(file)) as Box<dyn std::io::Write + Send>)
            }
        };
        let answers = self
            .options
            .answers
            .clone()
            .unwrap_or_else(|| crate::host::Answers::from_examples(&self.protocol));
        Ok(
            Conversation::new(Arc::clone(&self.protocol), process, index, record)
                .with_answers(answers),
        )
    }

    /// Ends a session: its process, noise and stderr go to the report.
    pub(crate) fn finish(&mut self, mut conversation: Conversation) {
        let noise = std::mem::take(&mut conversation.noise);
        self.noise_count += conversation.noise_count;
        let (index, exit, stderr, faults) = conversation.end();
        self.noise
            .extend(noise.into_iter().map(|line| (index, line)));
        self.report_faults(index, faults);
        self.sessions.push(SessionInfo {
            index,
            exit,
            stderr,
        });
    }

    /// Tells the progress callback what runs next.
    pub(crate) fn progress(&mut self, what: &str) {
        let done = self.checks.len();
        if let Some(progress) = self.options.progress.as_mut() {
            progress(what, done);
        }
    }

    /// Adds a finished check (dropped when its group is not selected).
    pub(crate) fn emit(&mut self, mut check: Check, session: usize) {
        if !self.options.runs(&check.group) {
            return;
        }
        check.session = session;
        check.settle();
        if check.outcome == Outcome::Pass && check.message.is_empty() {
            check.message = "as the protocol says".to_owned();
        }
        self.checks.push(check);
    }

    /// The methods a client sends, in the real host's order (requests, and
    /// the notifications it lists), else every client request.
    pub(crate) fn sequence(&self) -> Vec<String> {
        let manifest = self.protocol.manifest();
        match &manifest.host {
            Some(host) if !host.sequence.is_empty() => host.sequence.clone(),
            _ => self
                .client_requests()
                .map(|(name, _)| name.clone())
                .collect(),
        }
    }

    /// Every client-to-server request of the protocol.
    pub(crate) fn client_requests(&self) -> impl Iterator<Item = (&String, &MethodSpec)> {
        self.protocol
            .manifest()
            .methods
            .iter()
            .filter(|(_, spec)| spec.kind == MethodKind::Request && spec.direction.client_sends())
    }

    /// How long to wait for the answer to a method the host sends.
    pub(crate) fn answer_timeout(&self, method: &str) -> Duration {
        self.options.timeout.unwrap_or_else(|| {
            self.protocol
                .method(method)
                .and_then(|s| s.timeout_ms)
                .map_or(crate::host::DEFAULT_TIMEOUT, Duration::from_millis)
        })
    }

    /// How long to wait for the answer to a fault.
    pub(crate) fn fault_timeout(&self) -> Duration {
        self.options.timeout.unwrap_or(DEFAULT_FAULT_TIMEOUT)
    }

    /// A server that did not answer in time.
    pub(crate) fn hung(&mut self) {
        self.hangs += 1;
    }

    /// The valid params of `method`: the caller's, else the manifest's
    /// first example, else a minimal instance generated from the schema;
    /// the project root put where the manifest says; validated.
    pub(crate) fn params_for(&self, method: &str) -> Result<Option<Value>, String> {
        let Some(spec) = self.protocol.method(method) else {
            return Err(format!(
                "`{method}` is not a method of {}",
                self.protocol.id()
            ));
        };
        let mut params = if let Some(given) = self.options.params.get(method) {
            Some(given.clone())
        } else if let Some(example) = spec
            .examples
            .iter()
            .find(|e| e.get("error").is_none() && e.get("params").is_some())
            .and_then(|e| e.get("params"))
        {
            Some(example.clone())
        } else if spec.params_optional || spec.params.is_none() {
            None
        } else {
            Some(self.generated(spec).ok_or_else(|| {
                format!(
                    "no example params for `{method}` and none could be generated from its schema"
                )
            })?)
        };
        if params.as_ref().is_some_and(Value::is_null) {
            params = None;
        }
        // The server's own names from its earlier answers, unless given.
        if !self.options.params.contains_key(method) {
            params = super::params_from::fill(&spec.params_from, &self.results, params);
        }
        let root_pointer = self
            .protocol
            .manifest()
            .host
            .as_ref()
            .and_then(|h| h.project_root.clone());
        if let (Some(pointer), Some(value)) = (root_pointer, params.as_mut()) {
            if let Some(slot) = value.pointer_mut(&pointer) {
                *slot = Value::String(self.root.to_string_lossy().into_owned());
            }
        }
        let issues = self
            .protocol
            .validate(method, Part::Params, params.as_ref());
        if let Some(issue) = issues.first() {
            return Err(format!(
                "the params for `{method}` are not valid: {} at {}",
                issue.message, issue.instance_path
            ));
        }
        Ok(params)
    }

    fn generated(&self, spec: &MethodSpec) -> Option<Value> {
        let (schema, defs) = self.schema_of(&spec.params.as_ref()?.reference)?;
        Schemas::new(defs).minimal(schema)
    }

    /// The params schema of `method` and the bundle's `$defs`.
    pub(crate) fn params_schema(&self, method: &str) -> Option<(&Value, &Value)> {
        self.schema_of(&self.protocol.method(method)?.params.as_ref()?.reference)
    }

    /// The bundled type a manifest reference names, and the bundle's `$defs`.
    fn schema_of(&self, reference: &str) -> Option<(&Value, &Value)> {
        let source = self.protocol.source();
        let defs = source.bundled_schema().get("$defs")?;
        let name = source.bundle().entry(reference)?;
        Some((defs.get(name)?, defs))
    }

    /// Calls `method` with its valid params and waits for the answer (and,
    /// when the method declares a completion, follows the notifications to
    /// it). [`Called::Gone`] when the server died or hung (then `check`
    /// failed and the conversation should end).
    pub(crate) fn call(
        &mut self,
        conversation: &mut Conversation,
        method: &str,
        check: &mut Check,
    ) -> Called {
        let params = match self.params_for(method) {
            Ok(params) => params,
            Err(message) => {
                check.warn(None, message);
                return Called::Unusable;
            }
        };
        // A notification in the host's sequence is sent; no answer comes.
        let notification = self
            .protocol
            .method(method)
            .is_some_and(|s| s.kind == MethodKind::Notification);
        if notification {
            return match conversation.send_notification(method, params, check) {
                Ok(()) => {
                    check.passed("sent (a notification gets no answer)".to_owned());
                    Called::Answered(Ok(Value::Null))
                }
                Err(message) => {
                    check.fail(None, format!("`{method}` could not be sent: {message}"));
                    Called::Gone
                }
            };
        }
        let timeout = self.answer_timeout(method);
        let due = self.due_notifications(conversation, method);
        let id = match conversation.send_request(method, params, check) {
            Ok(id) => id,
            Err(message) => {
                check.fail(None, format!("`{method}` could not be sent: {message}"));
                return Called::Gone;
            }
        };
        let outcome = match conversation.await_response(timeout, check) {
            Answer::Response(response) => {
                echoes(check, &response, Some(&id));
                response.outcome
            }
            Answer::Closed(status) => {
                check.fail(
                    None,
                    format!("the server exited ({status}) before answering `{method}`"),
                );
                return Called::Gone;
            }
            Answer::Timeout => {
                self.hung();
                check.fail(
                    None,
                    format!("no answer to `{method}` within {} s", timeout.as_secs_f64()),
                );
                return Called::Gone;
            }
            Answer::Invalid => return Called::Unusable,
        };
        if let Ok(result) = &outcome {
            self.results.insert(method.to_owned(), result.clone());
        }
        let completion = self
            .protocol
            .method(method)
            .and_then(|s| s.lifecycle.as_ref())
            .and_then(|l| l.completion.clone());
        if let (Ok(_), Some(completion)) = (&outcome, completion) {
            match conversation.await_notification(&completion, timeout, check) {
                Ok(count) => check.passed(format!(
                    "answered, then {count} notification(s) up to `{completion}`"
                )),
                Err(message) => {
                    check.fail(None, message);
                    return Called::Gone;
                }
            }
        }
        if outcome.is_ok() {
            self.await_due(conversation, method, &due, timeout, check);
        }
        // The notification a client sends at once after this method succeeds
        // (LSP's `initialized`, MCP's `notifications/initialized`), unless
        // it ends the session (LSP's `exit` after `shutdown`: the shutdown
        // checks send it themselves).
        let follows = self
            .protocol
            .method(method)
            .and_then(|s| s.followed_by())
            .map(str::to_owned);
        if let (Ok(_), Some(next)) = (&outcome, follows) {
            let ends = self
                .protocol
                .method(&next)
                .and_then(|s| s.lifecycle.as_ref())
                .is_some_and(|l| l.ends_session);
            if !ends {
                let params = self.params_for(&next).unwrap_or(None);
                if let Err(message) = conversation.send_notification(&next, params, check) {
                    check.fail(None, format!("`{next}` could not be sent: {message}"));
                    return Called::Gone;
                }
            }
        }
        Called::Answered(outcome)
    }

    /// Runs the host's sequence until the session is in one of `allowed`
    /// (or any state for an empty list); false when it cannot get there.
    pub(crate) fn advance(&mut self, conversation: &mut Conversation, allowed: &[String]) -> bool {
        let here = |c: &Conversation| {
            allowed.is_empty() || allowed.iter().any(|s| s == "*" || s == c.session().state())
        };
        for method in self.sequence() {
            if here(conversation) {
                return true;
            }
            let ends = self
                .protocol
                .method(&method)
                .and_then(|s| s.lifecycle.as_ref())
                .is_some_and(|l| l.ends_session);
            if ends || conversation.session().check(&method).is_err() {
                continue;
            }
            let mut scratch = Check::new("setup", method.clone());
            if !matches!(
                self.call(conversation, &method, &mut scratch),
                Called::Answered(Ok(_))
            ) {
                return false;
            }
        }
        here(conversation)
    }

    /// Whether the server still answers after `what` (a request of a
    /// method no protocol has: any answer will do). Fails `check` when not.
    pub(crate) fn survives(
        &mut self,
        conversation: &mut Conversation,
        what: &str,
        check: &mut Check,
    ) -> bool {
        let mut scratch = Check::new("probe", PROBE_METHOD);
        if let Err(message) = conversation.send_request(PROBE_METHOD, None, &mut scratch) {
            check.fail(
                None,
                format!("after {what} the server no longer reads its input: {message}"),
            );
            return false;
        }
        let answer = conversation.await_response(self.fault_timeout(), &mut scratch);
        check.keep_frames_of(scratch);
        match answer {
            Answer::Response(_) | Answer::Invalid => true,
            Answer::Closed(status) => {
                check.fail(None, format!("the server exited ({status}) after {what}; the protocol says the session goes on"));
                false
            }
            Answer::Timeout => {
                self.hung();
                check.fail(None, format!("the server stopped answering after {what}; the protocol says the session goes on"));
                false
            }
        }
    }

    /// Checks that `answer` is the error `expected` (its code) echoing
    /// `id` (`None`: `null`). False when the server is gone (exited or hung).
    pub(crate) fn expect_error(
        &mut self,
        check: &mut Check,
        answer: Answer,
        expected: &ErrorObject,
        id: Option<&Id>,
        what: &str,
    ) -> bool {
        self.expect_answer(check, answer, expected, id, what, EnforcedBy::Receiver)
    }

    /// As [`Run::expect_error`], for a rule that binds `enforced_by`: where
    /// only the sender is bound, any answer (the protocol's error, another,
    /// or a result) is within the protocol; dying or hanging is not.
    pub(crate) fn expect_answer(
        &mut self,
        check: &mut Check,
        answer: Answer,
        expected: &ErrorObject,
        id: Option<&Id>,
        what: &str,
        enforced_by: EnforcedBy,
    ) -> bool {
        let wanted = format!("the error {} ({})", expected.code, expected.message);
        if enforced_by == EnforcedBy::Sender {
            if let Answer::Response(response) = &answer {
                echoes(check, response, id);
                let how = match &response.outcome {
                    Err(error) => format!("refused with {}", error.code),
                    Ok(_) => "answered with a result".to_owned(),
                };
                check.passed(format!(
                    "{how}: the protocol binds only the client here, so any answer will do"
                ));
                return true;
            }
        }
        match answer {
            Answer::Response(response) => {
                echoes(check, &response, id);
                let free = self.protocol.manifest().error_codes == ErrorCodes::Free;
                match &response.outcome {
                    Err(error) if error.code == expected.code => {
                        check.passed(format!("refused with {} as the protocol says", error.code));
                    }
                    // The protocol fixes no code: only its `data` template's
                    // constants, which the monitor judges.
                    Err(error) if free => {
                        check.passed(format!(
                            "refused with {} (the protocol fixes no code; the monitor judges its data)",
                            error.code
                        ));
                    }
                    Err(error) => check.fail(
                        Some("/error/code"),
                        format!(
                            "{what}: expected {wanted}; the server answered {}: {}",
                            error.code, error.message
                        ),
                    ),
                    Ok(_) => check.fail(
                        Some("/result"),
                        format!("{what} was accepted: expected {wanted}, the server answered with a result"),
                    ),
                }
                true
            }
            Answer::Invalid => true,
            Answer::Closed(status) => {
                check.fail(
                    None,
                    format!(
                        "the server exited ({status}) instead of answering {what} with {wanted}"
                    ),
                );
                false
            }
            Answer::Timeout => {
                self.hung();
                check.fail(
                    None,
                    format!(
                        "no answer to {what} within {} s: expected {wanted}",
                        self.fault_timeout().as_secs_f64()
                    ),
                );
                false
            }
        }
    }
}

/// Fails `check` when `response` does not echo `id` (`None`: `null`).
pub(crate) fn echoes(check: &mut Check, response: &Response, id: Option<&Id>) {
    if response.id.as_ref() == id {
        return;
    }
    let shown =
        |id: Option<&Id>| id.map_or_else(|| "null".to_owned(), |id| id.to_value().to_string());
    check.fail(
        Some("/id"),
        format!(
            "the answer carries id {}; the request's id was {}",
            shown(response.id.as_ref()),
            shown(id)
        ),
    );
}

/// Where session `index` is recorded: the file itself for the first, the
/// file with `.N` before its extension for the others.
pub(crate) fn record_path(path: &Path, index: usize) -> PathBuf {
    if index == 1 {
        return path.to_owned();
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{index}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{index}"),
    };
    path.with_file_name(name)
}
