//! Bindings for a project of one's own (`wirekit generate --out DIR`):
//! the same types as the shipped bindings, plus the protocol's files
//! embedded and a typed server stub, written for use outside wirekit's
//! repository, against the published packages only.
//!
//! * Python: a package (`<package>/__init__.py`, `py.typed`, one module a
//!   protocol) importing only `wirekit`'s public API: the `TypedDict`s, the
//!   manifest and schemas embedded (`protocol()` compiles them with the
//!   installed wheel's core, no file read at run time) and a server base
//!   class, `<Name>Server(wirekit.Service)`, with one typed `on_<method>`
//!   a request or notification the client sends and one typed
//!   `notify_<method>` a notification the server sends.
//! * TypeScript: one `.ts` file a protocol: the types and method maps, the
//!   descriptor compiled at load time from the embedded files
//!   (`protocolFromFiles` of `@wirekit/protocols`: types, descriptor and
//!   validators in one step) and the typed handlers of a server.
//! * Rust: one module a protocol plus `mod.rs`, compiling in a crate that
//!   depends on `wirekit`, `serde` and `serde_json` (and `regress` when a
//!   schema has a `pattern`): the typify types, the typed server trait and
//!   client, and `protocol()` from the embedded files.
//! * Docs and OpenRPC: the same documents as for the shipped protocols.
//!
//! Paths are relative to the target's own output folder.

use std::path::{Path, PathBuf};

use crate::naming;
use crate::protocol::{Method, Protocol};
use crate::text::{json_string, python_docstring};
use crate::{GeneratedFile, Result, Target};
use wirekit::protocol::{MethodKind, MANIFEST_FILE};

/// The default Python package name.
pub const DEFAULT_PACKAGE: &str = "wirekit_bindings";

/// Every file of `target` for `protocols`, relative to the target's folder.
pub fn generate(
    protocols: &[Protocol],
    target: Target,
    package: &str,
) -> Result<Vec<GeneratedFile>> {
    let mut out = Vec::new();
    match target {
        Target::Python => {
            for p in protocols {
                let typed = single(crate::python::generate(p)?)?;
                out.push(file(
                    format!("{package}/{}.py", p.module),
                    format!("{typed}{}", python_tail(p)?),
                ));
            }
            out.push(file(
                format!("{package}/__init__.py"),
                python_init(protocols),
            ));
            out.push(file(format!("{package}/py.typed"), String::new()));
        }
        Target::TypeScript => {
            for p in protocols {
                // The types module; the shipped descriptor (which imports the
                // package's own validators) is replaced by `protocolFromFiles`.
                let typed = crate::typescript::generate(p)?
                    .into_iter()
                    .find(|f| f.path.extension().is_some_and(|e| e == "ts"))
                    .map(|f| f.contents)
                    .unwrap_or_default();
                out.push(file(
                    format!("{}.ts", p.module),
                    format!("{typed}{}", typescript_tail(p)?),
                ));
            }
        }
        Target::Rust => {
            for p in protocols {
                let module = crate::rust::module(p, "::wirekit")?;
                out.push(file(
                    format!("{}.rs", p.module),
                    format!("{module}{}", rust_tail(p)?),
                ));
            }
            out.push(file("mod.rs".into(), rust_mod(protocols)));
        }
        Target::Docs | Target::OpenRpc => {
            for p in protocols {
                let files = match target {
                    Target::Docs => crate::docs::generate(p)?,
                    _ => crate::openrpc::generate(p)?,
                };
                for f in files {
                    let name = f.path.file_name().map(Path::new).unwrap_or(&f.path);
                    out.push(file(name.display().to_string(), f.contents));
                }
            }
        }
    }
    Ok(out)
}

fn file(path: String, contents: String) -> GeneratedFile {
    GeneratedFile {
        path: PathBuf::from(path),
        contents,
    }
}

fn single(files: Vec<GeneratedFile>) -> Result<String> {
    Ok(files
        .into_iter()
        .next()
        .map(|f| f.contents)
        .unwrap_or_default())
}

