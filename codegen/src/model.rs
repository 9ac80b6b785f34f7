//! A language-neutral model of the bundled types, shared by the Python,
//! TypeScript and docs generators (Rust goes through typify instead).
//!
//! Inline objects and inline open enums are hoisted into named types
//! (`ParentField`), so every target sees a flat list of definitions.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::bundle::Bundle;
use crate::error::{escape_pointer, Error, ErrorKind, Result};
use crate::naming;

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
        let mut b = Builder {
            taken: bundle.defs.keys().cloned().collect(),
            hoisted: Vec::new(),
        };
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

struct Builder {
    /// Every name in use, so hoisted names never collide.
    taken: Vec<String>,
    /// Types hoisted while building the current definition.
    hoisted: Vec<Def>,
}

fn unsupported(pointer: &str, msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unsupported, msg).at(pointer)
}

fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl Builder {
    fn fresh_name(&mut self, hint: &str) -> String {
        let base = naming::pascal(hint);
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.taken.push(name.clone());
        name
    }

    /// The named type for a `$defs` entry (or a hoisted inline schema).
    fn def(&mut self, name: &str, schema: &Value, pointer: &str) -> Result<Def> {
        let kind = if let Some(known) = schema.get("x-wirekit-open-enum") {
            open_enum(schema, known, pointer)?
        } else if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            if values.len() == 1 {
                Kind::Alias(Ty::Literal(values[0].clone()))
            } else {
                Kind::Enum(values.clone())
            }
        } else if is_object_with_members(schema) {
            self.object(name, schema, pointer)?
        } else {
            Kind::Alias(self.ty(schema, name, pointer)?)
        };
        Ok(Def {
            name: name.to_string(),
            description: description(schema),
            default: schema.get("default").cloned(),
            kind,
        })
    }

    fn object(&mut self, name: &str, schema: &Value, pointer: &str) -> Result<Kind> {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        let empty = Map::new();
        let props = match schema.get("properties") {
            None => &empty,
            Some(Value::Object(p)) => p,
            Some(_) => {
                return Err(unsupported(
                    &format!("{pointer}/properties"),
                    "`properties` must be an object",
                ))
            }
        };
        for (key, prop) in props {
            let child = format!("{pointer}/properties/{}", escape_pointer(key));
            let hint = format!("{name}_{key}");
            fields.push(Field {
                name: key.clone(),
                ty: self.ty(prop, &hint, &child)?,
                required: required.contains(&key.as_str()),
                description: description(prop),
                default: prop.get("default").cloned(),
            });
        }
        let extra = match schema.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Extra::Any,
            Some(Value::Bool(false)) => Extra::Forbidden,
            Some(s) => Extra::Typed(self.ty(
                s,
                &format!("{name}_value"),
                &format!("{pointer}/additionalProperties"),
            )?),
        };
        Ok(Kind::Object { fields, extra })
    }

    /// The type expression of an inline schema; `hint` names hoisted types.
    fn ty(&mut self, schema: &Value, hint: &str, pointer: &str) -> Result<Ty> {
        let obj = match schema {
            Value::Bool(true) => return Ok(Ty::Any),
            Value::Bool(false) => {
                return Err(unsupported(pointer, "the `false` schema accepts nothing"))
            }
            Value::Object(o) => o,
            _ => {
                return Err(unsupported(
                    pointer,
                    "a schema must be an object or a boolean",
                ))
            }
        };
        if let Some(Value::String(r)) = obj.get("$ref") {
            return match r.strip_prefix("#/$defs/") {
                Some(name) => Ok(Ty::Ref(name.replace("~1", "/").replace("~0", "~"))),
                None => Err(Error::new(
                    ErrorKind::Reference,
                    format!("`$ref` {r:?} was not bundled"),
                )
                .at(format!("{pointer}/$ref"))),
            };
        }
        if let Some(c) = obj.get("const") {
            return Ok(Ty::Literal(c.clone()));
        }
        if obj.contains_key("x-wirekit-open-enum") || is_object_with_members(schema) {
            let name = self.fresh_name(hint);
            let def = self.def(&name, schema, pointer)?;
            self.hoisted.push(def);
            return Ok(Ty::Ref(name));
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            let mut items: Vec<Ty> = values.iter().cloned().map(Ty::Literal).collect();
            return Ok(if items.len() == 1 {
                items.remove(0)
            } else {
                Ty::Union(items)
            });
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(subs) = obj.get(key) {
                let subs = subs.as_array().ok_or_else(|| {
                    unsupported(
                        &format!("{pointer}/{key}"),
                        format!("`{key}` must be an array"),
                    )
                })?;
                let mut items = Vec::new();
                for (i, sub) in subs.iter().enumerate() {
                    let t = self.ty(
                        sub,
                        &format!("{hint}_variant{i}"),
                        &format!("{pointer}/{key}/{i}"),
                    )?;
                    push_flat(&mut items, t);
                }
                return Ok(collapse(items));
            }
        }
        if let Some(subs) = obj.get("allOf").and_then(Value::as_array) {
            if subs.len() == 1 {
                return self.ty(&subs[0], hint, &format!("{pointer}/allOf/0"));
            }
            return Err(unsupported(&format!("{pointer}/allOf"), "`allOf` with more than one schema is not supported; merge the members into one object"));
        }
        match obj.get("type") {
            None => Ok(Ty::Any),
            Some(Value::String(t)) => self.simple(obj, t, hint, pointer),
            Some(Value::Array(ts)) => {
                let mut items = Vec::new();
                for t in ts {
                    let t = t.as_str().ok_or_else(|| {
                        unsupported(&format!("{pointer}/type"), "`type` entries must be strings")
                    })?;
                    let ty = self.simple(obj, t, hint, pointer)?;
                    push_flat(&mut items, ty);
                }
                Ok(collapse(items))
            }
            Some(_) => Err(unsupported(
                &format!("{pointer}/type"),
                "`type` must be a string or an array of strings",
            )),
        }
    }

    fn simple(
        &mut self,
        obj: &Map<String, Value>,
        t: &str,
        hint: &str,
        pointer: &str,
    ) -> Result<Ty> {
        Ok(match t {
            "null" => Ty::Null,
            "boolean" => Ty::Bool,
            "integer" => Ty::Integer,
            "number" => Ty::Number,
            "string" => Ty::String,
            "array" => match obj.get("items") {
                None => Ty::Array(Box::new(Ty::Any)),
                Some(items) => Ty::Array(Box::new(self.ty(
                    items,
                    &format!("{hint}_item"),
                    &format!("{pointer}/items"),
                )?)),
            },
            "object" => match obj.get("additionalProperties") {
                None | Some(Value::Bool(_)) => Ty::Map(Box::new(Ty::Any)),
                Some(s) => Ty::Map(Box::new(self.ty(
                    s,
                    &format!("{hint}_value"),
                    &format!("{pointer}/additionalProperties"),
                )?)),
            },
            other => {
                return Err(unsupported(
                    &format!("{pointer}/type"),
                    format!("unknown type {other:?}"),
                ))
            }
        })
    }
}

