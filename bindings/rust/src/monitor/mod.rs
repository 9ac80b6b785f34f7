//! Checking captured sessions against a protocol (`wirekit validate`).
//!
//! A capture holds both directions of a session in one stream, in the order
//! the messages passed (as a tee of both pipes records them), framed as the
//! protocol frames them. [`SessionChecker`] judges both sides:
//!
//! * what the client sent: every part against its schema, the lifecycle,
//!   the capabilities and the protocol's stateful rules;
//! * what the server answered: each answer paired with its request by id,
//!   its result against its schema, and for every message the protocol
//!   refuses, the protocol's own error answer (code and `data` derived from
//!   the manifest's `server_errors`, lifecycle and version model) or a
//!   problem saying what came instead ([`ProblemKind::AcceptedInvalid`],
//!   [`ProblemKind::WrongError`], ...).
//!
//! The session state follows what the server actually answered: a server
//! that accepts an `initialize` the protocol refuses is reported once and
//! then followed as initialized. Every frame keeps one number from 0 (a
//! framing fault counts as a frame). Each [`Problem`] carries its frame,
//! kind, JSON pointer and a sentence naming the real cause.

mod answers;
mod checker;
mod judge;
mod problem;
mod refusal;
mod value_sets;

pub use checker::SessionChecker;
pub use judge::{judge, Judgement};
pub use problem::{Party, Problem, ProblemKind, Severity};
