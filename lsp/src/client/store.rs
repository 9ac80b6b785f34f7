//! The latest publication of every URI: at most [`MAX_PUBLISHED_URIS`]
//! (the oldest publication goes first, and is counted, but never that of a
//! document the client has open: a server that publishes for thousands of
//! files does not push out the one asked about), each numbered by arrival.

use std::collections::HashMap;
use std::time::Instant;

use crate::decode::PublishDiagnostics;

/// URIs whose publication is kept.
pub const MAX_PUBLISHED_URIS: usize = 512;

/// A kept publication and when it arrived (a counter over publications).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The publication.
    pub publication: PublishDiagnostics,
    /// Its arrival number.
    pub arrival: u64,
    /// When it arrived.
    pub received: Instant,
}

/// The diagnostics store.
#[derive(Debug, Default)]
pub struct DiagnosticsStore {
    latest: HashMap<String, Stored>,
    arrivals: u64,
    evicted: u64,
}

impl DiagnosticsStore {
    /// Keeps `publication` as its URI's latest; its arrival number. When
    /// full, the oldest publication whose URI is not `open` goes (the
    /// oldest of all, should every one be open).
    pub fn publish(&mut self, publication: PublishDiagnostics, open: impl Fn(&str) -> bool) -> u64 {
        self.arrivals += 1;
        let uri = publication.uri.clone();
        if !self.latest.contains_key(&uri) && self.latest.len() >= MAX_PUBLISHED_URIS {
            let oldest_where = |keep_open: bool| {
                self.latest
                    .iter()
                    .filter(|(u, _)| !keep_open || !open(u))
                    .min_by_key(|(_, s)| s.arrival)
                    .map(|(u, _)| u.clone())
            };
            if let Some(oldest) = oldest_where(true).or_else(|| oldest_where(false)) {
                self.latest.remove(&oldest);
                self.evicted += 1;
            }
        }
        self.latest.insert(
            uri,
            Stored {
                publication,
                arrival: self.arrivals,
                received: Instant::now(),
            },
        );
        self.arrivals
    }

    /// The latest publication for `uri`.
    pub fn get(&self, uri: &str) -> Option<&Stored> {
        self.latest.get(uri)
    }

    /// The arrival number of the last publication (0: none yet).
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Every publication that arrived after `arrival`, oldest first.
    pub fn since(&self, arrival: u64) -> Vec<&Stored> {
        let mut found: Vec<&Stored> = self
            .latest
            .values()
            .filter(|s| s.arrival > arrival)
            .collect();
        found.sort_by_key(|s| s.arrival);
        found
    }

    /// How many publications were dropped to keep [`MAX_PUBLISHED_URIS`]
    /// URIs (their URIs' diagnostics are unknown since).
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// How many URIs are kept.
    pub fn len(&self) -> usize {
        self.latest.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.latest.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publication(uri: String) -> PublishDiagnostics {
        PublishDiagnostics {
            uri,
            version: None,
            diagnostics: Vec::new(),
            truncated: 0,
        }
    }

    #[test]
    fn the_oldest_publication_goes_first() {
        let mut store = DiagnosticsStore::default();
        let none_open = |_: &str| false;
        for n in 0..MAX_PUBLISHED_URIS {
            store.publish(publication(format!("file:///{n}")), none_open);
        }
        store.publish(publication("file:///0".into()), none_open);
        store.publish(publication("file:///new".into()), none_open);
        assert_eq!(store.len(), MAX_PUBLISHED_URIS);
        assert!(store.get("file:///1").is_none());
        assert!(store.get("file:///0").is_some());
        assert_eq!(store.since(store.arrivals() - 2).len(), 2);
        assert_eq!(store.evicted(), 1);
    }

    #[test]
    fn an_open_document_s_publication_is_never_pushed_out() {
        let mut store = DiagnosticsStore::default();
        let open = |uri: &str| uri == "file:///open";
        store.publish(publication("file:///open".into()), open);
        for n in 0..10 * MAX_PUBLISHED_URIS {
            store.publish(publication(format!("file:///{n}")), open);
        }
        assert_eq!(store.len(), MAX_PUBLISHED_URIS);
        assert!(store.get("file:///open").is_some());
        assert_eq!(
            store.evicted(),
            u64::try_from(9 * MAX_PUBLISHED_URIS + 1).unwrap_or(u64::MAX)
        );
    }
}
