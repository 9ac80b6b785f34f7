//! What a handler of the concurrent serve loop
//! ([`Server::serve_concurrent`](super::Server::serve_concurrent)) is given:
//! a [`RequestContext`] for each request (its id, whether the client
//! cancelled it, the way to notify and to ask the client), or a [`Peer`]
//! for each notification.
//!
//! Everything a handler sends goes through the loop, which checks it as it
//! checks its own answers: a notification against its schema, the
//! protocol's direction and the session's lifecycle, a request to the
//! client likewise, and the client's answer against the method's result or
//! error schemas. A refusal comes back to the handler as a [`PeerError`]
//! (and the loop logs its fault line), never as a broken message on the
//! wire.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::fault::RuntimeFault;
use crate::envelope::{ErrorObject, Id, Notification};

/// The handler of the concurrent serve loop: called from several threads
/// at once, so it takes `&self` and keeps its own state behind locks.
pub trait ConcurrentHandler: Sync {
    /// Whether the server implements `method` (one it does not is answered
    /// -32601 Method not found).
    fn implements(&self, method: &str) -> bool;

    /// Answers a request. The loop has checked the envelope, the lifecycle
    /// and the params; it checks the result after.
    fn handle(
        &self,
        context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject>;

    /// Whether [`ConcurrentHandler::handle_encoded`] answers `method`
    /// instead of [`ConcurrentHandler::handle`] (the fast path of
    /// [`Handler::answers_encoded`](super::Handler::answers_encoded), with
    /// the same rules).
    fn answers_encoded(&self, method: &str) -> bool {
        let _ = method;
        false
    }

    /// Answers a request with a result the handler has checked against the
    /// method's result schema itself and encoded as compact JSON, as
    /// [`Handler::handle_encoded`](super::Handler::handle_encoded) does.
    fn handle_encoded(
        &self,
        context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
        let _ = (context, params);
        Err(super::method_not_found(method))
    }

    /// Whether the handler can answer requests from their params' text
    /// ([`ConcurrentHandler::handle_params_text`]), as
    /// [`Handler::reads_params_text`](super::Handler::reads_params_text).
    fn reads_params_text(&self) -> bool {
        false
    }

    /// Answers `method` from its params' text as
    /// [`Handler::handle_params_text`](super::Handler::handle_params_text)
    /// does (the handler checks the params itself), or gives `None`
    /// without calling the method when it cannot accept them there for
    /// certain: the loop then checks them as a `Value` and answers through
    /// [`ConcurrentHandler::handle_encoded`].
    fn handle_params_text(
        &self,
        context: &RequestContext,
        method: &str,
        params: &serde_json::value::RawValue,
    ) -> Option<Result<Box<serde_json::value::RawValue>, ErrorObject>> {
        let _ = (context, method, params);
        None
    }

    /// Receives a notification from the client, in order: nothing the
    /// client sent after it starts before this returns.
    fn notify(&self, peer: &Peer, method: &str, params: Option<Value>) {
        let _ = (peer, method, params);
    }

    /// Answers a streamed-result request (`result_stream`) by emitting
    /// items, alone (every earlier request answered first, nothing later
    /// started); the serve loop closes the stream after.
    fn handle_stream(
        &self,
        method: &str,
        params: Option<Value>,
        emit: &mut super::Emit<'_>,
    ) -> Result<(), ErrorObject> {
        let _ = (params, emit);
        Err(super::method_not_found(method))
    }

    /// Whether the handler has asked the loop to end now (a binding's fatal
    /// error): the loop stops starting work and returns an error once the
    /// requests in flight are done. Asked after each handler returns.
    fn stopped(&self) -> bool {
        false
    }

    /// Whether the loop was interrupted (Python's Ctrl-C), asked on the
    /// thread that called the loop every 100 ms while it waits, and nowhere
    /// else: true ends the loop as [`ConcurrentHandler::stopped`] does.
    fn interrupted(&self) -> bool {
        false
    }

    /// Runs one worker thread's whole loop (`run` returns when the loop
    /// needs the worker no more). A binding may wrap it: Python attaches
    /// the thread to the interpreter once here and detaches it while the
    /// worker waits, so each call's attach finds its thread state instead
    /// of making and freeing one.
    fn worker(&self, run: &mut (dyn FnMut() + Send)) {
        run();
    }
}

/// Why a message a handler sent, or the answer it waited for, did not
/// come through.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerError {
    /// The session is over, or the serve loop has stopped.
    Closed,
    /// The loop refused to send it: an unknown method, one the server may
    /// not send, params that break the schema, a state that forbids it.
    Refused(RuntimeFault),
    /// The client answered with an error (checked against the protocol's
    /// error schemas).
    Answered(ErrorObject),
    /// The client's answer broke the method's result or error schema.
    InvalidAnswer(RuntimeFault),
    /// No answer within the time allowed (the loop sent the protocol's
    /// cancellation where the server may send one).
    TimedOut {
        /// The method asked.
        method: String,
        /// How long the handler waited.
        after: Duration,
    },
    /// Asked where no answer can come: a request to the client from a
    /// context that is not a request's or a notification's.
    NotHere(String),
}

