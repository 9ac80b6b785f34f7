//! typify sorts a struct's fields by name; the wire wants the schema's
//! order (serde writes fields in declaration order, and the gzkit worked
//! examples must come out byte for byte). This pass puts every generated
//! struct's fields back in the order of the object schema whose `properties`
//! are exactly its fields.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use syn::{Fields, Item};

/// Reorders the named fields of every struct in `file` (modules included)
/// to follow the `properties` order of the matching object schema in `defs`.
pub fn restore_schema_order(file: &mut syn::File, defs: &Map<String, Value>) {
    let mut orders = Vec::new();
    for schema in defs.values() {
        collect_orders(schema, &mut orders);
    }
    reorder_items(&mut file.items, &orders);
}

fn collect_orders(schema: &Value, orders: &mut Vec<Vec<String>>) {
    match schema {
        Value::Object(members) => {
            if let Some(Value::Object(properties)) = members.get("properties") {
                orders.push(properties.keys().cloned().collect());
            }
            for (key, value) in members {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    collect_orders(value, orders);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_orders(item, orders)),
        _ => {}
    }
}

fn reorder_items(items: &mut [Item], orders: &[Vec<String>]) {
    for item in items {
        match item {
            Item::Struct(item) => {
                if let Fields::Named(fields) = &mut item.fields {
                    reorder_fields(fields, orders);
                }
            }
            Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    reorder_items(items, orders);
                }
            }
            _ => {}
        }
    }
}

fn reorder_fields(fields: &mut syn::FieldsNamed, orders: &[Vec<String>]) {
    let wire: Vec<Option<String>> = fields.named.iter().map(wire_name).collect();
    let names: BTreeSet<&str> = wire.iter().filter_map(|name| name.as_deref()).collect();
    let Some(order) = orders.iter().find(|order| {
        order.len() == names.len() && order.iter().all(|name| names.contains(name.as_str()))
    }) else {
        return;
    };
    let rank = |name: &Option<String>| match name {
        Some(name) => order.iter().position(|n| n == name).unwrap_or(order.len()),
        None => order.len(),
    };
    let mut ranked: Vec<(usize, syn::Field)> = std::mem::take(&mut fields.named)
        .into_iter()
        .zip(&wire)
        .map(|(field, name)| (rank(name), field))
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    fields.named = ranked.into_iter().map(|(_, field)| field).collect();
}

/// The member name serde uses for a field; `None` for a flattened one.
pub(crate) fn wire_name(field: &syn::Field) -> Option<String> {
    let mut rename = None;
    for attr in field
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
    {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("flatten") {
                rename = Some(None);
            } else if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                if rename.is_none() {
                    rename = Some(Some(value.value()));
                }
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    match rename {
        Some(name) => name,
        None => field
            .ident
            .as_ref()
            .map(|ident| ident.to_string().trim_start_matches("r#").to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_follow_the_schema_and_flattened_ones_stay_last() {
        let mut file: syn::File = syn::parse_str(
            r#"pub struct Hint { pub end_line: u64, #[serde(rename = "type")] pub type_: String,
                 #[serde(flatten)] pub extra: Map, pub metric: String }
               pub struct Other { pub b: u8, pub a: u8 }"#,
        )
        .expect("parses");
        let defs: Map<String, Value> = serde_json::from_value(json!({
            "Hint": {"properties": {"metric": {}, "type": {}, "end_line": {}}},
            "Unrelated": {"properties": {"a": {}, "c": {}}}
        }))
        .expect("defs");
        restore_schema_order(&mut file, &defs);
        let text = prettyplease::unparse(&file);
        let metric = text.find("pub metric").expect("metric");
        let kind = text.find("pub type_").expect("type");
        let end = text.find("pub end_line").expect("end");
        let extra = text.find("pub extra").expect("extra");
        assert!(metric < kind && kind < end && end < extra, "{text}");
        assert!(
            text.find("pub b").expect("b") < text.find("pub a").expect("a"),
            "no matching schema: untouched"
        );
    }
}
