//! Where every command finds the protocol `--protocol` names: a protocol
//! of one's own first, then the built-in ones.
//!
//! The folders searched, in order:
//!
//! 1. `--schemas DIR` when given, else the nearest `schemas/` folder in the
//!    current directory or one of its ancestors (as `wirekit generate`
//!    finds it);
//! 2. the protocols built into the command (`wirekit-protocols`).
//!
//! Only the named protocol's folder (`<schemas>/<name>/<version>/`) is read,
//! so a broken protocol beside it does not stop a command about another
//! one. A folder of one's own that holds a built-in protocol's name wins; a
//! one-line note says so unless its files are the built-in ones (a clone of
//! wirekit, whose `schemas/` is what is built in). A protocol found nowhere
//! is refused with a sentence naming the folders searched and `--schemas`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wirekit::protocol::{ProtocolSource, Registry, MANIFEST_FILE};
use wirekit::validate::Protocol;

/// The protocol versions of one name, and where they came from.
pub struct Found {
    /// Every version found of the protocol (one folder, or the built-in ones).
    pub registry: Registry,
    /// The `schemas/` folder it came from; `None`: built in.
    pub folder: Option<PathBuf>,
}

impl Found {
    /// The version `spec` names (`NAME` for the newest, `NAME@VERSION`), compiled.
    pub fn compile(&self, spec: &str) -> Result<Arc<Protocol>, String> {
        if self.folder.is_none() {
            return wirekit_protocols::protocol(spec).map_err(|e| e.to_string());
        }
        let source = self.source(spec)?;
        Protocol::compile(source)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }

    /// The source of the version `spec` names.
    pub fn source(&self, spec: &str) -> Result<ProtocolSource, String> {
        self.registry.get(spec).cloned().map_err(|e| e.to_string())
    }
}

/// The nearest `schemas/` folder in `start` or an ancestor.
pub fn nearest_schemas(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join("schemas"))
        .find(|dir| dir.is_dir())
}

/// The folder searched before the built-in protocols: `explicit`, else the
/// nearest `schemas/` of the current directory.
pub fn user_folder(explicit: Option<&Path>) -> Option<PathBuf> {
    match explicit {
        Some(dir) => Some(dir.to_path_buf()),
        None => std::env::current_dir()
            .ok()
            .and_then(|cwd| nearest_schemas(&cwd)),
    }
}

/// Finds the protocol `spec` (`NAME` or `NAME@VERSION`) names, for the
/// command `command` (its name in the note and errors).
pub fn find(spec: &str, explicit: Option<&Path>, command: &str) -> Result<Found, String> {
    let name = spec.split_once('@').map_or(spec, |(name, _)| name);
    let folder = user_folder(explicit);
    if let Some(dir) = &folder {
        if let Some(registry) = read_protocol(dir, name)? {
            if let Some(builtin) = builtin(name) {
                if same_sources(&registry, &builtin) {
                    // wirekit's own clone: the built-in protocol, compiled once.
                    return Ok(Found {
                        registry: builtin,
                        folder: None,
                    });
                }
                eprintln!(
                    "{command}: note: `{name}` is read from {} (it overrides the built-in protocol of that name)",
                    dir.join(name).display()
                );
            }
            return Ok(Found {
                registry,
                folder: Some(dir.clone()),
            });
        }
        if explicit.is_some() && !dir.is_dir() {
            return Err(format!("--schemas {}: no such folder", dir.display()));
        }
    }
    if let Some(registry) = builtin(name) {
        return Ok(Found {
            registry,
            folder: None,
        });
    }
    let known = wirekit_protocols::registry()
        .map(|r| r.names().collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let searched = match (&folder, explicit) {
        (Some(dir), Some(_)) => format!("{} (--schemas)", dir.join(name).display()),
        (Some(dir), None) => format!("{} (the nearest `schemas/`)", dir.join(name).display()),
        (None, _) => "no `schemas/` folder here or in a parent folder".to_owned(),
    };
    Err(format!(
        "no protocol `{name}`: searched {searched}, then the built-in protocols ({known}); \
         a protocol of your own is a folder `schemas/{name}/<version>/` holding {MANIFEST_FILE} \
         (`wirekit init {name}` writes one), found from the current folder or any parent, \
         or pass --schemas DIR"
    ))
}

/// The versions of `name` in `dir` (`<dir>/<name>/<version>/protocol.json`),
/// or `None` when `dir` has no such protocol folder.
fn read_protocol(dir: &Path, name: &str) -> Result<Option<Registry>, String> {
    let folder = dir.join(name);
    if name.is_empty() || name.contains(['/', '\\']) || !folder.is_dir() {
        return Ok(None);
    }
    let entries =
        std::fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let mut versions: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().join(MANIFEST_FILE).is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    if versions.is_empty() {
        return Ok(None);
    }
    versions.sort();
    let mut registry = Registry::default();
    for version in versions {
        let origin = format!("{name}/{version}");
        let source = ProtocolSource::from_dir(&folder.join(&version), &origin)
            .map_err(|e| format!("{e} (in {})", dir.display()))?;
        registry
            .insert(source)
            .map_err(|e| format!("{e} (in {})", dir.display()))?;
    }
    Ok(Some(registry))
}

/// The built-in versions of `name`.
fn builtin(name: &str) -> Option<Registry> {
    let all = wirekit_protocols::registry().ok()?;
    let mut registry = Registry::default();
    let mut any = false;
    for source in all.iter().filter(|s| s.manifest.protocol == name) {
        registry.insert(source.clone()).ok()?;
        any = true;
    }
    any.then_some(registry)
}

/// Whether two registries hold the same versions with the same files.
fn same_sources(a: &Registry, b: &Registry) -> bool {
    let a: Vec<&ProtocolSource> = a.iter().collect();
    let b: Vec<&ProtocolSource> = b.iter().collect();
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x.origin == y.origin && x.manifest_json == y.manifest_json && x.files == y.files
        })
}
