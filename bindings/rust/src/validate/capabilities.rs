//! A server's capability declaration as its protocol's schema spells it.
//!
//! [`Manifest::capabilities_for`](crate::protocol::Manifest::capabilities_for)
//! writes each handled capability as `true` in the `provider` style, which
//! LSP's providers accept (a boolean or an options object). MCP's
//! capabilities are objects only (`"tools": {}`), and `true` there makes
//! the declaring method's result invalid. So the declaration is checked
//! against the declaring method's result schema, and a `true` the schema
//! refuses becomes an empty object, the least declaration that says "on".

use serde_json::{Map, Value};

use super::{Part, Protocol};
use crate::protocol::pointer::set_at;

/// How many rounds of replacing refused `true`s are tried: each round fixes
/// every place the schema names at once; nesting deeper than this does not
/// occur in a capability declaration.
const ROUNDS: usize = 4;

impl Protocol {
    /// The capability declaration of a server that handles the methods for
    /// which `handles` is true, in the protocol's style, each capability
    /// spelled as the declaring method's result schema accepts it (`true`,
    /// or `{}` where only an object is valid); `None` when the protocol
    /// declares no capabilities.
    pub fn capabilities_for(&self, handles: &dyn Fn(&str) -> bool) -> Option<Value> {
        let manifest = self.manifest();
        let spec = manifest.capabilities.as_ref()?;
        let mut declaration = manifest.capabilities_for(handles)?;
        for _ in 0..ROUNDS {
            let mut result = Value::Object(Map::new());
            set_at(&mut result, &spec.pointer, declaration.clone());
            let issues = self.validate(&spec.method, Part::Result, Some(&result));
            let mut changed = false;
            for issue in &issues {
                let Some(inside) = issue.instance_path.strip_prefix(spec.pointer.as_str()) else {
                    continue;
                };
                if !inside.starts_with('/')
                    || declaration.pointer(inside) != Some(&Value::Bool(true))
                {
                    continue;
                }
                set_at(&mut declaration, inside, Value::Object(Map::new()));
                changed = true;
            }
            if !changed {
                break;
            }
        }
        Some(declaration)
    }
}
