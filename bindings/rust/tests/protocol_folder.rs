//! A protocol folder from someone else: it reads only files inside itself,
//! and a manifest member the model does not know is refused with its place,
//! at every level, instead of being ignored.

// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use wirekit::protocol::{ProtocolErrorKind, ProtocolSource};

/// A fresh folder, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir =
            std::env::temp_dir().join(format!("wirekit-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p/1")).unwrap();
        Folder(dir)
    }

    fn version(&self) -> PathBuf {
        self.0.join("p/1")
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn manifest(schemas: Value) -> Value {
    json!({
        "protocol": "p",
        "version": "1",
        "title": "p",
        "description": "a test protocol",
        "roles": {"client": "c", "server": "s"},
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "strict": false, "max_frame_bytes": 1024},
        "schemas": schemas,
        "methods": {
            "ping": {"kind": "request", "direction": "client-to-server", "description": "ping",
                     "params": {"$ref": "p.json#/$defs/Empty"}, "result": {"$ref": "p.json#/$defs/Empty"}}
        }
    })
}

fn write(dir: &Path, name: &str, value: &Value) {
    std::fs::write(dir.join(name), serde_json::to_string_pretty(value).unwrap()).unwrap();
}

const SCHEMA: &str = r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"Empty": {"type": "object"}}}"#;

#[test]
fn a_folder_that_lists_its_own_files_loads() {
    let folder = Folder::new("own");
    write(
        &folder.version(),
        "protocol.json",
        &manifest(json!(["p.json"])),
    );
    std::fs::write(folder.version().join("p.json"), SCHEMA).unwrap();
    let source = ProtocolSource::from_dir(&folder.version(), "p/1").unwrap();
    assert_eq!(source.manifest.protocol, "p");
}

#[test]
fn a_schema_path_out_of_the_folder_is_refused_before_it_is_read() {
    for (name, listed) in [
        ("dotdot", "../../../../etc/passwd"),
        ("absolute", "/etc/hostname"),
        ("inner-dotdot", "sub/../../p.json"),
        ("backslash", "..\\secret.json"),
    ] {
        let folder = Folder::new(name);
        write(
            &folder.version(),
            "protocol.json",
            &manifest(json!(["p.json", listed])),
        );
        std::fs::write(folder.version().join("p.json"), SCHEMA).unwrap();
        let error = ProtocolSource::from_dir(&folder.version(), "p/1").unwrap_err();
        assert_eq!(
            error.kind(),
            ProtocolErrorKind::OutsideFolder,
            "{listed}: {error}"
        );
        assert_eq!(error.pointer(), "/schemas/1", "{listed}");
        assert!(error.to_string().contains(listed), "{error}");
    }
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_folder_is_refused() {
    let folder = Folder::new("symlink");
    let outside = folder.0.join("outside.json");
    std::fs::write(&outside, SCHEMA).unwrap();
    std::os::unix::fs::symlink(&outside, folder.version().join("p.json")).unwrap();
    write(
        &folder.version(),
        "protocol.json",
        &manifest(json!(["p.json"])),
    );
    let error = ProtocolSource::from_dir(&folder.version(), "p/1").unwrap_err();
    assert_eq!(error.kind(), ProtocolErrorKind::OutsideFolder, "{error}");
    assert!(
        error
            .to_string()
            .contains("leads out of the protocol's folder"),
        "{error}"
    );
}

#[test]
fn an_unknown_manifest_member_is_refused_at_every_level() {
    let cases = [
        ("/dialect", {
            let mut m = manifest(json!(["p.json"]));
            m["dialect"] = json!("https://json-schema.org/draft/2019-09/schema");
            m
        }),
        ("/transport/framming", {
            let mut m = manifest(json!(["p.json"]));
            m["transport"]["framming"] = json!("ndjson");
            m
        }),
        ("/methods/ping/lifecyle", {
            let mut m = manifest(json!(["p.json"]));
            m["methods"]["ping"]["lifecyle"] = json!({"allowed_in": ["ready"]});
            m
        }),
    ];
    for (place, value) in cases {
        let folder = Folder::new("unknown");
        write(&folder.version(), "protocol.json", &value);
        std::fs::write(folder.version().join("p.json"), SCHEMA).unwrap();
        let error = ProtocolSource::from_dir(&folder.version(), "p/1").unwrap_err();
        assert_eq!(
            error.kind(),
            ProtocolErrorKind::BadManifest,
            "{place}: {error}"
        );
        assert_eq!(error.pointer(), place, "{error}");
        let member = place.rsplit('/').next().unwrap();
        assert!(
            error
                .to_string()
                .contains(&format!("unknown field `{member}`")),
            "{place}: {error}"
        );
    }
    // `$schema` and `$comment` are for editors and people: accepted.
    let folder = Folder::new("dollar");
    let mut m = manifest(json!(["p.json"]));
    m["$schema"] = json!("../../wirekit-protocol.schema.json");
    m["$comment"] = json!("a comment");
    write(&folder.version(), "protocol.json", &m);
    std::fs::write(folder.version().join("p.json"), SCHEMA).unwrap();
    assert!(ProtocolSource::from_dir(&folder.version(), "p/1").is_ok());
}
