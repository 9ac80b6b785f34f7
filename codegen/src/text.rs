//! Writing strings, comments and doc comments safely in each language.
//!
//! Descriptions come straight from schemas and may hold quotes, backslashes,
//! newlines and comment terminators; everything here keeps them inert.

/// A JSON (and TypeScript, and Python) double-quoted string literal.
pub fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A JSON value written compactly on one line (keys in source order).
pub fn json_compact(v: &serde_json::Value) -> String {
    v.to_string()
}

/// A Python literal for a JSON scalar (`"x"`, `1`, `True`, `None`); arrays
/// and objects become their JSON text, which Python reads the same way
/// except for `true`/`false`/`null` inside them.
pub fn python_literal(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => json_string(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(python_literal).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", json_string(k), python_literal(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// A Python triple-quoted docstring body (without the quotes), indented by
/// `indent` on continuation lines. Backslashes and quote runs are escaped.
pub fn python_docstring(text: &str, indent: &str) -> String {
    let mut body = text
        .trim_end()
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    if body.ends_with('"') {
        body.pop();
        body.push_str("\\\"");
    }
    let lines: Vec<String> = body
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || l.trim().is_empty() {
                l.trim_end().to_string()
            } else {
                format!("{indent}{}", l.trim_end())
            }
        })
        .collect();
    let joined = lines.join("\n");
    if lines.len() > 1 {
        format!("{joined}\n{indent}")
    } else {
        joined
    }
}

/// Line comments: each line of `text` prefixed with `prefix` (e.g. `"# "`).
pub fn line_comment(text: &str, prefix: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("{prefix}{}", l.trim_end()).trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A JSDoc block at `indent`, with `*/` defused. `tags` are extra lines such
/// as `@default 3`.
pub fn jsdoc(text: Option<&str>, tags: &[String], indent: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    if let Some(t) = text {
        lines.extend(
            t.trim_end()
                .lines()
                .map(|l| l.trim_end().replace("*/", "*\\/")),
        );
    }
    for tag in tags {
        lines.extend(tag.lines().map(|l| l.replace("*/", "*\\/")));
    }
    if lines.is_empty() {
        return String::new();
    }
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for l in lines {
        if l.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {l}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

/// A Markdown table cell: pipes escaped, newlines turned into `<br>`.
pub fn md_cell(text: &str) -> String {
    text.trim()
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace("\r\n", "\n")
        .replace('\n', "<br>")
}

/// Rust doc comment lines (`/// ...`) at `indent`.
pub fn rust_doc(text: &str, indent: &str) -> String {
    let mut out = String::new();
    for l in text.trim_end().lines() {
        let l = l.trim_end();
        if l.is_empty() {
            out.push_str(&format!("{indent}///\n"));
        } else {
            out.push_str(&format!("{indent}/// {l}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_are_inert() {
        assert_eq!(python_docstring(r#"say "hi""#, "    "), r#"say "hi\""#);
        assert_eq!(python_docstring(r"a\b", ""), r"a\\b");
        assert_eq!(python_docstring("x\"\"\"y", ""), "x\\\"\\\"\\\"y");
        assert_eq!(python_docstring("a\nb", "  "), "a\n  b\n  ");
    }

    #[test]
    fn jsdoc_defuses_terminator() {
        assert_eq!(jsdoc(Some("a */ b"), &[], ""), "/** a *\\/ b */\n");
    }
}
