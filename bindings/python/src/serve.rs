//! The serve loop in Rust, with Python callables as handlers.
//!
//! Reading, framing, decoding, lifecycle, params validation, result
//! validation, encoding and writing all happen in the core's
//! [`wirekit::serve::Server`] with the GIL released; the loop attaches to
//! Python only to call a handler, converting its params once on the way in.
//! A request handler's result takes the core's encoded-result path
//! (`Handler::handle_encoded`): it is written straight from the Python
//! objects to JSON and validated in place, as `Protocol.write_result` does,
//! and the loop frames those bytes without building a `Value` (the
//! capabilities method and canonical protocols keep the `Value` path).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use wirekit::envelope::{ErrorCode, ErrorObject};
use wirekit::serve::{outbox, Emit, Handler, ResultCheck, ServeOptions, ServeOutcome, Server};
use wirekit::validate::{
    invalid_result_refused, invalid_result_warning, Part, Protocol as RustProtocol,
};

use crate::convert::{from_python, to_python};
use crate::notifier::PyNotifier;
use crate::validate::{raw_json, PyProtocol};

/// A `BaseException` that is not an `Exception` (KeyboardInterrupt,
/// SystemExit) raised by a handler: the loop stops and it is raised again.
type Fatal = Arc<Mutex<Option<PyErr>>>;

struct PythonHandler {
    /// The protocol, for its in-place result path.
    protocol: Py<PyProtocol>,
    result_check: ResultCheck,
    log: Option<Py<PyAny>>,
    requests: HashMap<String, Py<PyAny>>,
    streams: HashMap<String, Py<PyAny>>,
    notifications: HashMap<String, Py<PyAny>>,
    fatal: Fatal,
}

fn stash(fatal: &Fatal, error: PyErr) {
    if let Ok(mut slot) = fatal.lock() {
        if slot.is_none() {
            *slot = Some(error);
        }
    }
}

impl PythonHandler {
    /// The answer to a handler's exception: an `RpcError` becomes its own
    /// error; any other `Exception` is -32603 with its type and message in
    /// `data`, its traceback on stderr.
    fn answer_exception(&self, py: Python<'_>, method: &str, error: PyErr) -> ErrorObject {
        let value = error.value(py);
        if let Some(answer) = rpc_error_answer(py, value) {
            return answer;
        }
        if !error.is_instance_of::<PyException>(py) {
            stash(&self.fatal, error);
            return ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                "Internal error: the server is stopping",
            );
        }
        let type_name = value
            .get_type()
            .name()
            .map(|name| name.to_string())
            .unwrap_or_else(|_| "Exception".to_owned());
        let text = value.str().map(|s| s.to_string()).unwrap_or_default();
        eprintln!("wirekit: the `{method}` handler raised {type_name}:");
        error.display(py);
        let message = if text.is_empty() {
            format!("Internal error: {type_name} in the `{method}` handler")
        } else {
            format!("Internal error: {type_name} in the `{method}` handler: {text}")
        };
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
            .with_data(json!({"type": type_name, "message": text}))
    }

    /// The handler's return value as JSON, or -32603 naming what is not JSON.
    fn result_value(&self, method: &str, result: &Bound<'_, PyAny>) -> Result<Value, ErrorObject> {
        from_python(result).map_err(|not_json| {
            let message = format!(
                "Internal error: the `{method}` handler returned a value that is not JSON at {}: {}",
                if not_json.pointer.is_empty() { "(root)" } else { &not_json.pointer },
                not_json.message
            );
            eprintln!("wirekit: {message}");
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, message).with_data(json!({
                "type": if not_json.value_error { "ValueError" } else { "TypeError" },
                "message": not_json.message,
                "pointer": not_json.pointer,
            }))
        })
    }
}

impl PythonHandler {
    /// A warning, where the server's own warnings go.
    fn log(&self, py: Python<'_>, line: &str) {
        match &self.log {
            None => eprintln!("wirekit: {line}"),
            Some(log) => {
                if let Err(error) = log.bind(py).call1((line,)) {
                    eprintln!("wirekit: {line}");
                    error.display(py);
                }
            }
        }
    }

