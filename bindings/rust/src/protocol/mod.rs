//! Protocols described as data: a manifest (`protocol.json`) and JSON
//! Schema files per version, laid out as `schemas/<protocol>/<version>/`.
//!
//! [`Registry`] finds them (in a folder, or in files embedded in a program:
//! the `wirekit-protocols` crate embeds the shipped ones); [`ProtocolSource`] holds one version's files and their bundle;
//! [`crate::validate::Protocol`] compiles a source into validators.

mod answers;
pub mod bundle;
mod capabilities;
mod error;
mod manifest;
pub(crate) mod pointer;
mod registry;
pub mod resources;
mod serving;

pub use answers::{ErrorCase, ErrorShape, ServerErrors};
pub use capabilities::{CapabilitiesSpec, CapabilityOf, CapabilityStyle};
pub use error::{ProtocolError, ProtocolErrorKind};
pub use manifest::{
    Cancellation, CancelledAnswer, DeclaredVersion, Direction, EnforcedBy, Enforcement, ErrorCodes,
    ErrorSpec, FormatMode, HostSpec, JsonSchemaSettings, LifecycleSpec, Manifest, MethodKind,
    MethodLifecycle, MethodSpec, ParamsFrom, Progress, Refusal, Roles, RuleSpec, SchemaDialect,
    SchemaRef, Transport, UnreadableId, ValueSet, VersionNegotiation, VersionRule, VersionScheme,
    ViolationSpec,
};
pub use registry::{compare_versions, version_text, ProtocolSource, Registry, MANIFEST_FILE};
pub use serving::Served;
