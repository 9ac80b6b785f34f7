//! The session state machine, driven by the manifest: which state each
//! method may come in and where its success leads, capability gating of
//! optional methods, version negotiation, sequence rules, and the end of
//! the session.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::scope::{RuleFault, ScopeRules};
use super::violation::{fill, Violation, ViolationKind};
use crate::envelope::{ErrorCode, ErrorObject};
use crate::protocol::{ErrorCase, ViolationSpec};
use crate::validate::Protocol;

/// One session's lifecycle, as either peer or an observer sees it.
#[derive(Debug, Clone)]
pub struct Session {
    protocol: Arc<Protocol>,
    state: String,
    capabilities: Option<BTreeSet<String>>,
    /// The client's, once it has declared them (`client_pointer`).
    client_capabilities: Option<BTreeSet<String>>,
    ended: bool,
    /// What ended the session (`` `shutdown` was answered ``).
    ended_by: Option<String>,
    rules: ScopeRules,
    awaiting: Option<String>,
}

impl Session {
    /// A session in the protocol's initial state.
    pub fn new(protocol: Arc<Protocol>) -> Self {
        let state = protocol
            .manifest()
            .lifecycle
            .as_ref()
            .map(|l| l.initial.clone())
            .unwrap_or_default();
        let rules = ScopeRules::new(&protocol.manifest().rules);
        Session {
            protocol,
            state,
            capabilities: None,
            client_capabilities: None,
            ended: false,
            ended_by: None,
            rules,
            awaiting: None,
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> &Arc<Protocol> {
        &self.protocol
    }

    /// The current state (`""` when the protocol has no lifecycle).
    pub fn state(&self) -> &str {
        &self.state
    }

    /// Whether the session is over: a terminal state, or a fatal answer.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// What ended the session, as the end of a sentence: `` `shutdown` was
    /// answered ``, `` `initialize` was refused with -32099 (VERSION_MISMATCH) ``;
    /// `None` while it goes on, or when it was ended by [`Session::end`].
    pub fn ended_by(&self) -> Option<&str> {
        self.ended_by.as_deref()
    }

    /// The notification that ends what the last successful answer started
    /// (the manifest's `lifecycle.completion`), until it arrives: a host
    /// follows the server's notifications while this is set.
    pub fn awaiting(&self) -> Option<&str> {
        self.awaiting.as_deref()
    }

    /// The capabilities the server declared true, once it has declared them.
    pub fn capabilities(&self) -> Option<&BTreeSet<String>> {
        self.capabilities.as_ref()
    }

    /// The capabilities the client declared, once it has (where the
    /// protocol has a client declaration).
    pub fn client_capabilities(&self) -> Option<&BTreeSet<String>> {
        self.client_capabilities.as_ref()
    }

    /// Checks that `method` may be sent now: the session is not over, the
    /// state allows it, and (for an optional method) the server declared
    /// its capability. A method the protocol does not define passes: the
    /// caller answers it -32601 itself.
    pub fn check(&self, method: &str) -> Result<(), Violation> {
        self.check_sent(method, false)
    }

    /// [`Session::check`] for a message the server sends: a method gated on
    /// the receiver's capability (`capability_of: receiver`) is gated by
    /// the client's declaration then.
    pub fn check_from_server(&self, method: &str) -> Result<(), Violation> {
        self.check_sent(method, true)
    }

    fn check_sent(&self, method: &str, sent_by_server: bool) -> Result<(), Violation> {
        let Some(spec) = self.protocol.method(method) else {
            return Ok(());
        };
        let lifecycle = spec.lifecycle.as_ref();
        if self.ended {
            return Err(self.state_violation(
                method,
                lifecycle.and_then(|l| l.violation.as_ref()),
                ViolationKind::SessionEnded,
            ));
        }
        if let Some(lifecycle) = lifecycle {
            let anywhere =
                lifecycle.allowed_in.is_empty() || lifecycle.allowed_in.iter().any(|s| s == "*");
            if !anywhere && !lifecycle.allowed_in.contains(&self.state) {
                return Err(self.state_violation(
                    method,
                    lifecycle.violation.as_ref(),
                    ViolationKind::WrongState,
                ));
            }
        }
        let servers = spec.capability_of.held_by_server(sent_by_server);
        let declared = if servers {
            &self.capabilities
        } else {
            &self.client_capabilities
        };
        if let (Some(capability), Some(declared)) = (&spec.capability, declared) {
            if !declared.contains(capability) {
                let answer = if servers {
                    self.protocol.capability_answer(method, capability)
                } else {
                    self.protocol.client_capability_answer(method, capability)
                };
                return Err(Violation::new(
                    ViolationKind::CapabilityNotDeclared,
                    answer.code,
                    answer.message,
                    answer.data,
                )
                .with_template(
                    self.protocol
                        .server_errors()
                        .template(ErrorCase::CapabilityNotDeclared, None),
                ));
            }
        }
        Ok(())
    }

    /// Whether [`Session::admit`] reads `method`'s params (the negotiating
    /// method, a method some stateful rule names). For any other method it
    /// admits whatever the params are, and changes nothing.
    pub fn reads_params(&self, method: &str) -> bool {
        let negotiates = self
            .protocol
            .manifest()
            .version_negotiation
            .as_ref()
            .is_some_and(|negotiation| negotiation.method == method);
        let declares = self
            .protocol
            .manifest()
            .capabilities
            .as_ref()
            .is_some_and(|c| c.method == method && c.client_pointer.is_some());
        negotiates || declares || self.rules.names(method)
    }

    /// Admits a request whose params passed their schema: version
    /// negotiation on the negotiating method, then the protocol's stateful
    /// rules (scopes, sequences, ids not reused).
    pub fn admit(&mut self, method: &str, params: Option<&Value>) -> Result<(), Violation> {
        self.declare_client(method, params);
        self.negotiate(method, params)?;
        self.rules
            .check(method, params)
            .map_err(|fault| self.rule_violation(fault))
    }

    /// Records the client's capabilities from the params of the method
    /// that declares them, where the protocol has a client declaration.
    pub fn declare_client(&mut self, method: &str, params: Option<&Value>) {
        let manifest = self.protocol.manifest();
        if manifest
            .capabilities
            .as_ref()
            .is_some_and(|c| c.method == method)
        {
            if let Some(declared) = manifest.declared_client_capabilities(params) {
                self.client_capabilities = Some(declared);
            }
        }
    }

    /// The protocol's stateful rules alone (scopes, sequences, ids not
    /// reused), for a request the sending peer checks before it sends.
    pub fn check_rules(&mut self, method: &str, params: Option<&Value>) -> Result<(), Violation> {
        self.rules
            .check(method, params)
            .map_err(|fault| self.rule_violation(fault))
    }

    /// Version negotiation: checks the client's version in the params of the
    /// negotiating method against the server's. Call after the params
    /// passed their schema.
    fn negotiate(&self, method: &str, params: Option<&Value>) -> Result<(), Violation> {
        let Some(negotiation) = &self.protocol.manifest().version_negotiation else {
            return Ok(());
        };
        if negotiation.method != method {
            return Ok(());
        }
        let Some(client) = params
            .and_then(|p| p.pointer(&negotiation.client_pointer))
            .and_then(crate::protocol::version_text)
        else {
            return Ok(());
        };
        let client = client.as_str();
        // Majors compare as decimal integers ("01" is 1); text that is no
        // number compares as written.
        let major = |version: &str| {
            let text = version.split('.').next().unwrap_or("").trim();
            text.parse::<u64>()
                .map_or_else(|_| text.to_owned(), |number| number.to_string())
        };
        let (client_major, server_major) = (major(client), major(&negotiation.server_version));
        if client_major == server_major {
            return Ok(());
        }
        let error = self
            .protocol
            .manifest()
            .errors
            .iter()
            .find(|e| e.name == negotiation.error);
        let message = fill(
            &negotiation.message,
            &[
                ("client", client),
                ("server", &negotiation.server_version),
                ("client_major", &client_major),
                ("server_major", &server_major),
            ],
        );
        let violation = Violation::new(
            ViolationKind::VersionMismatch,
            error.map_or(ErrorCode::INVALID_REQUEST.0, |e| e.code),
            message,
            None,
        )
        .at(format!("/params{}", negotiation.client_pointer));
        Err(if error.is_none_or(|e| e.ends_session) {
            violation.ending()
        } else {
            violation
        })
    }

    /// Records the answer to `method`: a success moves the state (and
    /// records declared capabilities); an error that the protocol says ends
    /// the session ends it.
    pub fn answered(&mut self, method: &str, outcome: Result<&Value, &ErrorObject>) {
        let Some(spec) = self.protocol.method(method) else {
            return;
        };
        match outcome {
            Ok(result) => {
                let manifest = self.protocol.manifest();
                if let Some(capabilities) = &manifest.capabilities {
                    if capabilities.method == method {
                        self.capabilities = Some(manifest.declared_capabilities(result));
                    }
                }
                self.rules.opened(method);
                if let Some(lifecycle) = &spec.lifecycle {
                    if let Some(completion) = &lifecycle.completion {
                        self.awaiting = Some(completion.clone());
                    }
                    if let Some(next) = &lifecycle.on_success {
                        self.state = next.clone();
                    }
                    if lifecycle.ends_session {
                        self.ended = true;
                    }
                }
                self.end_if_terminal();
                if self.ended && self.ended_by.is_none() {
                    self.ended_by = Some(format!("`{method}` was answered"));
                }
            }
            Err(error) => {
                let fatal = self
                    .protocol
                    .manifest()
                    .errors
                    .iter()
                    .find(|e| e.code == error.code && e.ends_session);
                if let Some(fatal) = fatal {
                    if !self.ended {
                        self.ended_by = Some(format!(
                            "`{method}` was refused with {} ({})",
                            error.code, fatal.name
                        ));
                    }
                    self.ended = true;
                }
            }
        }
    }

    /// A notification passes: checks the state and the sequence rules, then
    /// moves the state. The state does not move when it fails.
    pub fn notify(&mut self, method: &str, params: Option<&Value>) -> Result<(), Violation> {
        self.notify_sent(method, params, false)
    }

    /// [`Session::notify`] for a notification the server sends: one gated
    /// on the receiver's capability is gated by the client's declaration,
    /// one gated on the sender's by the server's
    /// (`capability_of: receiver`, `sender`).
    pub fn notify_from_server(
        &mut self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<(), Violation> {
        self.notify_sent(method, params, true)
    }

    fn notify_sent(
        &mut self,
        method: &str,
        params: Option<&Value>,
        sent_by_server: bool,
    ) -> Result<(), Violation> {
        self.check_sent(method, sent_by_server)?;
        self.rules
            .check(method, params)
            .map_err(|fault| self.rule_violation(fault))?;
        self.rules.record(method, params);
        if self.awaiting.as_deref() == Some(method) {
            self.awaiting = None;
        }
        if let Some(next) = self
            .protocol
            .method(method)
            .and_then(|s| s.lifecycle.as_ref())
            .and_then(|l| l.on_success.clone())
        {
            self.state = next;
        }
        self.end_if_terminal();
        if self.ended && self.ended_by.is_none() {
            self.ended_by = Some(format!("`{method}` arrived"));
        }
        Ok(())
    }

    /// Marks the session over (end of input, a fatal fault).
    pub fn end(&mut self) {
        self.ended = true;
    }

    /// Marks the session over, saying why as the end of a sentence
    /// (`the server closed its stdout`); an earlier reason is kept.
    pub fn end_because(&mut self, why: impl Into<String>) {
        if !self.ended {
            self.ended_by = Some(why.into());
        }
        self.ended = true;
    }

    fn end_if_terminal(&mut self) {
        if let Some(lifecycle) = &self.protocol.manifest().lifecycle {
            if lifecycle.terminal.contains(&self.state) {
                self.ended = true;
            }
        }
    }

    /// A stateful rule's violation: the rule's own `error` (`code`, `data`)
    /// when the manifest gives one, else the protocol's `rule` answer
    /// (wirekit's default: -32602 naming the rule).
    fn rule_violation(&self, fault: RuleFault) -> Violation {
        let spec = self
            .protocol
            .manifest()
            .rules
            .iter()
            .find(|r| r.rule == fault.rule);
        let pointer = format!("/params{}", fault.pointer);
        let own = spec.and_then(|r| r.arguments.get("error"));
        let template = match own {
            Some(error) => error.get("data").cloned(),
            None => self
                .protocol
                .server_errors()
                .template(ErrorCase::Rule, None),
        };
        let answer = match own {
            Some(error) => ErrorObject {
                code: error
                    .get("code")
                    .and_then(Value::as_i64)
                    .unwrap_or(ErrorCode::INVALID_PARAMS.0),
                message: fault.message,
                data: error.get("data").cloned().filter(|d| !d.is_null()),
            },
            None => self
                .protocol
                .rule_answer(&fault.rule, &pointer, fault.message),
        };
        Violation::new(
            ViolationKind::Rule,
            answer.code,
            answer.message,
            answer.data,
        )
        .with_template(template)
        .at(pointer)
    }

    fn state_violation(
        &self,
        method: &str,
        own: Option<&ViolationSpec>,
        kind: ViolationKind,
    ) -> Violation {
        let manifest = self.protocol.manifest();
        let allowed = manifest
            .methods
            .get(method)
            .and_then(|s| s.lifecycle.as_ref())
            .map(|l| l.allowed_in.join(" or "))
            .unwrap_or_default();
        // After the end the state's own sentence would mislead (gzkit's
        // "shutdown is not allowed before initialize" after -32099): say
        // what ended the session instead.
        let ended = (kind == ViolationKind::SessionEnded).then(|| match &self.ended_by {
            Some(why) => {
                format!("`{method}` comes after the end of the session: it ended when {why}")
            }
            None => format!("`{method}` comes after the end of the session"),
        });
        let Some(spec) = own.or(manifest.lifecycle.as_ref().map(|l| &l.violation)) else {
            return Violation::new(
                kind,
                ErrorCode::INVALID_REQUEST.0,
                ended.unwrap_or_else(|| format!("`{method}` is not allowed now")),
                None,
            );
        };
        let message = ended.unwrap_or_else(|| {
            fill(
                &spec.message,
                &[
                    ("method", method),
                    ("state", &self.state),
                    ("allowed", &allowed),
                ],
            )
        });
        let data = spec.data.clone().filter(|d| !d.is_null());
        Violation::new(kind, spec.code, message, data.clone()).with_template(data)
    }
}