/// `(name, JSON text)` of the manifest and every schema file of `p`.
fn embedded_files(p: &Protocol) -> Result<Vec<(String, String)>> {
    let mut files = vec![(MANIFEST_FILE.to_owned(), pretty(&p.manifest_json)?)];
    for f in &p.files {
        files.push((f.name.clone(), pretty(&f.json)?));
    }
    Ok(files)
}

fn pretty(value: &serde_json::Value) -> Result<String> {
    serde_json::to_string_pretty(value).map_err(|e| {
        crate::Error::new(
            crate::ErrorKind::Format,
            format!("cannot write a schema as JSON: {e}"),
        )
    })
}

/// `put` → `put`, `kv/put` → `kv_put`, `$/cancelRequest` → `cancel_request`.
fn snake_method(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let snake = naming::snake(&cleaned);
    let trimmed = snake.trim_matches('_');
    let mut out = String::new();
    for part in trimmed.split('_').filter(|s| !s.is_empty()) {
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(part);
    }
    if out.is_empty() {
        "method".into()
    } else {
        out
    }
}

fn is_request(m: &Method) -> bool {
    m.spec.kind != MethodKind::Notification
}

fn python_type(name: &Option<String>) -> String {
    name.as_deref()
        .map_or_else(|| "_Any".to_owned(), naming::python_type_name)
}

