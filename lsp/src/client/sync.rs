//! Document sync (full text), settlement and readiness.
//!
//! Settlement is two rules, never a guess: (a) the `documentSymbol`
//! barrier — a `documentSymbol` request for the first changed document,
//! answered (servers handle messages in order, so what they publish for
//! the changes comes no later); (b) once the server has ever versioned a
//! publication, every changed open document has one at a version at least
//! its synced one. A server without `documentSymbol` settles only by (b),
//! so one that never versions never settles. A caller may also require a
//! publication after the last sync for each path it asks about (the
//! command line does: a person asking for diagnostics of a file wants that
//! file's, and servers that lint on a timer answer the barrier first).
//! Then a quiet window: no new publication for a changed document during
//! `Options::diagnostics_quiet` (400 ms by default), since a server may
//! publish a partial list first (typescript-language-server publishes an
//! empty list, then the type error). A lapsed deadline answers [`SettleOutcome::DeadlineExpired`] and cancels
//! the barrier.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::documents::SyncStep;
use super::{Client, RequestError};
use crate::capabilities::{Feature, SyncKind};
use crate::decode::PublishDiagnostics;

/// A document synced and not yet settled.
#[derive(Debug, Clone)]
pub(crate) struct Changed {
    uri: String,
    version: i32,
    /// The store's arrival count when it was synced.
    arrivals_at_sync: u64,
}

/// How a settlement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleOutcome {
    /// The rules hold: the publications are the server's answer.
    Settled,
    /// The deadline lapsed first: the publications may be stale.
    DeadlineExpired,
    /// The server reported a failure (an error-level log: a project that
    /// did not load, a setting it could not read) and published nothing
    /// more for a quiet window after it: the wait ends early, with the
    /// failure, instead of at the deadline.
    ServerFailed,
}

/// What a settlement found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// Settled or not.
    pub outcome: SettleOutcome,
    /// Every publication since the earliest changed document's sync, then
    /// the latest of each asked path and each changed document.
    pub publications: Vec<PublishDiagnostics>,
    /// A failure the server reported: the diagnostics cannot be called clean.
    pub failure: Option<String>,
    /// How long the wait took, from the call to its end (the quiet window
    /// included).
    pub waited: Duration,
}

/// What readiness found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// No work-done progress for a whole quiet window.
    Quiet,
    /// Still busy at the deadline, with the active titles, oldest first.
    StillBusy(Vec<String>),
}

