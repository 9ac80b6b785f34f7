//! Building the model from schemas: named types from `$defs`, type
//! expressions from inline schemas, inline objects and open enums hoisted.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Def, Extra, Field, Kind, Ty};
use crate::error::{escape_pointer, Error, ErrorKind, Result};
use crate::naming;

/// Turns schemas into [`Def`]s, one `$defs` entry at a time.
pub(super) struct Builder {
    /// Every name in use, so hoisted names never collide.
    taken: Vec<String>,
    /// Types hoisted while building the current definition.
    pub(super) hoisted: Vec<Def>,
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
    /// A builder that will not reuse any of `taken` for hoisted names.
    pub(super) fn new(taken: Vec<String>) -> Self {
        Builder {
            taken,
            hoisted: Vec::new(),
        }
    }

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
    pub(super) fn def(&mut self, name: &str, schema: &Value, pointer: &str) -> Result<Def> {
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
                bounds: super::bounds_of(prop),
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
            "array" => match (obj.get("prefixItems"), obj.get("items")) {
                (Some(Value::Array(prefix)), Some(Value::Bool(false))) => {
                    let mut items = Vec::new();
                    for (i, item) in prefix.iter().enumerate() {
                        items.push(self.ty(
                            item,
                            &format!("{hint}_item{i}"),
                            &format!("{pointer}/prefixItems/{i}"),
                        )?);
                    }
                    Ty::Tuple(items)
                }
                (Some(_), _) => {
                    return Err(unsupported(
                        &format!("{pointer}/prefixItems"),
                        "`prefixItems` is supported as a tuple: an array of schemas with `items: false`",
                    ))
                }
                (None, None) => Ty::Array(Box::new(Ty::Any)),
                (None, Some(items)) => Ty::Array(Box::new(self.ty(
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
