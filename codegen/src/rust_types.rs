//! Rust types through typify: the bundled `$defs` go in as one schemars 0.8
//! type space, the generated items come out formatted by prettyplease.
//!
//! typify panics on some constructs (a `$ref` it cannot find, a few shapes
//! it has no answer for). Every call is wrapped in `catch_unwind`; after a
//! panic each type is converted alone (the others stubbed out as "any") to
//! name the schema that caused it.
//!
//! The items then go through three passes over their syntax: fields back in
//! the schema's order ([`crate::field_order`]), bounded integers
//! ([`crate::bounds`]), and optional arrays and objects without properties
//! as `Option`s, so absent and empty stay apart ([`crate::presence`]).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use schemars::schema::Schema;
use typify::{TypeSpace, TypeSpaceSettings};

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::Protocol;

/// The typify output for a protocol, and the Rust name of each `$defs` type.
pub struct RustTypes {
    /// Formatted items (no module wrapper).
    pub code: String,
    /// `$defs` name -> Rust type name.
    pub names: BTreeMap<String, String>,
}

fn settings() -> TypeSpaceSettings {
    let mut s = TypeSpaceSettings::default();
    s.with_struct_builder(false);
    s.with_derive("PartialEq".to_string());
    s
}

fn schemas(p: &Protocol) -> Result<Vec<(String, Schema)>> {
    let mut out = Vec::new();
    for (name, json) in &p.bundle.defs {
        let mut json = json.clone();
        strip_string_formats(&mut json);
        alternatives_as_one_of(&mut json);
        tuples_as_draft_07(&mut json);
        let schema: Schema = serde_json::from_value(json).map_err(|e| {
            let err = Error::new(
                ErrorKind::Typify,
                format!("schemars 0.8 cannot read type `{name}`: {e}"),
            );
            match p.bundle.origins.get(name) {
                Some(o) => err.in_file(&o.file).at(&o.pointer),
                None => err,
            }
        })?;
        out.push((name.clone(), schema));
    }
    Ok(out)
}

/// The first line of a panic's message (typify appends whole schemas).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".to_string()
    };
    let first = text
        .lines()
        .next()
        .unwrap_or("")
        .trim_end_matches([':', ' ', '{']);
    first.to_string()
}

thread_local! {
    /// Set while typify runs on this thread: its panics are reported as
    /// errors, so the panic hook stays quiet about them.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Install (once) a panic hook that is silent for typify's panics and
/// defers to the previous hook for every other panic.
fn quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Run `f` with typify's panics caught and kept quiet.
fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    quiet_hook();
    QUIET.with(|q| q.set(true));
    let out = catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()));
    QUIET.with(|q| q.set(false));
    out
}

/// Run typify on `defs`, turning a panic into `Err(message)`.
fn convert(defs: &[(String, Schema)]) -> std::result::Result<Result<TypeSpace>, String> {
    guarded(|| {
        let mut space = TypeSpace::new(&settings());
        space
            .add_ref_types(defs.iter().map(|(n, s)| (n.clone(), s.clone())))
            .map_err(|e| {
                Error::new(
                    ErrorKind::Typify,
                    format!("typify rejected the schemas: {e}"),
                )
            })?;
        // Render once inside the guard: output can panic too.
        let _ = space.to_stream();
        Ok(space)
    })
}

/// After a panic: the first type that panics on its own.
fn culprit(p: &Protocol, defs: &[(String, Schema)]) -> Option<String> {
    (0..defs.len()).find_map(|i| {
        let alone: Vec<(String, Schema)> = defs
            .iter()
            .enumerate()
            .map(|(j, (n, s))| {
                (
                    n.clone(),
                    if i == j {
                        s.clone()
                    } else {
                        Schema::Bool(true)
                    },
                )
            })
            .collect();
        let _ = p;
        matches!(convert(&alone), Err(_) | Ok(Err(_))).then(|| defs[i].0.clone())
    })
}

