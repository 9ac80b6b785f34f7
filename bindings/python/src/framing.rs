//! The bounded push decoders and the encoders of both framings.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use wirekit::framing::{
    ContentLengthDecoder as RustContentLengthDecoder,
    ContentLengthEncoder as RustContentLengthEncoder, Frame as RustFrame, FrameDecoder,
    FrameEncoder, FrameLimits, FramingError, NdjsonDecoder as RustNdjsonDecoder,
    NdjsonEncoder as RustNdjsonEncoder,
};

use crate::errors::framing_error;

/// One decoded frame: its body (UTF-8 text, not yet parsed) and where it starts.
#[pyclass(module = "wirekit._native", frozen, eq)]
#[derive(PartialEq)]
pub struct Frame {
    /// Byte offset of the frame's first byte in the stream.
    #[pyo3(get)]
    offset: u64,
    /// The body without header or line ending.
    #[pyo3(get)]
    body: String,
}

#[pymethods]
impl Frame {
    #[new]
    fn new(body: String, offset: u64) -> Self {
        Frame { offset, body }
    }

    fn __repr__(&self) -> String {
        let shown: String = self.body.chars().take(60).collect();
        let more = if shown.len() < self.body.len() {
            "..."
        } else {
            ""
        };
        format!("Frame(offset={}, body={:?}{more})", self.offset, shown)
    }
}

impl From<RustFrame> for Frame {
    fn from(frame: RustFrame) -> Self {
        Frame {
            offset: frame.offset(),
            body: frame.into_body(),
        }
    }
}

fn limits(
    default: FrameLimits,
    max_frame_bytes: Option<usize>,
    max_header_bytes: Option<usize>,
) -> FrameLimits {
    let mut limits = default;
    if let Some(bytes) = max_frame_bytes {
        limits = limits.with_max_frame_bytes(bytes);
    }
    if let Some(bytes) = max_header_bytes {
        limits = limits.with_max_header_bytes(bytes);
    }
    limits
}

fn next_item(
    py: Python<'_>,
    item: Option<Result<RustFrame, FramingError>>,
) -> PyResult<Option<Frame>> {
    match item {
        None => Ok(None),
        Some(Ok(frame)) => Ok(Some(frame.into())),
        Some(Err(error)) => Err(framing_error(py, &error)),
    }
}

fn drain_all<'py, D: FrameDecoder>(
    py: Python<'py>,
    decoder: &mut D,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    while let Some(item) = decoder.next_frame() {
        match item {
            Ok(frame) => list.append(Bound::new(py, Frame::from(frame))?)?,
            Err(error) => list.append(framing_error(py, &error).into_value(py))?,
        }
    }
    Ok(list)
}

macro_rules! decoder_class {
    ($name:ident, $rust:ident, $default:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "wirekit._native")]
        pub struct $name {
            inner: $rust,
        }

        #[pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = (*, max_frame_bytes=None, max_header_bytes=None, strict_line_endings=false))]
            fn new(
                max_frame_bytes: Option<usize>,
                max_header_bytes: Option<usize>,
                strict_line_endings: bool,
            ) -> Self {
                let limits = limits($default, max_frame_bytes, max_header_bytes)
                    .with_strict_line_endings(strict_line_endings);
                $name {
                    inner: $rust::new(limits),
                }
            }

            /// Processes the next bytes of the stream.
            fn push(&mut self, data: &[u8]) {
                self.inner.push(data);
            }

            /// End of input.
            fn finish(&mut self) {
                self.inner.finish();
            }

            /// The next frame, `None` when none is complete; raises
            /// `FramingError` for a fault (taking it off the queue).
            fn next_frame(&mut self, py: Python<'_>) -> PyResult<Option<Frame>> {
                next_item(py, self.inner.next_frame())
            }

            /// Every queued result: frames, and faults as `FramingError`
            /// instances (not raised).
            fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
                drain_all(py, &mut self.inner)
            }

            fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
                slf
            }

            fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Frame>> {
                next_item(py, self.inner.next_frame())
            }

            /// Bytes held: the partial frame and the queued bodies.
            #[getter]
            fn buffered_bytes(&self) -> usize {
                self.inner.buffered_bytes()
            }

            /// Whether a fault has ended the stream.
            #[getter]
            fn is_dead(&self) -> bool {
                self.inner.is_dead()
            }

            /// The frame bound in bytes.
            #[getter]
            fn max_frame_bytes(&self) -> usize {
                self.inner.limits().max_frame_bytes
            }

            /// The header section bound in bytes.
            #[getter]
            fn max_header_bytes(&self) -> usize {
                self.inner.limits().max_header_bytes
            }
        }
    };
}

decoder_class!(
    NdjsonDecoder,
    RustNdjsonDecoder,
    FrameLimits::ndjson_default(),
    "Bounded push decoder for NDJSON lines (no fault ends the stream)."
);
decoder_class!(
    ContentLengthDecoder,
    RustContentLengthDecoder,
    FrameLimits::content_length_default(),
    "Bounded push decoder for Content-Length frames (every fault ends the stream)."
);

fn body_bytes<'a>(body: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(bytes.as_bytes()));
    }
    let text: String = body
        .extract()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("a frame body is bytes or str"))?;
    Ok(std::borrow::Cow::Owned(text.into_bytes()))
}

macro_rules! encoder_class {
    ($name:ident, $rust:ident, $default:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "wirekit._native", frozen)]
        pub struct $name {
            inner: $rust,
        }

        #[pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = (*, max_frame_bytes=None, max_header_bytes=None, strict_line_endings=false))]
            fn new(
                max_frame_bytes: Option<usize>,
                max_header_bytes: Option<usize>,
                strict_line_endings: bool,
            ) -> Self {
                let limits = limits($default, max_frame_bytes, max_header_bytes)
                    .with_strict_line_endings(strict_line_endings);
                $name {
                    inner: $rust::new(limits),
                }
            }

            /// The frame for `body`; raises `FramingError` for a body its
            /// decoder would not give back.
            fn encode<'py>(
                &self,
                py: Python<'py>,
                body: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let body = body_bytes(body)?;
                match self.inner.encode(&body) {
                    Ok(frame) => Ok(PyBytes::new(py, &frame)),
                    Err(error) => Err(framing_error(py, &error)),
                }
            }

            /// The frame bound in bytes.
            #[getter]
            fn max_frame_bytes(&self) -> usize {
                self.inner.limits().max_frame_bytes
            }
        }
    };
}

encoder_class!(
    NdjsonEncoder,
    RustNdjsonEncoder,
    FrameLimits::ndjson_default(),
    "Encoder for NDJSON lines: the body and one LF."
);
encoder_class!(
    ContentLengthEncoder,
    RustContentLengthEncoder,
    FrameLimits::content_length_default(),
    "Encoder for Content-Length frames."
);
