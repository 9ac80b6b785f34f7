//! Where things are, for people: paths from URIs (strictly decoded) and
//! 1-based line:column from the server's UTF-16 ranges, through the one
//! converter (`wirekit_lsp::text`) against the text the server was given
//! (the synced text of an open document, or the file as it is on disk).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use wirekit_lsp::text::{to_person, LineColumn};
use wirekit_lsp::uri::uri_to_path;
use wirekit_lsp::{Client, Range};

/// A range as a person reads it.
pub(super) struct Place {
    pub(super) file: String,
    pub(super) start: LineColumn,
    pub(super) end: LineColumn,
    pub(super) range: Range,
}

impl Place {
    /// `file:line:col`.
    pub(super) fn text(&self) -> String {
        format!("{}:{}", self.file, self.start)
    }

    pub(super) fn json(&self) -> Value {
        json!({
            "file": self.file,
            "line": self.start.line,
            "column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "lsp_range": self.range.to_value(),
        })
    }
}

/// Texts read once per run, and the root paths are shown relative to.
pub(super) struct Places {
    root: PathBuf,
    texts: HashMap<PathBuf, Option<String>>,
}

impl Places {
    pub(super) fn new(root: &Path) -> Self {
        Places {
            root: root.to_path_buf(),
            texts: HashMap::new(),
        }
    }

    /// The path shown for `path`: relative to the root when inside it.
    pub(super) fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// A URI and range as a person's place; a URI that does not decode is
    /// shown as it is, its positions as the server's plus one.
    pub(super) fn place(&mut self, client: &Client, uri: &str, range: Range) -> Place {
        let Ok(path) = uri_to_path(uri) else {
            let plus_one = |p: wirekit_lsp::Position| LineColumn {
                line: p.line + 1,
                column: p.character + 1,
            };
            return Place {
                file: uri.to_owned(),
                start: plus_one(range.start),
                end: plus_one(range.end),
                range,
            };
        };
        let text = match client.synced_text(&path) {
            Some(text) => Some(text.to_owned()),
            None => self
                .texts
                .entry(path.clone())
                .or_insert_with(|| std::fs::read_to_string(&path).ok())
                .clone(),
        };
        let text = text.unwrap_or_default();
        Place {
            file: self.shown(&path),
            start: to_person(&text, range.start),
            end: to_person(&text, range.end),
            range,
        }
    }
}
