//! What a server serves: how a handler of each client method is called
//! (a request, a streamed result, a notification), and the capabilities a
//! server declares for the methods it handles. The bindings' services ask
//! here instead of reading the manifest themselves.

use serde_json::{Map, Value};

use super::capabilities::CapabilityStyle;
use super::manifest::{Manifest, MethodKind};

/// How the handler of a client method is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// A request answered with one result.
    Request,
    /// A request whose result is a stream of items (`result_stream`).
    Stream,
    /// A notification: no answer.
    Notification,
}

impl Served {
    /// `request`, `stream` or `notification`.
    pub fn name(self) -> &'static str {
        match self {
            Served::Request => "request",
            Served::Stream => "stream",
            Served::Notification => "notification",
        }
    }
}

impl Manifest {
    /// How a server's handler of `method` is called, for a method the
    /// client sends; `None` for a method the protocol lacks or that the
    /// server sends.
    pub fn served(&self, method: &str) -> Option<Served> {
        let spec = self.methods.get(method)?;
        if !spec.direction.client_sends() {
            return None;
        }
        Some(match spec.kind {
            MethodKind::Notification => Served::Notification,
            MethodKind::Request if spec.result_stream.is_some() => Served::Stream,
            MethodKind::Request => Served::Request,
        })
    }

    /// The methods a client sends, in the manifest's order, each with how
    /// a server's handler of it is called.
    pub fn served_methods(&self) -> impl Iterator<Item = (&str, Served)> + '_ {
        self.methods
            .keys()
            .filter_map(|name| self.served(name).map(|served| (name.as_str(), served)))
    }

    /// The version a server of this protocol declares: the one version
    /// negotiation compares the client's with, else the protocol's own.
    pub fn server_version(&self) -> &str {
        self.version_negotiation
            .as_ref()
            .map_or(self.version.as_str(), |v| v.server_version.as_str())
    }

    /// The capability declaration (the value at the capabilities pointer)
    /// of a server that handles the methods for which `handles` is true;
    /// `None` when the protocol declares no capabilities.
    ///
    /// - `boolean-object`: each capability `true` exactly when one of its
    ///   methods is handled;
    /// - `string-array`: the capability names (a method's own name when it
    ///   has none) of the handled requests, in the manifest's order, but for
    ///   the declaring method and the one that ends the session;
    /// - `provider` (LSP): each handled method's provider path set to
    ///   `true`, an options object where a deeper path needs one.
    pub fn capabilities_for(&self, handles: &dyn Fn(&str) -> bool) -> Option<Value> {
        let spec = self.capabilities.as_ref()?;
        let gated = || {
            self.methods
                .iter()
                .filter(|(_, m)| m.capability_of.in_server_declaration())
                .filter_map(|(name, m)| m.capability.as_deref().map(|c| (name.as_str(), c)))
        };
        Some(match spec.style {
            CapabilityStyle::BooleanObject => {
                let mut flags = Map::new();
                for (name, capability) in gated() {
                    let on = handles(name)
                        || flags.get(capability).and_then(Value::as_bool) == Some(true);
                    flags.insert(capability.to_owned(), Value::Bool(on));
                }
                Value::Object(flags)
            }
            CapabilityStyle::StringArray => {
                let mut names: Vec<Value> = Vec::new();
                for (name, method) in &self.methods {
                    let ends = method.lifecycle.as_ref().is_some_and(|l| l.ends_session);
                    let served = method.kind == MethodKind::Request
                        && method.direction.client_sends()
                        && method.capability_of.in_server_declaration();
                    if *name == spec.method || ends || !served {
                        continue;
                    }
                    if !handles(name) {
                        continue;
                    }
                    let declared = Value::from(method.capability.as_deref().unwrap_or(name));
                    if !names.contains(&declared) {
                        names.push(declared);
                    }
                }
                Value::Array(names)
            }
            CapabilityStyle::Provider => {
                let mut providers = Map::new();
                for (name, capability) in gated() {
                    if handles(name) {
                        set_provider(&mut providers, capability);
                    }
                }
                Value::Object(providers)
            }
        })
    }
}

