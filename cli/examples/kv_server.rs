//! The tests' key-value store (`tests/conformance/kv/1`) on the Rust serve
//! loop: `kv_server SCHEMAS [FAULT]` serves it on stdin and stdout. With a
//! FAULT it breaks one rule the serve loop refuses on its behalf, so
//! `wirekit conformance` can show it fails what is wrong (issue 43):
//!
//! - `wrong-type-result`: `kv/put` answers `{"version": "1"}` (a string);
//! - `missing-member`: `kv/get` of a stored key answers `{}` (no `value`);
//! - `no-shutdown`: the handler does not implement `shutdown`;
//! - `invalid-notification`: `kv/changed` carries `"version": "1"`;
//! - `unknown-notification`: `kv/watch` also queues `kv/watching`, a
//!   notification the protocol does not have.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use wirekit::envelope::{ErrorObject, Notification};
use wirekit::protocol::Registry;
use wirekit::serve::{Handler, ServeOptions, Server};
use wirekit::validate::Protocol;

const FAULTS: [&str; 5] = [
    "wrong-type-result",
    "missing-member",
    "no-shutdown",
    "invalid-notification",
    "unknown-notification",
];

/// The store, and the one fault it was started with.
struct Store {
    fault: Option<String>,
    values: BTreeMap<String, (String, i64)>,
    watched: BTreeSet<String>,
    queued: Vec<Notification>,
}

impl Store {
    fn broken(&self, fault: &str) -> bool {
        self.fault.as_deref() == Some(fault)
    }
}

fn key_of(params: &Option<Value>) -> String {
    params
        .as_ref()
        .and_then(|p| p.get("key"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl Handler for Store {
    fn implements(&self, method: &str) -> bool {
        !(method == "shutdown" && self.broken("no-shutdown"))
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        let key = key_of(&params);
        match method {
            "initialize" => Ok(json!({"server": "kv"})),
            "kv/watch" => {
                if self.broken("unknown-notification") {
                    self.queued.push(Notification {
                        method: "kv/watching".to_owned(),
                        params: Some(json!({"key": key})),
                    });
                }
                self.watched.insert(key);
                Ok(json!({}))
            }
            "kv/put" => {
                let value = params
                    .as_ref()
                    .and_then(|p| p.get("value"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let version = self.values.get(&key).map_or(1, |(_, v)| v + 1);
                self.values.insert(key.clone(), (value, version));
                if self.watched.contains(&key) {
                    let version = if self.broken("invalid-notification") {
                        json!("1")
                    } else {
                        json!(version)
                    };
                    self.queued.push(Notification {
                        method: "kv/changed".to_owned(),
                        params: Some(json!({"key": key, "version": version})),
                    });
                }
                if self.broken("wrong-type-result") {
                    return Ok(json!({"version": version.to_string()}));
                }
                Ok(json!({"version": version}))
            }
            "kv/get" => match self.values.get(&key) {
                Some(_) if self.broken("missing-member") => Ok(json!({})),
                Some((value, _)) => Ok(json!({"value": value})),
                None => Err(ErrorObject {
                    code: -32004,
                    message: format!("no value under `{key}`"),
                    data: None,
                }),
            },
            "shutdown" => Ok(Value::Null),
            _ => Err(wirekit::serve::method_not_found(method)),
        }
    }

    fn take_notifications(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.queued)
    }
}

fn protocol(schemas: &Path) -> Result<Arc<Protocol>, String> {
    let registry = Registry::from_dir(schemas).map_err(|e| e.to_string())?;
    let source = registry.get("kv@1").map_err(|e| e.to_string())?.clone();
    Protocol::compile(source)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(schemas) = args.next() else {
        eprintln!("usage: kv_server SCHEMAS [{}]", FAULTS.join("|"));
        return std::process::ExitCode::from(2);
    };
    let fault = args.next();
    if let Some(fault) = fault.as_deref().filter(|f| !FAULTS.contains(f)) {
        eprintln!("kv_server: unknown fault `{fault}`");
        return std::process::ExitCode::from(2);
    }
    let protocol = match protocol(Path::new(&schemas)) {
        Ok(protocol) => protocol,
        Err(message) => {
            eprintln!("kv_server: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut store = Store {
        fault,
        values: BTreeMap::new(),
        watched: BTreeSet::new(),
        queued: Vec::new(),
    };
    let mut server = Server::new(protocol, ServeOptions::default());
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match server.serve(&mut store, stdin, stdout) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("kv_server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
