//! Reading and writing a part in place: a result written straight from the
//! Python objects and checked there (the quick check, then the full
//! validator reading the objects in place, `pyjson`), and a response parsed
//! straight into Python objects and checked the same way. Each gives up
//! (`None`) to the general path, which reports any problem precisely.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyModule;
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::{Map, Value};
use wirekit::envelope::{self, Message, Response};
use wirekit::protocol::bundle::local_ref;
use wirekit::serve::{InPlaceFrame, Wire};
use wirekit::validate::{Part, Protocol as RustProtocol};

use crate::check::Check;
use crate::fast::{Checked, JsonWriter, PySeed, SeedContext};
use crate::maps::NameMap;
use crate::pyjson::{accepts, PyJson, PyValidator};

/// One part's in-place validators by method; `None` for the general path.
/// Keys are the methods handlers and calls name (`NameMap`, hashed
/// cheaply; looked up without allocating).
type ByMethod = NameMap<Option<Arc<InPlace>>>;

/// The maps of the four parts, in `slot` order.
type InPlaceValidators = [ByMethod; 4];

fn slot(part: Part) -> usize {
    match part {
        Part::Params => 0,
        Part::Result => 1,
        Part::Item => 2,
        Part::ErrorData => 3,
    }
}

/// How one part is checked in place: the quick subset check when the schema
/// fits it (`check`, run in the same walk as the writer or the parser),
/// then the full `jsonschema` validator for what the quick check does not
/// accept.
pub(crate) struct InPlace {
    quick: Option<Check>,
    full: PyValidator,
    /// The size of the last value of this part written in place: the next
    /// buffer starts there instead of growing (and copying) its way up.
    last_written: AtomicUsize,
}

impl InPlace {
    /// A capacity for the next buffer.
    pub(crate) fn size_hint(&self) -> usize {
        self.last_written.load(Ordering::Relaxed).max(192) + 64
    }
}

/// Bodies from this size up are parsed with the garbage collector paused.
const GC_PAUSE_BYTES: usize = 64 * 1024;

/// The cyclic garbage collector paused while a large result is built.
///
/// Building one allocates thousands of containers, and CPython starts a
/// collection every 700 container allocations; each one traverses the
/// young objects (and every tenth the older ones) while none of the objects
/// being built can be garbage: they are all reachable from the value under
/// construction, which no Python code sees yet. Pausing skips that work;
/// the allocation count is kept, so the next collection runs as soon as
/// the parse is over. Only when the collector was enabled; the GIL is held
/// throughout (no other thread observes the pause).
struct GcPause<'py> {
    gc: Bound<'py, PyModule>,
}

impl<'py> GcPause<'py> {
    fn new(py: Python<'py>) -> Option<Self> {
        let gc = py.import("gc").ok()?;
        if !gc.call_method0("isenabled").ok()?.is_truthy().ok()? {
            return None;
        }
        gc.call_method0("disable").ok()?;
        Some(GcPause { gc })
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        // `gc.enable()` cannot fail short of a broken interpreter; there is
        // no caller to hand an error to from here.
        let _ = self.gc.call_method0("enable");
    }
}

/// The envelope of a response with its `result` built as Python objects.
struct ResponseSeed<'a, 'c, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'c, 'py>,
}

impl<'de, 'py> DeserializeSeed<'de> for ResponseSeed<'_, '_, 'py> {
    type Value = (Value, Option<Bound<'py, PyAny>>);

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, 'py> Visitor<'de> for ResponseSeed<'_, '_, 'py> {
    type Value = (Value, Option<Bound<'py, PyAny>>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Map::new();
        let mut result = None;
        while let Some(name) = map.next_key::<String>()? {
            if name == "result" {
                result = Some(map.next_value_seed(PySeed::new(self.py, &mut *self.ctx))?);
                members.insert(name, Value::Null);
            } else {
                members.insert(name, map.next_value::<Value>()?);
            }
        }
        Ok((Value::Object(members), result))
    }
}

/// One protocol's in-place validators, built on first use.
#[derive(Default)]
pub(crate) struct InPlaceCache(Mutex<InPlaceValidators>);

impl InPlaceCache {
    /// The in-place validator of `method`'s `part`, if it has one.
    pub(crate) fn in_place(
        &self,
        protocol: &RustProtocol,
        method: &str,
        part: Part,
    ) -> Option<Arc<InPlace>> {
        if let Ok(cache) = self.0.lock() {
            if let Some(found) = cache
                .get(slot(part))
                .and_then(|by_method| by_method.get(method))
            {
                return found.clone();
            }
        }
        let built = build_in_place(protocol, method, part).map(Arc::new);
        if let Ok(mut cache) = self.0.lock() {
            if let Some(by_method) = cache.get_mut(slot(part)) {
                by_method.insert(method.to_owned(), built.clone());
            }
        }
        built
    }

    /// Appends a valid result's JSON to `out`, written straight from the
    /// Python objects and then validated in place; `None` (with `out` in
    /// an unspecified state) to take the general path: no in-place
    /// validator for `method`, a value the writer refuses, or an invalid
    /// one (the general path reports it).
    pub(crate) fn result_in_place(
        &self,
        protocol: &RustProtocol,
        method: &str,
        result: &Bound<'_, PyAny>,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        let validator = self.in_place(protocol, method, Part::Result)?;
        out.reserve(validator.size_hint());
        write_valid(&validator, result, out)
    }

