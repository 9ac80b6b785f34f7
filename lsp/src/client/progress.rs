//! Active work-done progress tokens: `begin` adds, `end` removes, a
//! `report` for an unknown token adds it under the token's own text; at
//! most [`MAX_PROGRESS_TOKENS`], the earliest begun evicted first. Every
//! change to the set moves the epoch.

use crate::decode::{ProgressToken, WorkDoneProgress};

/// Tokens held at once.
pub const MAX_PROGRESS_TOKENS: usize = 64;

/// The active tokens, oldest first, and the set's epoch.
#[derive(Debug, Default)]
pub struct ProgressTracker {
    active: Vec<(ProgressToken, String)>,
    epoch: u64,
}

impl ProgressTracker {
    /// Applies one step.
    pub fn apply(&mut self, token: ProgressToken, step: &WorkDoneProgress) {
        let known = self.active.iter().position(|(t, _)| *t == token);
        match (step, known) {
            (WorkDoneProgress::End { .. }, Some(index)) => {
                self.active.remove(index);
            }
            (WorkDoneProgress::End { .. }, None) | (WorkDoneProgress::Report { .. }, Some(_)) => {
                return
            }
            (WorkDoneProgress::Begin { title, .. }, Some(index)) => {
                self.active[index].1 = title.clone();
            }
            (WorkDoneProgress::Begin { title, .. }, None) => self.add(token, title.clone()),
            (WorkDoneProgress::Report { .. }, None) => {
                let title = token.text();
                self.add(token, title);
            }
        }
        self.epoch += 1;
    }

    fn add(&mut self, token: ProgressToken, title: String) {
        if self.active.len() >= MAX_PROGRESS_TOKENS {
            self.active.remove(0);
        }
        self.active.push((token, title));
    }

    /// Whether no token is active.
    pub fn is_quiet(&self) -> bool {
        self.active.is_empty()
    }

    /// The active titles, oldest first.
    pub fn titles(&self) -> Vec<String> {
        self.active.iter().map(|(_, title)| title.clone()).collect()
    }

    /// Moves on every change of the set.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(title: &str) -> WorkDoneProgress {
        WorkDoneProgress::Begin {
            title: title.into(),
            message: None,
        }
    }

    #[test]
    fn tokens_come_and_go_and_stay_bounded() {
        let mut tracker = ProgressTracker::default();
        tracker.apply(ProgressToken::Int(1), &begin("indexing"));
        tracker.apply(
            ProgressToken::Str("x".into()),
            &WorkDoneProgress::Report { message: None },
        );
        assert_eq!(tracker.titles(), ["indexing", "x"]);
        tracker.apply(
            ProgressToken::Int(1),
            &WorkDoneProgress::End { message: None },
        );
        assert_eq!(tracker.titles(), ["x"]);
        for n in 0..100 {
            tracker.apply(ProgressToken::Int(n + 10), &begin(&format!("t{n}")));
        }
        assert_eq!(tracker.titles().len(), MAX_PROGRESS_TOKENS);
        assert_eq!(tracker.titles()[0], "t36");
        let epoch = tracker.epoch();
        tracker.apply(
            ProgressToken::Int(999),
            &WorkDoneProgress::End { message: None },
        );
        assert_eq!(tracker.epoch(), epoch, "an unknown end changes nothing");
    }
}
