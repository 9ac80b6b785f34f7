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
pub(super) fn parse(
    query: &str,
    args: &[String],
    root: &Path,
    to: Option<&str>,
) -> Result<Query, String> {
    if to.is_some() && query != "rename" {
        return Err("--to is the new name of `rename`".to_owned());
    }
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
        "rename" => match (args, to) {
            ([place], Some(new_name)) => {
                if new_name.is_empty() {
                    return Err("`rename --to` needs a name".to_owned());
                }
                let (file, line_column) = place_of(place, root)?;
                Ok(Query::Rename(file, line_column, new_name.to_owned()))
            }
            ([place, new_name], None) if !new_name.is_empty() => {
                let (file, line_column) = place_of(place, root)?;
                Ok(Query::Rename(file, line_column, new_name.clone()))
            }
            _ => Err(
                "`rename` takes FILE:LINE:COL NEWNAME, or FILE:LINE:COL --to NAME (a name that starts with `-`: --to=--primary)"
                    .to_owned(),
            ),
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

/// The language id a server expects for `path`, as editors choose it: an
/// override of `--language-id` (by file name, then by extension), a special
/// file name (`Dockerfile`, `Makefile`), then the extension, by the LSP
/// specification's table of language identifiers (plus `jsonc`, `toml`,
/// `gleam`, `vue`, `svelte`, `kotlin` and a few more editors use).
/// `plaintext` only for a kind of file the table does not know.
pub(super) fn language_id(path: &Path, overrides: &[(String, String)]) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let chosen = |key: &str| {
        overrides
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, id)| id.clone())
    };
    if let Some(id) =
        chosen(name).or_else(|| (!extension.is_empty()).then(|| chosen(extension)).flatten())
    {
        return id;
    }
    let by_name = match name {
        "Dockerfile" | "Containerfile" | "dockerfile" => Some("dockerfile"),
        "Makefile" | "makefile" | "GNUmakefile" => Some("makefile"),
        "CMakeLists.txt" => Some("cmake"),
        "Gemfile" | "Rakefile" => Some("ruby"),
        "COMMIT_EDITMSG" => Some("git-commit"),
        "git-rebase-todo" => Some("git-rebase"),
        ".bashrc" | ".bash_profile" | ".zshrc" | ".profile" => Some("shellscript"),
        _ if name.ends_with(".Dockerfile") || name.starts_with("Dockerfile.") => Some("dockerfile"),
        _ => None,
    };
    if let Some(id) = by_name {
        return id.to_owned();
    }
    let id = match extension {
        "py" | "pyi" | "pyw" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "rs" => "rust",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" => "cpp",
        "cs" => "csharp",
        "m" => "objective-c",
        "mm" => "objective-cpp",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "scala" | "sc" => "scala",
        "swift" => "swift",
        "dart" => "dart",
        "gleam" => "gleam",
        "zig" => "zig",
        "hs" => "haskell",
        "ml" | "mli" => "ocaml",
        "fs" | "fsi" | "fsx" => "fsharp",
        "ex" | "exs" => "elixir",
        "erl" | "hrl" => "erlang",
        "clj" | "cljs" | "cljc" | "edn" => "clojure",
        "coffee" => "coffeescript",
        "lua" => "lua",
        "pl" | "pm" => "perl",
        "p6" | "raku" => "perl6",
        "php" => "php",
        "rb" => "ruby",
        "r" | "R" => "r",
        "groovy" | "gradle" => "groovy",
        "vb" => "vb",
        "sql" => "sql",
        "sh" | "bash" | "zsh" | "ksh" => "shellscript",
        "ps1" | "psm1" | "psd1" => "powershell",
        "bat" | "cmd" => "bat",
        "html" | "htm" | "xhtml" => "html",
        "css" => "css",
        "scss" => "scss",
        "sass" => "sass",
        "less" => "less",
        "vue" => "vue",
        "svelte" => "svelte",
        "hbs" | "handlebars" => "handlebars",
        "pug" | "jade" => "jade",
        "cshtml" | "razor" => "razor",
        "json" => "json",
        "jsonc" | "code-workspace" => "jsonc",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "ini" | "cfg" => "ini",
        "xml" | "xsd" | "svg" | "plist" => "xml",
        "xsl" | "xslt" => "xsl",
        "md" | "markdown" => "markdown",
        "tex" | "latex" | "ltx" | "ctx" => "latex",
        "sty" | "cls" | "bbx" | "cbx" => "tex",
        "abap" => "abap",
        "bib" => "bibtex",
        "diff" | "patch" => "diff",
        "dockerfile" => "dockerfile",
        "mk" => "makefile",
        "cmake" => "cmake",
        "shader" => "shaderlab",
        "tf" | "tfvars" => "terraform",
        "proto" => "proto3",
        "graphql" | "gql" => "graphql",
        _ => "plaintext",
    };
    id.to_owned()
}

