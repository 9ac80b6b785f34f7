//! The stop sequence: `shutdown`, `exit`, a grace for the process to end,
//! then kill.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Client;

/// How the server ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReport {
    /// It answered `shutdown` and exited within the grace after `exit`.
    Graceful,
    /// It had to be killed, and why.
    Forced(String),
    /// It was already gone, and why.
    AlreadyGone(String),
}

impl StopReport {
    /// A stable name (`graceful`, `forced`, `already_gone`).
    pub fn name(&self) -> &'static str {
        match self {
            StopReport::Graceful => "graceful",
            StopReport::Forced(_) => "forced",
            StopReport::AlreadyGone(_) => "already_gone",
        }
    }
}

impl Client {
    /// Stops the server: `shutdown` (waited for up to `grace`), `exit`, then
    /// up to `grace` for the process to end before it is killed.
    pub fn stop(mut self, grace: Duration) -> StopReport {
        if let Some(reason) = self.dead.clone() {
            return StopReport::AlreadyGone(reason);
        }
        if let Some(status) = self.connection.try_wait() {
            return StopReport::AlreadyGone(format!("the server had exited with {status}"));
        }
        let shutdown = self
            .send_request("shutdown", Value::Null)
            .and_then(|id| self.await_answer(id, Instant::now() + grace, grace));
        if let Err(error) = shutdown {
            if let Some(reason) = self.dead.clone() {
                return StopReport::AlreadyGone(reason);
            }
            self.connection.kill();
            return StopReport::Forced(format!("`shutdown` failed: {error}"));
        }
        let _ = self.notify("exit", Value::Null);
        self.connection.close_stdin();
        match self.connection.wait_for_exit(grace) {
            Some(_) => StopReport::Graceful,
            None => {
                self.connection.kill();
                let grace_ms = grace.as_millis();
                StopReport::Forced(format!(
                    "the server did not exit within {grace_ms} ms of `exit`"
                ))
            }
        }
    }
}