    /// A handler's result as checked JSON, as the serve loop would check
    /// it (`Protocol::validate` with `Part::Result`, reject or warn): in
    /// place when the protocol has an in-place validator for `method` and
    /// the value is valid, else converted and checked by the core.
    fn encoded_result(
        &self,
        py: Python<'_>,
        method: &str,
        result: &Bound<'_, PyAny>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let protocol = self.protocol.get();
        let mut out = Vec::new();
        if protocol.result_in_place(method, result, &mut out).is_some() {
            return Ok(raw_json(out));
        }
        let value = self.result_value(method, result)?;
        let inner = Arc::clone(&protocol.inner);
        let (issues, value) =
            py.detach(|| (inner.validate(method, Part::Result, Some(&value)), value));
        if !issues.is_empty() {
            match self.result_check {
                // Logged like a raising handler's traceback, then answered.
                ResultCheck::Reject => {
                    self.log(py, &invalid_result_refused(method, Part::Result, &issues));
                    return Err(inner.invalid_result_answer(method, Part::Result, &issues));
                }
                // The line the core's serve loop logs for the same result.
                ResultCheck::Warn => {
                    self.log(py, &invalid_result_warning(method, Part::Result, &issues))
                }
            }
        }
        serde_json::to_vec(&value).map(raw_json).map_err(|error| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("Internal error: cannot encode the `{method}` result: {error}"),
            )
        })
    }
}

/// An `RpcError` raised by a handler: its code, message and data.
fn rpc_error_answer(
    py: Python<'_>,
    value: &Bound<'_, pyo3::exceptions::PyBaseException>,
) -> Option<ErrorObject> {
    let class = py
        .import("wirekit.errors")
        .and_then(|module| module.getattr("RpcError"))
        .ok()?;
    if !value.is_instance(&class).unwrap_or(false) {
        return None;
    }
    let code: i64 = value.getattr("code").and_then(|c| c.extract()).ok()?;
    let message: String = value
        .getattr("message")
        .and_then(|m| m.extract())
        .unwrap_or_else(|_| value.str().map(|s| s.to_string()).unwrap_or_default());
    let mut error = ErrorObject::new(code, message);
    if let Ok(data) = value.getattr("data") {
        if !data.is_none() {
            match from_python(&data) {
                Ok(data) => error = error.with_data(data),
                Err(not_json) => {
                    eprintln!(
                        "wirekit: RpcError data dropped, not JSON at {}: {}",
                        not_json.pointer, not_json.message
                    );
                }
            }
        }
    }
    Some(error)
}

fn params_to_python<'py>(py: Python<'py>, params: Option<&Value>) -> PyResult<Bound<'py, PyAny>> {
    match params {
        Some(params) => to_python(py, params),
        None => Ok(py.None().into_bound(py)),
    }
}

impl Handler for PythonHandler {
    fn implements(&self, method: &str) -> bool {
        self.requests.contains_key(method) || self.streams.contains_key(method)
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.requests.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let called = params_to_python(py, params.as_ref())
                .and_then(|argument| function.bind(py).call1((argument,)));
            match called {
                Ok(result) => self.result_value(method, &result),
                Err(error) => Err(self.answer_exception(py, method, error)),
            }
        })
    }

    fn answers_encoded(&self, method: &str) -> bool {
        self.requests.contains_key(method)
    }

    fn handle_encoded(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.requests.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let called = params_to_python(py, params.as_ref())
                .and_then(|argument| function.bind(py).call1((argument,)));
            match called {
                Ok(result) => self.encoded_result(py, method, &result),
                Err(error) => Err(self.answer_exception(py, method, error)),
            }
        })
    }

    fn handle_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.streams.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let iterator = params_to_python(py, params.as_ref())
                .and_then(|argument| function.bind(py).call1((argument,)))
                .and_then(|items| items.try_iter());
            let iterator = match iterator {
                Ok(iterator) => iterator,
                Err(error) => return Err(self.answer_exception(py, method, error)),
            };
            for item in iterator {
                let item = match item {
                    Ok(item) => item,
                    Err(error) => return Err(self.answer_exception(py, method, error)),
                };
                let value = self.result_value(method, &item)?;
                if let Err(error) = emit(value) {
                    return Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("cannot write a streamed item: {error}"),
                    ));
                }
            }
            Ok(())
        })
    }

    fn notify(&mut self, method: &str, params: Option<Value>) {
        Python::attach(|py| {
            let Some(function) = self.notifications.get(method) else {
                return;
            };
            let called = params_to_python(py, params.as_ref())
                .and_then(|argument| function.bind(py).call1((argument,)));
            if let Err(error) = called {
                if error.is_instance_of::<PyException>(py) {
                    eprintln!("wirekit: the `{method}` notification handler raised:");
                    error.display(py);
                } else {
                    stash(&self.fatal, error);
                }
            }
        });
    }
}

