//! Validation of messages by method: params, results, streamed items and
//! error data checked against a protocol's schemas, then its semantic rules.
//!
//! The verdict is always the `jsonschema` crate's, and so are the issues,
//! except for a schema whose alternatives overlap recursively, where the
//! crate's error list could grow exponentially with the instance's depth:
//! such schemas are found when the protocol compiles (`overlap.rs`) and
//! reported along one path to the deepest failing place (`descent.rs`).
//!
//! ```
//! use wirekit::validate::{Part, Protocol};
//! use serde_json::json;
//!
//! let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").unwrap();
//! let issues = gzkit.validate("analyze", Part::Params, Some(&json!({})));
//! assert_eq!(issues[0].instance_path, "/file_path");
//! assert_eq!(issues[0].keyword(), "required");
//! ```

mod answer;
mod answers_check;
mod capabilities;
mod compiled;
mod consistency;
mod crate_errors;
mod descent;
mod issue;
mod overlap;
mod pointer;
mod report;
mod rules;
mod schema;
mod value_sets;

pub use compiled::Protocol;
pub use issue::{
    invalid_params, invalid_result, invalid_result_refused, invalid_result_warning, IssueKind,
    Part, ValidationIssue,
};
pub use rules::SESSION_RULES;
pub use schema::{Schema, SchemaError};
pub use value_sets::UnannouncedValue;
