//! Holding the server to the value sets the client announced (the
//! manifest's `value_sets`): the capability method's params are kept as the
//! client sent them, and every result and server message of a method with
//! a value set that passed its schema is checked against them.

use serde_json::Value;

use super::checker::SessionChecker;
use super::problem::{Party, Problem, ProblemKind};

impl SessionChecker {
    /// Keeps the client's announcement: the params of the capability
    /// method (LSP's `initialize`), where the manifest has value sets.
    pub(super) fn keep_announcement(&mut self, method: &str, params: Option<&Value>) {
        let manifest = self.protocol.manifest();
        let declares = manifest
            .capabilities
            .as_ref()
            .is_some_and(|c| c.method == method);
        if declares && !manifest.value_sets.is_empty() {
            self.announcement = params.cloned();
        }
    }

    /// Reports each value the server sent in `method` (its `part`,
    /// `/result` or `/params`) outside the announced sets.
    pub(super) fn check_value_sets(
        &mut self,
        index: usize,
        method: &str,
        part: &str,
        sent: Option<&Value>,
    ) {
        let Some(sent) = sent.filter(|_| self.protocol.has_value_sets(method)) else {
            return;
        };
        let found =
            self.protocol
                .unannounced_values(method, part, sent, self.announcement.as_ref());
        for value in found {
            let kind = ProblemKind::UnannouncedValue;
            self.problems.push(Problem {
                frame: index,
                kind,
                severity: kind.severity(),
                pointer: Some(value.pointer.clone()),
                message: value.message(),
                blame: Party::Server,
                related: None,
            });
        }
    }
}
