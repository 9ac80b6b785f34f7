"""The framing codecs against the shared vectors (`tests/vectors/framing`), and their bounds."""

from __future__ import annotations

from typing import Any, Union

import pytest

from wirekit import (
    ContentLengthDecoder,
    ContentLengthEncoder,
    Frame,
    FramingError,
    NdjsonDecoder,
    NdjsonEncoder,
)

from support import load_cases

CASES = load_cases("framing")
Decoder = Union[NdjsonDecoder, ContentLengthDecoder]


def decoder_for(case: dict[str, Any]) -> Decoder:
    limits = {"max_frame_bytes": case.get("max_frame_bytes"), "max_header_bytes": case.get("max_header_bytes")}
    if case["framing"] == "ndjson":
        return NdjsonDecoder(**limits, strict_line_endings=bool(case.get("strict_line_endings", False)))
    return ContentLengthDecoder(**limits)


def input_of(case: dict[str, Any]) -> bytes:
    if "input_hex" in case:
        return bytes.fromhex(case["input_hex"])
    text: str = case["input"]
    return text.encode("utf-8")


def outcome(results: list[Union[Frame, FramingError]]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for item in results:
        if isinstance(item, Frame):
            seen.append({"frame": item.body, "offset": item.offset})
        else:
            seen.append({"fault": item.kind, "offset": item.offset})
    return seen


def run(case: dict[str, Any], pieces: list[bytes]) -> list[dict[str, Any]]:
    decoder = decoder_for(case)
    results: list[Union[Frame, FramingError]] = []
    for piece in pieces:
        decoder.push(piece)
        results.extend(decoder.drain())
    decoder.finish()
    results.extend(decoder.drain())
    decoder.push(b"{}\n")  # after the end of input nothing more is yielded
    decoder.finish()
    assert decoder.drain() == []
    return outcome(results)


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_vector_whole_bytewise_and_split(case: dict[str, Any]) -> None:
    data = input_of(case)
    expected = case["expect"]
    assert run(case, [data]) == expected
    assert run(case, [data[i : i + 1] for i in range(len(data))]) == expected
    step = max(1, len(data) // 40)
    for split in range(0, len(data) + 1, step):
        assert run(case, [data[:split], data[split:]]) == expected, f"split at {split}"


@pytest.mark.parametrize(
    "case", [c for _, c in CASES if c.get("encodes_to_input")], ids=[n for n, c in CASES if c.get("encodes_to_input")]
)
def test_vector_encodes_to_input(case: dict[str, Any]) -> None:
    limits = {"max_frame_bytes": case.get("max_frame_bytes"), "max_header_bytes": case.get("max_header_bytes")}
    encoder: Union[NdjsonEncoder, ContentLengthEncoder] = (
        NdjsonEncoder(**limits) if case["framing"] == "ndjson" else ContentLengthEncoder(**limits)
    )
    encoded = b"".join(encoder.encode(entry["frame"]) for entry in case["expect"])
    assert encoded == input_of(case)


def test_every_vector_file_ran() -> None:
    files = {name.split("/")[0] for name, _ in CASES}
    assert {"content_length", "ndjson", "gzkit_examples", "gaze_examples"} <= files
    assert len(CASES) > 40


def test_next_frame_raises_the_fault_and_ndjson_carries_on() -> None:
    decoder = NdjsonDecoder(max_frame_bytes=4)
    decoder.push(b"{}\n123456789\n[]\n")
    first = decoder.next_frame()
    assert first is not None and first.body == "{}" and first.offset == 0
    with pytest.raises(FramingError) as raised:
        decoder.next_frame()
    assert raised.value.kind == "FrameTooLong"
    assert raised.value.offset == 3
    assert raised.value.framing == "ndjson"
    assert raised.value.ends_stream is False
    assert "frame bound of 4 bytes" in raised.value.detail
    last = decoder.next_frame()
    assert last is not None and (last.body, last.offset) == ("[]", 13)
    assert decoder.next_frame() is None


def test_content_length_fault_kills_the_decoder() -> None:
    decoder = ContentLengthDecoder()
    decoder.push(b"Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n{}")
    assert [f.body for f in decoder.drain() if isinstance(f, Frame)] == ["{}"]
    assert decoder.is_dead
    decoder.push(b"Content-Length: 2\r\n\r\n{}")
    assert decoder.drain() == []


def test_declared_length_over_the_bound_is_refused_before_buffering() -> None:
    decoder = ContentLengthDecoder(max_frame_bytes=10)
    decoder.push(b"Content-Length: 20000000\r\n\r\n" + b"x" * 1000)
    (fault,) = decoder.drain()
    assert isinstance(fault, FramingError)
    assert fault.kind == "FrameTooLong" and fault.ends_stream
    assert decoder.buffered_bytes == 0


def test_iteration_yields_frames() -> None:
    decoder = NdjsonDecoder()
    decoder.push(b'{"a":1}\n{"b":2}')
    decoder.finish()
    assert [frame.body for frame in decoder] == ['{"a":1}', '{"b":2}']


@pytest.mark.parametrize(
    ("body", "kind"),
    [(b"", "EmptyFrame"), (b"{\n}", "EmbeddedNewline"), (b"a\rb", "EmbeddedNewline"), (b"\xff", "BodyNotUtf8"), (b"x" * 5, "FrameTooLong")],
)
def test_ndjson_encoder_refusals(body: bytes, kind: str) -> None:
    with pytest.raises(FramingError) as raised:
        NdjsonEncoder(max_frame_bytes=4).encode(body)
    assert raised.value.kind == kind
    assert raised.value.is_encode


def test_content_length_encoder_counts_bytes_not_characters() -> None:
    assert ContentLengthEncoder().encode("é") == b"Content-Length: 2\r\n\r\n\xc3\xa9"
    with pytest.raises(FramingError) as raised:
        ContentLengthEncoder(max_frame_bytes=1).encode("é")
    assert raised.value.kind == "FrameTooLong"


def test_decoders_report_their_bounds() -> None:
    assert NdjsonDecoder().max_frame_bytes == 1024 * 1024
    assert ContentLengthDecoder().max_frame_bytes == 16 * 1024 * 1024
    assert ContentLengthDecoder().max_header_bytes == 8 * 1024
    with pytest.raises(TypeError):
        NdjsonEncoder().encode(3)  # type: ignore[arg-type]