/// A writer that refuses to write once a handler raised a fatal exception.
struct Guarded<W: Write> {
    inner: W,
    fatal: Fatal,
}

impl<W: Write> Guarded<W> {
    fn stopping(&self) -> bool {
        self.fatal.lock().map(|slot| slot.is_some()).unwrap_or(true)
    }
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.stopping() {
            return Err(io::Error::other("a handler stopped the server"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that lets Python's signal handlers run when a read is
/// interrupted (Ctrl-C while waiting for input): a `KeyboardInterrupt` they
/// raise stops the loop and is raised again.
struct Interruptible<R: Read> {
    inner: R,
    fatal: Fatal,
}

impl<R: Read> Interruptible<R> {
    /// Runs Python's signal handlers; an exception they raise stops the loop.
    fn check_signals(&self) -> io::Result<()> {
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => Ok(()),
            Err(raised) => {
                stash(&self.fatal, raised);
                Err(io::Error::other("interrupted by a signal"))
            }
        }
    }
}

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Before blocking too: a signal that came while a frame was being
        // handled would not interrupt the next read.
        self.check_signals()?;
        loop {
            match self.inner.read(buf) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => self.check_signals()?,
                other => return other,
            }
        }
    }
}

fn handler_map(
    py: Python<'_>,
    mapping: Option<&Bound<'_, PyDict>>,
    what: &str,
) -> PyResult<HashMap<String, Py<PyAny>>> {
    let mut map = HashMap::new();
    if let Some(mapping) = mapping {
        for (name, function) in mapping.iter() {
            let name: String = name.extract()?;
            if !function.is_callable() {
                return Err(PyValueError::new_err(format!(
                    "the {what} handler for `{name}` is not callable"
                )));
            }
            map.insert(name, function.unbind());
        }
    }
    let _ = py;
    Ok(map)
}

/// Serves one protocol with Python handlers.
///
/// `requests` maps request methods to `handler(params) -> result`;
/// `streams` maps streamed-result methods to `handler(params) -> iterable`;
/// `notifications` maps notifications to `handler(params) -> None`.
/// With a `notifier`, other threads send the server's own notifications
/// while it serves (`Notifier.send`).
/// `params` is `None` when absent.
#[pyclass(module = "wirekit._native", name = "Server", frozen)]
pub struct PyServer {
    protocol: Arc<RustProtocol>,
    py_protocol: Py<PyProtocol>,
    requests: HashMap<String, Py<PyAny>>,
    streams: HashMap<String, Py<PyAny>>,
    notifications: HashMap<String, Py<PyAny>>,
    result_check: ResultCheck,
    log: Option<Py<PyAny>>,
    notifier: Option<Py<PyNotifier>>,
}

impl PyServer {
    fn handler(&self, py: Python<'_>, fatal: &Fatal) -> PythonHandler {
        let copy = |map: &HashMap<String, Py<PyAny>>| {
            map.iter()
                .map(|(name, function)| (name.clone(), function.clone_ref(py)))
                .collect()
        };
        PythonHandler {
            protocol: self.py_protocol.clone_ref(py),
            result_check: self.result_check,
            log: self.log.as_ref().map(|log| log.clone_ref(py)),
            requests: copy(&self.requests),
            streams: copy(&self.streams),
            notifications: copy(&self.notifications),
            fatal: Arc::clone(fatal),
        }
    }

    fn server(&self, py: Python<'_>) -> Server {
        let server = Server::new(
            Arc::clone(&self.protocol),
            ServeOptions {
                result_check: self.result_check,
            },
        );
        match &self.log {
            None => server,
            Some(log) => {
                let log = log.clone_ref(py);
                server.with_logger(Box::new(move |line: &str| {
                    Python::attach(|py| {
                        if let Err(error) = log.bind(py).call1((line,)) {
                            eprintln!("wirekit: {line}");
                            error.display(py);
                        }
                    })
                }))
            }
        }
    }

