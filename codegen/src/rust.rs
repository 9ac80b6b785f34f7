//! stub
use crate::{GeneratedFile, Protocol, Result};
/// stub
pub fn generate(_p: &Protocol) -> Result<Vec<GeneratedFile>> { Ok(vec![]) }
/// stub
pub fn index(_p: &[Protocol]) -> Result<GeneratedFile> { Ok(GeneratedFile { path: "x".into(), contents: String::new() }) }