fn push_flat(items: &mut Vec<Ty>, t: Ty) {
    match t {
        Ty::Union(inner) => {
            for i in inner {
                push_flat(items, i);
            }
        }
        t if items.contains(&t) => {}
        t => items.push(t),
    }
}

fn collapse(mut items: Vec<Ty>) -> Ty {
    if items.contains(&Ty::Any) {
        return Ty::Any;
    }
    if items.len() == 1 {
        items.remove(0)
    } else {
        Ty::Union(items)
    }
}

/// Objects with `properties` become named types; property-less objects are maps.
fn is_object_with_members(schema: &Value) -> bool {
    let is_object = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        None => true,
        _ => false,
    };
    is_object
        && schema.get("properties").is_some()
        && schema.get("oneOf").is_none()
        && schema.get("anyOf").is_none()
}

fn open_enum(schema: &Value, known: &Value, pointer: &str) -> Result<Kind> {
    let names = known
        .as_array()
        .and_then(|a| {
            a.iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| {
            unsupported(
                &format!("{pointer}/x-wirekit-open-enum"),
                "`x-wirekit-open-enum` must be an array of strings",
            )
        })?;
    let mut attributes = BTreeMap::new();
    if let Some(attrs) = schema.get("x-wirekit-enum-attributes") {
        let attrs = attrs.as_object().ok_or_else(|| {
            unsupported(
                &format!("{pointer}/x-wirekit-enum-attributes"),
                "must be an object of attribute -> name -> value",
            )
        })?;
        for (attr, table) in attrs {
            let table = table.as_object().ok_or_else(|| {
                unsupported(
                    &format!(
                        "{pointer}/x-wirekit-enum-attributes/{}",
                        escape_pointer(attr)
                    ),
                    "must be an object of name -> value",
                )
            })?;
            attributes.insert(
                attr.clone(),
                table.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            );
        }
    }
    Ok(Kind::OpenEnum {
        known: names,
        attributes,
    })
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
        let m = Model::new(&Bundle::new(&files).expect("bundle")).expect("model");
        assert_eq!(m.defs.len(), 2);
        assert_eq!(m.defs[1].name, "AB");
        let nullable = match &m.defs[1].kind {
            Kind::Object { fields, .. } => fields[0].ty.clone(),
            other => Ty::Literal(serde_json::Value::String(format!("{other:?}"))),
        };
        assert_eq!(nullable, Ty::Union(vec![Ty::String, Ty::Null]));
    }
}
