"""The data plane's Python side against the shared vectors (tests/vectors/dataplane)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from wirekit import dataplane

VECTORS = json.loads(
    (Path(__file__).resolve().parents[3] / "tests" / "vectors" / "dataplane" / "vectors.json").read_text()
)


def decode(vector: dict[str, Any], data: bytes, chunk: int) -> list[Any]:
    decoder = dataplane.Decoder(vector.get("max_frame_bytes", dataplane.DEFAULT_MAX_FRAME_BYTES))
    for stream in vector["announce"]:
        decoder.announce(stream["stream_id"], stream["invocation_id"], stream["attempt_id"])
    out: list[Any] = []
    for start in range(0, len(data), chunk):
        for result in decoder.push(data[start : start + chunk]):
            if isinstance(result, dataplane.DataFault):
                out.append({"fault": result.kind})
            else:
                header, payload = result
                out.append({"header": header, "payload_hex": payload.hex()})
    if decoder.fault is None:
        try:
            decoder.finish()
        except dataplane.DataFault as fault:
            out.append({"fault": fault.kind})
    return out


@pytest.mark.parametrize("vector", VECTORS["decode"], ids=lambda v: v["name"])
def test_decode_vectors_whatever_the_chunking(vector: dict[str, Any]) -> None:
    data = bytes.fromhex(vector["input_hex"])
    for chunk in {max(len(data), 1), 1, max(len(data) // 2, 1), 7}:
        assert decode(vector, data, chunk) == vector["expect"], f"chunk {chunk}"


@pytest.mark.parametrize("vector", VECTORS["encode"], ids=lambda v: v["header"]["stream_id"])
def test_encode_vectors_byte_for_byte(vector: dict[str, Any]) -> None:
    frame = dataplane.encode_frame(vector["header"], bytes.fromhex(vector["payload_hex"]))
    assert frame.hex() == vector["frame_hex"]


def test_the_writer_splits_a_payload_into_bounded_frames_the_decoder_joins() -> None:
    left, right = socket.socketpair()
    writer = dataplane.Writer(left, max_frame_bytes=1000)
    payload = bytes(range(256)) * 20  # 5120 bytes: six frames
    frames = writer.send_stream("inv", "att", "s", [payload[:3000], payload[3000:]])
    left.close()
    assert frames == 6
    decoder = dataplane.Decoder(1000)
    decoder.announce("s", "inv", "att")
    received = b""
    while chunk := right.recv(777):
        for header, body in decoder.push(chunk):
            assert header["length"] <= 1000
            received += body
    right.close()
    decoder.finish()
    assert received == payload and decoder.is_closed("s")


def test_the_encoder_refuses_a_length_mismatch_and_an_oversized_payload() -> None:
    header = {"invocation_id": "i", "attempt_id": "a", "stream_id": "s", "sequence": 1, "length": 2, "final": True}
    with pytest.raises(ValueError, match="header length 2"):
        dataplane.encode_frame(header, b"abc")
    with pytest.raises(ValueError, match="at most 262144"):
        dataplane.encode_frame(dict(header, length=262145), bytes(262145))
