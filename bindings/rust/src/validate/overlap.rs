//! Which schemas can make a full error report grow exponentially with the
//! depth of the instance.
//!
//! The `jsonschema` crate reports a failed `anyOf` or `oneOf` with every
//! branch's errors as its context, and a failed `allOf` with every branch's
//! errors. When two of the subschemas applied to one place of the instance
//! recurse into the same deeper place (`{"anyOf": [R, R]}` with `R` an array
//! of the `anyOf` again), the report doubles at every level: 12 levels of
//! nested arrays made a 2 GB report. This module finds such schemas once,
//! when the protocol compiles, so that only they take the bounded report
//! (`descent.rs`) and every other schema keeps the crate's full one.
//!
//! The rule, stated on the schema as an automaton:
//! - a state is a subschema (a JSON pointer into the bundled document);
//! - an *in-place* edge applies another subschema to the same instance
//!   (`$ref`, `allOf`/`anyOf`/`oneOf` items, `then`, `else`,
//!   `dependentSchemas`): the keywords whose failures the crate reports with
//!   the branch's own errors (`not`, `if` and `contains` report none);
//! - a *child* edge applies one to a member or an item, labelled by which
//!   (`properties/name` is the member `name`; `patternProperties`,
//!   `additionalProperties`, `unevaluatedProperties` may be any member;
//!   `prefixItems/i` is the item `i`; `items` and `unevaluatedItems` any item;
//!   `propertyNames` the keys).
//!
//! In-place edges are folded into the child edges that follow them, counting
//! the distinct in-place paths. A report can grow exponentially exactly when
//! some state has two distinct walks back to itself whose labels can name
//! the same places of one instance (the automaton is exponentially
//! ambiguous): a folded edge taken by two in-place paths inside a cycle, or
//! two walks of one strongly connected component that part and meet again,
//! found in the component's square. Labels of different kinds (a member, an
//! item) never name one place, so `{"anyOf": [{"items": R}, {"properties":
//! {"a": R}}]}` is linear. The rule errs on the safe side: a member pattern
//! is taken to match every name, so a schema can be flagged that would not
//! explode; it then gets the bounded report, never a wrong verdict.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::Value;

use super::pointer::{escape_segment, ref_pointer};

/// Where a child edge leads, as far as the places of an instance go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Label {
    /// A member: `Some(name)` for `properties/name`, `None` for any member.
    Member(Option<String>),
    /// An item: `Some(index)` for `prefixItems/index`, `None` for any item.
    Item(Option<usize>),
    /// The keys of an object (`propertyNames`).
    Key,
}

impl Label {
    /// Whether one place of an instance can be reached through both labels.
    fn overlaps(&self, other: &Label) -> bool {
        match (self, other) {
            (Label::Member(a), Label::Member(b)) => a.is_none() || b.is_none() || a == b,
            (Label::Item(a), Label::Item(b)) => a.is_none() || b.is_none() || a == b,
            (Label::Key, Label::Key) => true,
            _ => false,
        }
    }
}

/// A component's square with more edges than this is not explored: the
/// component is treated as overlapping (the bounded report is always
/// correct, only less detailed).
const MAX_SQUARE_EDGES: usize = 1 << 20;

/// The subschemas of the bundled document `root` from which a full error
/// report can grow exponentially, and every subschema that reaches one.
#[derive(Debug, Default)]
pub(super) struct Overlaps {
    /// Pointers of the subschemas that reach an exponentially ambiguous
    /// component (the component's own members included).
    reaching: HashSet<String>,
}

impl Overlaps {
    /// Analyses every subschema of `root` (a bundled document).
    pub(super) fn of(root: &Value) -> Self {
        let graph = Graph::of(root);
        let folded = graph.fold_in_place();
        let components = strongly_connected(&folded);
        let mut flagged = vec![false; graph.pointers.len()];
        for component in &components {
            if ambiguous(component, &folded) {
                for &node in component {
                    flagged[node] = true;
                }
            }
        }
        // Every subschema from which a flagged one can be reached (through
        // any edge, in place or not) reports through the bounded path.
        let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); graph.pointers.len()];
        for (from, edges) in graph.in_place.iter().enumerate() {
            for &to in edges {
                reverse[to].push(from);
            }
        }
        for (from, edges) in graph.children.iter().enumerate() {
            for (_, to) in edges {
                reverse[*to].push(from);
            }
        }
        let mut queue: VecDeque<usize> = (0..flagged.len()).filter(|&n| flagged[n]).collect();
        while let Some(node) = queue.pop_front() {
            for &from in &reverse[node] {
                if !flagged[from] {
                    flagged[from] = true;
                    queue.push_back(from);
                }
            }
        }
        let reaching = graph
            .pointers
            .into_iter()
            .zip(flagged)
            .filter_map(|(pointer, flag)| flag.then_some(pointer))
            .collect();
        Overlaps { reaching }
    }

    /// Whether a full report of the subschema at `pointer` can explode.
    pub(super) fn reach(&self, pointer: &str) -> bool {
        self.reaching.contains(pointer)
    }
}

