//! The few raw CPython calls the hot paths make, in one place.
//!
//! pyo3's safe API pays a reference count (a function call under abi3) for
//! every object it hands out, and under the 3.9 limited API it reads a
//! `str`'s UTF-8 by encoding a temporary `bytes`. The parse, write and
//! in-place validation walks instead read *borrowed* pointers of objects the
//! caller keeps alive, check exact builtin types by pointer comparison, and
//! read a `str`'s UTF-8 in place ([`utf8`]).
//!
//! Why those borrows are sound: every walk runs with the GIL held, on values
//! made of exact `dict`, `list`, `tuple`, `str`, `int`, `float`, `bool` and
//! `None` only (the writer refuses anything else, so a handler's value is
//! written, and thereby screened, before it is validated in place; a parsed
//! value is ours alone). No call below runs Python code on such values (no
//! `__eq__`, `__hash__` or `__del__`), so nothing can change or free them
//! while a walk holds their pointers.
//!
//! The garbage collector: it runs when a container object is allocated, and
//! a collection may call finalizers of unrelated garbage (Python code).
//! [`integer`] never raises (so allocates no exception object); [`utf8`]
//! allocates only the UTF-8 cache (plain memory, not an object) except for
//! a `str` holding lone surrogates, where CPython raises (and we clear) a
//! `UnicodeEncodeError`. That one allocation can start a collection; the
//! values walked stay alive (the caller holds them), and a finalizer would
//! have to mutate one of them mid-walk to do harm. This is the one case
//! the borrowed walks accept rather than exclude; the writer stops at the
//! first such string (the general path then refuses it).
//!
//! Each function is `unsafe` with its contract under `# Safety`; each
//! call site says why it holds (`// SAFETY:`).

use std::borrow::Cow;
use std::os::raw::c_int;

use pyo3::ffi;

/// `PyUnicode_AsUTF8AndSize`: the UTF-8 that CPython caches in the `str`
/// object (computed once, nothing to free), returned without a copy.
///
/// The decision: it entered the *limited* API in 3.10, so pyo3 hides it
/// under `abi3-py39`, but CPython has exported it (`PyAPI_FUNC`) since 3.3,
/// and an extension module on Linux and macOS resolves its symbols against
/// the running interpreter, so declaring it here works on every CPython this
/// wheel installs on (tests run on 3.9, 3.11 and 3.13). On Windows an abi3
/// module links against `python3.dll`, whose 3.9 build does not forward it,
/// so there the copying path stays (`PyUnicode_AsUTF8String`).
#[cfg(not(windows))]
mod utf8_in_place {
    use pyo3::ffi::{PyObject, Py_ssize_t};
    use std::os::raw::c_char;

    extern "C" {
        pub fn PyUnicode_AsUTF8AndSize(
            unicode: *mut PyObject,
            size: *mut Py_ssize_t,
        ) -> *const c_char;
    }
}

/// The UTF-8 of a `str` (exact or subclass), borrowed from the object where
/// the platform allows ([`utf8_in_place`]); `None` for a `str` that has no
/// UTF-8 form (lone surrogates; the Python error is cleared).
///
/// # Safety
///
/// `object` is a live `str` that outlives `'a`, the GIL is held.
#[cfg(not(windows))]
#[allow(unsafe_code)]
pub unsafe fn utf8<'a>(object: *mut ffi::PyObject) -> Option<Cow<'a, str>> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = utf8_in_place::PyUnicode_AsUTF8AndSize(object, &mut size);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    let bytes = std::slice::from_raw_parts(data.cast::<u8>(), usize::try_from(size).ok()?);
    // CPython produced it: valid UTF-8 (surrogates fail above).
    Some(Cow::Borrowed(std::str::from_utf8_unchecked(bytes)))
}

/// The copying fallback (see the unix version).
///
/// # Safety
///
/// `object` is a live `str`, the GIL is held.
#[cfg(windows)]
#[allow(unsafe_code)]
pub unsafe fn utf8<'a>(object: *mut ffi::PyObject) -> Option<Cow<'a, str>> {
    let bytes = ffi::PyUnicode_AsUTF8String(object);
    if bytes.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    let size = usize::try_from(ffi::PyBytes_Size(bytes)).ok();
    let data = ffi::PyBytes_AsString(bytes);
    let text = size.map(|size| {
        let slice = std::slice::from_raw_parts(data.cast::<u8>(), size);
        String::from_utf8_lossy(slice).into_owned()
    });
    ffi::Py_DecRef(bytes);
    text.map(Cow::Owned)
}

/// The builtin JSON types, by exact type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `str`.
    Str,
    /// `dict`.
    Dict,
    /// `list`.
    List,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `None`.
    None,
    /// `tuple`.
    Tuple,
    /// Anything else, subclasses of the above included.
    Other,
}

