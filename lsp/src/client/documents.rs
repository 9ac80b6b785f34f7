//! Open documents: at most [`MAX_OPEN_DOCUMENTS`], versions from one
//! counter shared by every document (so the smallest version is the least
//! recently synced, closed first, and a reopened document never reuses a
//! version an old publication carries), and the exact last text sent.

use std::collections::HashMap;

/// Documents open at once; syncing one more closes the least recently synced.
pub const MAX_OPEN_DOCUMENTS: usize = 64;

/// An open document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenDocument {
    /// Its language id (`python`).
    pub language_id: String,
    /// Its version: the counter's value at its last sync.
    pub version: i32,
    /// Exactly the text last sent.
    pub text: String,
}

/// What syncing a document asks to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncStep {
    /// `didOpen` at this version.
    Open(i32),
    /// `didChange` (full text) at this version.
    Change(i32),
    /// `didClose` of this URI (evicted).
    Close(String),
}

/// The open documents by URI.
#[derive(Debug, Default)]
pub struct Documents {
    open: HashMap<String, OpenDocument>,
    counter: i32,
}

impl Documents {
    /// Records `text` as `uri`'s new text: opening it (closing the least
    /// recently synced first when full) or changing it. The steps to send,
    /// in order.
    pub fn sync(&mut self, uri: &str, language_id: &str, text: &str) -> Vec<SyncStep> {
        self.counter = self.counter.saturating_add(1);
        let version = self.counter;
        if let Some(document) = self.open.get_mut(uri) {
            document.version = version;
            document.text = text.to_owned();
            return vec![SyncStep::Change(version)];
        }
        let mut steps = Vec::new();
        while self.open.len() >= MAX_OPEN_DOCUMENTS {
            let Some(oldest) = self
                .open
                .iter()
                .min_by_key(|(_, d)| d.version)
                .map(|(u, _)| u.clone())
            else {
                break;
            };
            self.open.remove(&oldest);
            steps.push(SyncStep::Close(oldest));
        }
        self.open.insert(
            uri.to_owned(),
            OpenDocument {
                language_id: language_id.to_owned(),
                version,
                text: text.to_owned(),
            },
        );
        steps.push(SyncStep::Open(version));
        steps
    }

    /// Forgets `uri`; whether it was open.
    pub fn close(&mut self, uri: &str) -> bool {
        self.open.remove(uri).is_some()
    }

    /// The open document at `uri`.
    pub fn get(&self, uri: &str) -> Option<&OpenDocument> {
        self.open.get(uri)
    }

    /// How many are open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// Whether none is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_synced_goes_first_and_versions_never_repeat() {
        let mut documents = Documents::default();
        for n in 0..MAX_OPEN_DOCUMENTS {
            assert_eq!(
                documents.sync(&format!("file:///{n}"), "python", "x"),
                [SyncStep::Open(n as i32 + 1)]
            );
        }
        // Touch the first: the second becomes the oldest.
        assert_eq!(
            documents.sync("file:///0", "python", "y"),
            [SyncStep::Change(65)]
        );
        let steps = documents.sync("file:///new", "python", "z");
        assert_eq!(
            steps,
            [SyncStep::Close("file:///1".into()), SyncStep::Open(66)]
        );
        assert_eq!(documents.len(), MAX_OPEN_DOCUMENTS);
        // Reopened: a fresh version from the one counter.
        assert_eq!(
            documents.sync("file:///1", "python", "x")[1],
            SyncStep::Open(67)
        );
        assert_eq!(
            documents.get("file:///0").map(|d| d.text.as_str()),
            Some("y")
        );
    }
}