/// The subschemas of a document and their edges.
struct Graph {
    pointers: Vec<String>,
    in_place: Vec<Vec<usize>>,
    children: Vec<Vec<(Label, usize)>>,
}

/// The edges of one state after folding: each child edge with the number of
/// distinct in-place paths leading to it (at most 2: more changes nothing).
type Folded = Vec<Vec<(Label, usize, u8)>>;

impl Graph {
    fn of(root: &Value) -> Self {
        let mut index = HashMap::new();
        let mut pointers = Vec::new();
        collect_subschemas(root, String::new(), &mut index, &mut pointers);
        let mut in_place = vec![Vec::new(); pointers.len()];
        let mut children = vec![Vec::new(); pointers.len()];
        for (node, pointer) in pointers.iter().enumerate() {
            let Some(Value::Object(schema)) = root.pointer(pointer) else {
                continue;
            };
            let at = |path: &str| index.get(&format!("{pointer}/{path}")).copied();
            for key in ["$ref", "$dynamicRef"] {
                if let Some(target) = schema
                    .get(key)
                    .and_then(Value::as_str)
                    .and_then(ref_pointer)
                    .and_then(|target| index.get(&target))
                {
                    in_place[node].push(*target);
                }
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(items)) = schema.get(key) {
                    in_place[node]
                        .extend((0..items.len()).filter_map(|i| at(&format!("{key}/{i}"))));
                }
            }
            in_place[node].extend(["then", "else"].into_iter().filter_map(at));
            for (key, label) in [
                ("properties", None),
                ("patternProperties", Some(Label::Member(None))),
                ("dependentSchemas", None),
            ] {
                let Some(Value::Object(members)) = schema.get(key) else {
                    continue;
                };
                for name in members.keys() {
                    let Some(target) = at(&format!("{key}/{}", escape_segment(name))) else {
                        continue;
                    };
                    match (key, &label) {
                        ("dependentSchemas", _) => in_place[node].push(target),
                        (_, Some(label)) => children[node].push((label.clone(), target)),
                        _ => children[node].push((Label::Member(Some(name.clone())), target)),
                    }
                }
            }
            for (key, label) in [
                ("additionalProperties", Label::Member(None)),
                ("unevaluatedProperties", Label::Member(None)),
                ("propertyNames", Label::Key),
                ("items", Label::Item(None)),
                ("unevaluatedItems", Label::Item(None)),
            ] {
                if let Some(target) = at(key) {
                    children[node].push((label, target));
                }
            }
            if let Some(Value::Array(items)) = schema.get("prefixItems") {
                for i in 0..items.len() {
                    if let Some(target) = at(&format!("prefixItems/{i}")) {
                        children[node].push((Label::Item(Some(i)), target));
                    }
                }
            }
        }
        Graph {
            pointers,
            in_place,
            children,
        }
    }

    /// Folds the in-place edges into the child edges they lead to. An
    /// in-place cycle (a `$ref` loop that never reaches a child) is folded
    /// as an ambiguity: a self edge taken twice.
    fn fold_in_place(&self) -> Folded {
        (0..self.pointers.len())
            .map(|node| {
                let (paths, looped) = self.in_place_paths(node);
                let mut edges = Vec::new();
                for (state, count) in paths {
                    for (label, to) in &self.children[state] {
                        edges.push((label.clone(), *to, count));
                    }
                }
                if looped {
                    edges.push((Label::Key, node, 2));
                }
                edges
            })
            .collect()
    }

    /// The states `node` reaches in place (itself included), each with its
    /// number of distinct in-place paths (capped at 2), and whether an
    /// in-place cycle was met.
    fn in_place_paths(&self, node: usize) -> (BTreeMap<usize, u8>, bool) {
        // Post-order by depth-first search; a state met again while still
        // open closes an in-place cycle.
        let mut open = HashSet::new();
        let mut done = HashSet::new();
        let mut order = Vec::new();
        let mut looped = false;
        let mut stack = vec![(node, false)];
        while let Some((state, closing)) = stack.pop() {
            if closing {
                open.remove(&state);
                done.insert(state);
                order.push(state);
                continue;
            }
            if done.contains(&state) {
                continue;
            }
            if !open.insert(state) {
                looped = true;
                continue;
            }
            stack.push((state, true));
            for &next in &self.in_place[state] {
                if open.contains(&next) {
                    looped = true;
                } else {
                    stack.push((next, false));
                }
            }
        }
        // Path counts in topological order (reverse post-order).
        let mut paths = BTreeMap::from([(node, 1u8)]);
        for &state in order.iter().rev() {
            let here = paths.get(&state).copied().unwrap_or(0);
            for &next in &self.in_place[state] {
                let count = paths.entry(next).or_insert(0);
                *count = count.saturating_add(here).min(2);
            }
        }
        (paths, looped)
    }
}

