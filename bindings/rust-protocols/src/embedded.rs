//! The shipped protocols' manifests and schemas, embedded in the crate
//! (`generated/schemas.rs`, kept in step with `schemas/` by the drift test),
//! loaded and compiled once per process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use wirekit::protocol::{ProtocolError, Registry};
use wirekit::validate::Protocol;

use crate::generated::schemas::FILES;

/// The manifest's meta-schema (`schemas/wirekit-protocol.schema.json`) as
/// JSON text: what a `protocol.json` must look like, for tools that lint a
/// protocol folder of one's own.
pub fn manifest_schema() -> &'static str {
    crate::generated::manifest_schema::MANIFEST_SCHEMA
}

/// Every shipped protocol version (the repository's `schemas/`), loaded once.
pub fn registry() -> Result<&'static Registry, ProtocolError> {
    static REGISTRY: OnceLock<Result<Registry, ProtocolError>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| Registry::from_files(FILES.iter().copied()))
        .as_ref()
        .map_err(Clone::clone)
}

/// A shipped protocol compiled into validators (`name` for its newest
/// version, `name@version` for one), once per process.
pub fn protocol(spec: &str) -> Result<Arc<Protocol>, ProtocolError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Protocol>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().ok().and_then(|map| map.get(spec).cloned()) {
        return Ok(found);
    }
    let protocol = Arc::new(Protocol::compile(registry()?.get(spec)?.clone())?);
    if let Ok(mut map) = cache.lock() {
        map.insert(spec.to_owned(), Arc::clone(&protocol));
    }
    Ok(protocol)
}
