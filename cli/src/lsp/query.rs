//! The query a person asked for, parsed from the command line: the query's
//! name and its arguments (`FILE:LINE:COL`, `FILE`, `NEWNAME`).

use std::path::{Path, PathBuf};

use wirekit_lsp::text::LineColumn;

/// A query and its arguments.
#[derive(Debug, Clone)]
pub(super) enum Query {
    /// definition, references, hover, calls-incoming, calls-outgoing.
    At(AtQuery, PathBuf, LineColumn),
    /// symbols FILE.
    Symbols(PathBuf),
    /// rename FILE:LINE:COL NEWNAME.
    Rename(PathBuf, LineColumn, String),
    /// diagnostics FILE...
    Diagnostics(Vec<PathBuf>),
}

/// The queries at a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AtQuery {
    Definition,
    References,
    Hover,
    CallsIncoming,
    CallsOutgoing,
}

impl Query {
    pub(super) fn name(&self) -> &'static str {
        match self {
            Query::At(AtQuery::Definition, ..) => "definition",
            Query::At(AtQuery::References, ..) => "references",
            Query::At(AtQuery::Hover, ..) => "hover",
            Query::At(AtQuery::CallsIncoming, ..) => "calls-incoming",
            Query::At(AtQuery::CallsOutgoing, ..) => "calls-outgoing",
            Query::Symbols(_) => "symbols",
            Query::Rename(..) => "rename",
            Query::Diagnostics(_) => "diagnostics",
        }
    }

    /// The files the query reads (opened on the server first).
    pub(super) fn files(&self) -> Vec<PathBuf> {
        match self {
            Query::At(_, file, _) | Query::Symbols(file) | Query::Rename(file, ..) => {
                vec![file.clone()]
            }
            Query::Diagnostics(files) => files.clone(),
        }
    }
}

/// Parses `QUERY ARGS...`; files are relative to `root`.
pub(super) fn parse(query: &str, args: &[String], root: &Path) -> Result<Query, String> {
    let at = |kind| -> Result<Query, String> {
        let [place] = args else {
            return Err(format!("`{query}` takes one FILE:LINE:COL"));
        };
        let (file, line_column) = place_of(place, root)?;
        Ok(Query::At(kind, file, line_column))
    };
    match query {
        "definition" => at(AtQuery::Definition),
        "references" => at(AtQuery::References),
        "hover" => at(AtQuery::Hover),
        "calls-incoming" => at(AtQuery::CallsIncoming),
        "calls-outgoing" => at(AtQuery::CallsOutgoing),
        "symbols" => match args {
            [file] => Ok(Query::Symbols(root.join(file))),
            _ => Err("`symbols` takes one FILE".to_owned()),
        },
        "rename" => match args {
            [place, new_name] if !new_name.is_empty() => {
                let (file, line_column) = place_of(place, root)?;
                Ok(Query::Rename(file, line_column, new_name.clone()))
            }
            _ => Err("`rename` takes FILE:LINE:COL NEWNAME".to_owned()),
        },
        "diagnostics" if !args.is_empty() => Ok(Query::Diagnostics(args.iter().map(|f| root.join(f)).collect())),
        "diagnostics" => Err("`diagnostics` takes one FILE or more".to_owned()),
        other => Err(format!(
            "unknown query `{other}` (definition, references, hover, calls-incoming, calls-outgoing, symbols, rename, diagnostics)"
        )),
    }
}

/// `FILE:LINE:COL`, split from the right (a file name may hold colons).
fn place_of(text: &str, root: &Path) -> Result<(PathBuf, LineColumn), String> {
    let mut parts = text.rsplitn(3, ':');
    let (Some(column), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("`{text}` is not FILE:LINE:COL"));
    };
    let number = |part: &str, what: &str| -> Result<u32, String> {
        match part.parse::<u32>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "`{text}`: the {what} `{part}` is not a number from 1"
            )),
        }
    };
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    Ok((
        root.join(file),
        LineColumn {
            line: number(line, "line")?,
            column: number(column, "column")?,
        },
    ))
}

/// The language id a server expects for `path`, by its extension.
pub(super) fn language_id(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "rs" => "rust",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "gleam" => "gleam",
        "json" => "json",
        _ => "plaintext",
    }
}
