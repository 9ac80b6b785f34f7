//! The Python target: one module of `TypedDict`s, `Literal` aliases and
//! constants a protocol, checked with `mypy --strict` (Python 3.11+).
//!
//! The modules run on Python 3.9+: annotations are postponed (`from
//! __future__ import annotations`), `TypeAlias` comes from
//! `typing_extensions` for the type checker only, `NotRequired` from
//! `typing` on 3.11+ (from `typing_extensions` before, a dependency of the
//! package there) so that `typing.get_type_hints` resolves every member, and
//! expressions evaluated at run time (alias values, functional `TypedDict`
//! members) use `Union[...]` and quoted names.

use std::collections::BTreeSet;
use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

use crate::model::{Def, Extra, Kind, Ty};
use crate::naming::{self, python_key_is_attribute, python_type_name};
use crate::protocol::{MethodKind, Protocol};
use crate::text::{json_string, line_comment, python_docstring, python_literal};
use crate::{header, GeneratedFile, Result};

/// Where the Python modules go.
pub const DIR: &str = "bindings/python/python/wirekit/protocols";

/// One member of a class-syntax `TypedDict`.
struct PyField {
    name: String,
    ty: String,
    doc: Option<String>,
}

/// One generated definition.
struct PyItem {
    /// `class`, `functional` or `alias`.
    form: &'static str,
    /// Blank lines before the item: two around classes, one between aliases.
    sep: &'static str,
    name: String,
    /// Docstring body (class) or trailing docstring (alias, functional).
    doc: Option<String>,
    /// Comment lines above a functional TypedDict's keys.
    fields: Vec<PyField>,
    /// Alias right-hand side.
    expr: String,
    /// Constants that belong to this item (open-enum attributes).
    consts: Vec<PyConst>,
}

struct PyConst {
    name: String,
    ty: String,
    value: String,
    comment: Option<String>,
}

#[derive(Template)]
#[template(path = "python/module.py.jinja", escape = "none")]
struct ModuleTemplate {
    header: String,
    docstring: String,
    imports: String,
    checker_imports: String,
    /// Whether `NotRequired` is imported at run time (so that
    /// `typing.get_type_hints` resolves every member).
    not_required: bool,
    protocol: String,
    version: String,
    items: Vec<PyItem>,
    methods: Vec<PyConst>,
    errors: Vec<PyConst>,
}

#[derive(Template)]
#[template(path = "python/init.py.jinja", escape = "none")]
struct InitTemplate {
    header: String,
    modules: Vec<String>,
}

/// Renders type expressions and records which `typing` names they use.
#[derive(Default)]
struct Render {
    imports: BTreeSet<&'static str>,
    /// Whether the expression is evaluated at run time (alias values):
    /// then names are quoted and unions use `Union[...]`.
    runtime: bool,
}

