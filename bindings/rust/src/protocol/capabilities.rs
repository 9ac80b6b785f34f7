//! Where and how a server declares its capabilities, and what a declaration
//! means for the optional methods of a protocol: the one place that reads a
//! capability declaration (the session's lifecycle, the conformance
//! battery, the LSP client and the bindings' descriptors all ask here).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where the server's capabilities are declared (and the client's, where
/// the protocol has them).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesSpec {
    /// The method whose result declares them (usually `initialize`).
    pub method: String,
    /// JSON pointer into that result.
    pub pointer: String,
    /// How they are spelled.
    pub style: CapabilityStyle,
    /// JSON pointer into the same method's params where the client
    /// declares its own capabilities, in the same style (MCP's and LSP's
    /// `/capabilities`): they gate the methods whose `capability_of` is
    /// `client`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_pointer: Option<String>,
}

/// Whose declaration gates a method (a method's `capability_of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityOf {
    /// The server's (in the capabilities method's result): the methods it
    /// serves, and the notifications it promises to send.
    #[default]
    Server,
    /// The client's (in the capabilities method's params): the server's
    /// requests it answers (MCP's `sampling/createMessage`, `roots/list`),
    /// and the notifications it promises to send.
    Client,
    /// The receiver's: a method either side sends (`direction: both`) is
    /// gated by the declaration of the side it is sent to. MCP's `tasks/*`:
    /// the server's `tasks` for the client's requests, the client's for
    /// the server's.
    Receiver,
    /// The sender's: a notification either side sends (`direction: both`)
    /// is sent only by a side that declared the capability. MCP's
    /// `notifications/tasks/status`: the side that runs tasks (declared
    /// `tasks`) reports their status.
    Sender,
}

impl CapabilityOf {
    /// Whether the server's declaration gates the method as the client
    /// sends it (and so lists it: the server's own capabilities).
    pub fn in_server_declaration(self) -> bool {
        matches!(
            self,
            CapabilityOf::Server | CapabilityOf::Receiver | CapabilityOf::Sender
        )
    }

    /// Whether the client's declaration gates the method as the server
    /// sends it (and so lists it: the client's own capabilities).
    pub fn in_client_declaration(self) -> bool {
        matches!(
            self,
            CapabilityOf::Client | CapabilityOf::Receiver | CapabilityOf::Sender
        )
    }

    /// Whether the server's declaration (else the client's) gates the
    /// method as `sent_by_server` says it was sent.
    pub fn held_by_server(self, sent_by_server: bool) -> bool {
        match self {
            CapabilityOf::Server => true,
            CapabilityOf::Client => false,
            CapabilityOf::Receiver => !sent_by_server,
            CapabilityOf::Sender => sent_by_server,
        }
    }
}

/// How a server spells its capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityStyle {
    /// `{"discover": true, "test_mapping": false}`.
    BooleanObject,
    /// `["analyze"]`.
    StringArray,
    /// LSP's `ServerCapabilities`: a method's capability is a path of member
    /// names below the declaration (`definitionProvider`,
    /// `renameProvider/prepareProvider`, written as a JSON pointer without
    /// its leading `/`), declared when the value there is `true` or an
    /// options object; absent, `false`, `null` or anything else is not
    /// declared.
    Provider,
}

