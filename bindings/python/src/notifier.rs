//! Notifications a Python server sends of its own accord (`Notifier.send`,
//! behind `Service.notify`), checked when they are sent so the caller
//! learns what is wrong:
//!
//! * from a handler, on the serve loop's own thread: queued in the loop's
//!   [`Pending`] and taken by the core after the answer
//!   (`Handler::take_notifications`), never through the outbox, whose
//!   bounded channel the loop itself drains (a handler sending more than it
//!   holds would wait for itself);
//! * from any other thread: through the core's `Outbox` (a driver's
//!   invocation worker sends its observations and `driver.completed` while
//!   the loop stays free to answer `driver.cancel`).

use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use wirekit::envelope::Notification;
use wirekit::protocol::MethodKind;
use wirekit::serve::{Outbox, ResultCheck};
use wirekit::validate::{Part, Protocol as RustProtocol};

use crate::convert::from_python;
use crate::errors::{not_json, validation_error};

/// What a loop's handlers queued, for the core to take after the answer;
/// and, while a handler runs whose notifications would be refused for
/// certain, why.
#[derive(Default)]
pub(crate) struct Pending {
    queue: Mutex<Vec<Notification>>,
    refusal: Mutex<Option<String>>,
}

impl Pending {
    /// Everything queued, in order (the core sends them now).
    pub(crate) fn take(&self) -> Vec<Notification> {
        self.queue
            .lock()
            .map(|mut queue| std::mem::take(&mut *queue))
            .unwrap_or_default()
    }

    /// Runs `call` (a handler) with `refusal` saying why a notification it
    /// queues would be dropped (`None`: it would not be, as far as known).
    pub(crate) fn during<T>(&self, refusal: Option<String>, call: impl FnOnce() -> T) -> T {
        let set = refusal.is_some();
        if set {
            if let Ok(mut slot) = self.refusal.lock() {
                *slot = refusal;
            }
        }
        let value = call();
        if set {
            if let Ok(mut slot) = self.refusal.lock() {
                *slot = None;
            }
        }
        value
    }

    fn push(&self, notification: Notification) -> PyResult<()> {
        if let Some(why) = self.refusal.lock().ok().and_then(|slot| slot.clone()) {
            return Err(PyRuntimeError::new_err(format!(
                "`{}` not sent: {why}",
                notification.method
            )));
        }
        match self.queue.lock() {
            Ok(mut queue) => {
                queue.push(notification);
                Ok(())
            }
            Err(_) => Err(PyRuntimeError::new_err(format!(
                "`{}` not sent: the serve loop's queue is unusable after a panic",
                notification.method
            ))),
        }
    }
}

/// One serving loop, as a notifier sees it.
struct Serving {
    thread: ThreadId,
    protocol: Arc<RustProtocol>,
    result_check: ResultCheck,
    pending: Arc<Pending>,
    /// Where other threads' notifications go; `None` when the loop serves
    /// without one (its own handlers only).
    outbox: Option<Outbox>,
}

/// Where a serve loop takes the server's own notifications. Give it to
/// `Server(..., notifier=...)`; while that server serves, `send` checks a
/// notification (a server notification of the protocol, params JSON and
/// valid) and hands it to the loop, which checks it against the session
/// and sends it (or logs why not).
#[pyclass(module = "wirekit._native", name = "Notifier", frozen)]
pub struct PyNotifier {
    loops: Mutex<Vec<Serving>>,
}

impl PyNotifier {
    /// A loop starts on this thread: its handlers' notifications go to
    /// `pending`, other threads' to `outbox`, until [`PyNotifier::detach`].
    pub(crate) fn attach(
        &self,
        protocol: Arc<RustProtocol>,
        result_check: ResultCheck,
        pending: Arc<Pending>,
        outbox: Option<Outbox>,
    ) {
        if let Ok(mut loops) = self.loops.lock() {
            loops.push(Serving {
                thread: thread::current().id(),
                protocol,
                result_check,
                pending,
                outbox,
            });
        }
    }

    /// The loop of `pending` has ended.
    pub(crate) fn detach(&self, pending: &Arc<Pending>) {
        if let Ok(mut loops) = self.loops.lock() {
            loops.retain(|serving| !Arc::ptr_eq(&serving.pending, pending));
        }
    }
}

/// Where `send` hands a checked notification.
enum Target {
    Queue(Arc<Pending>),
    Outbox(Outbox),
}

#[pymethods]
impl PyNotifier {
    #[new]
    fn new() -> Self {
        PyNotifier {
            loops: Mutex::new(Vec::new()),
        }
    }