/// `EXT=ID` or `NAME=ID` of `--language-id`.
pub(super) fn language_override(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, id)) if !key.is_empty() && !id.is_empty() => {
            Ok((key.trim_start_matches('.').to_owned(), id.to_owned()))
        }
        _ => Err(format!(
            "--language-id `{text}` is not EXT=ID (html=html, Dockerfile=dockerfile, .tpl=html)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_ids_come_from_names_extensions_and_overrides() {
        let id = |path: &str| language_id(Path::new(path), &[]);
        assert_eq!(id("web/index.html"), "html");
        assert_eq!(id("styles.css"), "css");
        assert_eq!(id("ci.yml"), "yaml");
        assert_eq!(id("Cargo.toml"), "toml");
        assert_eq!(id("Dockerfile"), "dockerfile");
        assert_eq!(id("build/Dockerfile.dev"), "dockerfile");
        assert_eq!(id("Makefile"), "makefile");
        assert_eq!(id("run.sh"), "shellscript");
        assert_eq!(id("notes.unknownext"), "plaintext");
        let overrides = vec![
            language_override("tpl=html").expect("an override"),
            language_override("Dockerfile=docker").expect("an override"),
        ];
        assert_eq!(language_id(Path::new("page.tpl"), &overrides), "html");
        assert_eq!(language_id(Path::new("Dockerfile"), &overrides), "docker");
        assert!(language_override("html").is_err());
    }

    /// Every identifier of the LSP 3.17 table (`TextDocumentItem`) is what
    /// some kind of file gets, and none of the kinds the table names is `plaintext`.
    #[test]
    fn every_identifier_of_the_specification_table_is_reached() {
        let table = [
            ("a.abap", "abap"),
            ("a.bat", "bat"),
            ("a.cmd", "bat"),
            ("a.bib", "bibtex"),
            ("a.clj", "clojure"),
            ("a.coffee", "coffeescript"),
            ("a.c", "c"),
            ("a.h", "c"),
            ("a.cpp", "cpp"),
            ("a.hpp", "cpp"),
            ("a.cs", "csharp"),
            ("a.css", "css"),
            ("a.diff", "diff"),
            ("a.patch", "diff"),
            ("a.dart", "dart"),
            ("Dockerfile", "dockerfile"),
            ("a.dockerfile", "dockerfile"),
            ("a.ex", "elixir"),
            ("a.erl", "erlang"),
            ("a.fs", "fsharp"),
            ("COMMIT_EDITMSG", "git-commit"),
            ("git-rebase-todo", "git-rebase"),
            ("a.go", "go"),
            ("a.groovy", "groovy"),
            ("a.hbs", "handlebars"),
            ("a.html", "html"),
            ("a.htm", "html"),
            ("a.ini", "ini"),
            ("a.java", "java"),
            ("a.js", "javascript"),
            ("a.mjs", "javascript"),
            ("a.jsx", "javascriptreact"),
            ("a.json", "json"),
            ("a.jsonc", "jsonc"),
            ("a.tex", "latex"),
            ("a.less", "less"),
            ("a.lua", "lua"),
            ("Makefile", "makefile"),
            ("a.mk", "makefile"),
            ("a.md", "markdown"),
            ("a.m", "objective-c"),
            ("a.mm", "objective-cpp"),
            ("a.pl", "perl"),
            ("a.raku", "perl6"),
            ("a.php", "php"),
            ("a.ps1", "powershell"),
            ("a.pug", "jade"),
            ("a.py", "python"),
            ("a.r", "r"),
            ("a.cshtml", "razor"),
            ("a.rb", "ruby"),
            ("a.rs", "rust"),
            ("a.scss", "scss"),
            ("a.sass", "sass"),
            ("a.scala", "scala"),
            ("a.shader", "shaderlab"),
            ("a.sh", "shellscript"),
            ("a.bash", "shellscript"),
            ("a.sql", "sql"),
            ("a.swift", "swift"),
            ("a.ts", "typescript"),
            ("a.tsx", "typescriptreact"),
            ("a.sty", "tex"),
            ("a.vb", "vb"),
            ("a.xml", "xml"),
            ("a.xsl", "xsl"),
            ("a.yaml", "yaml"),
            ("a.yml", "yaml"),
            ("a.toml", "toml"),
        ];
        for (file, expected) in table {
            assert_eq!(language_id(Path::new(file), &[]), expected, "{file}");
        }
        let identifiers: std::collections::BTreeSet<&str> =
            table.iter().map(|(_, id)| *id).collect();
        let specification = "abap bat bibtex clojure coffeescript c cpp csharp css diff dart \
            dockerfile elixir erlang fsharp git-commit git-rebase go groovy handlebars html ini \
            java javascript javascriptreact json latex less lua makefile markdown objective-c \
            objective-cpp perl perl6 php powershell jade python r razor ruby rust scss sass scala \
            shaderlab shellscript sql swift typescript typescriptreact tex vb xml xsl yaml";
        for id in specification.split_whitespace() {
            assert!(identifiers.contains(id), "{id} is reached by no file");
        }
        assert!(!identifiers.contains("plaintext"));
    }

    #[test]
    fn overrides_win_by_name_then_extension_and_keys_may_start_with_a_dot() {
        let overrides = vec![
            language_override(".tpl=html").expect("an override"),
            language_override("yml=yaml-ci").expect("an override"),
            language_override("special.yml=github-actions").expect("an override"),
        ];
        let id = |path: &str| language_id(Path::new(path), &overrides);
        assert_eq!(id("views/page.tpl"), "html");
        assert_eq!(id("ci.yml"), "yaml-ci");
        assert_eq!(id("special.yml"), "github-actions");
        assert_eq!(id("a.yaml"), "yaml");
        for bad in ["=html", "tpl=", "tpl"] {
            assert!(language_override(bad).is_err(), "{bad}");
        }
    }
}
