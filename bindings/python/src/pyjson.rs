//! Python objects as a JSON representation the `jsonschema` crate validates
//! in place (its `Json` trait), with safe pyo3 calls only.
//!
//! A validator built with [`validator_for`] reads `dict`, `list`, `tuple`,
//! `str`, `int`, `float`, `bool` and `None` directly: object members are
//! found by a dict lookup with a prepared `str` key, so a valid value is
//! checked without converting it. Anything else reads as `null` (the writer
//! refuses it later, naming its pointer).

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Number, Value};

use crate::convert::from_python;
use crate::fast::PointerMap;

thread_local! {
    /// Member names read during the current validation, by `str` address.
    /// Emptied before and after every validation: an address names one
    /// string only while the validated value is alive and unchanged.
    static NAMES: RefCell<PointerMap<Rc<str>>> = RefCell::new(PointerMap::default());
}

/// A member name, shared between the members passes of one validation.
#[derive(Clone)]
pub struct Name(Rc<str>);

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'a> From<Name> for Cow<'a, str> {
    fn from(name: Name) -> Self {
        Cow::Owned(name.0.as_ref().to_owned())
    }
}

fn name_of(key: &Bound<'_, PyAny>) -> Name {
    let address = key.as_ptr() as usize;
    if let Some(found) = NAMES.with(|names| names.borrow().get(&address).cloned()) {
        return Name(found);
    }
    let text: Rc<str> = match key.cast::<PyString>() {
        Ok(name) => Rc::from(name.to_cow().map(Cow::into_owned).unwrap_or_default()),
        Err(_) => Rc::from(key.str().map(|s| s.to_string()).unwrap_or_default()),
    };
    NAMES.with(|names| names.borrow_mut().insert(address, Rc::clone(&text)));
    Name(text)
}

/// Whether `validator` accepts `value`, read in place.
pub fn accepts(validator: &PyValidator, value: &Bound<'_, PyAny>) -> bool {
    NAMES.with(|names| names.borrow_mut().clear());
    let valid = validator.is_valid(PyNode(value.clone()));
    NAMES.with(|names| names.borrow_mut().clear());
    valid
}

/// The marker type of the representation.
pub struct PyJson;

/// One Python value.
#[derive(Clone)]
pub struct PyNode<'a>(pub Bound<'a, PyAny>);

impl Json for PyJson {
    type Node<'a> = PyNode<'a>;
    type PreparedKey = Py<PyString>;
    type StringBuffer = ();

    fn prepare_key(key: &str) -> Py<PyString> {
        Python::attach(|py| PyString::intern(py, key).unbind())
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(PyNode<'_>) -> T) -> T {
        Python::attach(|py| f(PyNode(PyString::new(py, string).into_any())))
    }
}

/// A Python number, read once.
#[derive(Clone, Copy)]
pub enum PyNumber {
    /// Fits i64.
    Signed(i64),
    /// Fits u64 but not i64.
    Unsigned(u64),
    /// A float, or an int beyond u64 (approximated).
    Float(f64),
}

impl JsonNumber for PyNumber {
    fn as_u64(&self) -> Option<u64> {
        match *self {
            PyNumber::Signed(n) => u64::try_from(n).ok(),
            PyNumber::Unsigned(n) => Some(n),
            PyNumber::Float(_) => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match *self {
            PyNumber::Signed(n) => Some(n),
            PyNumber::Unsigned(_) | PyNumber::Float(_) => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            PyNumber::Signed(n) => n as f64,
            PyNumber::Unsigned(n) => n as f64,
            PyNumber::Float(n) => n,
        })
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(match *self {
            PyNumber::Signed(n) => n.to_string(),
            PyNumber::Unsigned(n) => n.to_string(),
            PyNumber::Float(n) => {
                Number::from_f64(n).map_or_else(|| n.to_string(), |n| n.to_string())
            }
        })
    }

    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(match *self {
            PyNumber::Signed(n) => Number::from(n),
            PyNumber::Unsigned(n) => Number::from(n),
            PyNumber::Float(n) => Number::from_f64(n).unwrap_or_else(|| Number::from(0)),
        })
    }

    fn is_integer(&self) -> bool {
        match *self {
            PyNumber::Signed(_) | PyNumber::Unsigned(_) => true,
            PyNumber::Float(n) => n.is_finite() && n.fract() == 0.0,
        }
    }

    fn is_written_as_integer(&self) -> bool {
        !matches!(self, PyNumber::Float(_))
    }
}

