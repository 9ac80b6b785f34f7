//! JSON values and Python objects, converted once in each direction.
//!
//! `serde_json::Value` to Python builds `dict`, `list`, `str`, `int`,
//! `float`, `bool` and `None` (object member order kept); member names
//! repeated across a document share one Python `str`. Python to `Value`
//! accepts exactly what `json.dumps` would write without options: `dict`
//! with `str` keys, `list` and `tuple`, `str`, `int` (within `i64`/`u64`),
//! finite `float`, `bool`, `None`, and subclasses of those. Anything else is
//! refused with the JSON pointer of the offending value.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use crate::limits::MAX_DEPTH;
use crate::maps::{PointerHasher, PointerMap};

/// Converts a JSON value to Python objects.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let mut keys = KeyCache::default();
    value_to_python(py, value, &mut keys, 0)
}

/// Member names shared across one conversion, once it has met
/// `LAZY_NAMES` of them (a request's few params cost no table).
#[derive(Default)]
struct KeyCache<'py, 'v> {
    names: HashMap<&'v str, Bound<'py, PyString>, BuildHasherDefault<PointerHasher>>,
    met: usize,
}

/// Names converted before the cache is used.
const LAZY_NAMES: usize = 16;

impl<'py, 'v> KeyCache<'py, 'v> {
    fn get(&mut self, py: Python<'py>, name: &'v str) -> Bound<'py, PyString> {
        if name.len() > 64 || self.met < LAZY_NAMES {
            self.met += 1;
            return PyString::new(py, name);
        }
        self.names
            .entry(name)
            .or_insert_with(|| PyString::new(py, name))
            .clone()
    }
}

fn value_to_python<'py, 'v>(
    py: Python<'py>,
    value: &'v Value,
    keys: &mut KeyCache<'py, 'v>,
    depth: usize,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(number) => number_to_python(py, number)?,
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_python(py, item, keys, depth + 1)?)?;
            }
            list.into_any()
        }
        Value::Object(members) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            let dict = PyDict::new(py);
            for (name, item) in members {
                dict.set_item(
                    keys.get(py, name),
                    value_to_python(py, item, keys, depth + 1)?,
                )?;
            }
            dict.into_any()
        }
    })
}

fn number_to_python<'py>(py: Python<'py>, number: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(integer) = number.as_i64() {
        Ok(integer.into_pyobject(py)?.into_any())
    } else if let Some(integer) = number.as_u64() {
        Ok(integer.into_pyobject(py)?.into_any())
    } else {
        // serde_json gives every number an f64 form; a missing one would be
        // an internal error, not a NaN.
        let value = number.as_f64().expect("a JSON number has an f64 form");
        Ok(PyFloat::new(py, value).into_any())
    }
}

fn too_deep() -> PyErr {
    Python::attach(|py| {
        crate::errors::not_json(
            py,
            &format!("JSON nested deeper than {MAX_DEPTH} levels"),
            "value",
            "",
        )
    })
}

/// Why a Python object is not JSON.
#[derive(Debug)]
pub struct NotJson {
    /// The JSON pointer of the offending value.
    pub pointer: String,
    /// What is wrong with it.
    pub message: String,
    /// Whether it is a value problem (`ValueError`) rather than a type one.
    pub value_error: bool,
}

impl NotJson {
    /// The Python exception, `wirekit.errors.NotJsonError` (a `TypeError`
    /// and a `ValueError`), naming the pointer.
    pub fn into_pyerr(self) -> PyErr {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            self.pointer.as_str()
        };
        let text = format!("not JSON at {at}: {}", self.message);
        let kind = if self.value_error { "value" } else { "type" };
        Python::attach(|py| crate::errors::not_json(py, &text, kind, &self.pointer))
    }
}

/// Converts Python objects to a JSON value.
pub fn from_python(object: &Bound<'_, PyAny>) -> Result<Value, NotJson> {
    let mut path = Vec::new();
    let mut names = PointerMap::default();
    object_to_value(object, &mut path, &mut names)
}

