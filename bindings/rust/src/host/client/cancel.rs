//! A request that got no answer in time, in a protocol that declares how a
//! peer cancels one (`cancellation`): the host sends the cancellation and
//! the session goes on, instead of killing the server.
//!
//! The rules:
//! - Only a plain request is cancelled: one whose answer moves the session
//!   (`lifecycle.on_success`, e.g. `initialize`, which MCP forbids
//!   cancelling) or streams its result still kills the server at its
//!   timeout, as does a protocol without `cancellation`.
//! - The cancellation's params carry the request's id at `id_pointer`
//!   (`{"id": 7}`, `{"requestId": 7}`), checked like any notification the
//!   host sends; if it cannot be sent, the server is killed.
//! - `answer: optional` (MCP): the request is forgotten, and an answer that
//!   still comes is dropped. `answer: required` (LSP): the answer (the
//!   result, or the protocol's "request cancelled" error) is still awaited
//!   for one more timeout before the next request where the server takes one
//!   at a time, and taken as a late answer when it comes; if it never does,
//!   the server is killed then.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::super::error::{HostError, HostErrorKind};
use super::{Host, DEFAULT_TIMEOUT};
use crate::envelope::Id;
use crate::protocol::pointer::set_at;
use crate::protocol::CancelledAnswer;

/// Ids of cancelled requests whose answers are dropped when they come, at
/// most this many (the oldest forgotten first).
pub(super) const CANCELLED_KEPT: usize = 256;

impl Host {
    /// `method`'s answer did not come by `deadline`: cancels it where the
    /// protocol says how, else kills the server. Either way, the error the
    /// caller gets.
    pub(super) fn timed_out(&mut self, method: &str, deadline: Instant) -> HostError {
        match self.cancel(method, deadline) {
            Some(error) => error,
            None => self.kill_for_timeout(method, deadline),
        }
    }

    /// The timeout of `method`.
    pub(super) fn limit_of(&self, method: &str) -> Duration {
        self.timeout_override.unwrap_or_else(|| {
            let spec = self.protocol.method(method).and_then(|s| s.timeout_ms);
            spec.map_or(DEFAULT_TIMEOUT, Duration::from_millis)
        })
    }

    /// Whether `id` is a cancelled request whose answer is dropped.
    pub(super) fn forget_cancelled(&mut self, id: Option<&Id>) -> bool {
        let Some(at) = self.cancelled.iter().position(|c| Some(c) == id) else {
            return false;
        };
        self.cancelled.remove(at);
        true
    }

    fn cancel(&mut self, method: &str, deadline: Instant) -> Option<HostError> {
        let cancellation = self.protocol.manifest().cancellation.clone()?;
        let spec = self.protocol.method(method)?;
        let moves_session = spec
            .lifecycle
            .as_ref()
            .is_some_and(|l| l.on_success.is_some() || l.ends_session);
        if moves_session || spec.result_stream.is_some() {
            return None;
        }
        let at = self
            .outstanding
            .iter()
            .position(|o| o.method == method && o.deadline == deadline && !o.cancelled)?;
        let id = self.outstanding[at].id.clone();
        // The params are an object with the id at `id_pointer` (`{"id": 7}`).
        if !cancellation.id_pointer.starts_with('/') {
            return None;
        }
        let mut params = Value::Object(Map::new());
        set_at(&mut params, &cancellation.id_pointer, id.to_value());
        self.notify(&cancellation.method, Some(params)).ok()?;
        let limit = self.limit_of(method);
        match cancellation.answer {
            CancelledAnswer::Optional => {
                self.outstanding.remove(at);
                if self.cancelled.len() == CANCELLED_KEPT {
                    self.cancelled.pop_front();
                }
                self.cancelled.push_back(id);
            }
            CancelledAnswer::Required => {
                let pending = &mut self.outstanding[at];
                pending.cancelled = true;
                pending.deadline = Instant::now() + limit;
            }
        }
        Some(HostError::new(
            HostErrorKind::Timeout,
            format!(
                "`{method}` got no answer within {} ms; it was cancelled with `{}` and the session goes on",
                limit.as_millis(),
                cancellation.method
            ),
        ))
    }
}