impl PeerError {
    /// A stable machine code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            PeerError::Closed => "closed",
            PeerError::Refused(_) => "refused",
            PeerError::Answered(_) => "answered-error",
            PeerError::InvalidAnswer(_) => "invalid-answer",
            PeerError::TimedOut { .. } => "timed-out",
            PeerError::NotHere(_) => "not-here",
        }
    }
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::Closed => f.write_str("the session is over: nothing more can be sent"),
            PeerError::Refused(fault) => write!(
                f,
                "not sent: `{}` at `{}`: {}",
                fault.method, fault.pointer, fault.message
            ),
            PeerError::Answered(error) => write!(
                f,
                "the client answered with the error {} ({})",
                error.code, error.message
            ),
            PeerError::InvalidAnswer(fault) => write!(
                f,
                "the client's answer to `{}` breaks its schema at `{}`: {}",
                fault.method, fault.pointer, fault.message
            ),
            PeerError::TimedOut { method, after } => write!(
                f,
                "the client did not answer `{method}` within {} ms",
                after.as_millis()
            ),
            PeerError::NotHere(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PeerError {}

/// What the loop is asked by the handlers' threads.
pub(super) enum Outgoing {
    /// Send a notification; the reply says whether it went out.
    Notify {
        notification: Notification,
        reply: mpsc::Sender<Result<(), PeerError>>,
    },
    /// Send a request to the client; the reply is its checked answer.
    Ask {
        id: Id,
        method: String,
        params: Option<Value>,
        reply: mpsc::Sender<Result<Value, PeerError>>,
    },
    /// The asker stopped waiting for `id` (it timed out); `done` is told
    /// once the loop has forgotten it (and sent the cancellation), so the
    /// handler's own answer comes after.
    Abandon { id: Id, done: mpsc::Sender<()> },
}

/// The other side of the session, as a handler reaches it: notifications
/// and requests to the client, each checked by the loop.
#[derive(Clone)]
pub struct Peer {
    pub(super) sender: mpsc::Sender<super::server::concurrent::Event>,
    pub(super) next_id: Arc<AtomicU64>,
    pub(super) timeout: Duration,
}

impl Peer {
    /// Sends a notification to the client once the loop has checked it
    /// (its schema, the server's direction, the session's state); returns
    /// when it is written, or why it was not.
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), PeerError> {
        let (reply, answer) = mpsc::channel();
        let notification = Notification::new(method, params);
        self.send(Outgoing::Notify {
            notification,
            reply,
        })?;
        answer.recv().unwrap_or(Err(PeerError::Closed))
    }

    /// Sends a request to the client and waits for its answer, checked
    /// against the method's result schema, for the loop's default time
    /// ([`Concurrency::request_timeout`](super::Concurrency::request_timeout)).
    pub fn request(&self, method: &str, params: Option<Value>) -> Result<Value, PeerError> {
        self.request_within(method, params, self.timeout)
    }

    /// [`Peer::request`] waiting at most `timeout`.
    pub fn request_within(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, PeerError> {
        let number = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = Id::from(number);
        let (reply, answer) = mpsc::channel();
        self.send(Outgoing::Ask {
            id: id.clone(),
            method: method.to_owned(),
            params,
            reply,
        })?;
        match answer.recv_timeout(timeout) {
            Ok(outcome) => outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(PeerError::Closed),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // The loop forgets the request (and cancels it where it may).
                let (done, forgotten) = mpsc::channel();
                if self.send(Outgoing::Abandon { id, done }).is_ok() {
                    let _ = forgotten.recv();
                }
                Err(PeerError::TimedOut {
                    method: method.to_owned(),
                    after: timeout,
                })
            }
        }
    }

    fn send(&self, outgoing: Outgoing) -> Result<(), PeerError> {
        self.sender
            .send(super::server::concurrent::Event::Outgoing(outgoing))
            .map_err(|_| PeerError::Closed)
    }
}

