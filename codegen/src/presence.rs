//! typify 0.8 gives an optional member whose schema is an array or an
//! object without properties (`{"type": "object"}`, a map of
//! `additionalProperties`) its bare `Vec` or map type with
//! `#[serde(default, skip_serializing_if = "…::is_empty")]`: an absent
//! member decodes to the empty value and the empty value is never written.
//! In the protocols absent and empty are different values (MCP's
//! `"logging": {}` declares the logging capability, absent does not), so a
//! typed peer would drop what it declares. typify has no setting for it;
//! this pass gives every such field `Option<…>` instead, skipped only when
//! `None`: absent is `None`, `{}` is `Some` of an empty map, `[]` `Some` of
//! an empty `Vec`, and each is written back as it came.

use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Fields, Item, Lit, Meta, Token, Type};

/// The `skip_serializing_if` of an `Option` field.
const IS_NONE: &str = "::std::option::Option::is_none";

/// Rewrites, in every struct and enum variant of `file` (modules included),
/// each field serde skips when empty into an `Option` skipped when `None`.
pub fn keep_empty_members(file: &mut syn::File) {
    keep_in_items(&mut file.items);
}

fn keep_in_items(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Struct(item) => keep_in_fields(&mut item.fields),
            Item::Enum(item) => {
                for variant in &mut item.variants {
                    keep_in_fields(&mut variant.fields);
                }
            }
            Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    keep_in_items(items);
                }
            }
            _ => {}
        }
    }
}

fn keep_in_fields(fields: &mut Fields) {
    if let Fields::Named(fields) = fields {
        for field in &mut fields.named {
            keep_empty(field);
        }
    }
}

/// One field: when a `serde` attribute skips it with an `is_empty`, that
/// skip becomes `Option::is_none` and the type `Option<type>`.
fn keep_empty(field: &mut syn::Field) {
    let mut rewritten = false;
    for attr in &mut field.attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        let Ok(mut metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        else {
            continue;
        };
        let mut changed = false;
        for meta in &mut metas {
            if let Meta::NameValue(pair) = meta {
                if pair.path.is_ident("skip_serializing_if") && skips_when_empty(&pair.value) {
                    pair.value = syn::parse_quote!(#IS_NONE);
                    changed = true;
                }
            }
        }
        if changed {
            *attr = syn::parse_quote!(#[serde(#metas)]);
            rewritten = true;
        }
    }
    if rewritten {
        let ty = &field.ty;
        let wrapped: Type = syn::parse_quote!(::std::option::Option<#ty>);
        field.ty = wrapped;
    }
}

/// `"::serde_json::Map::is_empty"`, `"::std::vec::Vec::is_empty"`,
/// `":: std :: collections :: HashMap::is_empty"` and the like.
fn skips_when_empty(value: &Expr) -> bool {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => text.value().ends_with("::is_empty"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).expect("parses");
        keep_empty_members(&mut file);
        prettyplease::unparse(&file)
    }

    #[test]
    fn empty_skipped_members_become_options() {
        let text = keep(
            r#"pub struct Caps {
                #[serde(default, skip_serializing_if = "::serde_json::Map::is_empty")]
                pub logging: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                #[serde(default, skip_serializing_if = ":: std :: collections :: HashMap::is_empty")]
                pub experimental: ::std::collections::HashMap<::std::string::String, i64>,
                #[serde(rename = "allOf", default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                pub all_of: ::std::vec::Vec<i64>,
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub tools: ::std::option::Option<i64>,
                pub required: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                #[serde(flatten)]
                pub extra: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            }
            pub enum Shape { Variant {
                #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                items: ::std::vec::Vec<i64>,
            } }"#,
        );
        let squashed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            r#"#[serde(default, skip_serializing_if = "::std::option::Option::is_none")] pub logging: ::std::option::Option< ::serde_json::Map<::std::string::String, ::serde_json::Value>, >,"#,
            r#"pub experimental: ::std::option::Option< ::std::collections::HashMap<::std::string::String, i64>, >,"#,
            r#"#[serde( rename = "allOf", default, skip_serializing_if = "::std::option::Option::is_none" )] pub all_of: ::std::option::Option<::std::vec::Vec<i64>>,"#,
            r#"pub tools: ::std::option::Option<i64>,"#,
            r#"pub required: ::serde_json::Map<::std::string::String, ::serde_json::Value>,"#,
            r#"#[serde(flatten)] pub extra: ::serde_json::Map<::std::string::String, ::serde_json::Value>,"#,
            r#"items: ::std::option::Option<::std::vec::Vec<i64>>,"#,
        ] {
            assert!(squashed.contains(expected), "{expected}\nnot in\n{text}");
        }
        assert!(!text.contains("is_empty"), "{text}");
    }
}
