//! Checking captured sessions against a protocol (`wirekit validate`).
//!
//! A capture holds both directions of a session in one stream, in the order
//! the messages passed (as a tee of both pipes records them), framed as the
//! protocol frames them. [`SessionChecker`] pairs responses with requests by
//! id, validates every part against its schema, runs the lifecycle and the
//! protocol's stateful rules, and reports each [`Problem`] with its frame
//! index and JSON pointer.

mod checker;
mod problem;

pub use checker::SessionChecker;
pub use problem::{Problem, ProblemKind};