/// What reaches the client: a [`Peer`], or a [`RequestContext`] through
/// its peer. The generated `…PeerExt` traits (typed `notify_…` and
/// `request_…` for each message the server sends) are implemented for
/// every `AsPeer`, so a request's handler and a notification's both have
/// them.
pub trait AsPeer {
    /// The peer messages go through.
    fn as_peer(&self) -> &Peer;
}

impl AsPeer for Peer {
    fn as_peer(&self) -> &Peer {
        self
    }
}

impl AsPeer for RequestContext {
    fn as_peer(&self) -> &Peer {
        &self.peer
    }
}

/// What a request's handler is given beside its params.
#[derive(Clone)]
pub struct RequestContext {
    pub(super) id: Id,
    pub(super) method: String,
    pub(super) cancelled: Arc<AtomicBool>,
    /// The progress token the request carries (the manifest's `progress`).
    pub(super) progress_token: Option<Value>,
    pub(super) progress: Option<crate::protocol::Progress>,
    pub(super) peer: Peer,
}

impl RequestContext {
    /// The request's id, as the client sent it.
    pub fn id(&self) -> &Id {
        &self.id
    }

    /// The request's method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// Whether the client has cancelled the request (the protocol's
    /// `cancellation` notification named its id). A handler that sees it
    /// should stop; where the protocol still owes an answer (LSP) the
    /// handler's answer is sent, else (MCP) it is dropped.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// The flag [`RequestContext::is_cancelled`] reads, to share with
    /// other threads of the handler's.
    pub fn cancellation(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancelled)
    }

    /// The session's other side: notifications and requests to the client.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// [`Peer::notify`].
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), PeerError> {
        self.peer.notify(method, params)
    }

    /// The progress token the request carries, where the protocol has a
    /// `progress` and the client asked for progress.
    pub fn progress_token(&self) -> Option<&Value> {
        self.progress_token.as_ref()
    }

    /// Reports progress: the protocol's progress notification with
    /// `params` and the request's token set at the manifest's
    /// `token_pointer`, checked and sent as [`Peer::notify`] sends it.
    /// `Ok(false)`, nothing sent, when the client asked for no progress
    /// (no token) or the protocol has none.
    pub fn progress(&self, params: Value) -> Result<bool, PeerError> {
        let (Some(progress), Some(token)) = (&self.progress, &self.progress_token) else {
            return Ok(false);
        };
        let mut params = match params {
            Value::Object(map) => Value::Object(map),
            Value::Null => Value::Object(serde_json::Map::new()),
            other => {
                return Err(PeerError::Refused(RuntimeFault::dropped(
                    &progress.method,
                    "/params",
                    &format!("progress params are an object, not {other}"),
                )))
            }
        };
        crate::protocol::pointer::set_at(&mut params, &progress.token_pointer, token.clone());
        self.peer
            .notify(&progress.method, Some(params))
            .map(|()| true)
    }

    /// [`Peer::request`].
    pub fn request(&self, method: &str, params: Option<Value>) -> Result<Value, PeerError> {
        self.peer.request(method, params)
    }
}

/// How many requests the concurrent loop runs at once, and how long a
/// handler waits for the client.
#[derive(Debug, Clone, Copy)]
pub struct Concurrency {
    /// Handlers running at once (at least 1); a request beyond them waits
    /// for one to finish, and reading stops a few frames later.
    pub max_in_flight: usize,
    /// How long [`Peer::request`] waits for the client's answer.
    pub request_timeout: Duration,
}

impl Default for Concurrency {
    fn default() -> Self {
        Concurrency {
            max_in_flight: 16,
            request_timeout: Duration::from_secs(60),
        }
    }
}