/// Sets the provider path `capability` (`renameProvider/prepareProvider`)
/// to `true` in `providers`, making options objects on the way; a path
/// already holding an options object keeps it.
fn set_provider(providers: &mut Map<String, Value>, capability: &str) {
    let path: Vec<String> = capability
        .split('/')
        .map(|part| part.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = providers;
    for part in parents {
        let inner = at
            .entry(part.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !inner.is_object() {
            *inner = Value::Object(Map::new());
        }
        let Value::Object(next) = inner else {
            return;
        };
        at = next;
    }
    if !at.get(last).is_some_and(Value::is_object) {
        at.insert(last.clone(), Value::Bool(true));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn manifest(style: &str, methods: Value) -> Manifest {
        serde_json::from_value(json!({
            "protocol": "p", "version": "1",
            "transport": {"framing": "content-length", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1024},
            "capabilities": {"method": "initialize", "pointer": "/capabilities", "style": style},
            "methods": methods,
        }))
        .expect("a manifest")
    }

    fn methods() -> Value {
        json!({
            "initialize": {"kind": "request", "direction": "client-to-server"},
            "analyze": {"kind": "request", "direction": "client-to-server"},
            "stream": {"kind": "request", "direction": "client-to-server", "capability": "streaming",
                       "result_stream": {"$ref": "s.json#/$defs/Item"}},
            "discover": {"kind": "request", "direction": "client-to-server", "capability": "discover"},
            "progress": {"kind": "notification", "direction": "server-to-client"},
            "cancel": {"kind": "notification", "direction": "client-to-server"},
            "shutdown": {"kind": "request", "direction": "client-to-server", "lifecycle": {"ends_session": true}},
        })
    }

    #[test]
    fn each_client_method_is_served_as_its_kind() {
        let m = manifest("string-array", methods());
        let served: Vec<(&str, &str)> = m.served_methods().map(|(n, s)| (n, s.name())).collect();
        assert_eq!(
            served,
            [
                ("initialize", "request"),
                ("analyze", "request"),
                ("stream", "stream"),
                ("discover", "request"),
                ("cancel", "notification"),
                ("shutdown", "request"),
            ]
        );
        assert_eq!(m.served("progress"), None, "the server sends it");
        assert_eq!(m.served("nothing"), None);
        assert_eq!(
            m.server_version(),
            "1",
            "no negotiation: the protocol's version"
        );
    }

    #[test]
    fn capabilities_for_each_style() {
        let handled = |name: &str| matches!(name, "analyze" | "stream" | "shutdown");
        let array = manifest("string-array", methods());
        assert_eq!(
            array.capabilities_for(&handled),
            Some(json!(["analyze", "streaming"]))
        );
        let flags = manifest("boolean-object", methods());
        assert_eq!(
            flags.capabilities_for(&handled),
            Some(json!({"streaming": true, "discover": false}))
        );
        let lsp = manifest(
            "provider",
            json!({
                "initialize": {"kind": "request", "direction": "client-to-server"},
                "textDocument/hover": {"kind": "request", "direction": "client-to-server", "capability": "hoverProvider"},
                "textDocument/rename": {"kind": "request", "direction": "client-to-server", "capability": "renameProvider"},
                "textDocument/prepareRename": {"kind": "request", "direction": "client-to-server", "capability": "renameProvider/prepareProvider"},
                "textDocument/definition": {"kind": "request", "direction": "client-to-server", "capability": "definitionProvider"},
            }),
        );
        let served = |name: &str| name != "textDocument/definition";
        assert_eq!(
            lsp.capabilities_for(&served),
            Some(json!({"hoverProvider": true, "renameProvider": {"prepareProvider": true}}))
        );
        let mut none = manifest("string-array", methods());
        none.capabilities = None;
        assert_eq!(none.capabilities_for(&handled), None);
    }
}
