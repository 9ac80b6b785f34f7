//! Python objects as a JSON representation the `jsonschema` crate validates
//! in place (its `Json` trait), through borrowed pointers (`raw`).
//!
//! A validator of [`PyJson`] (the core's, `Resources::validator`) reads exact `dict`, `list`,
//! `tuple`, `str`, `int`, `float`, `bool` and `None` directly: object
//! members are found by a dict lookup with a prepared (interned) `str` key,
//! strings are read in place, so a valid value is checked without
//! converting or copying it. Callers only validate values made of those
//! types (written by `JsonWriter` first, or just parsed); anything else
//! would read as `null`.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ptr::NonNull;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::Borrowed;
use serde_json::{Number, Value};

use crate::convert::from_python;
use crate::raw::{self, Kind};

/// A member name, borrowed from its `str` (see `raw::utf8`).
#[derive(Clone)]
pub struct Name<'a>(Cow<'a, str>);

impl AsRef<str> for Name<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'a> From<Name<'a>> for Cow<'a, str> {
    fn from(name: Name<'a>) -> Self {
        name.0
    }
}

/// Whether `validator` accepts `value`, read in place. `value` must be made
/// of exact builtin JSON types only: one the `JsonWriter` accepted, or one
/// just parsed (see `raw` for why the borrowed walk is sound then).
pub fn accepts(validator: &PyValidator, value: &Bound<'_, PyAny>) -> bool {
    validator.is_valid(PyNode::new(value.as_ptr()))
}

/// The marker type of the representation.
pub struct PyJson;

/// One Python value, borrowed for the validation (`raw`).
#[derive(Clone, Copy)]
pub struct PyNode<'a> {
    object: NonNull<ffi::PyObject>,
    kind: Kind,
    _alive: PhantomData<&'a ()>,
}

impl PyNode<'_> {
    #[allow(unsafe_code)]
    fn new(object: *mut ffi::PyObject) -> Self {
        // Every pointer comes from a live value or a member or item of one
        // (`raw`), never null; null would be an internal error.
        let object = NonNull::new(object).expect("a null object in a value validated in place");
        // SAFETY: live (borrowed from a value alive for the validation).
        let kind = unsafe { raw::kind(object.as_ptr()) };
        PyNode {
            object,
            kind,
            _alive: PhantomData,
        }
    }

    fn ptr(&self) -> *mut ffi::PyObject {
        self.object.as_ptr()
    }
}

impl Json for PyJson {
    type Node<'a> = PyNode<'a>;
    type PreparedKey = Py<PyString>;
    type StringBuffer = ();
    // Validated values are trees: parsed ones, or ones the writer accepted
    // (a cycle would exceed its depth bound).
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Py<PyString> {
        Python::attach(|py| PyString::intern(py, key).unbind())
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(PyNode<'_>) -> T) -> T {
        Python::attach(|py| {
            let text = PyString::new(py, string);
            f(PyNode::new(text.as_ptr()))
        })
    }
}

/// A Python number, read once. Integers beyond i64 never reach an
/// in-place validation (the writer and the parser send them to the core's
/// path), so there is no variant for them.
#[derive(Clone, Copy)]
pub enum PyNumber {
    /// An `int` (within i64).
    Signed(i64),
    /// A `float`.
    Float(f64),
}

impl JsonNumber for PyNumber {
    fn as_u64(&self) -> Option<u64> {
        match *self {
            PyNumber::Signed(n) => u64::try_from(n).ok(),
            PyNumber::Float(_) => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match *self {
            PyNumber::Signed(n) => Some(n),
            PyNumber::Float(_) => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            PyNumber::Signed(n) => n as f64,
            PyNumber::Float(n) => n,
        })
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(match *self {
            PyNumber::Signed(n) => n.to_string(),
            PyNumber::Float(n) => {
                Number::from_f64(n).map_or_else(|| n.to_string(), |n| n.to_string())
            }
        })
    }

    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(match *self {
            PyNumber::Signed(n) => Number::from(n),
            // Finite: the writer refuses the others, the parser makes none.
            PyNumber::Float(n) => Number::from_f64(n).expect("a finite float"),
        })
    }

    fn is_integer(&self) -> bool {
        match *self {
            PyNumber::Signed(_) => true,
            PyNumber::Float(n) => n.is_finite() && n.fract() == 0.0,
        }
    }

    fn is_written_as_integer(&self) -> bool {
        !matches!(self, PyNumber::Float(_))
    }
}

/// A `dict`.
#[derive(Clone, Copy)]
pub struct PyObjectNode<'a>(PyNode<'a>);

/// A `list` or a `tuple`.
#[derive(Clone, Copy)]
pub struct PyArrayNode<'a>(PyNode<'a>);

