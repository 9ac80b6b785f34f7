//! What a conformance run is told: the server's command line, the project
//! root, the groups to run, the timeouts, the params to use instead of the
//! manifest's examples, where to record the sessions.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

/// The groups of checks, in the order they run.
pub const GROUPS: [&str; 8] = [
    "lifecycle",
    "capabilities",
    "exit",
    "state",
    "params",
    "envelope",
    "framing",
    "output",
];

/// How long the battery waits for the answer to a fault when no
/// `timeout` is given.
pub const DEFAULT_FAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A progress callback: the check about to run, how many ran so far.
pub type Progress = Box<dyn FnMut(&str, usize) + Send>;

/// The options of a run.
pub struct Options {
    /// The server's program and arguments.
    pub command: Vec<String>,
    /// The project root: the server's working directory, and the params
    /// member the manifest's `host.project_root` names. The current
    /// directory when `None`. A relative program path in `command`
    /// (`./server`, `bin/server`) is a file in this root.
    pub root: Option<PathBuf>,
    /// Only these groups (all when empty).
    pub only: Vec<String>,
    /// One timeout for every answer, instead of the methods' own (and
    /// [`DEFAULT_FAULT_TIMEOUT`] for faults).
    pub timeout: Option<Duration>,
    /// Params by method, used instead of the manifest's examples.
    pub params: BTreeMap<String, Value>,
    /// Record the first session here (later ones beside it, `.2`, `.3`, ...).
    pub record: Option<PathBuf>,
    /// Told before each check runs.
    pub progress: Option<Progress>,
    /// How the battery answers the server's own requests (a permission it
    /// asks mid-call): the manifest's example results when `None`, and
    /// -32601 for a method neither gives.
    pub answers: Option<crate::host::Answers>,
}

impl Options {
    /// Options for `command`, everything else by default.
    pub fn new(command: Vec<String>) -> Self {
        Options {
            command,
            root: None,
            only: Vec::new(),
            timeout: None,
            params: BTreeMap::new(),
            record: None,
            progress: None,
            answers: None,
        }
    }

    /// Whether `group` runs.
    pub fn runs(&self, group: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|g| g == group)
    }

    /// Checks the options: a command, known groups.
    pub fn check(&self) -> Result<(), OptionsError> {
        if self.command.is_empty() {
            return Err(OptionsError::NoCommand);
        }
        if let Some(unknown) = self.only.iter().find(|g| !GROUPS.contains(&g.as_str())) {
            return Err(OptionsError::UnknownGroup(unknown.clone()));
        }
        Ok(())
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("command", &self.command)
            .field("root", &self.root)
            .field("only", &self.only)
            .field("timeout", &self.timeout)
            .field("params", &self.params)
            .field("record", &self.record)
            .finish_non_exhaustive()
    }
}

/// Options a run cannot start with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsError {
    /// No server command was given.
    NoCommand,
    /// `only` names a group that does not exist.
    UnknownGroup(String),
    /// The project root cannot be used.
    BadRoot(String),
    /// The record file cannot be created.
    Record(String),
    /// The server's program, a relative path, is not in the project root.
    BadServer(String),
}

impl OptionsError {
    /// A stable machine code (`no_command`, `unknown_group`, `bad_root`,
    /// `record`, `bad_server`).
    pub fn code(&self) -> &'static str {
        match self {
            OptionsError::NoCommand => "no_command",
            OptionsError::UnknownGroup(_) => "unknown_group",
            OptionsError::BadRoot(_) => "bad_root",
            OptionsError::Record(_) => "record",
            OptionsError::BadServer(_) => "bad_server",
        }
    }
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::NoCommand => write!(f, "no server command was given"),
            OptionsError::UnknownGroup(group) => write!(
                f,
                "unknown group `{group}` (the groups are {})",
                GROUPS.join(", ")
            ),
            OptionsError::BadRoot(message)
            | OptionsError::Record(message)
            | OptionsError::BadServer(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for OptionsError {}
