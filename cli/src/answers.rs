//! `--answers FILE` of `wirekit drive` and `wirekit conformance`: canned
//! answers to the server's requests, read from a file and checked against
//! the protocol by the core ([`wirekit::host::Answers`], where the format
//! is described): a mistake is refused before the server starts, naming
//! the file and the method.

use std::path::Path;

use serde_json::Value;
use wirekit::validate::Protocol;

pub use wirekit::host::{error_json, Answers};

/// Reads and checks `path` against `protocol`; the manifest's answers
/// for the methods it leaves out.
pub fn read(path: &Path, protocol: &Protocol) -> Result<Answers, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    Answers::from_json(&value, protocol).map_err(|why| format!("{}: {why}", path.display()))
}
