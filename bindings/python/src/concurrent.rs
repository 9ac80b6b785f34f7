//! Python callables as the handler of the core's concurrent serve loop
//! (`Server::serve_concurrent`): each called on the thread that serves
//! (while nothing else runs) or on a pool thread of the core's, as
//! `handler(params, context)` with a `Context` (`wirekit._native.Context`). A sync handler
//! that sleeps or waits on I/O releases the GIL, so other requests (a
//! `ping`) are answered meanwhile; `wirekit.Service` runs `async def`
//! handlers on its asyncio loop through the same call.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;

use wirekit::envelope::ErrorObject;
use wirekit::serve::{ConcurrentHandler, Emit, Handler, Peer, RequestContext};

use crate::context::PyContext;
use crate::handler::{params_to_python, stash, PythonHandler};

impl ConcurrentHandler for PythonHandler {
    fn implements(&self, method: &str) -> bool {
        Handler::implements(self, method)
    }

    fn handle(
        &self,
        context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.requests.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let called = Py::new(py, PyContext::of_request(context)).and_then(|context| {
                let argument = params_to_python(py, params.as_ref())?;
                function.bind(py).call1((argument, context))
            });
            match called {
                Ok(result) => self.result_value(method, &result),
                Err(error) => Err(self.answer_exception(py, method, error)),
            }
        })
    }

    fn answers_encoded(&self, method: &str) -> bool {
        self.requests.contains_key(method)
    }

    /// As `handle`, the result written and checked in place (the
    /// sequential loop's `handle_encoded`): no `Value` of it is built.
    fn handle_encoded(
        &self,
        context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        Python::attach(|py| {
            let Some(function) = self.requests.get(method) else {
                return Err(wirekit::serve::method_not_found(method));
            };
            let called = Py::new(py, PyContext::of_request(context)).and_then(|context| {
                let argument = params_to_python(py, params.as_ref())?;
                function.bind(py).call1((argument, context))
            });
            self.encoded_answer(py, method, called)
        })
    }

    fn reads_params_text(&self) -> bool {
        true
    }

    /// The params built from their text into Python objects and checked
    /// there (the sequential loop's `handle_params_text`); `None` before
    /// calling anything when that check cannot accept them for certain.
    fn handle_params_text(
        &self,
        context: &RequestContext,
        method: &str,
        params: &RawValue,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        Python::attach(|py| {
            let function = self.requests.get(method)?;
            let argument = self
                .protocol
                .get()
                .params_in_place(py, method, params.get())?;
            let called = Py::new(py, PyContext::of_request(context))
                .and_then(|context| function.bind(py).call1((argument, context)));
            Some(self.encoded_answer(py, method, called))
        })
    }

    /// The worker stays known to the interpreter between calls: attached
    /// once, detached while it waits for a job, so each call's attach only
    /// takes the GIL (no thread state made and freed a request).
    fn worker(&self, run: &mut (dyn FnMut() + Send)) {
        Python::attach(|py| py.detach(run));
    }

    fn notify(&self, peer: &Peer, method: &str, params: Option<Value>) {
        Python::attach(|py| {
            let Some(function) = self.notifications.get(method) else {
                return;
            };
            let called = Py::new(py, PyContext::of_notification(peer)).and_then(|context| {
                let argument = params_to_python(py, params.as_ref())?;
                function.bind(py).call1((argument, context))
            });
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

    fn handle_stream(
        &self,
        method: &str,
        params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        self.stream_items(method, params, emit)
    }

    fn stopped(&self) -> bool {
        Handler::stopped(self)
    }

    /// Runs Python's signal handlers (they run on the main thread only:
    /// the loop's, waiting): an exception they raise (KeyboardInterrupt)
    /// stops the loop and is raised again from `run()`.
    fn interrupted(&self) -> bool {
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(raised) => {
                stash(&self.fatal, raised);
                true
            }
        }
    }
}
