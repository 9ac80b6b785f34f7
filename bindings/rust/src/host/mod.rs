//! Driving a server subprocess: [`Host`] spawns it, checks every call
//! before sending (lifecycle, capability, params) and every result after,
//! and cancels (where the protocol says how) or kills a request that gets
//! no answer within the method's timeout. [`end_process`] ends a server
//! with the protocol's exit sequence.
//! It answers the server's own requests at once (see [`ServerRequest`]).
//! It is also the [`Transport`](crate::typed::Transport) of the generated
//! typed clients.

mod answers;
mod client;
mod data;
mod data_plane;
mod error;
mod exit;
mod follow;
mod record;
mod requests;
mod server_request;
mod transport;

pub use answers::{error_json, Answers};
pub use client::{Host, DEFAULT_TIMEOUT, NOTIFICATIONS_KEPT};
pub use data_plane::{DataPlaneOffer, DataSink};
pub use error::{HostError, HostErrorKind};
pub use exit::{end_process, wait_for_exit, Ending};
pub use follow::Notifications;
pub use record::{keep_stderr_tail, record, Recorder, Recording, TeeWriter};
pub use server_request::{RequestHandler, ServerRequest, SERVER_REQUESTS_KEPT};