/// What follows the types in a Python module: the embedded files,
/// `protocol()` and the server base class.
fn python_tail(p: &Protocol) -> Result<String> {
    let class = format!("{}Server", naming::pascal(&p.name));
    let mut text = String::new();
    text.push_str(
        "\n\n# The protocol's files, embedded: `protocol()` reads no file at run time.\n\n",
    );
    text.push_str("import json as _json\nfrom collections.abc import Iterable as _Iterable\n");
    text.push_str(
        "from functools import lru_cache as _lru_cache\nfrom typing import Any as _Any\n\n",
    );
    text.push_str("import wirekit as _wirekit\n\n");
    text.push_str("_FILES: Final[dict[str, str]] = {\n");
    for (name, json) in embedded_files(p)? {
        text.push_str(&format!(
            "    {}: {},\n",
            json_string(&name),
            json_string(&json)
        ));
    }
    text.push_str("}\n\n\n");
    text.push_str("@_lru_cache(maxsize=None)\ndef protocol() -> _wirekit.Protocol:\n");
    text.push_str(&format!(
        "    \"\"\"{}\"\"\"\n",
        python_docstring(
            &format!(
                "The `{}` protocol, version {}, compiled by wirekit's core from the embedded files (once).",
                p.name, p.version
            ),
            "    "
        )
    ));
    text.push_str("    files = {name: _json.loads(text) for name, text in _FILES.items()}\n");
    text.push_str(&format!(
        "    manifest = files.pop({})\n",
        json_string(MANIFEST_FILE)
    ));
    text.push_str(&format!(
        "    return _wirekit.Protocol.from_manifest(manifest, files, origin={})\n\n\n",
        json_string(&format!("{}/{}", p.name, p.version))
    ));
    let served: Vec<&Method> = p
        .methods
        .iter()
        .filter(|m| m.spec.direction.client_sends())
        .collect();
    let sent: Vec<&Method> = p
        .methods
        .iter()
        .filter(|m| !is_request(m) && m.spec.direction.server_sends())
        .collect();
    text.push_str(&format!("class {class}(_wirekit.Service):\n"));
    text.push_str(&format!(
        "    \"\"\"{}\"\"\"\n\n",
        python_docstring(
            &format!(
                "A typed `{name}` server: subclass it, override the `on_...` methods you serve, then `run()`.\n\n\
                 Each `on_...` method handles the request or notification of its name, with the params \
                 and result the schemas give (checked by the core before and after the call); one that is \
                 not overridden is answered \"method not found\" and left out of `capabilities()`. \
                 `notify_...` sends a notification of the server's, checked first (`notify` raises \
                 `wirekit.ValidationError` naming the JSON pointer).",
                name = p.name
            ),
            "    "
        )
    ));
    let table = |methods: &[&Method], requests: bool| -> String {
        methods
            .iter()
            .filter(|m| is_request(m) == requests)
            .map(|m| {
                format!(
                    "        {}: {},\n",
                    json_string(&format!("on_{}", snake_method(&m.name))),
                    json_string(&m.name)
                )
            })
            .collect()
    };
    let dict = |rows: String| {
        if rows.is_empty() {
            "{}".to_owned()
        } else {
            format!("{{\n{rows}    }}")
        }
    };
    text.push_str(&format!(
        "    _REQUESTS: Final[dict[str, str]] = {}\n",
        dict(table(&served, true))
    ));
    text.push_str(&format!(
        "    _NOTIFICATIONS: Final[dict[str, str]] = {}\n\n",
        dict(table(&served, false))
    ));
    text.push_str(
        "    def __init__(self, *, result_check: _wirekit.service.ResultCheck = \"reject\", exit_promptly: bool = False) -> None:\n",
    );
    text.push_str("        super().__init__(protocol(), result_check=result_check, exit_promptly=exit_promptly)\n");
    text.push_str(&format!(
        "        for attribute, method in self._REQUESTS.items():\n\
         \x20           if getattr(type(self), attribute) is not getattr({class}, attribute):\n\
         \x20               self.register(method, getattr(self, attribute))\n\
         \x20       for attribute, method in self._NOTIFICATIONS.items():\n\
         \x20           if getattr(type(self), attribute) is not getattr({class}, attribute):\n\
         \x20               self.notification(method)(getattr(self, attribute))\n"
    ));
    for m in &served {
        let attribute = format!("on_{}", snake_method(&m.name));
        let params = python_type(&m.params);
        let returns = if !is_request(m) {
            "None".to_owned()
        } else if let Some(item) = &m.result_stream {
            format!("_Iterable[{}]", naming::python_type_name(item))
        } else {
            python_type(&m.result)
        };
        let what = if is_request(m) {
            "request"
        } else {
            "notification"
        };
        let mut doc = format!("Handles the {what} `{}`.", m.name);
        if let Some(d) = m.description() {
            doc.push_str("\n\n");
            doc.push_str(d);
        }
        text.push_str(&format!(
            "\n    def {attribute}(self, params: {params}) -> {returns}:\n        \"\"\"{}\"\"\"\n        raise NotImplementedError({})\n",
            python_docstring(&doc, "        "),
            json_string(&m.name)
        ));
    }
    for m in &sent {
        let params = python_type(&m.params);
        let mut doc = format!(
            "Sends the notification `{}`, checked against its schema first.",
            m.name
        );
        if let Some(d) = m.description() {
            doc.push_str("\n\n");
            doc.push_str(d);
        }
        text.push_str(&format!(
            "\n    def notify_{}(self, params: {params}) -> None:\n        \"\"\"{}\"\"\"\n        self.notify({}, params)\n",
            snake_method(&m.name),
            python_docstring(&doc, "        "),
            json_string(&m.name)
        ));
    }
    Ok(text)
}

