//! Compiling a schema into the quick check's nodes: the subset it handles,
//! `$ref` aliases resolved, and what each node needs settled once.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::*;

struct Compiler<'a> {
    defs: &'a Map<String, Value>,
    nodes: Vec<Node>,
    by_def: HashMap<String, usize>,
}

fn count(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// A numeric bound, exact as an f64.
fn bound(value: &Value) -> Option<f64> {
    if let Some(n) = value.as_i64() {
        return (n.unsigned_abs() <= 1 << 53).then_some(n as f64);
    }
    if value.is_u64() {
        return None;
    }
    value.as_f64().filter(|n| n.is_finite())
}

fn strings(values: &[Value]) -> Option<Vec<Box<[u8]>>> {
    values
        .iter()
        .map(|value| value.as_str().map(|s| s.as_bytes().into()))
        .collect()
}

impl Compiler<'_> {
    fn reference(&mut self, reference: &str) -> Option<usize> {
        let name = reference.strip_prefix("#/$defs/")?;
        if name.contains(['/', '~', '%']) {
            return None;
        }
        if let Some(&id) = self.by_def.get(name) {
            return Some(id);
        }
        let schema = self.defs.get(name)?;
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_def.insert(name.to_owned(), id);
        let node = self.node(schema)?;
        *self.nodes.get_mut(id)? = node;
        Some(id)
    }

    fn add(&mut self, schema: &Value) -> Option<usize> {
        let node = self.node(schema)?;
        self.nodes.push(node);
        Some(self.nodes.len() - 1)
    }

    fn list(&mut self, schemas: &Value) -> Option<Vec<usize>> {
        let schemas = schemas.as_array().filter(|list| !list.is_empty())?;
        schemas.iter().map(|schema| self.add(schema)).collect()
    }

    fn node(&mut self, schema: &Value) -> Option<Node> {
        let mut node = Node {
            types: ANY,
            ..Node::default()
        };
        let object = match schema {
            Value::Bool(flag) => {
                node.constant = Some(*flag);
                return Some(node);
            }
            Value::Object(object) => object,
            _ => return None,
        };
        let mut properties: Option<&Map<String, Value>> = None;
        let mut required: Vec<&str> = Vec::new();
        for (keyword, value) in object {
            match keyword.as_str() {
                "title" | "description" | "default" | "examples" | "$comment" | "deprecated"
                | "readOnly" | "writeOnly" => {}
                other if other.starts_with("x-") => {}
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(name) => vec![name.as_str()],
                        Value::Array(names) => {
                            names.iter().map(Value::as_str).collect::<Option<_>>()?
                        }
                        _ => return None,
                    };
                    node.types = 0;
                    for name in names {
                        node.types |= match name {
                            "null" => NULL,
                            "boolean" => BOOLEAN,
                            "object" => OBJECT,
                            "array" => ARRAY,
                            "number" => NUMBER | INTEGER,
                            "integer" => INTEGER,
                            "string" => STRING,
                            _ => return None,
                        };
                    }
                }
                "properties" => properties = Some(value.as_object()?),
                "required" => {
                    required = value
                        .as_array()?
                        .iter()
                        .map(Value::as_str)
                        .collect::<Option<_>>()?;
                }
                "additionalProperties" => node.additional = Some(self.add(value)?),
                "minProperties" => node.min_properties = Some(count(value)?),
                "maxProperties" => node.max_properties = Some(count(value)?),
                "items" => node.items = Some(self.add(value)?),
                "minItems" => node.min_items = Some(count(value)?),
                "maxItems" => node.max_items = Some(count(value)?),
                "minLength" => node.min_length = Some(count(value)?),
                "maxLength" => node.max_length = Some(count(value)?),
                "minimum" => node.minimum = Some(bound(value)?),
                "maximum" => node.maximum = Some(bound(value)?),
                "exclusiveMinimum" => node.exclusive_minimum = Some(bound(value)?),
                "exclusiveMaximum" => node.exclusive_maximum = Some(bound(value)?),
                "enum" => node.strings = Some(strings(value.as_array()?)?),
                "const" => node.strings = Some(vec![value.as_str()?.as_bytes().into()]),
                // `$ref` is one more `allOf` member, in whichever order the
                // two are written.
                "allOf" => node.all_of.extend(self.list(value)?),
                "anyOf" => node.any_of = self.list(value)?,
                // Not monotone: see the module docs.
                "oneOf" | "not" => return None,
                "$ref" => node.all_of.push(self.reference(value.as_str()?)?),
                _ => return None,
            }
        }
        if required.len() > 64
            || (node.strings.is_some()
                && object.contains_key("const")
                && object.contains_key("enum"))
        {
            return None;
        }
        if let Some(properties) = properties {
            for (name, schema) in properties {
                let schema = self.add(schema)?;
                node.members.push(Member {
                    name: name.as_bytes().into(),
                    schema: Some(schema),
                    required: None,
                });
            }
        }
        for (bit, name) in required.iter().enumerate() {
            let bit = u32::try_from(bit).ok()?;
            if node
                .members
                .iter()
                .any(|m| m.required.is_some() && &*m.name == name.as_bytes())
            {
                continue; // a repeated name
            }
            match node
                .members
                .iter_mut()
                .find(|m| &*m.name == name.as_bytes())
            {
                Some(member) => member.required = Some(bit),
                None => node.members.push(Member {
                    name: name.as_bytes().into(),
                    schema: None,
                    required: Some(bit),
                }),
            }
            node.required_all |= 1 << bit;
        }
        Some(node)
    }
}