/// Converts Python objects to a JSON value, as a Python exception on failure.
pub fn from_python_err(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_python(object).map_err(NotJson::into_pyerr)
}

enum Step {
    Key(String),
    Index(usize),
}

fn pointer(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        text.push('/');
        match step {
            Step::Key(key) => text.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Step::Index(index) => text.push_str(&index.to_string()),
        }
    }
    text
}

fn fail(path: &[Step], message: String, value_error: bool) -> NotJson {
    NotJson {
        pointer: pointer(path),
        message,
        value_error,
    }
}

fn python_str(text: &Bound<'_, PyString>, path: &[Step]) -> Result<String, NotJson> {
    text.to_cow()
        .map(|cow| cow.into_owned())
        .map_err(|error| fail(path, format!("string is not valid Unicode: {error}"), true))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}

/// Member names converted so far, by `str` address (the objects are alive
/// for the whole conversion, so an address names one string).
type Names = PointerMap<String>;

fn object_to_value(
    object: &Bound<'_, PyAny>,
    path: &mut Vec<Step>,
    names: &mut Names,
) -> Result<Value, NotJson> {
    if let Ok(text) = object.cast::<PyString>() {
        return python_str(text, path).map(Value::String);
    }
    let too_deep = |path: &[Step]| {
        fail(
            path,
            format!("nested deeper than {MAX_DEPTH} levels of arrays and objects"),
            true,
        )
    };
    if let Ok(dict) = object.cast::<PyDict>() {
        if path.len() >= MAX_DEPTH {
            return Err(too_deep(path));
        }
        let mut members = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else {
                return Err(fail(
                    path,
                    format!(
                        "member names must be str, not {} ({})",
                        type_name(&key),
                        key.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                    false,
                ));
            };
            let address = key.as_ptr() as usize;
            let key = match names.get(&address) {
                Some(known) => known.clone(),
                None => {
                    let text = python_str(key, path)?;
                    names.insert(address, text.clone());
                    text
                }
            };
            path.push(Step::Key(key));
            let converted = object_to_value(&item, path, names);
            let Some(Step::Key(key)) = path.pop() else {
                return Err(fail(path, "internal error: path out of step".into(), true));
            };
            members.insert(key, converted?);
        }
        return Ok(Value::Object(members));
    }
    if let Ok(list) = object.cast::<PyList>() {
        if path.len() >= MAX_DEPTH {
            return Err(too_deep(path));
        }
        let mut items = Vec::with_capacity(list.len());
        for (index, item) in list.iter().enumerate() {
            path.push(Step::Index(index));
            let converted = object_to_value(&item, path, names);
            path.pop();
            items.push(converted?);
        }
        return Ok(Value::Array(items));
    }
    if object.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = object.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(integer) = object.cast::<PyInt>() {
        if let Ok(small) = integer.extract::<i64>() {
            return Ok(Value::from(small));
        }
        if let Ok(large) = integer.extract::<u64>() {
            return Ok(Value::from(large));
        }
        return Err(fail(
            path,
            "integer outside the range of i64 and u64".into(),
            true,
        ));
    }
    if let Ok(float) = object.cast::<PyFloat>() {
        let number = float.value();
        return Number::from_f64(number)
            .map(Value::Number)
            .ok_or_else(|| fail(path, format!("{number} has no JSON form"), true));
    }
    if let Ok(tuple) = object.cast::<PyTuple>() {
        if path.len() >= MAX_DEPTH {
            return Err(too_deep(path));
        }
        let mut items = Vec::with_capacity(tuple.len());
        for (index, item) in tuple.iter().enumerate() {
            path.push(Step::Index(index));
            let converted = object_to_value(&item, path, names);
            path.pop();
            items.push(converted?);
        }
        return Ok(Value::Array(items));
    }
    Err(fail(
        path,
        format!("{} is not a JSON type", type_name(object)),
        false,
    ))
}
