//! Total, I/O-free decoders of everything the client reads from a server.
//! Each takes a `serde_json::Value` and answers one type whatever dialect
//! the server used, or a [`DecodeError`] naming the kind and the JSON
//! pointer of what is wrong (a list fails at its first bad entry, naming
//! the index). Unknown members are ignored. Positions stay in the server's
//! UTF-16 units; a negative line or character is refused.

mod call_hierarchy;
mod diagnostics;
mod error;
pub(crate) mod fields;
mod hover;
mod location;
mod notification;
mod prepare_rename;
mod progress;
mod symbols;
mod workspace_edit;

pub use call_hierarchy::{
    decode_call_hierarchy_items, decode_incoming_calls, decode_outgoing_calls, CallHierarchyItem,
    IncomingCall, OutgoingCall,
};
pub use diagnostics::{
    decode_publish_diagnostics, DiagnosticCode, PublishDiagnostics, ServerDiagnostic, Severity,
    MAX_DIAGNOSTICS_PER_PUBLICATION,
};
pub use error::{DecodeError, DecodeErrorKind};
pub use hover::{decode_hover, Hover, HoverMarkup};
pub use location::{decode_locations, Location};
pub use notification::{classify_notification, ServerNotification};
pub use prepare_rename::{decode_prepare_rename, PrepareRename};
pub use progress::{
    decode_progress_token, decode_work_done_progress, ProgressToken, WorkDoneProgress,
};
pub use symbols::{
    decode_document_symbols, known_symbol_kinds, symbol_kind_name, DocumentSymbol, DocumentSymbols,
    SymbolInformation,
};
pub use workspace_edit::{decode_workspace_edit, FileEdits, WorkspaceEdit};