impl Render {
    fn ty(&mut self, ty: &Ty) -> String {
        match ty {
            Ty::Any => {
                self.imports.insert("Any");
                "Any".into()
            }
            Ty::Null => "None".into(),
            Ty::Bool => "bool".into(),
            Ty::Integer => "int".into(),
            Ty::Number => "float".into(),
            Ty::String => "str".into(),
            Ty::Ref(name) if self.runtime => json_string(&python_type_name(name)),
            Ty::Ref(name) => python_type_name(name),
            Ty::Array(inner) => format!("list[{}]", self.ty(inner)),
            Ty::Tuple(items) => format!(
                "tuple[{}]",
                items
                    .iter()
                    .map(|i| self.ty(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Ty::Map(inner) => format!("dict[str, {}]", self.ty(inner)),
            Ty::Literal(v) => self.literal(std::slice::from_ref(v)),
            Ty::Union(items) => {
                // Literals merge into one `Literal[...]`, kept where the first one was.
                let mut parts: Vec<String> = Vec::new();
                let lits: Vec<Value> = items
                    .iter()
                    .filter_map(|t| match t {
                        Ty::Literal(v) if !v.is_null() => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                let mut lit_done = false;
                for t in items {
                    match t {
                        Ty::Literal(v) if !v.is_null() => {
                            if !lit_done {
                                parts.push(self.literal(&lits));
                                lit_done = true;
                            }
                        }
                        Ty::Literal(_) => parts.push("None".into()),
                        other => parts.push(self.ty(other)),
                    }
                }
                parts.dedup();
                self.union(parts)
            }
        }
    }

    fn literal(&mut self, values: &[Value]) -> String {
        if values.iter().all(Value::is_null) {
            return "None".into();
        }
        if values
            .iter()
            .all(|v| v.is_string() || v.is_number() && v.is_i64() || v.is_boolean())
        {
            self.imports.insert("Literal");
            let inner: Vec<String> = values.iter().map(python_literal).collect();
            format!("Literal[{}]", inner.join(", "))
        } else {
            // Floats, arrays and objects cannot be `Literal`s: fall back to their type.
            self.imports.insert("Any");
            "Any".into()
        }
    }

    /// `A | B` in annotations, `Union[A, B]` where evaluated at run time.
    fn union(&mut self, parts: Vec<String>) -> String {
        if parts.len() == 1 {
            return parts.into_iter().next().unwrap_or_default();
        }
        if self.runtime {
            self.imports.insert("Union");
            format!("Union[{}]", parts.join(", "))
        } else {
            parts.join(" | ")
        }
    }
}

fn field_doc(description: Option<&str>, default: Option<&Value>) -> Option<String> {
    let mut text = description.unwrap_or("").trim_end().to_string();
    if let Some(d) = default {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("Default: ``{}``.", crate::text::json_compact(d)));
    }
    (!text.is_empty()).then_some(text)
}

/// A member's doc with its bounds (`Bounds: minimum 0, maximum 262144.`):
/// a `TypedDict` cannot type a range; `Protocol.validate` and the serve
/// loop check it.
fn with_bounds(doc: Option<String>, bounds: &[(String, Value)]) -> Option<String> {
    if bounds.is_empty() {
        return doc;
    }
    let listed: Vec<String> = bounds.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let line = format!("Bounds: {}.", listed.join(", "));
    Some(match doc {
        Some(text) => format!("{text}\n\n{line}"),
        None => line,
    })
}

fn item(def: &Def, r: &mut Render) -> PyItem {
    let name = python_type_name(&def.name);
    let mut doc = field_doc(def.description.as_deref(), def.default.as_ref());
    let mut it = PyItem {
        form: "alias",
        sep: "",
        name: name.clone(),
        doc: None,
        fields: Vec::new(),
        expr: String::new(),
        consts: Vec::new(),
    };
    match &def.kind {
        Kind::Object { fields, extra } => {
            r.imports.insert("TypedDict");
            if let Extra::Typed(t) = extra {
                let note = format!("Other keys hold: ``{}``.", r.ty(t).replace('"', ""));
                doc = Some(match doc {
                    Some(d) => format!("{d}\n\n{note}"),
                    None => note,
                });
            }
            let class_form = fields.iter().all(|f| python_key_is_attribute(&f.name));
            it.form = if class_form { "class" } else { "functional" };
            for f in fields {
                let mut ty = r.ty(&f.ty);
                if !f.required {
                    r.imports.insert("NotRequired");
                    ty = format!("NotRequired[{ty}]");
                }
                let fdoc = with_bounds(
                    field_doc(f.description.as_deref(), f.default.as_ref()),
                    &f.bounds,
                );
                it.fields.push(PyField {
                    name: if class_form {
                        f.name.clone()
                    } else {
                        json_string(&f.name)
                    },
                    ty: if class_form { ty } else { json_string(&ty) },
                    doc: fdoc.map(|d| {
                        if class_form {
                            python_docstring(&d, "    ")
                        } else {
                            line_comment(&format!("{}: {d}", json_string(&f.name)), "        # ")
                        }
                    }),
                });
            }
            it.doc = doc.map(|d| python_docstring(&d, if class_form { "    " } else { "" }));
            return it;
        }
        Kind::Enum(values) => {
            r.runtime = true;
            it.expr = r.ty(&Ty::Union(
                values.iter().cloned().map(Ty::Literal).collect(),
            ));
        }
        Kind::OpenEnum { known, attributes } => {
            let lits: Vec<Value> = known.iter().cloned().map(Value::String).collect();
            let lit = r.literal(&lits);
            r.imports.insert("Union");
            it.expr = format!("Union[{lit}, str]");
            for (attr, table) in attributes {
                r.imports.insert("Final");
                let entries: Vec<String> = table
                    .iter()
                    .map(|(k, v)| format!("    {}: {},", json_string(k), python_literal(v)))
                    .collect();
                let vty = if table.iter().all(|(_, v)| v.is_string()) {
                    "str"
                } else {
                    "object"
                };
                it.consts.push(PyConst {
                    name: format!(
                        "{}_{}",
                        naming::screaming(&def.name),
                        naming::screaming(attr)
                    ),
                    ty: format!("Final[dict[str, {vty}]]"),
                    value: format!("{{\n{}\n}}", entries.join("\n")),
                    comment: Some(format!("# The `{attr}` of each known {name}.")),
                });
            }
        }
        Kind::Alias(t) => {
            r.runtime = true;
            it.expr = r.ty(t);
        }
    }
    r.runtime = false;
    r.imports.insert("TypeAlias");
    it.doc = doc.map(|d| python_docstring(&d, ""));
    it
}

/// The module for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let mut r = Render::default();
    let mut items: Vec<PyItem> = p.model.defs.iter().map(|d| item(d, &mut r)).collect();
    let mut prev_alias = false;
    for it in &mut items {
        let alias = it.form == "alias";
        it.sep = if alias && prev_alias { "" } else { "\n" };
        prev_alias = alias && it.consts.is_empty();
    }
    r.imports.insert("Final");
    let methods = p
        .methods
        .iter()
        .map(|m| PyConst {
            name: format!("METHOD_{}", naming::screaming(&m.name)),
            ty: "Final".into(),
            value: json_string(&m.name),
            comment: m.description().map(|d| {
                let kind = if m.spec.kind == MethodKind::Notification {
                    "Notification"
                } else {
                    "Request"
                };
                line_comment(&format!("{kind}: {}", d.lines().next().unwrap_or("")), "# ")
            }),
        })
        .collect();
    let errors = p
        .errors()
        .iter()
        .map(|e| PyConst {
            name: format!("ERROR_{}", naming::screaming(&e.name)),
            ty: "Final".into(),
            value: e.code.to_string(),
            comment: Some(e.description.as_str())
                .filter(|d| !d.is_empty())
                .map(|d| line_comment(d, "# ")),
        })
        .collect();
    let mut doc = format!(
        "Types and constants of the `{}` protocol, version {}: {}.",
        p.name,
        p.version,
        p.title.trim_end_matches('.')
    );
    if let Some(d) = &p.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    // `NotRequired` and `TypeAlias` are newer than Python 3.9. `TypeAlias`
    // is for the type checker alone (from `typing_extensions`); `NotRequired`
    // is imported at run time too, from `typing` on 3.11+ and from
    // `typing_extensions` before, so `typing.get_type_hints` resolves
    // every member of every `TypedDict`.
    let not_required = r.imports.contains("NotRequired");
    let checker_only: Vec<&str> = r
        .imports
        .iter()
        .copied()
        .filter(|i| *i == "TypeAlias")
        .collect();
    let mut runtime: Vec<&str> = r
        .imports
        .iter()
        .copied()
        .filter(|i| !matches!(*i, "NotRequired" | "TypeAlias"))
        .collect();
    if !checker_only.is_empty() {
        runtime.insert(0, "TYPE_CHECKING");
    }
    let imports = runtime.join(", ");
    let checker_imports = checker_only.join(", ");
    let t = ModuleTemplate {
        header: header("#"),
        docstring: python_docstring(&doc, ""),
        imports,
        checker_imports,
        not_required,
        protocol: json_string(&p.name),
        version: json_string(&p.version),
        items,
        methods,
        errors,
    };
    Ok(vec![GeneratedFile {
        path: PathBuf::from(format!("{DIR}/{}.py", p.module)),
        contents: crate::finish(t.render()?),
    }])
}

/// `__init__.py` naming every protocol module.
pub fn index(protocols: &[Protocol]) -> Result<GeneratedFile> {
    let mut modules: Vec<String> = protocols.iter().map(|p| p.module.clone()).collect();
    modules.sort();
    let t = InitTemplate {
        header: header("#"),
        modules,
    };
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/__init__.py")),
        contents: crate::finish(t.render()?),
    })
}