/// Every subschema position below `value` (itself included), by pointer.
fn collect_subschemas(
    value: &Value,
    pointer: String,
    index: &mut HashMap<String, usize>,
    pointers: &mut Vec<String>,
) {
    let Value::Object(schema) = value else {
        return;
    };
    index.insert(pointer.clone(), pointers.len());
    pointers.push(pointer.clone());
    for (key, child) in schema {
        let here = format!("{pointer}/{}", escape_segment(key));
        match key.as_str() {
            "$defs" | "definitions" | "properties" | "patternProperties" | "dependentSchemas" => {
                if let Value::Object(members) = child {
                    for (name, sub) in members {
                        collect_subschemas(
                            sub,
                            format!("{here}/{}", escape_segment(name)),
                            index,
                            pointers,
                        );
                    }
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(items) = child {
                    for (i, sub) in items.iter().enumerate() {
                        collect_subschemas(sub, format!("{here}/{i}"), index, pointers);
                    }
                }
            }
            "not"
            | "if"
            | "then"
            | "else"
            | "items"
            | "contains"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "propertyNames" => {
                collect_subschemas(child, here, index, pointers);
            }
            _ => {}
        }
    }
}

/// Tarjan's strongly connected components of the folded graph (iterative),
/// keeping those that hold a cycle.
fn strongly_connected(graph: &Folded) -> Vec<Vec<usize>> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some((node, edge)) = work.pop() {
            if edge == 0 {
                index[node] = next;
                low[node] = next;
                next += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some((_, to, _)) = graph[node].get(edge) {
                work.push((node, edge + 1));
                if index[*to] == usize::MAX {
                    work.push((*to, 0));
                } else if on_stack[*to] {
                    low[node] = low[node].min(index[*to]);
                }
                continue;
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                let cyclic =
                    component.len() > 1 || graph[node].iter().any(|(_, to, _)| *to == node);
                if cyclic {
                    components.push(component);
                }
            }
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[node]);
            }
        }
    }
    components
}

/// Whether two distinct walks of `component` can part and meet again on
/// labels that name the same places.
fn ambiguous(component: &[usize], graph: &Folded) -> bool {
    let members: HashSet<usize> = component.iter().copied().collect();
    // Each member's edges that stay in the component.
    let inside: HashMap<usize, Vec<&(Label, usize, u8)>> = component
        .iter()
        .map(|&node| {
            (
                node,
                graph[node]
                    .iter()
                    .filter(|(_, to, _)| members.contains(to))
                    .collect(),
            )
        })
        .collect();
    if inside.values().flatten().any(|(_, _, count)| *count > 1) {
        return true;
    }
    // The square: a state is a pair of members, an edge a pair of edges with
    // overlapping labels. An ambiguity is an off-diagonal pair reachable
    // from the diagonal that reaches the diagonal again (within one
    // component every diagonal pair reaches every other). A square too big
    // to explore counts as ambiguous.
    let diagonal = || component.iter().map(|&n| (n, n));
    let mut reached: HashSet<(usize, usize)> = diagonal().collect();
    let mut queue: VecDeque<(usize, usize)> = diagonal().collect();
    let mut reverse: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
    let mut explored = 0usize;
    while let Some((a, b)) = queue.pop_front() {
        for (la, ta, _) in &inside[&a] {
            for (lb, tb, _) in &inside[&b] {
                if !la.overlaps(lb) {
                    continue;
                }
                explored += 1;
                if explored > MAX_SQUARE_EDGES {
                    return true;
                }
                let next = (*ta, *tb);
                reverse.entry(next).or_default().push((a, b));
                if reached.insert(next) {
                    queue.push_back(next);
                }
            }
        }
    }
    // Back from the diagonal over the reversed edges of the reached part.
    let mut back: HashSet<(usize, usize)> = diagonal().collect();
    let mut queue: VecDeque<(usize, usize)> = diagonal().collect();
    while let Some(pair) = queue.pop_front() {
        for &from in reverse.get(&pair).into_iter().flatten() {
            if back.insert(from) {
                queue.push_back(from);
            }
        }
    }
    back.iter().any(|(a, b)| a != b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shared vectors (`tests/vectors/schemas/overlap.json`), which the
    /// TypeScript runtime's port of this rule runs too.
    #[test]
    fn shared_vectors() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/vectors/schemas/overlap.json");
        let text = std::fs::read_to_string(&path).expect("the vectors are readable");
        let vectors: Value = serde_json::from_str(&text).expect("the vectors are JSON");
        let cases = vectors["cases"].as_array().expect("cases");
        for case in cases {
            let overlaps = Overlaps::of(&json!({ "$defs": case["defs"] })).reach("/$defs/R");
            assert_eq!(Value::Bool(overlaps), case["overlaps"], "{}", case["name"]);
        }
        assert!(cases.len() >= 15);
    }

    /// No schema this repository ships takes the bounded report: their
    /// reports stay the `jsonschema` crate's full ones.
    #[test]
    fn no_shipped_protocol_overlaps() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
        let registry = crate::protocol::Registry::from_dir(&root).expect("schemas/ loads");
        let mut checked = 0;
        for source in registry.iter() {
            let overlaps = Overlaps::of(source.bundled_schema());
            assert!(
                overlaps.reaching.is_empty(),
                "{}: {:?}",
                source.id(),
                overlaps.reaching
            );
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} protocols found");
    }
}