    /// Whether a serve loop is taking notifications now.
    #[getter]
    fn serving(&self) -> bool {
        self.loops
            .lock()
            .map(|loops| !loops.is_empty())
            .unwrap_or(false)
    }

    /// Checks `method` with `params` (JSON-like, or None) and hands it to
    /// the serving loop: queued to follow the answer when called from a
    /// handler on the loop's thread, else through the loop's outbox
    /// (waiting while the loop is behind). Raises `ValueError` for a method
    /// that is not a server notification of the protocol,
    /// `NotJsonError` (a `ValueError`) for params that are not JSON,
    /// `ValidationError` for params that fail the schema (unless the loop
    /// serves with `result_check="warn"`: then it sends them with a
    /// warning), `RuntimeError` when no loop is serving.
    #[pyo3(signature = (method, params=None))]
    fn send(&self, py: Python<'_>, method: &str, params: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        let current = thread::current().id();
        let (protocol, result_check, target) = {
            let loops = self.loops.lock().map_err(|_| {
                PyRuntimeError::new_err(format!("`{method}` not sent: the notifier is unusable"))
            })?;
            let own = loops.iter().rev().find(|serving| serving.thread == current);
            let serving = match (own, loops.as_slice()) {
                (Some(serving), _) => serving,
                (None, [serving]) => serving,
                (None, []) => {
                    return Err(PyRuntimeError::new_err(format!(
                        "`{method}` not sent: no serve loop is running (notifications are sent while `run()` or `serve_bytes()` serves)"
                    )))
                }
                (None, _) => {
                    return Err(PyRuntimeError::new_err(format!(
                        "`{method}` not sent: {} serve loops are running, and it is sent from none of their threads, so which one should send it is unknown",
                        loops.len()
                    )))
                }
            };
            let target = if own.is_some() {
                Target::Queue(Arc::clone(&serving.pending))
            } else {
                match &serving.outbox {
                    Some(outbox) => Target::Outbox(outbox.clone()),
                    None => {
                        return Err(PyRuntimeError::new_err(format!(
                            "`{method}` not sent: this serve loop takes notifications from its handlers only, not from other threads (`Service(..., notify_from_threads=True)`, or `Server(..., outbox=True)`, serves so)"
                        )))
                    }
                }
            };
            (Arc::clone(&serving.protocol), serving.result_check, target)
        };
        let notification = checked(py, &protocol, result_check, method, params)?;
        match target {
            Target::Queue(pending) => pending.push(notification),
            // The loop needs the GIL to call handlers: never wait for it holding the GIL.
            Target::Outbox(outbox) => py
                .detach(|| outbox.send(notification))
                .map_err(|closed| PyRuntimeError::new_err(closed.to_string())),
        }
    }
}

/// `method` with `params` as the loop would send it, checked as the loop
/// checks it before the session's turn: a server notification of the
/// protocol, params JSON and valid against the schema.
fn checked(
    py: Python<'_>,
    protocol: &RustProtocol,
    result_check: ResultCheck,
    method: &str,
    params: Option<Bound<'_, PyAny>>,
) -> PyResult<Notification> {
    let known = protocol
        .method(method)
        .is_some_and(|spec| spec.kind == MethodKind::Notification && spec.direction.server_sends());
    if !known {
        let names: Vec<&str> = protocol
            .manifest()
            .methods
            .iter()
            .filter(|(_, spec)| {
                spec.kind == MethodKind::Notification && spec.direction.server_sends()
            })
            .map(|(name, _)| name.as_str())
            .collect();
        let has = if names.is_empty() {
            "it has none".to_owned()
        } else {
            format!("its server notifications: {}", names.join(", "))
        };
        return Err(PyValueError::new_err(format!(
            "`{method}` is not a notification a server of {} sends; {has}",
            protocol.id()
        )));
    }
    let params = match params.filter(|p| !p.is_none()) {
        None => None,
        Some(params) => Some(from_python(&params).map_err(|not| {
            let at = if not.pointer.is_empty() {
                "(root)"
            } else {
                not.pointer.as_str()
            };
            let kind = if not.value_error { "value" } else { "type" };
            not_json(
                py,
                &format!(
                    "the params of `{method}` are not JSON at {at}: {}",
                    not.message
                ),
                kind,
                &not.pointer,
            )
        })?),
    };
    if result_check == ResultCheck::Reject {
        let issues = protocol.validate(method, Part::Params, params.as_ref());
        if !issues.is_empty() {
            return Err(validation_error(py, method, Part::Params, issues));
        }
    }
    Ok(Notification::new(method, params))
}
