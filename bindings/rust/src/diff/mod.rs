//! Comparing two versions of a protocol, for its maintainers: every change
//! to the manifest and the schemas, each classified by whom it breaks when
//! peers built on the old version meet peers built on the new one
//! ([`Impact`]), with the JSON pointer where it is defined.
//!
//! Direction decides: `params` are written by a method's sender and read by
//! its receiver, results the other way. Accepting fewer values than before
//! breaks the writers, accepting more breaks the readers; a new optional
//! member of an object that accepts unknown members, a new method behind a
//! capability and a new error code break no one.
//!
//! ```
//! use wirekit::diff;
//!
//! let registry = wirekit_protocols::registry().unwrap();
//! let old = registry.get("gaze-analyzer@1.0.0").unwrap();
//! let new = registry.get("gaze-analyzer@1.1.0").unwrap();
//! let report = diff::compare(old, new).unwrap();
//! assert!(!report.is_breaking());
//! ```

mod change;
mod manifest;
mod method;
mod schema;

use serde::Serialize;

pub use change::{Change, ChangeKind, Flow, Impact, Role};

use crate::protocol::{ProtocolError, ProtocolSource, VersionScheme};

/// Every change between two versions of a protocol.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The protocol's name (the new version's).
    pub protocol: String,
    /// The old version.
    pub old_version: String,
    /// The new version.
    pub new_version: String,
    /// The changes, manifest first, then the schemas method by method.
    pub changes: Vec<Change>,
    /// How the versions are written (the new version's manifest).
    pub version_scheme: VersionScheme,
}

impl Report {
    /// Whether any change breaks a client or a server.
    pub fn is_breaking(&self) -> bool {
        self.changes.iter().any(|c| c.impact.is_breaking())
    }

    /// Whether the new version announces breaking changes: under semver
    /// the major version (the first dot-separated part) moved; a dated
    /// version announces none.
    pub fn major_moved(&self) -> bool {
        match self.version_scheme {
            VersionScheme::Semver => major(&self.old_version) != major(&self.new_version),
            VersionScheme::Date => false,
        }
    }

    /// How many changes have this impact.
    pub fn count(&self, impact: Impact) -> usize {
        self.changes.iter().filter(|c| c.impact == impact).count()
    }
}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

/// Compares two versions of a protocol.
///
/// Fails only when a version's schema files cannot be bundled (which
/// loading it would have refused already).
pub fn compare(old: &ProtocolSource, new: &ProtocolSource) -> Result<Report, ProtocolError> {
    let mut schemas = schema::SchemaDiff::new(
        schema::Side {
            root: old.bundled_schema(),
            bundle: old.bundle(),
        },
        schema::Side {
            root: new.bundled_schema(),
            bundle: new.bundle(),
        },
    );
    let mut changes = Vec::new();
    manifest::compare(&old.manifest, &new.manifest, &mut schemas, &mut changes);
    changes.append(&mut schemas.changes);
    Ok(Report {
        protocol: new.manifest.protocol.clone(),
        old_version: old.manifest.version.clone(),
        new_version: new.manifest.version.clone(),
        changes,
        version_scheme: new.manifest.version_scheme,
    })
}
