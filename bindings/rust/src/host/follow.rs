//! Following a session's notifications: what the server sends of its own
//! accord between and after answers (the driver protocol's observations and
//! the `driver.completed` that ends an invocation).
//!
//! A successful answer whose method declares a `lifecycle.completion`
//! (`driver.invoke`) leaves the session awaiting that notification
//! ([`Session::awaiting`](crate::session::Session::awaiting)). While it
//! does, [`Host::notifications`] yields each notification as it arrives,
//! checked (schema, state, the protocol's rules), and ends after the
//! completion; [`Host::call`] of a method the state refuses first waits for
//! the completion (queueing what arrives for [`Host::take_received`]), and a
//! method the state allows meanwhile (`driver.cancel`) is sent at once.
//! The wait is bounded: each notification must come within the host's
//! timeout (`with_timeout`, else [`DEFAULT_TIMEOUT`](super::DEFAULT_TIMEOUT)),
//! or the server is killed.

use std::time::{Duration, Instant};

use super::client::Host;
use super::error::{HostError, HostErrorKind};
use crate::envelope::{Message, Notification};

/// The notifications of what a call started, in arrival order: each one
/// checked, a refused one as an [`HostErrorKind::InvalidNotification`] (the
/// wait goes on), a lost server as its error (the last item).
pub struct Notifications<'a> {
    host: &'a mut Host,
    failed: bool,
}

impl Iterator for Notifications<'_> {
    type Item = Result<Notification, HostError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(received) = self.host.pop_received() {
            return Some(received);
        }
        if self.failed || !self.host.is_awaiting() {
            return None;
        }
        match self.host.receive_notification() {
            Ok(()) => self.host.pop_received(),
            Err(error) => {
                self.failed = true;
                Some(Err(error))
            }
        }
    }
}

impl Host {
    /// The notifications received and still to come until the session
    /// awaits nothing more (see the module's docs): an iterator that blocks
    /// for the next one.
    pub fn notifications(&mut self) -> Notifications<'_> {
        Notifications {
            host: self,
            failed: false,
        }
    }

    /// Waits until the awaited completion has arrived (nothing to do when
    /// none is awaited), queueing what arrives for [`Host::take_received`].
    /// Fails when the server dies, sends what is not a notification, or
    /// stays silent past the timeout.
    pub fn await_completion(&mut self) -> Result<(), HostError> {
        while self.is_awaiting() {
            self.receive_notification()?;
        }
        Ok(())
    }

    /// Before `method`: when the state refuses it only because a completion
    /// is awaited, waits for that completion.
    pub(super) fn await_completion_before(&mut self, method: &str) -> Result<(), HostError> {
        if self.session().check(method).is_err() && self.is_awaiting() {
            self.await_completion()?;
        }
        Ok(())
    }

    fn is_awaiting(&self) -> bool {
        !self.session().is_ended() && self.session().awaiting().is_some()
    }

    /// Reads the next frame; it must be a notification, which is checked
    /// and queued, or a request of the server's, which is answered.
    fn receive_notification(&mut self) -> Result<(), HostError> {
        let awaited = self.session().awaiting().unwrap_or_default().to_owned();
        let limit = self.wait_limit();
        let deadline = Instant::now() + limit;
        let frame = match self.next_frame(&awaited, deadline)? {
            Ok(frame) => frame,
            Err(fault) => return Err(self.died(HostErrorKind::Framing, fault.to_string())),
        };
        match self.decode(&frame)? {
            Message::Notification(notification) => {
                self.on_notification(notification);
                Ok(())
            }
            Message::Request(request) => {
                self.on_server_request(request);
                Ok(())
            }
            other => Err(HostError::unexpected(&awaited, None, &other)),
        }
    }

    /// How long the host waits for each notification.
    fn wait_limit(&self) -> Duration {
        self.timeout_override().unwrap_or(super::DEFAULT_TIMEOUT)
    }
}