    /// The response frame for a valid result, the result written straight
    /// from the Python objects into the frame's buffer and framed by the
    /// core (`Wire::frame_result_in_place`, canonical where the protocol
    /// is); `None` to take the general path.
    pub(crate) fn write_in_place(
        &self,
        protocol: &RustProtocol,
        wire: &Wire,
        method: &str,
        id: &wirekit::envelope::Id,
        result: &Bound<'_, PyAny>,
    ) -> Option<InPlaceFrame> {
        let validator = self.in_place(protocol, method, Part::Result)?;
        let framed = wire.frame_result_in_place(id, validator.size_hint(), |out| {
            write_valid(&validator, result, out).is_some()
        })?;
        // Over the bound (or not framable): the general path says why.
        framed.ok()
    }

    /// The checked result of a success response, parsed straight into
    /// Python objects; `None` to take the general path (which also reports
    /// any problem precisely).
    pub(crate) fn read_in_place<'py>(
        &self,
        py: Python<'py>,
        protocol: &RustProtocol,
        method: &str,
        body: &[u8],
    ) -> Option<Bound<'py, PyAny>> {
        let opts = protocol.manifest().transport.envelope_options();
        if opts.strict {
            return None;
        }
        let validator = self.in_place(protocol, method, Part::Result)?;
        let text = std::str::from_utf8(body).ok()?;
        let mut ctx = SeedContext::new(validator.quick.as_ref());
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let paused = (body.len() >= GC_PAUSE_BYTES)
            .then(|| GcPause::new(py))
            .flatten();
        let parsed = ResponseSeed { py, ctx: &mut ctx }.deserialize(&mut deserializer);
        drop(paused);
        let (envelope, result) = parsed.ok()?;
        deserializer.end().ok()?;
        // The in-place validator reads integers as i64, and only the core's
        // decoder tells `-0` and integers beyond 64 bits from floats.
        if ctx.needs_core_path() {
            return None;
        }
        let result = result?;
        match envelope::decode_value(envelope, &opts).ok()? {
            Message::Response(Response { outcome: Ok(_), .. }) => {}
            _ => return None,
        }
        // Accepted by the quick check while built, else the full validator.
        (ctx.accepted() || accepts(&validator.full, &result)).then_some(result)
    }

    /// A request's params built straight from their text into Python
    /// objects, accepted by the quick check while built (`SeedContext`);
    /// `None` for the usual path (no quick check for `method`'s params, a
    /// value the check cannot accept for certain, a number only the core's
    /// decoder reads right), which then validates and reports. The text
    /// comes from `decode_keeping_params`: no `-0`, no integer beyond 64
    /// bits, at most 100 levels deep.
    pub(crate) fn params_in_place<'py>(
        &self,
        py: Python<'py>,
        protocol: &RustProtocol,
        method: &str,
        text: &str,
    ) -> Option<Bound<'py, PyAny>> {
        let validator = self.in_place(protocol, method, Part::Params)?;
        let quick = validator.quick.as_ref()?;
        let mut ctx = SeedContext::new(Some(quick));
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let params = PySeed::new(py, &mut ctx)
            .deserialize(&mut deserializer)
            .ok()?;
        deserializer.end().ok()?;
        (ctx.accepted() && !ctx.needs_core_path()).then_some(params)
    }
}

/// Appends `result`'s JSON to `out` when it is valid (the quick check in
/// the writer's walk, else the full validator in place); `None` (with
/// `out` in an unspecified state) otherwise. Notes the size written.
fn write_valid(validator: &InPlace, result: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> Option<()> {
    let start = out.len();
    let accepted = 'walk: {
        if let Some(quick) = &validator.quick {
            match JsonWriter::default().write_checked(quick, result, out) {
                Checked::Accepted => break 'walk true,
                Checked::NotJson => return None,
                Checked::Unknown => out.truncate(start),
            }
        }
        // Written first: the writer accepts exact builtin types only,
        // which is what validating in place needs (`raw`).
        JsonWriter::default().write(result, out)?;
        accepts(&validator.full, result)
    };
    validator
        .last_written
        .store(out.len() - start, Ordering::Relaxed);
    accepted.then_some(())
}

fn build_in_place(protocol: &RustProtocol, method: &str, part: Part) -> Option<InPlace> {
    let manifest = protocol.manifest();
    let spec = manifest.methods.get(method)?;
    let has_rules = manifest
        .rules
        .iter()
        .any(|rule| rule.arguments.get("method").and_then(Value::as_str) == Some(method));
    if has_rules {
        return None;
    }
    let reference = match part {
        Part::Params => spec.params.as_ref(),
        Part::Result => spec.result.as_ref(),
        Part::Item => spec.result_stream.as_ref(),
        Part::ErrorData => spec.error_data.as_ref().or(manifest.error_data.as_ref()),
    }?;
    let source = protocol.source();
    let bundle = source.bundle();
    let name = bundle.entry(&reference.reference)?;
    // The quick check is compiled from the bundle, which the core built from
    // the files as the validator resolves them; a type the bundle cannot
    // render exactly (a rebindable `$dynamicRef`) gets none. It tries every
    // alternative at every level: on a schema whose alternatives overlap
    // recursively that is exponential, so the full validator (which
    // memoizes) decides alone.
    let quick = if protocol.overlaps_recursively(method, part) || !bundle.is_exact(name) {
        None
    } else {
        let defs = source.bundled_schema().get("$defs")?;
        Check::compile(defs, &local_ref(name))
    };
    // The full validator is the core's, over the files themselves, reading
    // the Python objects in place.
    let full = source
        .resources()
        .ok()?
        .validator::<PyJson>(&reference.reference)
        .ok()?;
    Some(InPlace {
        quick,
        full,
        last_written: AtomicUsize::new(0),
    })
}