impl Client {
    /// Sends `text` as the document at `path` (open or full-text change),
    /// closing the least recently synced one when 64 are open.
    pub fn sync(
        &mut self,
        path: &Path,
        language_id: &str,
        text: &str,
    ) -> Result<i32, RequestError> {
        let uri = self.uri_of(path)?;
        self.check_alive()?;
        let steps = self.documents.sync(&uri, language_id, text);
        let mut synced = 0;
        for step in steps {
            match step {
                SyncStep::Close(old) => {
                    self.changed.retain(|c| c.uri != old);
                    if self.capabilities.open_close {
                        self.notify(
                            "textDocument/didClose",
                            json!({"textDocument": {"uri": old}}),
                        )?;
                    }
                }
                SyncStep::Open(version) => {
                    synced = version;
                    if self.capabilities.open_close {
                        self.notify(
                            "textDocument/didOpen",
                            json!({"textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}}),
                        )?;
                    }
                }
                SyncStep::Change(version) => {
                    synced = version;
                    if self.capabilities.sync != SyncKind::None {
                        self.notify(
                            "textDocument/didChange",
                            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
                        )?;
                    }
                }
            }
        }
        self.changed.retain(|c| c.uri != uri);
        self.changed.push(Changed {
            uri,
            version: synced,
            arrivals_at_sync: self.diagnostics.arrivals(),
        });
        Ok(synced)
    }

    /// Closes the document at `path`, if open.
    pub fn close(&mut self, path: &Path) -> Result<(), RequestError> {
        let uri = self.uri_of(path)?;
        if self.documents.close(&uri) {
            self.changed.retain(|c| c.uri != uri);
            if self.capabilities.open_close {
                self.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": uri}}),
                )?;
            }
        }
        Ok(())
    }

    /// Exactly the text last sent for `path` (the base of a rename).
    pub fn synced_text(&self, path: &Path) -> Option<&str> {
        let uri = self.uri_of(path).ok()?;
        self.documents.get(&uri).map(|d| d.text.as_str())
    }

    /// How many publications the store dropped, oldest first, to keep
    /// [`super::MAX_PUBLISHED_URIS`] URIs.
    pub fn diagnostics_evicted(&self) -> u64 {
        self.diagnostics.evicted()
    }

    /// The latest publication for `path`.
    pub fn diagnostics(&self, path: &Path) -> Option<&PublishDiagnostics> {
        let uri = self.uri_of(path).ok()?;
        self.diagnostics.get(&uri).map(|s| &s.publication)
    }

    /// The latest publication for a synced document, if it arrived after
    /// the sync.
    fn published_since_sync(&self, changed: &Changed) -> Option<&super::Stored> {
        self.diagnostics
            .get(&changed.uri)
            .filter(|s| s.arrival > changed.arrivals_at_sync)
    }

    /// Waits until the server has looked at `paths` since they were synced:
    /// a server that pushes diagnostics publishes for a document once it
    /// has processed it (typescript-language-server loads the whole project
    /// first), so until then its answers may come from the file's syntax
    /// alone. Returns at once for a server that offers pull diagnostics
    /// (`diagnosticProvider`, which need not push), and `false` when
    /// `timeout` lapses first.
    pub fn looked_at(
        &mut self,
        paths: &[PathBuf],
        timeout: Duration,
    ) -> Result<bool, RequestError> {
        if self.capabilities.raw().get("diagnosticProvider").is_some() {
            return Ok(true);
        }
        let deadline = Instant::now() + timeout;
        let uris: Vec<String> = paths
            .iter()
            .map(|p| self.uri_of(p))
            .collect::<Result<_, _>>()?;
        loop {
            let seen = self
                .changed
                .iter()
                .filter(|c| uris.contains(&c.uri))
                .all(|c| self.published_since_sync(c).is_some());
            if seen {
                return Ok(true);
            }
            self.check_alive()?;
            // After a failure the server reported, one quiet window, not the deadline.
            let until = if self.failure.is_some() {
                (Instant::now() + self.diagnostics_quiet).min(deadline)
            } else {
                deadline
            };
            if !self.pump(until) {
                return Ok(false);
            }
        }
    }

    /// Waits until the changes settle by the two rules (and, with
    /// `require_publication`, until each of `paths` that was changed has a
    /// publication after its sync), and no changed file has had a new
    /// publication for `Options::diagnostics_quiet`; or `timeout` lapses.
    pub fn settle(
        &mut self,
        paths: &[PathBuf],
        timeout: Duration,
        require_publication: bool,
    ) -> Result<Settlement, RequestError> {
        let started = Instant::now();
        let deadline = started + timeout;
        let asked: Vec<String> = paths
            .iter()
            .map(|p| self.uri_of(p))
            .collect::<Result<_, _>>()?;
        let changed = self.changed.clone();
        let earliest = changed.iter().map(|c| c.arrivals_at_sync).min();
        let has_barrier = self.supports(Feature::DocumentSymbol);
        let barrier = match (has_barrier, changed.first()) {
            (true, Some(first)) => Some(self.send_request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": first.uri}}),
            )?),
            _ => None,
        };
        let outcome = loop {
            let barrier_answered = barrier.is_none_or(|id| self.answers.contains_key(&id));
            let versions = if self.ever_versioned {
                changed.iter().all(|c| {
                    self.documents.get(&c.uri).is_none()
                        || self.diagnostics.get(&c.uri).is_some_and(|s| {
                            s.publication
                                .version
                                .is_some_and(|v| v >= i64::from(c.version))
                        })
                })
            } else {
                has_barrier
            };
            let published = !require_publication
                || changed.iter().filter(|c| asked.contains(&c.uri)).all(|c| {
                    self.published_since_sync(c).is_some_and(|s| {
                        s.publication
                            .version
                            .is_none_or(|v| v >= i64::from(c.version))
                    })
                });
            let conditions_met = barrier_answered && versions && published;
            // The quiet window: the last publication for a changed file must
            // be `diagnostics_quiet` old, so a first partial list (syntax
            // only, or empty) is not taken for the answer.
            let quiet_until = conditions_met
                .then(|| {
                    changed
                        .iter()
                        .filter_map(|c| self.diagnostics.get(&c.uri))
                        .map(|s| s.received + self.diagnostics_quiet)
                        .max()
                })
                .flatten()
                .filter(|until| *until > Instant::now());
            match (conditions_met, quiet_until) {
                (true, None) => break SettleOutcome::Settled,
                (true, Some(until)) => {
                    self.check_alive()?;
                    // Lapsing into the deadline inside the window still settles.
                    if !self.pump(until.min(deadline)) && Instant::now() >= deadline {
                        break SettleOutcome::Settled;
                    }
                }
                (false, _) if self.failure.is_some() => {
                    // A failure was reported: one quiet window more for the
                    // server to publish all the same, then the wait ends.
                    self.check_alive()?;
                    let until = (Instant::now() + self.diagnostics_quiet).min(deadline);
                    if !self.pump(until) {
                        break if Instant::now() >= deadline {
                            SettleOutcome::DeadlineExpired
                        } else {
                            SettleOutcome::ServerFailed
                        };
                    }
                }
                (false, _) => {
                    self.check_alive()?;
                    if !self.pump(deadline) {
                        break SettleOutcome::DeadlineExpired;
                    }
                }
            }
        };
        if let Some(id) = barrier {
            if self.answers.remove(&id).is_none() {
                self.abandon(id);
            }
        }
        if outcome == SettleOutcome::Settled {
            self.changed.retain(|c| {
                !changed
                    .iter()
                    .any(|d| d.uri == c.uri && d.version == c.version)
            });
        }
        let mut publications: Vec<PublishDiagnostics> = Vec::new();
        let mut add = |publication: &PublishDiagnostics| {
            if !publications.iter().any(|p| p.uri == publication.uri) {
                publications.push(publication.clone());
            }
        };
        if let Some(earliest) = earliest {
            for stored in self.diagnostics.since(earliest) {
                add(&stored.publication);
            }
        }
        let changed_uris = changed.iter().map(|c| &c.uri);
        for uri in asked.iter().chain(changed_uris) {
            if let Some(stored) = self.diagnostics.get(uri) {
                add(&stored.publication);
            }
        }
        Ok(Settlement {
            outcome,
            publications,
            failure: self.failure.clone(),
            waited: started.elapsed(),
        })
    }

    /// Waits for a quiet window of `quiet` without work-done progress
    /// (measured from the later of this call and the last token's end), or
    /// answers still busy with the active titles once `timeout` lapses.
    pub fn ready(&mut self, quiet: Duration, timeout: Duration) -> Result<Readiness, RequestError> {
        let deadline = Instant::now() + timeout;
        let mut quiet_since = self.progress.is_quiet().then(Instant::now);
        loop {
            self.check_alive()?;
            if let Some(since) = quiet_since {
                if since.elapsed() >= quiet {
                    return Ok(Readiness::Quiet);
                }
            }
            let wake = quiet_since.map_or(deadline, |since| (since + quiet).min(deadline));
            let epoch = self.progress.epoch();
            if !self.pump(wake) {
                if Instant::now() >= deadline {
                    return Ok(match quiet_since {
                        Some(since) if since.elapsed() >= quiet => Readiness::Quiet,
                        _ => Readiness::StillBusy(self.progress.titles()),
                    });
                }
                continue;
            }
            if self.progress.epoch() != epoch {
                quiet_since = self.progress.is_quiet().then(Instant::now);
            }
        }
    }
}
