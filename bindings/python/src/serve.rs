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

use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use wirekit::serve::{
    outbox, Batching, Concurrency, ResultCheck, ServeOptions, ServeOutcome, Server,
};
use wirekit::validate::Protocol as RustProtocol;

use crate::handler::{handler_map, Fatal, PythonHandler};
use crate::maps::NameMap;
use crate::notifier::{Pending, PyNotifier};
use crate::stdio::{private_stdout, restore_stdout, widen_pipe, Guarded, Interruptible};
use crate::validate::PyProtocol;

/// A `BaseException` that is not an `Exception` (KeyboardInterrupt,
/// SystemExit) raised by a handler: the loop stops and it is raised again.
/// Serves one protocol with Python handlers.
///
/// `requests` maps request methods to `handler(params) -> result`;
/// `streams` maps streamed-result methods to `handler(params) -> iterable`;
/// `notifications` maps notifications to `handler(params) -> None`.
/// With a `notifier`, handlers send the server's own notifications while
/// it serves (`Notifier.send`), and other threads too unless `outbox` is
/// false (then the input is read on the loop's thread, as without one).
/// `params` is `None` when absent. With `concurrency` (a number), up to
/// that many handlers run at once on the core's threads, each called
/// `handler(params, context)` with a `Context`.
#[pyclass(module = "wirekit._native", name = "Server", frozen)]
pub struct PyServer {
    protocol: Arc<RustProtocol>,
    py_protocol: Py<PyProtocol>,
    requests: NameMap<Py<PyAny>>,
    streams: NameMap<Py<PyAny>>,
    notifications: NameMap<Py<PyAny>>,
    result_check: ResultCheck,
    log: Option<Py<PyAny>>,
    notifier: Option<Py<PyNotifier>>,
    /// Whether the notifier takes other threads' notifications (the
    /// core's outbox: the input read on a thread of its own); without, it
    /// takes the handlers' own only, and the input is read on the loop's
    /// thread (where Ctrl-C reaches it).
    outbox: bool,
    /// With a number, the core's concurrent loop runs that many handlers
    /// at once, each called `handler(params, context)`.
    concurrency: Option<usize>,
}

impl PyServer {
    fn handler(&self, py: Python<'_>, fatal: &Fatal, pending: &Arc<Pending>) -> PythonHandler {
        let copy = |map: &NameMap<Py<PyAny>>| {
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
            pending: Arc::clone(pending),
        }
    }

    /// Says what the handlers queued that the core never took (queued by
    /// a notification handler, with no answer after it), where the
    /// server's warnings go.
    fn report_untaken(&self, py: Python<'_>, pending: &Pending) {
        let untaken = pending.take();
        let Some(first) = untaken.first() else {
            return;
        };
        let line = format!(
            "dropped {} notification(s) queued by a handler (the first `{}`): the loop sends a handler's notifications after an answer, and serving ended before another answer",
            untaken.len(),
            first.method
        );
        match &self.log {
            None => eprintln!("wirekit: {line}"),
            Some(log) => {
                if let Err(error) = log.bind(py).call1((line.as_str(),)) {
                    eprintln!("wirekit: {line}");
                    error.display(py);
                }
            }
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
        batching: Option<Batching>,
    ) -> PyResult<(ServeOutcome, W)> {
        let pending = Arc::new(Pending::default());
        let mut handler = self.handler(py, &fatal, &pending);
        let mut server = self.server(py);
        let mut guarded = Guarded {
            inner: output,
            fatal: Arc::clone(&fatal),
            refuses: batching.is_none(),
        };
        let plain = |server: &mut Server,
                     handler: &mut PythonHandler,
                     guarded: &mut Guarded<W>,
                     input: R| {
            py.detach(|| match batching {
                // A pipe: answers to pipelined requests share writes.
                Some(batching) => server.serve_batched(handler, input, guarded, batching),
                None => server.serve(handler, input, guarded),
            })
        };
        let served = match (&self.notifier, self.concurrency) {
            // The core's concurrent loop: `Service.notify` goes through a
            // handler's context there, not through the notifier.
            (_, Some(max_in_flight)) => {
                let concurrency = Concurrency {
                    max_in_flight,
                    ..Concurrency::default()
                };
                py.detach(|| server.serve_concurrent(&handler, input, &mut guarded, concurrency))
            }
            (None, None) => plain(&mut server, &mut handler, &mut guarded, input),
            (Some(notifier), None) if !self.outbox => {
                notifier.get().attach(
                    Arc::clone(&self.protocol),
                    self.result_check,
                    Arc::clone(&pending),
                    None,
                );
                let served = plain(&mut server, &mut handler, &mut guarded, input);
                notifier.get().detach(&pending);
                served
            }
            (Some(notifier), None) => {
                // Notifications from other threads (the core's outbox): the
                // input is read on a thread of its own.
                let (outbox, inbox) = outbox();
                notifier.get().attach(
                    Arc::clone(&self.protocol),
                    self.result_check,
                    Arc::clone(&pending),
                    Some(outbox),
                );
                let served = py.detach(|| match batching {
                    // A pipe: answers and notifications share writes.
                    Some(batching) => server.serve_with_outbox_batched(
                        &mut handler,
                        inbox,
                        input,
                        &mut guarded,
                        batching,
                    ),
                    None => server.serve_with_outbox(&mut handler, inbox, input, &mut guarded),
                });
                notifier.get().detach(&pending);
                served
            }
        };
        self.report_untaken(py, &pending);
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
    #[pyo3(signature = (protocol, requests=None, *, streams=None, notifications=None, result_check="reject", log=None, notifier=None, outbox=true, concurrency=None))]
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
        outbox: bool,
        concurrency: Option<usize>,
    ) -> PyResult<Self> {
        if concurrency == Some(0) {
            return Err(PyValueError::new_err(
                "concurrency is the number of handlers run at once: at least 1, or None for one request at a time",
            ));
        }
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
            outbox,
            concurrency,
        })
    }

    /// Serves the bytes of `data` as the input stream; returns everything
    /// written back.
    fn serve_bytes<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let fatal: Fatal = Arc::new(Mutex::new(None));
        let (_, output) = self.run(py, io::Cursor::new(data.to_vec()), Vec::new(), fatal, None)?;
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
            serving: std::thread::current().id(),
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
                    Some(Batching::default()),
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
            None => {
                self.run(py, stdin, io::stdout(), fatal, Some(Batching::default()))?
                    .0
            }
        };
        flush(py)?;
        Ok(outcome_name(&result))
    }
}