fn python_init(protocols: &[Protocol]) -> String {
    let mut modules: Vec<&str> = protocols.iter().map(|p| p.module.as_str()).collect();
    modules.sort();
    let listed: Vec<String> = protocols
        .iter()
        .map(|p| format!("- `{}`: `{}` version {}", p.module, p.name, p.version))
        .collect();
    format!(
        "{}\n\"\"\"Bindings of one's own protocols, generated from their schemas:\n\n{}\n\"\"\"\n\n__all__ = [{}]\n",
        crate::header("#"),
        listed.join("\n"),
        modules
            .iter()
            .map(|m| json_string(m))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// What follows the types in a TypeScript file: the descriptor from the
/// embedded files and the server's handler type.
fn typescript_tail(p: &Protocol) -> Result<String> {
    let map = naming::pascal(&p.name);
    let maps = format!("{map}Requests, {map}Notifications, {map}ServerNotifications");
    let mut text = String::new();
    text.push_str("\nimport { protocolFromFiles, type ProtocolDescriptor, type ServerHandlers } from \"@wirekit/protocols\";\n\n");
    text.push_str(
        "/** The protocol's files, embedded: the descriptor reads no file at run time. */\n",
    );
    text.push_str("const files: Readonly<Record<string, string>> = {\n");
    for (name, json) in embedded_files(p)? {
        text.push_str(&format!(
            "  {}: {},\n",
            json_string(&name),
            json_string(&json)
        ));
    }
    text.push_str("};\n\n");
    text.push_str(&format!(
        "/** The `{}` protocol, version {}, compiled when this module loads: transport, methods, lifecycle and the schema validators. */\n",
        p.name, p.version
    ));
    text.push_str(&format!(
        "export const descriptor: ProtocolDescriptor<{maps}> = protocolFromFiles<{maps}>(files);\n\n"
    ));
    text.push_str(&format!(
        "/** The handlers of a `{}` server, typed by the method maps. */\nexport type {map}Handlers = ServerHandlers<{maps}>;\n",
        p.name
    ));
    Ok(text)
}

/// What follows a Rust module: the embedded files and `protocol()`.
fn rust_tail(p: &Protocol) -> Result<String> {
    let origin = format!("{}/{}", p.name, p.version);
    let mut text = String::from(
        "\n/// The protocol's manifest and schema files, embedded: `(path, JSON text)`.\n\
         pub static FILES: &[(&str, &str)] = &[\n",
    );
    for (name, json) in embedded_files(p)? {
        let mut hashes = String::from("#");
        while json.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        text.push_str(&format!(
            "    (\n        {},\n        r{hashes}\"{json}\"{hashes},\n    ),\n",
            json_string(&format!("{origin}/{name}"))
        ));
    }
    text.push_str("];\n\n");
    text.push_str(
        "/// The protocol compiled by wirekit's core from [`FILES`], once per process.\n\
         pub fn protocol() -> ::std::result::Result<\n\
         \x20   ::std::sync::Arc<::wirekit::validate::Protocol>,\n\
         \x20   ::wirekit::protocol::ProtocolError,\n\
         > {\n\
         \x20   type Compiled = ::std::result::Result<\n\
         \x20       ::std::sync::Arc<::wirekit::validate::Protocol>,\n\
         \x20       ::wirekit::protocol::ProtocolError,\n\
         \x20   >;\n\
         \x20   static COMPILED: ::std::sync::OnceLock<Compiled> = ::std::sync::OnceLock::new();\n\
         \x20   COMPILED\n\
         \x20       .get_or_init(|| {\n\
         \x20           let registry = ::wirekit::protocol::Registry::from_files(FILES.iter().copied())?;\n\
         \x20           let source = registry.get(&format!(\"{PROTOCOL}@{VERSION}\"))?.clone();\n\
         \x20           Ok(::std::sync::Arc::new(::wirekit::validate::Protocol::compile(source)?))\n\
         \x20       })\n\
         \x20       .clone()\n\
         }\n",
    );
    Ok(text)
}

fn rust_mod(protocols: &[Protocol]) -> String {
    let mut modules: Vec<&str> = protocols.iter().map(|p| p.module.as_str()).collect();
    modules.sort();
    let mut text = format!(
        "{}\n//! Bindings of one's own protocols, generated from their schemas: one module a\n\
         //! protocol (types, a typed server trait and client, `protocol()`).\n\n",
        crate::header("//")
    );
    for m in modules {
        // What a program does not use of a protocol is no warning of its.
        text.push_str(&format!("#[allow(dead_code)]\npub mod {m};\n"));
    }
    text
}