/// A `dict`.
#[derive(Clone)]
pub struct PyObjectNode<'a>(Bound<'a, PyDict>);

/// A `list` or a `tuple`.
#[derive(Clone)]
pub enum PyArrayNode<'a> {
    /// A list.
    List(Bound<'a, PyList>),
    /// A tuple.
    Tuple(Bound<'a, PyTuple>),
}

impl<'a> Node<'a, PyJson> for PyNode<'a> {
    type Object = PyObjectNode<'a>;
    type Array = PyArrayNode<'a>;
    type Number = PyNumber;

    fn as_object(&self) -> Option<PyObjectNode<'a>> {
        self.0
            .cast::<PyDict>()
            .ok()
            .map(|dict| PyObjectNode(dict.clone()))
    }

    fn as_array(&self) -> Option<PyArrayNode<'a>> {
        if let Ok(list) = self.0.cast::<PyList>() {
            return Some(PyArrayNode::List(list.clone()));
        }
        self.0
            .cast::<PyTuple>()
            .ok()
            .map(|tuple| PyArrayNode::Tuple(tuple.clone()))
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        let text = self.0.cast::<PyString>().ok()?;
        text.to_cow().ok().map(|text| Cow::Owned(text.into_owned()))
    }

    fn as_number(&self) -> Option<PyNumber> {
        if self.0.is_instance_of::<PyBool>() {
            return None;
        }
        if let Ok(integer) = self.0.cast::<PyInt>() {
            if let Ok(n) = integer.extract::<i64>() {
                return Some(PyNumber::Signed(n));
            }
            if let Ok(n) = integer.extract::<u64>() {
                return Some(PyNumber::Unsigned(n));
            }
            return integer.extract::<f64>().ok().map(PyNumber::Float);
        }
        self.0
            .cast::<PyFloat>()
            .ok()
            .map(|float| PyNumber::Float(float.value()))
    }

    fn as_boolean(&self) -> Option<bool> {
        self.0.cast::<PyBool>().ok().map(|flag| flag.is_true())
    }

    fn is_null(&self) -> bool {
        self.json_type() == JsonType::Null
    }

    fn json_type(&self) -> JsonType {
        let object = &self.0;
        if object.is_instance_of::<PyString>() {
            JsonType::String
        } else if object.is_instance_of::<PyDict>() {
            JsonType::Object
        } else if object.is_instance_of::<PyList>() || object.is_instance_of::<PyTuple>() {
            JsonType::Array
        } else if object.is_instance_of::<PyBool>() {
            JsonType::Boolean
        } else if object.is_instance_of::<PyInt>() || object.is_instance_of::<PyFloat>() {
            JsonType::Number
        } else {
            JsonType::Null
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(from_python(&self.0).unwrap_or(Value::Null))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(self.0.as_ptr() as usize))
    }
}

impl<'a> Object<'a, PyJson> for PyObjectNode<'a> {
    type Node = PyNode<'a>;
    type MemberName = Name;
    type MembersIter = std::vec::IntoIter<(Name, PyNode<'a>)>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, key: &Py<PyString>) -> Option<PyNode<'a>> {
        self.0
            .get_item(key.bind(self.0.py()))
            .ok()
            .flatten()
            .map(PyNode)
    }

    fn members(&self) -> Self::MembersIter {
        let mut members = Vec::with_capacity(self.0.len());
        for (name, value) in self.0.iter() {
            members.push((name_of(&name), PyNode(value)));
        }
        members.into_iter()
    }
}

impl<'a> Array<'a, PyJson> for PyArrayNode<'a> {
    type Node = PyNode<'a>;
    type ElementsIter = std::vec::IntoIter<PyNode<'a>>;

    fn len(&self) -> usize {
        match self {
            PyArrayNode::List(list) => list.len(),
            PyArrayNode::Tuple(tuple) => tuple.len(),
        }
    }

    fn elements(&self) -> Self::ElementsIter {
        let items: Vec<PyNode<'a>> = match self {
            PyArrayNode::List(list) => list.iter().map(PyNode).collect(),
            PyArrayNode::Tuple(tuple) => tuple.iter().map(PyNode).collect(),
        };
        items.into_iter()
    }
}

/// A validator of Python objects for one schema.
pub type PyValidator = jsonschema::Validator<PyJson>;

/// Builds a validator of Python objects for a Draft 2020-12 schema.
pub fn validator_for(schema: &Value) -> Option<PyValidator> {
    jsonschema::options_for::<PyJson>()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .ok()
}
