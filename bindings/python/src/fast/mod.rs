//! The two hot paths, without an intermediate `serde_json::Value`:
//!
//! * [`JsonWriter`] (`writer`): Python objects straight to compact JSON
//!   bytes, written exactly as `serde_json` writes the equal `Value`;
//! * [`PySeed`] (`parser`): JSON text straight to Python objects in one
//!   `serde_json` pass.
//!
//! Both give up (`None` / an error) on anything unusual; callers then take
//! the general path, which reports the problem precisely.

mod escape;
mod names;
mod parser;
mod writer;

pub use parser::{PySeed, SeedContext};
pub(crate) use writer::raw_json;
pub use writer::{Checked, JsonWriter};