impl CapabilitiesSpec {
    /// The declaration inside the whole successful result of
    /// [`CapabilitiesSpec::method`], if it is there.
    pub fn declaration<'a>(&self, result: &'a Value) -> Option<&'a Value> {
        result.pointer(&self.pointer)
    }

    /// Whether `declaration` (the value at [`CapabilitiesSpec::pointer`])
    /// declares `capability`.
    pub fn declares(&self, capability: &str, declaration: Option<&Value>) -> bool {
        match (self.style, declaration) {
            (CapabilityStyle::BooleanObject, Some(Value::Object(members))) => {
                members.get(capability).and_then(Value::as_bool) == Some(true)
            }
            (CapabilityStyle::StringArray, Some(Value::Array(items))) => {
                items.iter().any(|item| item.as_str() == Some(capability))
            }
            (CapabilityStyle::Provider, Some(declaration)) => {
                match declaration.pointer(&provider_pointer(capability)) {
                    Some(Value::Bool(on)) => *on,
                    Some(Value::Object(_)) => true,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Every capability `declaration` declares, by the protocol's names:
    /// for `boolean-object` the members that are `true`, for `string-array`
    /// the names listed, for `provider` the capabilities of `gated` (the
    /// names the manifest's methods use) that are declared (a provider declaration lists far more
    /// than any subset of its protocol uses, and only those can gate).
    pub fn declared<'a>(
        &self,
        gated: impl IntoIterator<Item = &'a str>,
        declaration: Option<&Value>,
    ) -> BTreeSet<String> {
        match (self.style, declaration) {
            (CapabilityStyle::BooleanObject, Some(Value::Object(members))) => members
                .iter()
                .filter(|(_, v)| v.as_bool() == Some(true))
                .map(|(k, _)| k.clone())
                .collect(),
            (CapabilityStyle::StringArray, Some(Value::Array(items))) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            (CapabilityStyle::Provider, Some(_)) => gated
                .into_iter()
                .filter(|c| self.declares(c, declaration))
                .map(str::to_owned)
                .collect(),
            _ => BTreeSet::new(),
        }
    }

    /// Whether `capability` is well formed for this style: a non-empty
    /// name, or for `provider` a path of non-empty member names whose `~`
    /// escapes are RFC 6901's.
    pub fn is_well_formed(&self, capability: &str) -> bool {
        if capability.is_empty() {
            return false;
        }
        match self.style {
            CapabilityStyle::BooleanObject | CapabilityStyle::StringArray => true,
            CapabilityStyle::Provider => capability.split('/').all(|segment| {
                !segment.is_empty() && {
                    let mut chars = segment.chars();
                    let mut ok = true;
                    while let Some(c) = chars.next() {
                        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                            ok = false;
                        }
                    }
                    ok
                }
            }),
        }
    }
}

/// A provider capability path as an RFC 6901 pointer.
fn provider_pointer(capability: &str) -> String {
    format!("/{capability}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::protocol::Manifest;

    fn manifest(style: &str) -> Manifest {
        serde_json::from_value(json!({
            "protocol": "p", "version": "1",
            "transport": {"framing": "content-length", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1024},
            "capabilities": {"method": "initialize", "pointer": "/capabilities", "style": style},
            "methods": {
                "initialize": {"kind": "request", "direction": "client-to-server"},
                "definition": {"kind": "request", "direction": "client-to-server", "capability": "definitionProvider"},
                "hover": {"kind": "request", "direction": "client-to-server", "capability": "hoverProvider"},
                "rename": {"kind": "request", "direction": "client-to-server", "capability": "renameProvider"},
                "prepareRename": {"kind": "request", "direction": "client-to-server", "capability": "renameProvider/prepareProvider"},
                "calls": {"kind": "request", "direction": "client-to-server", "capability": "callHierarchyProvider"},
                "tilde": {"kind": "request", "direction": "client-to-server", "capability": "a~1b"}
            }
        }))
        .expect("manifest")
    }

    #[test]
    fn provider_true_or_options_object_declares_absent_false_null_do_not() {
        let m = manifest("provider");
        let result = json!({"capabilities": {
            "definitionProvider": true,
            "hoverProvider": {"workDoneProgress": false},
            "renameProvider": {"prepareProvider": true},
            "callHierarchyProvider": null,
            "a/b": false
        }});
        assert!(m.capability_declared("initialize", &result));
        assert!(m.capability_declared("definition", &result));
        assert!(m.capability_declared("hover", &result));
        assert!(m.capability_declared("rename", &result));
        assert!(m.capability_declared("prepareRename", &result));
        assert!(!m.capability_declared("calls", &result));
        assert!(!m.capability_declared("tilde", &result));
        assert!(!m.capability_declared("no/such/method", &result));
        let names: Vec<String> = m.declared_capabilities(&result).into_iter().collect();
        assert_eq!(
            names,
            [
                "definitionProvider",
                "hoverProvider",
                "renameProvider",
                "renameProvider/prepareProvider"
            ]
        );
    }

    #[test]
    fn provider_nested_path_needs_the_options_object() {
        let m = manifest("provider");
        // `renameProvider: true` declares rename but not prepareRename.
        let result = json!({"capabilities": {"renameProvider": true, "definitionProvider": false, "hoverProvider": "yes"}});
        assert!(m.capability_declared("rename", &result));
        assert!(!m.capability_declared("prepareRename", &result));
        assert!(!m.capability_declared("definition", &result));
        assert!(
            !m.capability_declared("hover", &result),
            "a string is no provider"
        );
        // No declaration at all, or not an object: nothing is declared.
        assert!(!m.capability_declared("rename", &json!({})));
        assert!(!m.capability_declared("rename", &json!({"capabilities": [1]})));
        assert!(m.declared_capabilities(&json!(null)).is_empty());
        // An escaped `/` in a member name.
        assert!(m.capability_declared("tilde", &json!({"capabilities": {"a/b": true}})));
    }

    #[test]
    fn older_styles_keep_their_meaning() {
        let m = manifest("boolean-object");
        let result = json!({"capabilities": {"definitionProvider": true, "hoverProvider": {}}});
        assert!(m.capability_declared("definition", &result));
        assert!(
            !m.capability_declared("hover", &result),
            "boolean-object wants exactly true"
        );
        let m = manifest("string-array");
        let result = json!({"capabilities": ["hoverProvider", 3]});
        assert!(m.capability_declared("hover", &result));
        assert!(!m.capability_declared("definition", &result));
        assert_eq!(m.declared_capabilities(&result).len(), 1);
    }

    #[test]
    fn provider_paths_are_checked_for_form() {
        let m = manifest("provider");
        let caps = m.capabilities.as_ref().expect("capabilities");
        assert!(caps.is_well_formed("definitionProvider"));
        assert!(caps.is_well_formed("renameProvider/prepareProvider"));
        assert!(caps.is_well_formed("a~0b~1c"));
        for bad in ["", "/definitionProvider", "a//b", "a/", "a~2", "a~"] {
            assert!(!caps.is_well_formed(bad), "{bad:?}");
        }
    }
}