    fn run<R: Read + Send + 'static, W: Write + Send>(
        &self,
        py: Python<'_>,
        input: R,
        output: W,
        fatal: Fatal,
    ) -> PyResult<(ServeOutcome, W)> {
        let mut handler = self.handler(py, &fatal);
        let mut server = self.server(py);
        let mut guarded = Guarded {
            inner: output,
            fatal: Arc::clone(&fatal),
        };
        let served = match &self.notifier {
            None => py.detach(|| server.serve(&mut handler, input, &mut guarded)),
            Some(notifier) => {
                // Notifications from other threads (the core's outbox): the
                // input is read on a thread of its own.
                let (outbox, inbox) = outbox();
                notifier.get().attach(outbox);
                let served = py
                    .detach(|| server.serve_with_outbox(&mut handler, inbox, input, &mut guarded));
                notifier.get().detach();
                served
            }
        };
        let stashed = fatal.lock().ok().and_then(|mut slot| slot.take());
        if let Some(error) = stashed {
            return Err(error);
        }
        let outcome = served.map_err(PyErr::from)?;
        Ok((outcome, guarded.inner))
    }
}

fn outcome_name(outcome: &ServeOutcome) -> String {
    match outcome {
        ServeOutcome::Ended => "ended".to_owned(),
        ServeOutcome::EndOfInput => "end_of_input".to_owned(),
        ServeOutcome::FramingLost(reason) => format!("framing_lost: {reason}"),
    }
}

#[pymethods]
impl PyServer {
    #[new]
    #[pyo3(signature = (protocol, requests=None, *, streams=None, notifications=None, result_check="reject", log=None, notifier=None))]
    #[allow(clippy::too_many_arguments)] // the Python signature's keywords
    fn new(
        py: Python<'_>,
        protocol: Bound<'_, PyProtocol>,
        requests: Option<&Bound<'_, PyDict>>,
        streams: Option<&Bound<'_, PyDict>>,
        notifications: Option<&Bound<'_, PyDict>>,
        result_check: &str,
        log: Option<Bound<'_, PyAny>>,
        notifier: Option<Bound<'_, PyNotifier>>,
    ) -> PyResult<Self> {
        let result_check = match result_check {
            "reject" => ResultCheck::Reject,
            "warn" => ResultCheck::Warn,
            other => {
                return Err(PyValueError::new_err(format!(
                    "result_check is \"reject\" or \"warn\", not {other:?}"
                )))
            }
        };
        Ok(PyServer {
            protocol: Arc::clone(&protocol.get().inner),
            py_protocol: protocol.unbind(),
            requests: handler_map(py, requests, "request")?,
            streams: handler_map(py, streams, "stream")?,
            notifications: handler_map(py, notifications, "notification")?,
            result_check,
            log: log.filter(|log| !log.is_none()).map(Bound::unbind),
            notifier: notifier.map(Bound::unbind),
        })
    }

