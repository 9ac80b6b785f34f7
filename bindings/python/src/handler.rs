//! `PythonHandler`: Python callables as the core serve loop's handler, and
//! the exception a handler raised that must end serving (`Fatal`).

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use wirekit::envelope::{ErrorCode, ErrorObject, Notification};
use wirekit::serve::{Emit, Handler, ResultCheck};
use wirekit::validate::{invalid_result_refused, invalid_result_warning, Part};

use crate::convert::{from_python, to_python};
use crate::fast::raw_json;
use crate::maps::NameMap;
use crate::notifier::Pending;
use crate::validate::PyProtocol;

/// A `BaseException` that is not an `Exception` (KeyboardInterrupt,
/// SystemExit) raised by a handler: the loop stops and it is raised again.
pub(crate) type Fatal = Arc<Mutex<Option<PyErr>>>;

pub(crate) struct PythonHandler {
    /// The protocol, for its in-place result path.
    pub(crate) protocol: Py<PyProtocol>,
    pub(crate) result_check: ResultCheck,
    pub(crate) log: Option<Py<PyAny>>,
    pub(crate) requests: NameMap<Py<PyAny>>,
    pub(crate) streams: NameMap<Py<PyAny>>,
    pub(crate) notifications: NameMap<Py<PyAny>>,
    pub(crate) fatal: Fatal,
    /// What the handlers queued with `Notifier.send` on the loop's thread,
    /// taken by the core after each answer.
    pub(crate) pending: Arc<Pending>,
}

pub(crate) fn stash(fatal: &Fatal, error: PyErr) {
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
    pub(crate) fn answer_exception(
        &self,
        py: Python<'_>,
        method: &str,
        error: PyErr,
    ) -> ErrorObject {
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
    pub(crate) fn result_value(
        &self,
        method: &str,
        result: &Bound<'_, PyAny>,
    ) -> Result<Value, ErrorObject> {
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
    /// Why a notification queued by `method`'s request handler would be
    /// dropped for certain: a successful answer to `method` ends the session
    /// before the core sends it. `None` when it may be sent.
    fn refusal(&self, method: &str) -> Option<String> {
        let ends = self
            .protocol
            .get()
            .inner
            .method(method)
            .and_then(|spec| spec.lifecycle.as_ref())
            .is_some_and(|lifecycle| lifecycle.ends_session);
        ends.then(|| {
            format!(
                "the `{method}` answer ends the session, and a handler's notifications are sent after its answer"
            )
        })
    }

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

    /// A request handler's call answered as `handle_encoded` answers it: its
    /// result written and checked (`encoded_result`), or its exception.
    pub(crate) fn encoded_answer(
        &self,
        py: Python<'_>,
        method: &str,
        called: PyResult<Bound<'_, PyAny>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match called {
            Ok(result) => self.encoded_result(py, method, &result),
            Err(error) => Err(self.answer_exception(py, method, error)),
        }
    }
}

/// An `RpcError` raised by a handler: its code, message and data.
pub(crate) fn rpc_error_answer(
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

pub(crate) fn params_to_python<'py>(
    py: Python<'py>,
    params: Option<&Value>,
) -> PyResult<Bound<'py, PyAny>> {
    match params {
        Some(params) => to_python(py, params),
        None => Ok(py.None().into_bound(py)),
    }
}

impl Handler for PythonHandler {
    fn stopped(&self) -> bool {
        self.fatal.lock().map(|slot| slot.is_some()).unwrap_or(true)
    }

    fn implements(&self, method: &str) -> bool {
        self.requests.contains_key(method) || self.streams.contains_key(method)
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.requests.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let called = params_to_python(py, params.as_ref())
                .and_then(|argument| self.call(method, function.bind(py), argument));
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
                .and_then(|argument| self.call(method, function.bind(py), argument));
            self.encoded_answer(py, method, called)
        })
    }

    fn reads_params_text(&self) -> bool {
        true
    }

    /// The params built from their text into Python objects and checked
    /// there by the quick check (no `Value` of them), then the handler
    /// called as `handle_encoded` calls it; `None` before calling anything
    /// when the check cannot accept them for certain.
    fn handle_params_text(
        &mut self,
        method: &str,
        params: &RawValue,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        Python::attach(|py| {
            let function = self.requests.get(method)?;
            let argument = self
                .protocol
                .get()
                .params_in_place(py, method, params.get())?;
            let called = self.call(method, function.bind(py), argument);
            Some(self.encoded_answer(py, method, called))
        })
    }

    fn handle_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        // The session ends with the stream, before the core would send
        // what the handler queued: refused at once instead.
        let refusal = format!(
            "a streamed result (`{method}`) ends the session, and a handler's notifications are sent after its answer"
        );
        let pending = Arc::clone(&self.pending);
        pending.during(Some(refusal), || self.stream_items(method, params, emit))
    }

    fn take_notifications(&mut self) -> Vec<Notification> {
        self.pending.take()
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

impl PythonHandler {
    /// A request handler called, with what it queues refused at once where
    /// the core would drop it for certain (`refusal`).
    fn call<'py>(
        &self,
        method: &str,
        function: &Bound<'py, PyAny>,
        argument: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.pending
            .during(self.refusal(method), || function.call1((argument,)))
    }

    /// The stream handler called and its items emitted in order.
    pub(crate) fn stream_items(
        &self,
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
}

pub(crate) fn handler_map(
    py: Python<'_>,
    mapping: Option<&Bound<'_, PyDict>>,
    what: &str,
) -> PyResult<NameMap<Py<PyAny>>> {
    let mut map = NameMap::default();
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
