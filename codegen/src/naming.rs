//! Identifier conversions and the reserved words of each target language.

/// Split a name into words at `_`, `-`, `.`, spaces, other non-alphanumerics
/// and lower-to-upper case changes (`fooBar`, `HTTPServer`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `PascalCase`, prefixed with `_` when it would start with a digit.
pub fn pascal(name: &str) -> String {
    let mut s = String::new();
    for w in words(name) {
        let mut cs = w.chars();
        if let Some(first) = cs.next() {
            s.push(first.to_ascii_uppercase());
            s.push_str(&cs.as_str().to_ascii_lowercase_if_all_upper());
        }
    }
    fix_leading_digit(s)
}

/// `snake_case`, prefixed with `_` when it would start with a digit.
pub fn snake(name: &str) -> String {
    let s = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    fix_leading_digit(s)
}

/// `SCREAMING_SNAKE_CASE`.
pub fn screaming(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

fn fix_leading_digit(s: String) -> String {
    if s.is_empty() {
        "_".to_string()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

trait LowerIfAllUpper {
    fn to_ascii_lowercase_if_all_upper(&self) -> String;
}

impl LowerIfAllUpper for str {
    /// Keep `camelHumps` in a word but lower an all-caps rest (`HTTP` -> `Http`).
    fn to_ascii_lowercase_if_all_upper(&self) -> String {
        if self.chars().all(|c| !c.is_ascii_lowercase()) {
            self.to_ascii_lowercase()
        } else {
            self.to_string()
        }
    }
}

/// Whether `s` is an ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && cs.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Python's hard keywords (soft keywords such as `match` are fine as names).
pub const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Names a generated Python module imports or defines itself.
const PYTHON_TAKEN: &[&str] = &[
    "TYPE_CHECKING",
    "Any",
    "Final",
    "Literal",
    "NotRequired",
    "TypeAlias",
    "TypedDict",
    "Union",
    "Optional",
    "annotations",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "object",
    "type",
];

/// TypeScript names a type may not take (reserved words, built-in types and
/// the generated module's own names).
const TS_RESERVED: &[&str] = &[
    "any",
    "boolean",
    "never",
    "number",
    "object",
    "string",
    "symbol",
    "undefined",
    "unknown",
    "void",
    "null",
    "Array",
    "Record",
    "Readonly",
    "Partial",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "Promise",
    "Error",
    "Map",
    "Set",
    "Date",
    "Function",
    // The types every generated protocol module declares itself
    // (templates/typescript): a schema type of that name (MCP's
    // `RequestParams`) takes the trailing `_`. (Its values, `Methods` and
    // `ErrorCodes`, may share a name with a type: LSP's `ErrorCodes`.)
    "RequestParams",
    "RequestResult",
    "MethodName",
];

/// A Python name for a generated type: PascalCase, never a keyword or a
/// name the module imports.
pub fn python_type_name(name: &str) -> String {
    let s = pascal(name);
    if PYTHON_KEYWORDS.contains(&s.as_str()) || PYTHON_TAKEN.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// Whether a key may be written as an attribute in a class-syntax TypedDict.
pub fn python_key_is_attribute(key: &str) -> bool {
    is_identifier(key) && !PYTHON_KEYWORDS.contains(&key)
}

/// A TypeScript name for a generated type.
pub fn ts_type_name(name: &str) -> String {
    let s = pascal(name);
    if TS_RESERVED.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// A TypeScript property key: bare when it is an identifier, quoted otherwise.
pub fn ts_key(key: &str) -> String {
    let ident = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c == '$' || c == '_' || c.is_ascii_alphanumeric());
    if ident {
        key.to_string()
    } else {
        crate::text::json_string(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(pascal("side_effect"), "SideEffect");
        assert_eq!(pascal("HTTPServer"), "HttpServer");
        assert_eq!(pascal("AnalyzeParams"), "AnalyzeParams");
        assert_eq!(pascal("type"), "Type");
        assert_eq!(snake("testMapping"), "test_mapping");
        assert_eq!(snake("classify_signals"), "classify_signals");
        assert_eq!(snake("gzkit-authoring-guide"), "gzkit_authoring_guide");
        assert_eq!(screaming("ParseError"), "PARSE_ERROR");
        assert_eq!(snake("2fa"), "_2fa");
    }

    #[test]
    fn python_names() {
        assert_eq!(python_type_name("none"), "None_");
        assert_eq!(python_type_name("literal"), "Literal_");
        assert!(!python_key_is_attribute("class"));
        assert!(python_key_is_attribute("root_path"));
    }
}
