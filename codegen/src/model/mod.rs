//! A language-neutral model of the bundled types, shared by the Python,
//! TypeScript and docs generators (Rust goes through typify instead).
//!
//! Inline objects and inline open enums are hoisted into named types
//! (`ParentField`), so every target sees a flat list of definitions.

use std::collections::BTreeMap;

use serde_json::Value;

mod build;

use build::Builder;

use crate::bundle::Bundle;
use crate::error::Result;

/// A type expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Any JSON value.
    Any,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// An integer.
    Integer,
    /// Any number.
    Number,
    /// A string.
    String,
    /// A named type (a key of [`Model::defs`]).
    Ref(String),
    /// An array of the inner type.
    Array(Box<Ty>),
    /// An array of exactly these items, in order (`prefixItems` with
    /// `items: false`).
    Tuple(Vec<Ty>),
    /// An object whose values are all of the inner type.
    Map(Box<Ty>),
    /// Exactly this JSON value (`const`, one-value `enum`).
    Literal(Value),
    /// Any one of these.
    Union(Vec<Ty>),
}

impl Ty {
    /// Whether `null` is one of the accepted values.
    pub fn is_nullable(&self) -> bool {
        match self {
            Ty::Null | Ty::Any => true,
            Ty::Literal(Value::Null) => true,
            Ty::Union(items) => items.iter().any(Ty::is_nullable),
            _ => false,
        }
    }
}

/// One member of an object type.
#[derive(Debug, Clone)]
pub struct Field {
    /// The JSON key.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Whether the key must be present.
    pub required: bool,
    /// The schema's `description`.
    pub description: Option<String>,
    /// The schema's `default`.
    pub default: Option<Value>,
    /// The numeric bounds of a number or integer member, as
    /// `(keyword, value)` in the order `minimum`, `exclusiveMinimum`,
    /// `maximum`, `exclusiveMaximum` (empty when it has none).
    pub bounds: Vec<(String, Value)>,
}

/// The bound keywords of `schema` (see [`Field::bounds`]).
pub fn bounds_of(schema: &Value) -> Vec<(String, Value)> {
    ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"]
        .into_iter()
        .filter_map(|key| {
            schema
                .get(key)
                .filter(|v| v.is_number())
                .map(|v| (key.to_owned(), v.clone()))
        })
        .collect()
}

/// What extra keys an object accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// Any (no `additionalProperties`, or `true`).
    Any,
    /// None (`additionalProperties: false`).
    Forbidden,
    /// Values of this type.
    Typed(Ty),
}

/// The shape of a named type.
#[derive(Debug, Clone)]
pub enum Kind {
    /// An object with named members.
    Object {
        /// The members, in schema order.
        fields: Vec<Field>,
        /// What other keys are allowed.
        extra: Extra,
    },
    /// A closed set of values.
    Enum(Vec<Value>),
    /// Known string names plus any other string (`x-wirekit-open-enum`).
    OpenEnum {
        /// The known names.
        known: Vec<String>,
        /// `x-wirekit-enum-attributes`: attribute -> name -> value.
        attributes: BTreeMap<String, Vec<(String, Value)>>,
    },
    /// Another name for a type expression.
    Alias(Ty),
}

/// A named type.
#[derive(Debug, Clone)]
pub struct Def {
    /// The `$defs` key (or the hoisted name).
    pub name: String,
    /// The schema's `description`.
    pub description: Option<String>,
    /// The schema's `default`.
    pub default: Option<Value>,
    /// Its shape.
    pub kind: Kind,
}

/// Every named type of a bundle, in order.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// The types: bundle order, hoisted types right after their parent.
    pub defs: Vec<Def>,
}

impl Model {
    /// Build the model of `bundle`.
    pub fn new(bundle: &Bundle) -> Result<Self> {
        let mut b = Builder::new(bundle.defs.keys().cloned().collect());
        let mut defs = Vec::new();
        for (name, schema) in &bundle.defs {
            let origin = bundle.origins.get(name);
            let pointer = origin.map(|o| o.pointer.clone()).unwrap_or_default();
            let def = b.def(name, schema, &pointer).map_err(|e| match origin {
                Some(o) => e.in_file(&o.file),
                None => e,
            })?;
            defs.push(def);
            defs.append(&mut b.hoisted);
        }
        Ok(Model { defs })
    }

    /// The type named `name`.
    pub fn get(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|d| d.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::SchemaFile;
    use serde_json::json;

    #[test]
    fn inline_objects_are_hoisted() {
        let files = vec![SchemaFile {
            name: "a.json".into(),
            display: "a.json".into(),
            json: json!({"$defs": {"A": {"type": "object", "required": ["b"], "properties": {
                "b": {"type": "object", "properties": {"c": {"type": ["string", "null"]}}}
            }}}}),
        }];
        let p = crate::protocol::from_files("set", files).expect("bundle");
        let m = Model::new(&p.bundle).expect("model");
        assert_eq!(m.defs.len(), 2);
        assert_eq!(m.defs[1].name, "AB");
        let nullable = match &m.defs[1].kind {
            Kind::Object { fields, .. } => fields[0].ty.clone(),
            other => Ty::Literal(serde_json::Value::String(format!("{other:?}"))),
        };
        assert_eq!(nullable, Ty::Union(vec![Ty::String, Ty::Null]));
    }
}
