//! Rust types through typify: the bundled `$defs` go in as one schemars 0.8
//! type space, the generated items come out formatted by prettyplease.
//!
//! typify panics on some constructs (a `$ref` it cannot find, a few shapes
//! it has no answer for). Every call is wrapped in `catch_unwind`; after a
//! panic each type is converted alone (the others stubbed out as "any") to
//! name the schema that caused it.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

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
        let schema: Schema = serde_json::from_value(json.clone()).map_err(|e| {
            let err = Error::new(ErrorKind::Typify, format!("schemars 0.8 cannot read type `{name}`: {e}"));
            match p.bundle.origins.get(name) {
                Some(o) => err.in_file(&o.file).at(&o.pointer),
                None => err,
            }
        })?;
        out.push((name.clone(), schema));
    }
    Ok(out)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "typify panicked".to_string()
    }
}

/// Run typify on `defs`, turning a panic into `Err(message)`.
fn convert(defs: &[(String, Schema)]) -> std::result::Result<Result<TypeSpace>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut space = TypeSpace::new(&settings());
        space
            .add_ref_types(defs.iter().map(|(n, s)| (n.clone(), s.clone())))
            .map_err(|e| Error::new(ErrorKind::Typify, format!("typify rejected the schemas: {e}")))?;
        // Render once inside the guard: output can panic too.
        let _ = space.to_stream();
        Ok(space)
    }))
    .map_err(|payload| panic_message(payload.as_ref()))
}

/// After a panic: the first type that panics on its own.
fn culprit(p: &Protocol, defs: &[(String, Schema)]) -> Option<String> {
    (0..defs.len()).find_map(|i| {
        let alone: Vec<(String, Schema)> = defs
            .iter()
            .enumerate()
            .map(|(j, (n, s))| (n.clone(), if i == j { s.clone() } else { Schema::Bool(true) }))
            .collect();
        let _ = p;
        convert(&alone).is_err().then(|| defs[i].0.clone())
    })
}

/// Generate the types of `p` with typify.
pub fn generate(p: &Protocol) -> Result<RustTypes> {
    let defs = schemas(p)?;
    let space = match convert(&defs) {
        Ok(space) => space?,
        Err(message) => {
            let mut err = Error::new(ErrorKind::Typify, format!("typify panicked: {message}"));
            if let Some(name) = culprit(p, &defs) {
                err = Error::new(ErrorKind::Typify, format!("typify panicked on type `{name}`: {message}"));
                if let Some(o) = p.bundle.origins.get(&name) {
                    err = err.in_file(&o.file).at(&o.pointer);
                }
            }
            return Err(err);
        }
    };
    let mut space = space;
    let names = catch_unwind(AssertUnwindSafe(|| {
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
    }))
    .map_err(|payload| Error::new(ErrorKind::Typify, format!("typify panicked naming types: {}", panic_message(payload.as_ref()))))?;
    let stream = space.to_stream();
    let file: syn::File = syn::parse2(stream)
        .map_err(|e| Error::new(ErrorKind::Format, format!("typify output does not parse: {e}")))?;
    Ok(RustTypes { code: prettyplease::unparse(&file), names })
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
