//! The session: a lifecycle state machine driven by a protocol's manifest.
//!
//! A server asks [`Session::check`] before it dispatches a request, then
//! [`Session::admit`] once the params are valid (version negotiation and
//! the protocol's stateful rules), and tells the session
//! the outcome with [`Session::answered`]. An observer of both directions
//! (`wirekit validate`) does the same for each request it pairs with its
//! response, and calls [`Session::notify`] for notifications.

mod lifecycle;
mod scope;
mod violation;

pub use lifecycle::Session;
pub use violation::{Violation, ViolationKind};
