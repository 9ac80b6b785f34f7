//! Serving a protocol: a [`Handler`] answers methods, the [`Server`] does
//! everything else (framing, envelope, lifecycle, validation both ways).
//! What the loop refuses on the handler's behalf (an invalid result, a
//! notification it drops) is logged as one stable fault line
//! ([`RuntimeFault`]: `fault <kind> method=... pointer=... : ...`).

mod batching;
mod bound;
mod context;
mod fault;
mod handler;
mod outbox;
mod server;
mod wire;

pub use batching::Batching;
pub use bound::{over_bound, stream_failure, stream_failure_body, stream_failure_of};
pub use context::{AsPeer, Concurrency, ConcurrentHandler, Peer, PeerError, RequestContext};
pub use fault::RuntimeFault;
pub use handler::{method_not_found, Emit, Handler};
pub use outbox::{outbox, Inbox, Outbox, OutboxClosed};
pub use server::concurrent::QUEUED;
pub use server::{Flow, Logger, ResultCheck, ServeOptions, ServeOutcome, Server};
pub use wire::{InPlaceFrame, Wire, WireError};
