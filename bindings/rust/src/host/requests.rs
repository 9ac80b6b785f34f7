//! Requests the server sends the host (`workspace/configuration`,
//! `window/workDoneProgress/create`, ...): a server may ask while it works
//! on a call, and waits for the answer, so the host answers every one at
//! once, whatever it is waiting for.
//!
//! A request the manifest declares `server-to-client` goes to the handler
//! the caller registered ([`Host::with_request_handler`]): its params are
//! checked against their schema first (invalid: -32602) and its result
//! after (invalid: -32603, as a server's own invalid result is answered).
//! A request the manifest does not declare, or a declared one that no
//! handler answers (none registered, or it returns `None`), is answered
//! -32601 and reported. Every request is kept with its
//! answer for [`Host::take_server_requests`]; a refused one carries the
//! reason as a [`HostErrorKind::ServerRequest`] error.

use serde_json::Value;

use super::client::Host;
use super::error::{HostError, HostErrorKind};
use super::server_request::{RequestHandler, ServerRequest};
use crate::envelope::{ErrorObject, Message, Request, Response};
use crate::protocol::MethodKind;
use crate::validate::Part;

impl Host {
    /// Answers the server's requests with `handler` (see the module's docs).
    pub fn with_request_handler(mut self, handler: Box<RequestHandler>) -> Self {
        self.set_request_handler(handler);
        self
    }

    /// Every request the server sent so far (the last
    /// [`SERVER_REQUESTS_KEPT`](super::SERVER_REQUESTS_KEPT)), in order, each with its answer; taking
    /// them empties the list.
    pub fn take_server_requests(&mut self) -> Vec<ServerRequest> {
        self.drain_server_requests()
    }

    /// Answers a request from the server at once and keeps it with its
    /// answer.
    pub(super) fn on_server_request(&mut self, request: Request) {
        let (answer, mut problem) = self.answer_server_request(&request);
        let warning = request.id.discouraged().map(|why| {
            format!(
                "the server's request `{}` has the id {}: {why}",
                request.method, request.id
            )
        });
        let response = Message::Response(Response {
            id: Some(request.id.clone()),
            outcome: answer.clone(),
        });
        let sent = self.send(&request.method, &response);
        if let Err(error) = sent {
            problem = Some(HostError::new(
                HostErrorKind::ServerRequest,
                format!(
                    "the answer to the server's request `{}` could not be sent: {}",
                    request.method,
                    error.message()
                ),
            ));
        }
        self.keep_server_request(ServerRequest {
            request,
            answer,
            problem,
            warning,
        });
    }

    fn answer_server_request(
        &mut self,
        request: &Request,
    ) -> (Result<Value, ErrorObject>, Option<HostError>) {
        let method = request.method.as_str();
        let refused = |answer: ErrorObject, why: String| {
            let problem = HostError::new(HostErrorKind::ServerRequest, why);
            (Err(answer), Some(problem))
        };
        let declared = self
            .protocol()
            .method(method)
            .is_some_and(|spec| spec.kind == MethodKind::Request && spec.direction.server_sends());
        if !declared {
            return refused(
                self.protocol().method_not_found_answer(method),
                format!(
                    "the server sent the request `{method}`, which {} does not declare server-to-client; answered -32601",
                    self.protocol().id()
                ),
            );
        }
        let issues = self
            .protocol()
            .validate(method, Part::Params, request.params.as_ref());
        if !issues.is_empty() {
            let answer = self.protocol().invalid_params_answer(method, &issues);
            let mut problem = HostError::issues(HostErrorKind::ServerRequest, method, issues);
            problem.prefix_message("the server's request: ");
            return (Err(answer), Some(problem));
        }
        let outcome = self
            .request_handler()
            .and_then(|handler| handler(method, request.params.as_ref()));
        let Some(outcome) = outcome else {
            return refused(
                self.protocol().method_not_found_answer(method),
                format!("the server sent the request `{method}`, but no handler answers it; answered -32601"),
            );
        };
        let Ok(result) = outcome else {
            return (outcome, None);
        };
        let issues = self
            .protocol()
            .validate(method, Part::Result, Some(&result));
        if issues.is_empty() {
            return (Ok(result), None);
        }
        let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
        let answer = self
            .protocol()
            .internal_error_answer(method, &listed.join("; "));
        let mut problem = HostError::issues(HostErrorKind::ServerRequest, method, issues);
        problem.prefix_message("the handler's answer to the server's request: ");
        (Err(answer), Some(problem))
    }
}