/// Generate the types of `p` with typify; `root` is the runtime crate's
/// path (`::wirekit`), for the bounded integers.
pub fn generate(p: &Protocol, root: &str) -> Result<RustTypes> {
    let defs = schemas(p)?;
    let space = match convert(&defs) {
        Ok(Ok(space)) => space,
        Ok(Err(err)) => {
            let Some(name) = culprit(p, &defs) else {
                return Err(err.in_file(&p.manifest_path));
            };
            let err = Error::new(
                ErrorKind::Typify,
                format!("type `{name}`: {}", err.message()),
            );
            return Err(match p.bundle.origins.get(&name) {
                Some(o) => err.in_file(&o.file).at(&o.pointer),
                None => err,
            });
        }
        Err(message) => {
            let mut err = Error::new(ErrorKind::Typify, format!("typify panicked: {message}"));
            if let Some(name) = culprit(p, &defs) {
                err = Error::new(
                    ErrorKind::Typify,
                    format!("typify panicked on type `{name}`: {message}"),
                );
                if let Some(o) = p.bundle.origins.get(&name) {
                    err = err.in_file(&o.file).at(&o.pointer);
                }
            }
            return Err(err);
        }
    };
    let mut space = space;
    let names = guarded(|| {
        let mut names = BTreeMap::new();
        for (name, _) in &defs {
            let reference = Schema::new_ref(format!("#/$defs/{name}"));
            let ident = space
                .add_type(&reference)
                .and_then(|id| space.get_type(&id).map(|t| t.ident().to_string()));
            if let Ok(ident) = ident {
                names.insert(name.clone(), tidy_type(&ident));
            }
        }
        names
    })
    .map_err(|message| {
        Error::new(
            ErrorKind::Typify,
            format!("typify panicked naming types: {message}"),
        )
    })?;
    let stream = space.to_stream();
    let mut file: syn::File = syn::parse2(stream).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("typify output does not parse: {e}"),
        )
    })?;
    crate::field_order::restore_schema_order(&mut file, &p.bundle.defs);
    crate::bounds::bound_integers(&mut file, &p.bundle.defs, &names, root);
    crate::presence::keep_empty_members(&mut file);
    Ok(RustTypes {
        code: prettyplease::unparse(&file),
        names,
    })
}

/// `Vec < Foo >` -> `Vec<Foo>`: token text as a person would write it.
fn tidy_type(tokens: &str) -> String {
    tokens
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" ,", ",")
}

/// typify maps string `format`s to chrono, uuid and std::net types; the
/// bindings keep them plain `String`s (validation checks formats), so the
/// crate needs no extra dependencies. Integer formats are kept.
fn strip_string_formats(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let is_string = map.get("type").and_then(Value::as_str) == Some("string");
            if is_string {
                map.remove("format");
            }
            for (k, child) in map.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    strip_string_formats(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_string_formats),
        _ => {}
    }
}

/// An `anyOf` of several shapes (LSP's `Location | Location[] |
/// LocationLink[] | null`) is handed to typify as a `oneOf`, so that it
/// becomes one sum type (an untagged enum, tried in order) rather than a
/// struct of optional flattened parts. Validation keeps the schema's
/// `anyOf`: an empty list matches two of the shapes at once. A nullable
/// `anyOf` of one shape and `null` stays as it is (typify's `Option`).
fn alternatives_as_one_of(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let several = map
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|items| {
                    items
                        .iter()
                        .filter(|i| i.get("type").and_then(Value::as_str) != Some("null"))
                        .count()
                        > 1
                });
            if several && !map.contains_key("oneOf") {
                if let Some(items) = map.remove("anyOf") {
                    map.insert("oneOf".into(), items);
                }
            }
            for (k, child) in map.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    alternatives_as_one_of(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(alternatives_as_one_of),
        _ => {}
    }
}

/// schemars 0.8 reads draft-07: a 2020-12 tuple (`prefixItems` with
/// `items: false`) becomes `items: [..]` with `additionalItems: false`,
/// which typify renders as a Rust tuple.
fn tuples_as_draft_07(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            if let (Some(Value::Array(_)), Some(Value::Bool(false))) =
                (map.get("prefixItems"), map.get("items"))
            {
                if let Some(prefix) = map.remove("prefixItems") {
                    map.insert("items".into(), prefix);
                    map.insert("additionalItems".into(), Value::Bool(false));
                }
            }
            for (k, child) in map.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    tuples_as_draft_07(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tuples_as_draft_07),
        _ => {}
    }
}