    /// Serves the bytes of `data` as the input stream; returns everything
    /// written back.
    fn serve_bytes<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let fatal: Fatal = Arc::new(Mutex::new(None));
        let (_, output) = self.run(py, io::Cursor::new(data.to_vec()), Vec::new(), fatal)?;
        Ok(PyBytes::new(py, &output))
    }

    /// Serves the process's stdin and stdout until the session ends or the
    /// input closes. With `redirect_stdout` (the default) the protocol
    /// writes to a private copy of file descriptor 1, and descriptor 1 is
    /// pointed at stderr while serving, so nothing else (a stray `print`,
    /// a child process) can write into the protocol stream. Returns
    /// `"ended"`, `"end_of_input"` or `"framing_lost: <reason>"`.
    #[pyo3(signature = (*, redirect_stdout=true))]
    fn serve_stdio(&self, py: Python<'_>, redirect_stdout: bool) -> PyResult<String> {
        let fatal: Fatal = Arc::new(Mutex::new(None));
        let stdin = Interruptible {
            inner: io::stdin(),
            fatal: Arc::clone(&fatal),
        };
        let flush = |py: Python<'_>| -> PyResult<()> {
            let sys = py.import("sys")?;
            for name in ["stdout", "stderr"] {
                let stream = sys.getattr(name)?;
                if !stream.is_none() {
                    stream.call_method0("flush")?;
                }
            }
            Ok(())
        };
        flush(py)?;
        let protocol_out = if redirect_stdout {
            private_stdout(py)?
        } else {
            None
        };
        widen_pipe(
            py,
            protocol_out.as_ref().map_or(1, |private| private.saved_fd),
        );
        let result = match protocol_out {
            Some(private) => {
                // The writer owns (and closes) its descriptor; the restore
                // uses a copy of its own, so it works however serving ended
                // (a KeyboardInterrupt included).
                let served = self.run(
                    py,
                    stdin,
                    io::BufWriter::with_capacity(64 * 1024, private.file),
                    fatal,
                );
                let restored = restore_stdout(py, &private.restore);
                match (served, restored) {
                    (Ok(outcome), Ok(())) => outcome.0,
                    (Ok(_), Err(error)) => return Err(error),
                    (Err(error), Ok(())) => return Err(error),
                    (Err(error), Err(restore_error)) => {
                        error.set_cause(py, Some(restore_error));
                        return Err(error);
                    }
                }
            }
            None => self.run(py, stdin, io::stdout(), fatal)?.0,
        };
        flush(py)?;
        Ok(outcome_name(&result))
    }
}

struct PrivateStdout {
    /// The protocol's writer: a copy of descriptor 1 as it was.
    file: std::fs::File,
    /// The writer's descriptor number, for `widen_pipe`.
    saved_fd: i64,
    /// Another copy of descriptor 1 as it was, to point descriptor 1 back
    /// at once serving is over (closed after the restore).
    restore: std::fs::File,
}

/// A private copy of descriptor 1 for the protocol, then descriptor 1
/// pointed at descriptor 2.
#[cfg(unix)]
fn private_stdout(py: Python<'_>) -> PyResult<Option<PrivateStdout>> {
    use std::os::fd::{AsFd, AsRawFd};
    let copy = io::stdout().as_fd().try_clone_to_owned()?;
    let restore = io::stdout().as_fd().try_clone_to_owned()?;
    let saved_fd = i64::from(copy.as_raw_fd());
    let os = py.import("os")?;
    os.call_method1("dup2", (2, 1))?;
    Ok(Some(PrivateStdout {
        file: std::fs::File::from(copy),
        saved_fd,
        restore: std::fs::File::from(restore),
    }))
}

#[cfg(not(unix))]
fn private_stdout(_py: Python<'_>) -> PyResult<Option<PrivateStdout>> {
    Ok(None)
}

/// Lets the pipe the protocol writes to hold a whole large answer (Linux
/// `F_SETPIPE_SZ`, up to 1 MiB): with the default 64 KiB a 700 KB answer
/// takes a dozen writes, each waiting for the reader to drain the pipe (a
/// context switch apiece). Best effort: not a pipe, no permission for that
/// size, another platform, and the pipe stays as it is.
fn widen_pipe(py: Python<'_>, fd: i64) {
    if !cfg!(target_os = "linux") {
        return;
    }
    // F_SETPIPE_SZ (fcntl.F_SETPIPE_SZ exists from Python 3.10 only).
    const F_SETPIPE_SZ: i64 = 1031;
    let Ok(fcntl) = py.import("fcntl") else {
        return;
    };
    for size in [1i64 << 20, 256 << 10] {
        match fcntl.call_method1("fcntl", (fd, F_SETPIPE_SZ, size)) {
            Ok(_) => return,
            Err(error) if error.is_instance_of::<pyo3::exceptions::PyOSError>(py) => {}
            Err(_) => return,
        }
    }
}

/// Points descriptor 1 back at the protocol stream once serving is over.
#[cfg(unix)]
fn restore_stdout(py: Python<'_>, restore: &std::fs::File) -> PyResult<()> {
    use std::os::fd::AsRawFd;
    let os = py.import("os")?;
    os.call_method1("dup2", (restore.as_raw_fd(), 1))?;
    Ok(())
}

#[cfg(not(unix))]
fn restore_stdout(_py: Python<'_>, _restore: &std::fs::File) -> PyResult<()> {
    Ok(())
}
