//! One difference between two versions of a protocol: what changed, where
//! (a JSON pointer into the files that define it, and the place in the
//! message it touches), and whom it breaks.

use std::fmt;

use serde::Serialize;

use crate::protocol::Direction;

/// A peer of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The spawning peer that sends the first request.
    Client,
    /// The spawned peer that answers.
    Server,
    /// Either peer: of a method both send (`direction: both`), each is a
    /// sender and a receiver.
    Either,
}

impl Role {
    /// The other peer.
    pub fn other(self) -> Role {
        match self {
            Role::Client => Role::Server,
            Role::Server => Role::Client,
            Role::Either => Role::Either,
        }
    }

    /// The peer that sends a method of this direction.
    pub fn sender(direction: Direction) -> Role {
        match direction {
            Direction::ClientToServer => Role::Client,
            Direction::ServerToClient => Role::Server,
            Direction::Both => Role::Either,
        }
    }
}

/// Who breaks when peers built against the old version meet peers built
/// against the new one.
///
/// A value is written by one peer and read by the other: `params` are
/// written by the sender of a method, results by its receiver. A schema
/// that accepts fewer values (narrowed) refuses what existing writers send:
/// it breaks the writers. A schema that accepts more (widened) lets new
/// writers send what existing readers refuse: it breaks the readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Existing clients and servers both may fail.
    BreaksClientsAndServers,
    /// Existing clients may fail against new servers.
    BreaksClients,
    /// Existing servers may fail against new clients.
    BreaksServers,
    /// Old and new peers keep working together.
    Compatible,
}

impl Impact {
    /// The impact that breaks `role`.
    pub fn breaks(role: Role) -> Impact {
        match role {
            Role::Client => Impact::BreaksClients,
            Role::Server => Impact::BreaksServers,
            Role::Either => Impact::BreaksClientsAndServers,
        }
    }

    /// Whether anyone breaks.
    pub fn is_breaking(self) -> bool {
        self != Impact::Compatible
    }

    /// A stable machine code (`breaks-clients`).
    pub fn code(self) -> &'static str {
        match self {
            Impact::BreaksClientsAndServers => "breaks-clients-and-servers",
            Impact::BreaksClients => "breaks-clients",
            Impact::BreaksServers => "breaks-servers",
            Impact::Compatible => "compatible",
        }
    }

    /// How a person reads it.
    pub fn label(self) -> &'static str {
        match self {
            Impact::BreaksClientsAndServers => "breaking for clients and servers",
            Impact::BreaksClients => "breaking for clients",
            Impact::BreaksServers => "breaking for servers",
            Impact::Compatible => "compatible",
        }
    }
}

/// Who writes and who reads a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Flow {
    /// The peer that writes the value.
    pub writer: Role,
}

impl Flow {
    /// The peer that reads the value.
    pub fn reader(self) -> Role {
        self.writer.other()
    }

    /// The impact of accepting fewer values than before.
    pub fn narrowed(self) -> Impact {
        Impact::breaks(self.writer)
    }

    /// The impact of accepting more values than before.
    pub fn widened(self) -> Impact {
        Impact::breaks(self.reader())
    }

    /// Narrowed, widened, both or neither.
    pub fn impact(self, narrowed: bool, widened: bool) -> Impact {
        match (narrowed, widened) {
            (true, true) => Impact::BreaksClientsAndServers,
            (true, false) => self.narrowed(),
            (false, true) => self.widened(),
            (false, false) => Impact::Compatible,
        }
    }
}

/// What kind of change; each has a stable machine code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ChangeKind {
    /// A method or notification appeared.
    MethodAdded,
    /// A method or notification disappeared.
    MethodRemoved,
    /// A request became a notification or the reverse.
    MethodKindChanged,
    /// The peer that sends a method changed.
    MethodDirectionChanged,
    /// A method gained, lost or changed its capability.
    MethodCapabilityChanged,
    /// `params` may (or may no longer) be absent.
    ParamsOptionalChanged,
    /// A result became a stream of items or the reverse.
    ResultShapeChanged,
    /// A method's timeout changed.
    TimeoutChanged,
    /// Where a method may come in the lifecycle, or where it leads, changed.
    LifecycleChanged,
    /// An error code appeared.
    ErrorAdded,
    /// An error code disappeared.
    ErrorRemoved,
    /// A named error (or a lifecycle violation) got another code or message.
    ErrorCodeChanged,
    /// Whether an error ends the session changed.
    ErrorEndsSessionChanged,
    /// Framing, envelope, strictness, canonical output or the frame bound changed.
    TransportChanged,
    /// Where or how capabilities are declared changed.
    CapabilitiesChanged,
    /// How versions are negotiated changed.
    VersionNegotiationChanged,
    /// A semantic rule appeared.
    RuleAdded,
    /// A semantic rule disappeared.
    RuleRemoved,
    /// A semantic rule's arguments changed.
    RuleChanged,
    /// The JSON types a value may have changed.
    TypeChanged,
    /// An object member appeared.
    MemberAdded,
    /// An object member disappeared.
    MemberRemoved,
    /// A member became required.
    MemberRequired,
    /// A member became optional.
    MemberOptional,
    /// Whether unknown members are accepted changed.
    AdditionalMembersChanged,
    /// An enum value appeared.
    EnumValueAdded,
    /// An enum value disappeared.
    EnumValueRemoved,
    /// An open enum's known values changed (any string stays valid).
    OpenEnumChanged,
    /// A `const` appeared, disappeared or changed.
    ConstChanged,
    /// A bound (minimum, maxLength, minItems, ...) was tightened or loosened.
    BoundChanged,
    /// A `pattern` appeared, disappeared or changed.
    PatternChanged,
    /// A `format` appeared, disappeared or changed.
    FormatChanged,
    /// A `default` changed.
    DefaultChanged,
    /// The alternatives of an `anyOf`/`oneOf` changed.
    AlternativesChanged,
    /// A part of a schema that cannot be compared value by value changed.
    SchemaChanged,
}