// SAFETY (every `unsafe` below): the node's object is live for `'a` and of
// the kind recorded, the GIL is held (module docs of `raw`).
#[allow(unsafe_code)]
impl<'a> Node<'a, PyJson> for PyNode<'a> {
    type Object = PyObjectNode<'a>;
    type Array = PyArrayNode<'a>;
    type Number = PyNumber;

    fn as_object(&self) -> Option<PyObjectNode<'a>> {
        (self.kind == Kind::Dict).then_some(PyObjectNode(*self))
    }

    fn as_array(&self) -> Option<PyArrayNode<'a>> {
        matches!(self.kind, Kind::List | Kind::Tuple).then_some(PyArrayNode(*self))
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        if self.kind != Kind::Str {
            return None;
        }
        // SAFETY: the node is a live `str` (its kind says so) alive for `'a`,
        // the GIL is held (the validation runs under it).
        unsafe { raw::utf8(self.ptr()) }
    }

    // An int beyond i64 here is an internal error (see `PyNumber`): a
    // panic, which pyo3 raises as an exception, rather than a wrong answer.
    #[allow(clippy::panic)]
    fn as_number(&self) -> Option<PyNumber> {
        match self.kind {
            // SAFETY: a live `int` (its kind), the GIL held.
            Kind::Int => Some(match unsafe { raw::integer(self.ptr()) } {
                raw::Integer::Signed(n) => PyNumber::Signed(n),
                // Screened out before validating in place (`PyNumber`).
                raw::Integer::Big => panic!("an int beyond i64 validated in place"),
            }),
            // SAFETY: a live `float` (its kind), the GIL held.
            Kind::Float => Some(PyNumber::Float(unsafe { raw::float(self.ptr()) })),
            _ => None,
        }
    }

    fn is_number(&self) -> bool {
        matches!(self.kind, Kind::Int | Kind::Float)
    }

    fn as_boolean(&self) -> Option<bool> {
        // SAFETY: `Py_True` only reads the address of the immortal `True`
        // singleton; the GIL is held.
        (self.kind == Kind::Bool).then(|| self.ptr() == unsafe { ffi::Py_True() })
    }

    fn is_null(&self) -> bool {
        self.json_type() == JsonType::Null
    }

    fn json_type(&self) -> JsonType {
        match self.kind {
            Kind::Str => JsonType::String,
            Kind::Dict => JsonType::Object,
            Kind::List | Kind::Tuple => JsonType::Array,
            Kind::Bool => JsonType::Boolean,
            Kind::Int | Kind::Float => JsonType::Number,
            Kind::None | Kind::Other => JsonType::Null,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        // SAFETY: validation runs with the GIL held (the validator is called
        // from code holding a `Python` token), so the thread is attached.
        let py = unsafe { Python::assume_attached() };
        // SAFETY: the node's object is live and non-null for `'a`; the borrow
        // does not outlive this call.
        let object = unsafe { Borrowed::from_ptr(py, self.ptr()) };
        // Screened (written or parsed) before validating in place, so it
        // converts; a failure is an internal error, not a `null`.
        Cow::Owned(from_python(&object).expect("a screened value converts"))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(self.ptr() as usize))
    }
}

/// A dict's members, borrowed.
pub struct Members<'a> {
    dict: PyNode<'a>,
    position: ffi::Py_ssize_t,
}

#[allow(unsafe_code)]
impl<'a> Iterator for Members<'a> {
    type Item = (Name<'a>, PyNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        // SAFETY: as for `PyNode`; the dict is not changed while validated.
        let (key, value) = unsafe { raw::dict_next(self.dict.ptr(), &mut self.position)? };
        // Screened: exact `str` keys with a UTF-8 form (`raw`).
        assert!(
            unsafe { raw::kind(key) } == Kind::Str,
            "a member name that is not a str"
        );
        let name = unsafe { raw::utf8(key) }.expect("a member name with a UTF-8 form");
        Some((Name(name), PyNode::new(value)))
    }
}

#[allow(unsafe_code)]
impl<'a> Object<'a, PyJson> for PyObjectNode<'a> {
    type Node = PyNode<'a>;
    type MemberName = Name<'a>;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        // SAFETY: as for `PyNode`.
        unsafe { raw::len(self.0.ptr(), Kind::Dict) }
    }

    fn get(&self, key: &Py<PyString>) -> Option<PyNode<'a>> {
        // SAFETY: as for `PyNode`; the keys are exact `str` (`raw`).
        unsafe { raw::dict_get(self.0.ptr(), key.as_ptr()) }.map(PyNode::new)
    }

    fn members(&self) -> Members<'a> {
        Members {
            dict: self.0,
            position: 0,
        }
    }
}

/// A list's or tuple's elements, borrowed.
pub struct Elements<'a> {
    array: PyNode<'a>,
    index: usize,
    len: usize,
}

#[allow(unsafe_code)]
impl<'a> Iterator for Elements<'a> {
    type Item = PyNode<'a>;

    fn next(&mut self) -> Option<PyNode<'a>> {
        if self.index >= self.len {
            return None;
        }
        // SAFETY: as for `PyNode`; `index` is within the length read before.
        let item = unsafe { raw::item(self.array.ptr(), self.array.kind, self.index) };
        self.index += 1;
        Some(PyNode::new(item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.index;
        (left, Some(left))
    }
}

#[allow(unsafe_code)]
impl<'a> Array<'a, PyJson> for PyArrayNode<'a> {
    type Node = PyNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        // SAFETY: as for `PyNode`.
        unsafe { raw::len(self.0.ptr(), self.0.kind) }
    }

    fn elements(&self) -> Elements<'a> {
        Elements {
            array: self.0,
            index: 0,
            len: self.len(),
        }
    }
}

/// A validator of Python objects for one schema.
pub type PyValidator = jsonschema::Validator<PyJson>;
