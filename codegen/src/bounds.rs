//! typify 0.8 gives an integer schema the Rust integer whose range is
//! exactly the schema's bounds (`minimum: 0` is `u64`, `0..=4294967295` is
//! `u32`, `minimum: 1` is `NonZeroU64`) and a plain `i64`/`u64` otherwise,
//! so `{"minimum": 0, "maximum": 262144}` comes out as an `i64` that takes
//! -1 and 262145. It has no setting for ranged integers (bounded newtypes
//! are an open pull request, oxidecomputer/typify#987). This pass gives
//! every struct field whose integer schema is narrower than its Rust type
//! the runtime's `BoundedInt<MIN, MAX>` instead, from the schema's
//! `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum`, for any
//! schema, so decoding refuses what the schema refuses.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use syn::{Fields, GenericArgument, Item, PathArguments, Type};

use crate::field_order::wire_name;

/// Rewrites, in every struct of `file` (modules included), the type of each
/// field whose integer schema is narrower than typify's integer type.
/// `names` maps `$defs` names to typify's type names; `root` is the runtime
/// crate's path (`::wirekit`).
pub fn bound_integers(
    file: &mut syn::File,
    defs: &Map<String, Value>,
    names: &BTreeMap<String, String>,
    root: &str,
) {
    let mut objects = Vec::new();
    for (name, schema) in defs {
        collect_objects(schema, names.get(name).map(String::as_str), &mut objects);
    }
    bound_items(&mut file.items, &objects, root);
}

/// An object schema's properties, with the type name typify gave it when
/// it is a `$defs` type.
struct Object<'a> {
    type_name: Option<&'a str>,
    properties: &'a Map<String, Value>,
}

fn collect_objects<'a>(schema: &'a Value, type_name: Option<&'a str>, out: &mut Vec<Object<'a>>) {
    match schema {
        Value::Object(members) => {
            if let Some(Value::Object(properties)) = members.get("properties") {
                out.push(Object {
                    type_name,
                    properties,
                });
            }
            for (key, value) in members {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    collect_objects(value, None, out);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_objects(item, None, out)),
        _ => {}
    }
}

fn bound_items(items: &mut [Item], objects: &[Object<'_>], root: &str) {
    for item in items {
        match item {
            Item::Struct(item) => {
                let name = item.ident.to_string();
                if let Fields::Named(fields) = &mut item.fields {
                    if let Some(properties) = properties_of(&name, fields, objects) {
                        for field in &mut fields.named {
                            bound_field(field, properties, root);
                        }
                    }
                }
            }
            Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    bound_items(items, objects, root);
                }
            }
            _ => {}
        }
    }
}

/// The properties of the object schema `name` was generated from: the
/// `$defs` type of that name, else the one inline object schema whose
/// members are exactly the struct's fields.
fn properties_of<'a>(
    name: &str,
    fields: &syn::FieldsNamed,
    objects: &[Object<'a>],
) -> Option<&'a Map<String, Value>> {
    if let Some(object) = objects.iter().find(|o| o.type_name == Some(name)) {
        return Some(object.properties);
    }
    let wire: Vec<String> = fields.named.iter().filter_map(wire_name).collect();
    let mut matching = objects.iter().filter(|o| {
        o.type_name.is_none()
            && o.properties.len() == wire.len()
            && wire.iter().all(|w| o.properties.contains_key(w))
    });
    match (matching.next(), matching.next()) {
        (Some(object), None) => Some(object.properties),
        _ => None,
    }
}

fn bound_field(field: &mut syn::Field, properties: &Map<String, Value>, root: &str) {
    let Some(schema) = wire_name(field).and_then(|w| properties.get(&w)) else {
        return;
    };
    if field.attrs.iter().any(has_default_function) {
        // A default function returns typify's type; leave such a field be.
        return;
    }
    let Some(integer) = integer_type(&mut field.ty) else {
        return;
    };
    let Some(type_range) = range_of(&integer_name(integer)) else {
        return;
    };
    let Some((min, max)) = schema_range(schema) else {
        return;
    };
    let min = min.max(type_range.0);
    let max = max.min(type_range.1);
    if (min, max) == type_range || min > max {
        return;
    }
    let (Ok(min), Ok(max)) = (i64::try_from(min), i64::try_from(max)) else {
        return;
    };
    if let Ok(bounded) = syn::parse_str::<Type>(&format!("{root}::typed::BoundedInt<{min}, {max}>"))
    {
        *integer = bounded;
    }
}

/// The integer type of a field, looking inside `Option<…>`.
fn integer_type(ty: &mut Type) -> Option<&mut Type> {
    let last = match &*ty {
        Type::Path(path) => path.path.segments.last()?.ident.to_string(),
        _ => return None,
    };
    if last != "Option" {
        return range_of(&last).map(|_| ty);
    }
    let Type::Path(path) = ty else {
        return None;
    };
    let PathArguments::AngleBracketed(arguments) = &mut path.path.segments.last_mut()?.arguments
    else {
        return None;
    };
    match arguments.args.first_mut()? {
        GenericArgument::Type(inner) => integer_type(inner),
        _ => None,
    }
}

