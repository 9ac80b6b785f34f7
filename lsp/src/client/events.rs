//! What the server sends, handled in arrival order: answers matched to
//! pending requests (a late one dropped), notifications classified once,
//! the server's requests answered at once, and death — a framing fault, a
//! body that is not JSON-RPC, the end of the server's output — which
//! answers every waiting caller "unavailable" with the reason.

use std::time::{Duration, Instant};

use wirekit::envelope::{self, EnvelopeOptions, Id, Message, Notification, Request, Response};

use super::connection::Incoming;
use super::{Client, MAX_FAILURE_BYTES};
use crate::decode::{classify_notification, ServerNotification};
use crate::server_requests::answer_server_request;

impl Client {
    /// Handles one event from the server, waiting until `deadline`; false
    /// when the deadline passed first.
    pub(super) fn pump(&mut self, deadline: Instant) -> bool {
        match self.connection.next(deadline) {
            None => false,
            Some(event) => {
                self.handle(event);
                true
            }
        }
    }

    fn handle(&mut self, event: Incoming) {
        match event {
            Incoming::Frame(Ok(frame), _) => {
                match envelope::decode(frame.body().as_bytes(), &EnvelopeOptions::JSONRPC_2) {
                    Ok(Message::Response(response)) => self.on_response(response),
                    Ok(Message::Notification(notification)) => self.on_notification(notification),
                    Ok(Message::Request(request)) => self.on_server_request(&request),
                    Err(error) => self.die(format!(
                        "the server sent a body that is not JSON-RPC: {}",
                        error.message()
                    )),
                }
            }
            Incoming::Frame(Err(fault), _) => {
                self.die(format!("the server's output does not frame: {fault}"))
            }
            Incoming::Closed(error, _) => {
                let why = error.map_or_else(String::new, |e| format!(" ({e})"));
                self.die(format!("the server closed its output{why}"));
            }
        }
    }

    fn on_response(&mut self, response: Response) {
        let id = response.id.as_ref().and_then(Id::as_i64);
        match id {
            Some(id) if self.pending.contains(&id) => {
                self.pending.retain(|p| *p != id);
                self.answers.insert(id, response.outcome);
            }
            Some(id) if self.abandoned.contains(&id) => {
                self.abandoned.retain(|a| *a != id);
                self.dropped.late_answers += 1;
            }
            _ => {
                self.dropped.unmatched_answers += 1;
                self.dropped.last_unmatched_id = Some(
                    response
                        .id
                        .as_ref()
                        .map_or_else(|| "null".to_owned(), Id::to_string),
                );
            }
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        match classify_notification(&notification.method, notification.params.as_ref()) {
            ServerNotification::Published(publication) => {
                if publication.version.is_some() {
                    self.ever_versioned = true;
                }
                let documents = &self.documents;
                self.diagnostics
                    .publish(publication, |uri| documents.get(uri).is_some());
            }
            ServerNotification::Progressed(token, step) => self.progress.apply(token, &step),
            ServerNotification::ServerFailure(message) => {
                self.failure = Some(truncate(&message, MAX_FAILURE_BYTES))
            }
            ServerNotification::Ignored => {}
            ServerNotification::Unrecognised(reason) => {
                self.dropped.notifications += 1;
                self.dropped.last_notification_reason = Some(reason);
            }
        }
    }

    fn on_server_request(&mut self, request: &Request) {
        if self.server_requests_seen.len() == 64 {
            self.server_requests_seen.remove(0);
        }
        self.server_requests_seen.push(request.method.clone());
        let name = self
            .root
            .file_name()
            .map_or_else(|| "root".to_owned(), |n| n.to_string_lossy().into_owned());
        let answer = answer_server_request(request, &self.root_uri, &name, &self.settings);
        if answer.outcome.is_err() {
            self.dropped.server_requests_refused += 1;
        }
        let _ = self.send(&Message::Response(answer));
    }

    /// The server cannot answer any more: the first reason is kept (with the
    /// end of its stderr), the process is killed, and every waiting caller
    /// is answered unavailable.
    pub(super) fn die(&mut self, reason: String) {
        if self.dead.is_some() {
            return;
        }
        // A crashed server has usually exited by now; its status says how.
        let status = self.connection.wait_for_exit(Duration::from_millis(300));
        self.connection.kill();
        let mut reason = reason;
        if let Some(status) = status {
            reason.push_str(&format!("; it exited with {status}"));
        }
        let tail = self.connection.stderr_tail();
        if !tail.is_empty() {
            let last: Vec<&str> = tail.lines().rev().take(3).collect();
            let last: Vec<&str> = last.into_iter().rev().collect();
            reason.push_str(&format!("; its stderr ends: {}", last.join(" | ")));
        }
        self.pending.clear();
        self.dead = Some(reason);
    }
}

/// The longest prefix of `text` within `limit` bytes, cut at a character.
fn truncate(text: &str, limit: usize) -> String {
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}