impl ChangeKind {
    /// A stable machine code (`member-added`).
    pub fn code(self) -> &'static str {
        match self {
            ChangeKind::MethodAdded => "method-added",
            ChangeKind::MethodRemoved => "method-removed",
            ChangeKind::MethodKindChanged => "method-kind-changed",
            ChangeKind::MethodDirectionChanged => "method-direction-changed",
            ChangeKind::MethodCapabilityChanged => "method-capability-changed",
            ChangeKind::ParamsOptionalChanged => "params-optional-changed",
            ChangeKind::ResultShapeChanged => "result-shape-changed",
            ChangeKind::TimeoutChanged => "timeout-changed",
            ChangeKind::LifecycleChanged => "lifecycle-changed",
            ChangeKind::ErrorAdded => "error-added",
            ChangeKind::ErrorRemoved => "error-removed",
            ChangeKind::ErrorCodeChanged => "error-code-changed",
            ChangeKind::ErrorEndsSessionChanged => "error-ends-session-changed",
            ChangeKind::TransportChanged => "transport-changed",
            ChangeKind::CapabilitiesChanged => "capabilities-changed",
            ChangeKind::VersionNegotiationChanged => "version-negotiation-changed",
            ChangeKind::RuleAdded => "rule-added",
            ChangeKind::RuleRemoved => "rule-removed",
            ChangeKind::RuleChanged => "rule-changed",
            ChangeKind::TypeChanged => "type-changed",
            ChangeKind::MemberAdded => "member-added",
            ChangeKind::MemberRemoved => "member-removed",
            ChangeKind::MemberRequired => "member-required",
            ChangeKind::MemberOptional => "member-optional",
            ChangeKind::AdditionalMembersChanged => "additional-members-changed",
            ChangeKind::EnumValueAdded => "enum-value-added",
            ChangeKind::EnumValueRemoved => "enum-value-removed",
            ChangeKind::OpenEnumChanged => "open-enum-changed",
            ChangeKind::ConstChanged => "const-changed",
            ChangeKind::BoundChanged => "bound-changed",
            ChangeKind::PatternChanged => "pattern-changed",
            ChangeKind::FormatChanged => "format-changed",
            ChangeKind::DefaultChanged => "default-changed",
            ChangeKind::AlternativesChanged => "alternatives-changed",
            ChangeKind::SchemaChanged => "schema-changed",
        }
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Whom it breaks.
    pub impact: Impact,
    /// What kind of change.
    pub kind: ChangeKind,
    /// Where it is defined: `file#/json/pointer` in the new version (the
    /// old one for something removed), e.g. `gaze.schema.json#/$defs/SideEffect/properties/detail`
    /// or `protocol.json#/methods/doc_coverage`.
    pub pointer: String,
    /// The message it touches (`analyze result`), when it is inside one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_part: Option<String>,
    /// Where in that message, as a JSON pointer with `*` for any array item
    /// or member (`/functions/*/side_effects/*/detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What changed and why it has this impact, for a person.
    pub message: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} [{}]",
            self.impact.label(),
            self.message,
            self.kind.code()
        )?;
        if let Some(part) = &self.message_part {
            write!(f, "\n    in {part}")?;
            if let Some(at) = &self.at {
                if !at.is_empty() {
                    write!(f, " at {at}")?;
                }
            }
        }
        write!(f, "\n    defined at {}", self.pointer)
    }
}

/// A change found in the manifest (`protocol.json`), at `pointer` there.
pub(super) fn manifest_change(
    impact: Impact,
    kind: ChangeKind,
    pointer: String,
    message: String,
) -> Change {
    Change {
        impact,
        kind,
        pointer: format!("protocol.json#{pointer}"),
        message_part: None,
        at: None,
        message,
    }
}