fn integer_name(ty: &Type) -> String {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The values a Rust integer type typify emits can hold.
fn range_of(name: &str) -> Option<(i128, i128)> {
    let bits = |n: u32| (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1);
    let unsigned = |n: u32| (0, (1i128 << n) - 1);
    Some(match name {
        "i8" => bits(8),
        "i16" => bits(16),
        "i32" => bits(32),
        "i64" => bits(64),
        "u8" => unsigned(8),
        "u16" => unsigned(16),
        "u32" => unsigned(32),
        "u64" => unsigned(64),
        "NonZeroU8" => (1, unsigned(8).1),
        "NonZeroU16" => (1, unsigned(16).1),
        "NonZeroU32" => (1, unsigned(32).1),
        "NonZeroU64" => (1, unsigned(64).1),
        _ => return None,
    })
}

/// The smallest and largest integer an integer schema allows (unbounded
/// sides as the widest values); `None` for a schema that is not an
/// integer's or gives no bound.
fn schema_range(schema: &Value) -> Option<(i128, i128)> {
    if schema.get("type").and_then(Value::as_str) != Some("integer") {
        return None;
    }
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    let mut min = i128::MIN;
    let mut max = i128::MAX;
    let mut bounded = false;
    if let Some(m) = number("minimum") {
        min = min.max(m.ceil() as i128);
        bounded = true;
    }
    if let Some(m) = number("exclusiveMinimum") {
        min = min.max(m.floor() as i128 + 1);
        bounded = true;
    }
    if let Some(m) = number("maximum") {
        max = max.min(m.floor() as i128);
        bounded = true;
    }
    if let Some(m) = number("exclusiveMaximum") {
        max = max.min(m.ceil() as i128 - 1);
        bounded = true;
    }
    bounded.then_some((min, max))
}

fn has_default_function(attr: &syn::Attribute) -> bool {
    if !attr.path().is_ident("serde") {
        return false;
    }
    let mut found = false;
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("default") && meta.input.peek(syn::Token![=]) {
            found = true;
        }
        if meta.input.peek(syn::Token![=]) {
            let _: syn::Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bound(code: &str, defs: Value) -> String {
        let mut file: syn::File = syn::parse_str(code).expect("parses");
        let defs: Map<String, Value> = serde_json::from_value(defs).expect("defs");
        let names = defs.keys().map(|k| (k.clone(), k.clone())).collect();
        bound_integers(&mut file, &defs, &names, "::wirekit");
        prettyplease::unparse(&file)
    }

    #[test]
    fn narrower_schemas_get_bounded_integers() {
        let text = bound(
            r#"pub struct Header { pub length: i64, pub sequence: u64, pub count: u32,
                 pub line: ::std::num::NonZeroU64, pub percent: ::std::option::Option<i64>,
                 #[serde(rename = "final")] pub final_: i64, pub window: i64 }"#,
            json!({"Header": {"type": "object", "properties": {
                "length": {"type": "integer", "minimum": 0, "maximum": 262144},
                "sequence": {"type": "integer", "minimum": 0},
                "count": {"type": "integer", "minimum": 0, "maximum": 4294967295u64},
                "line": {"type": "integer", "minimum": 1},
                "percent": {"type": "integer", "minimum": 0, "maximum": 100},
                "final": {"type": "integer", "exclusiveMinimum": -1, "exclusiveMaximum": 10},
                "window": {"type": "integer"}
            }}}),
        );
        assert!(
            text.contains("pub length: ::wirekit::typed::BoundedInt<0, 262144>"),
            "{text}"
        );
        assert!(text.contains("pub sequence: u64"), "exact already: {text}");
        assert!(text.contains("pub count: u32"), "exact already: {text}");
        assert!(
            text.contains("pub line: ::std::num::NonZeroU64"),
            "exact already: {text}"
        );
        assert!(
            text.contains(
                "pub percent: ::std::option::Option<::wirekit::typed::BoundedInt<0, 100>>"
            ),
            "{text}"
        );
        assert!(
            text.contains("pub final_: ::wirekit::typed::BoundedInt<0, 9>"),
            "{text}"
        );
        assert!(text.contains("pub window: i64"), "no bounds: {text}");
    }

    #[test]
    fn inline_objects_match_by_their_members_and_defaults_stay() {
        let text = bound(
            r#"pub struct Inner { pub level: i64, #[serde(default = "defaults::x")] pub x: i64 }"#,
            json!({"Outer": {"type": "object", "properties": {"inner": {"type": "object", "properties": {
                "level": {"type": "integer", "minimum": 1, "maximum": 5},
                "x": {"type": "integer", "maximum": 3, "default": 1}
            }}}}}),
        );
        assert!(
            text.contains("pub level: ::wirekit::typed::BoundedInt<1, 5>"),
            "{text}"
        );
        assert!(text.contains("pub x: i64"), "{text}");
    }
}
