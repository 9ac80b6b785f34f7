//! One check of the battery: its group and name, its outcome, a sentence,
//! the JSON pointer at fault, and the frames it exchanged.

use serde::Serialize;

/// The outcome of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The server did what the protocol asks.
    Pass,
    /// Allowed, but worth a look (the server refused a call the battery
    /// needed, or goes beyond the protocol).
    Warn,
    /// The server broke the protocol.
    Fail,
}

impl Outcome {
    /// `pass`, `warn` or `fail`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Warn => "warn",
            Outcome::Fail => "fail",
        }
    }
}

/// Who sent a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sender {
    /// The battery (as the protocol's client).
    Client,
    /// The server under test.
    Server,
}

/// One frame a check exchanged (its body, shortened past [`Exchanged::SHOWN`]
/// bytes), or bytes the framing refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchanged {
    /// Who sent it.
    pub from: Sender,
    /// The body as text (the raw bytes for a refused frame), shortened.
    pub body: String,
}

impl Exchanged {
    /// Bytes of a body kept in a report.
    pub const SHOWN: usize = 2048;

    pub(crate) fn new(from: Sender, body: &[u8]) -> Self {
        let text = String::from_utf8_lossy(&body[..body.len().min(Self::SHOWN)]).into_owned();
        let body = if body.len() > Self::SHOWN {
            format!("{text}... ({} bytes)", body.len())
        } else {
            text
        };
        Exchanged { from, body }
    }
}

/// One check and its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The group (`lifecycle`, `capabilities`, `params`, `state`,
    /// `envelope`, `framing`, `exit`, `output`).
    pub group: String,
    /// What is checked (`analyze answers`, `initialize: missing clientVersion`).
    pub name: String,
    /// Pass, warn or fail.
    pub outcome: Outcome,
    /// A sentence a person understands; for a failure, what was expected
    /// and what came instead.
    pub message: String,
    /// The JSON pointer at fault, within the frame named by `frame`.
    pub pointer: Option<String>,
    /// The server process (1 for the first spawned) the check ran against.
    pub session: usize,
    /// What the monitor found at the server's frames during the check
    /// (`kind at pointer: sentence`); each also fails the check.
    pub monitor: Vec<String>,
    /// The frames the check exchanged, in order (the first [`Check::FRAMES_KEPT`]).
    pub frames: Vec<Exchanged>,
    /// Frames exchanged beyond the first [`Check::FRAMES_KEPT`]: counted, not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub frames_not_kept: usize,
    /// Findings beyond what the message and `monitor` keep: counted, then
    /// named in the message when the check settles.
    #[serde(skip)]
    findings_not_kept: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Check {
    pub(crate) fn new(group: &str, name: impl Into<String>) -> Self {
        Check {
            group: group.to_owned(),
            name: name.into(),
            outcome: Outcome::Pass,
            message: String::new(),
            pointer: None,
            session: 0,
            monitor: Vec::new(),
            frames: Vec::new(),
            frames_not_kept: 0,
            findings_not_kept: 0,
        }
    }

    /// How many frames (and monitor findings) a check keeps: a server that
    /// floods its output cannot grow the report without bound.
    pub const FRAMES_KEPT: usize = 64;

    /// How long a check's message grows before further findings are only
    /// counted.
    pub const MESSAGE_KEPT: usize = 4096;

    /// Keeps `frame` among the check's frames, or counts it past the bound.
    pub(crate) fn keep(&mut self, frame: Exchanged) {
        if self.frames.len() < Self::FRAMES_KEPT {
            self.frames.push(frame);
        } else {
            self.frames_not_kept += 1;
        }
    }

    /// Keeps the frames of `other` (as [`Check::keep`]).
    pub(crate) fn keep_frames_of(&mut self, other: Check) {
        self.frames_not_kept += other.frames_not_kept;
        for frame in other.frames {
            self.keep(frame);
        }
    }

    /// Records what the monitor found: the check fails; the sentence stays
    /// the battery's own when it has one (see [`Check::settle`]).
    pub(crate) fn monitor_found(&mut self, pointer: Option<&str>, finding: String) {
        self.outcome = Outcome::Fail;
        if self.pointer.is_none() {
            self.pointer = pointer.map(str::to_owned);
        }
        if self.monitor.contains(&finding) {
            return;
        }
        if self.monitor.len() < Self::FRAMES_KEPT {
            self.monitor.push(finding);
        } else {
            self.findings_not_kept += 1;
        }
    }

    /// Before the check is reported: a failure the battery gave no sentence
    /// of its own is told in the monitor's words.
    pub(crate) fn settle(&mut self) {
        if self.outcome == Outcome::Fail && self.message.is_empty() {
            self.message = format!("the monitor found {}", self.monitor.join("; "));
        }
        if self.findings_not_kept > 0 {
            self.message.push_str(&format!(
                "; and {} more finding(s), not kept",
                self.findings_not_kept
            ));
            self.findings_not_kept = 0;
        }
    }

    /// Records a failure (the first pointer given is kept).
    pub(crate) fn fail(&mut self, pointer: Option<&str>, message: impl Into<String>) {
        self.worsen(Outcome::Fail, pointer, message.into());
    }

    /// Records a warning (a failure stays a failure).
    pub(crate) fn warn(&mut self, pointer: Option<&str>, message: impl Into<String>) {
        self.worsen(Outcome::Warn, pointer, message.into());
    }

    /// Sets the sentence of a passing check.
    pub(crate) fn passed(&mut self, message: impl Into<String>) {
        if self.outcome == Outcome::Pass && self.message.is_empty() {
            self.message = message.into();
        }
    }

    /// Takes in what `other` found (its frames, its findings).
    pub(crate) fn absorb(&mut self, mut other: Check) {
        let monitor = std::mem::take(&mut other.monitor);
        let (outcome, pointer, message) = (
            other.outcome,
            other.pointer.take(),
            std::mem::take(&mut other.message),
        );
        self.findings_not_kept += other.findings_not_kept;
        self.keep_frames_of(other);
        for finding in monitor {
            self.monitor_found(None, finding);
        }
        match outcome {
            Outcome::Pass => {}
            outcome => self.worsen(outcome, pointer.as_deref(), message),
        }
    }

    fn worsen(&mut self, outcome: Outcome, pointer: Option<&str>, message: String) {
        if outcome == Outcome::Fail && self.outcome == Outcome::Fail && self.message.is_empty() {
            // The monitor failed it first; the battery's sentence leads.
            self.pointer = pointer.map(str::to_owned).or(self.pointer.take());
            self.message = message;
            return;
        }
        if outcome > self.outcome {
            // The worse finding leads; earlier sentences of a milder one go.
            if self.outcome == Outcome::Pass {
                self.message.clear();
            }
            self.outcome = outcome;
            if self.pointer.is_none() || outcome == Outcome::Fail {
                self.pointer = pointer.map(str::to_owned).or(self.pointer.take());
            }
            if self.message.is_empty() {
                self.message = message;
            } else {
                self.message = format!("{message}; {}", self.message);
            }
            return;
        }
        if self.pointer.is_none() {
            self.pointer = pointer.map(str::to_owned);
        }
        if self.message.is_empty() {
            self.message = message;
        } else if self.message.len() >= Self::MESSAGE_KEPT {
            self.findings_not_kept += 1;
        } else if !self.message.contains(&message) {
            self.message.push_str("; ");
            self.message.push_str(&message);
        }
    }
}