/// The exact kind of `object`.
///
/// # Safety
///
/// `object` is live, the GIL is held.
#[inline]
#[allow(unsafe_code)]
pub unsafe fn kind(object: *mut ffi::PyObject) -> Kind {
    let tp = ffi::Py_TYPE(object);
    if tp == std::ptr::addr_of_mut!(ffi::PyUnicode_Type) {
        Kind::Str
    } else if tp == std::ptr::addr_of_mut!(ffi::PyDict_Type) {
        Kind::Dict
    } else if tp == std::ptr::addr_of_mut!(ffi::PyList_Type) {
        Kind::List
    } else if tp == std::ptr::addr_of_mut!(ffi::PyLong_Type) {
        Kind::Int
    } else if tp == std::ptr::addr_of_mut!(ffi::PyFloat_Type) {
        Kind::Float
    } else if tp == std::ptr::addr_of_mut!(ffi::PyBool_Type) {
        Kind::Bool
    } else if object == ffi::Py_None() {
        Kind::None
    } else if tp == std::ptr::addr_of_mut!(ffi::PyTuple_Type) {
        Kind::Tuple
    } else {
        Kind::Other
    }
}

/// An exact `int`'s value when it fits i64.
pub enum Integer {
    /// Fits i64.
    Signed(i64),
    /// Beyond i64: the walks leave it to the general path, which keeps
    /// every digit.
    Big,
}

/// Reads an `int` without raising: `PyLong_AsLongLongAndOverflow` reports
/// a value beyond i64 through `overflow` and sets no exception for an
/// exact `int`, so this allocates nothing (see the module docs). Values
/// beyond i64 are [`Integer::Big`], not read further: reading them as u64
/// (`PyLong_AsUnsignedLongLong`) would raise `OverflowError` beyond u64.
///
/// # Safety
///
/// `object` is a live exact `int`, the GIL is held.
#[allow(unsafe_code)]
pub unsafe fn integer(object: *mut ffi::PyObject) -> Integer {
    let mut overflow: c_int = 0;
    let value = ffi::PyLong_AsLongLongAndOverflow(object, &mut overflow);
    if overflow != 0 {
        return Integer::Big;
    }
    // Only a non-int argument can fail here, and callers pass exact ints.
    assert!(
        value != -1 || ffi::PyErr_Occurred().is_null(),
        "PyLong_AsLongLongAndOverflow failed on an exact int"
    );
    Integer::Signed(value)
}

/// A `float`'s value.
///
/// # Safety
///
/// `object` is a live `float`, the GIL is held.
#[inline]
#[allow(unsafe_code)]
pub unsafe fn float(object: *mut ffi::PyObject) -> f64 {
    ffi::PyFloat_AsDouble(object)
}

/// Iterates a dict's members as borrowed pointers.
///
/// # Safety
///
/// `dict` is a live `dict` not changed during the iteration, the GIL is held.
#[allow(unsafe_code)]
pub unsafe fn dict_next(
    dict: *mut ffi::PyObject,
    position: &mut ffi::Py_ssize_t,
) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
    let mut key = std::ptr::null_mut();
    let mut value = std::ptr::null_mut();
    if ffi::PyDict_Next(dict, position, &mut key, &mut value) != 0 {
        Some((key, value))
    } else {
        None
    }
}

/// The length of a `dict`, `list` or `tuple` (by `kind`).
///
/// # Safety
///
/// `object` is live and of that kind, the GIL is held.
#[inline]
#[allow(unsafe_code)]
pub unsafe fn len(object: *mut ffi::PyObject, kind: Kind) -> usize {
    let n = match kind {
        Kind::Dict => ffi::PyDict_Size(object),
        Kind::List => ffi::PyList_Size(object),
        Kind::Tuple => ffi::PyTuple_Size(object),
        _ => 0,
    };
    // -1 (an error) only for an object not of `kind`: a broken contract.
    usize::try_from(n).expect("the length of a dict, list or tuple")
}

/// Item `index` of a `list` or `tuple`, borrowed.
///
/// # Safety
///
/// `object` is a live `list` or `tuple` (by `kind`) longer than `index`.
#[inline]
#[allow(unsafe_code)]
pub unsafe fn item(object: *mut ffi::PyObject, kind: Kind, index: usize) -> *mut ffi::PyObject {
    let index = index as ffi::Py_ssize_t;
    if kind == Kind::Tuple {
        ffi::PyTuple_GetItem(object, index)
    } else {
        ffi::PyList_GetItem(object, index)
    }
}

/// `dict[key]` borrowed, for an exact `str` key; `None` when absent.
///
/// # Safety
///
/// `dict` is a live `dict` whose keys are exact `str`, `key` a live exact
/// `str`, the GIL is held.
#[inline]
#[allow(unsafe_code)]
pub unsafe fn dict_get(
    dict: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> Option<*mut ffi::PyObject> {
    let found = ffi::PyDict_GetItemWithError(dict, key);
    if found.is_null() {
        if !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
        }
        None
    } else {
        Some(found)
    }
}