impl Check {
    /// Compiles the check of `#/$defs/<name>` (`reference`) in `defs`;
    /// `None` when the schema leaves the subset.
    pub fn compile(defs: &Value, reference: &str) -> Option<Check> {
        let defs = defs.as_object()?;
        let mut compiler = Compiler {
            defs,
            nodes: Vec::new(),
            by_def: HashMap::new(),
        };
        let root = compiler.reference(reference)?;
        // The root first: nodes are checked from index 0.
        if root != 0 {
            return None;
        }
        let mut check = Check {
            nodes: compiler.nodes,
        };
        check.skip_aliases();
        check.settle();
        Some(check)
    }

    /// A node that only `$ref`s another (most properties naming a type).
    fn alias(&self, id: usize) -> Option<usize> {
        let node = self.nodes.get(id)?;
        let bare = node.only_combines() && node.any_of.is_empty() && node.all_of.len() == 1;
        bare.then(|| node.all_of.first().copied()).flatten()
    }

    pub(super) fn target(&self, mut id: usize) -> usize {
        for _ in 0..self.nodes.len() {
            match self.alias(id) {
                Some(next) if next != id => id = next,
                _ => break,
            }
        }
        id
    }

    /// Points every reference past alias nodes, so the walks skip them.
    fn skip_aliases(&mut self) {
        for index in 0..self.nodes.len() {
            let node = &self.nodes[index];
            let members: Vec<Option<usize>> = node
                .members
                .iter()
                .map(|m| m.schema.map(|id| self.target(id)))
                .collect();
            let additional = node.additional.map(|id| self.target(id));
            let items = node.items.map(|id| self.target(id));
            let node = &mut self.nodes[index];
            for (member, schema) in node.members.iter_mut().zip(members) {
                member.schema = schema;
            }
            node.additional = additional;
            node.items = items;
        }
    }

    /// Whether node `id` is exactly `{"type": "null"}`.
    fn null_only(&self, id: usize) -> bool {
        self.nodes.get(id).is_some_and(|node| {
            node.types == NULL
                && node.constant.is_none()
                && node.members.is_empty()
                && node.additional.is_none()
                && node.strings.is_none()
                && node.all_of.is_empty()
                && node.any_of.is_empty()
        })
    }

    /// Sets the flags the walks branch on.
    fn settle(&mut self) {
        for index in 0..self.nodes.len() {
            let node = &self.nodes[index];
            let mut nullable = None;
            if let [first, second] = node.any_of[..] {
                let alone = node.only_combines() && node.all_of.is_empty();
                if alone && self.null_only(second) {
                    nullable = Some(self.target(first));
                } else if alone && self.null_only(first) {
                    nullable = Some(self.target(second));
                }
            }
            let node = &mut self.nodes[index];
            node.composite =
                node.strings.is_some() || !node.all_of.is_empty() || !node.any_of.is_empty();
            node.nullable = nullable;
            node.simple = !node.composite
                && node.constant.is_none()
                && node.nullable.is_none()
                && node.min_properties.is_none()
                && node.max_properties.is_none()
                && node.min_items.is_none()
                && node.max_items.is_none()
                && node.min_length.is_none()
                && node.max_length.is_none()
                && !node.has_number_bounds();
        }
    }
}
