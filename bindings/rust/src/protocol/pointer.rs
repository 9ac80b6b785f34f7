//! Writing a value at a JSON pointer (RFC 6901), for params a host builds
//! from the manifest: the id a cancellation names (`cancellation.id_pointer`)
//! and the members `params_from` takes from earlier answers.

use serde_json::{Map, Value};

/// Sets `value` at the JSON pointer `at` in `target`, making objects on
/// the way (every token names a member); the root pointer `""` replaces
/// `target`; a place that cannot hold it (an array, a scalar) is left.
pub(crate) fn set_at(target: &mut Value, at: &str, value: Value) {
    let tokens: Vec<String> = at
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = tokens.split_last() else {
        *target = value;
        return;
    };
    let mut place = target;
    for token in path {
        let Some(object) = place.as_object_mut() else {
            return;
        };
        place = object
            .entry(token.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if let Some(object) = place.as_object_mut() {
        object.insert(last.clone(), value);
    }
}

/// `serde_path_to_error`'s path as a JSON pointer (`/methods/ping`): where
/// serde stopped in a value it refused.
pub(crate) fn from_serde_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::set_at;
    use serde_json::json;

    #[test]
    fn the_value_goes_where_the_pointer_says() {
        let mut params = json!({});
        set_at(&mut params, "/a~1b/c", json!("x"));
        set_at(&mut params, "/id", json!(7));
        assert_eq!(params, json!({"a/b": {"c": "x"}, "id": 7}));
        let mut list = json!({"items": [1]});
        set_at(&mut list, "/items/0/x", json!(2));
        assert_eq!(list, json!({"items": [1]}), "an array is left as it is");
        set_at(&mut list, "", json!(3));
        assert_eq!(list, json!(3));
    }
}
