"""Garbage in, errors out: no input makes the core panic or the server stop answering."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from wirekit import (
    ContentLengthDecoder,
    EnvelopeError,
    Frame,
    FramingError,
    NdjsonDecoder,
    Protocol,
    WirekitError,
    decode,
)
from wirekit.gaze import Analyzer

SEEDS = range(40)
PIECES = [b"{", b"}", b"[", b"]", b'"', b"\\", b":", b",", b"\n", b"\r\n", b"Content-Length: ", b"12", b"\r\n\r\n",
          b'"jsonrpc"', b'"2.0"', b'"id"', b'"method"', b'"params"', b'"result"', b"null", b"1e999", b"-0",
          b"\xff", b"\xc3", b"\xe2\x80\xa8", b"\x00", b" ", b"18446744073709551616"]


def garbage(rng: random.Random, size: int) -> bytes:
    return b"".join(rng.choice(PIECES) if rng.random() < 0.7 else bytes([rng.randrange(256)]) for _ in range(size))


@pytest.mark.parametrize("seed", SEEDS)
def test_decoders_take_any_bytes_in_any_chunks(seed: int) -> None:
    rng = random.Random(seed)
    data = garbage(rng, 400)
    for decoder in (NdjsonDecoder(max_frame_bytes=64), ContentLengthDecoder(max_frame_bytes=64, max_header_bytes=64)):
        position = 0
        results: list[Any] = []
        while position < len(data):
            step = rng.randrange(1, 40)
            decoder.push(data[position : position + step])
            position += step
            results.extend(decoder.drain())
            assert decoder.buffered_bytes <= 64 + 64 + 40
        decoder.finish()
        results.extend(decoder.drain())
        assert all(isinstance(r, (Frame, FramingError)) for r in results)


@pytest.mark.parametrize("seed", SEEDS)
def test_envelope_decoding_raises_only_envelope_errors(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        body = garbage(rng, rng.randrange(1, 60))
        for dialect in ("jsonrpc-2.0", "bare"):
            for strict in (False, True):
                try:
                    decode(body, dialect=dialect, strict=strict)
                except EnvelopeError as error:
                    assert error.code in (-32700, -32600)


@pytest.mark.parametrize("seed", SEEDS)
def test_read_result_raises_only_wirekit_errors(seed: int) -> None:
    rng = random.Random(seed)
    gaze = Protocol("gaze-analyzer")
    for _ in range(30):
        body = b'{"jsonrpc":"2.0","id":1,"result":' + garbage(rng, rng.randrange(1, 40)) + b"}"
        try:
            gaze.read_result("analyze", body)
        except WirekitError:
            pass


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_the_server_answers_every_garbage_line_with_json(seed: int) -> None:
    rng = random.Random(seed)
    app = Analyzer(name="a", language="python")

    @app.complexity
    def complexity(params: Any) -> Any:
        return {"functions": []}

    lines = [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p"}}).encode()]
    lines += [garbage(rng, rng.randrange(1, 50)).replace(b"\n", b"") for _ in range(60)]
    lines.append(b'{"jsonrpc":"2.0","id":99,"method":"complexity","params":{"root_path":"/p"}}')
    output = app.serve_bytes(b"\n".join(lines) + b"\n")
    answers = [json.loads(line) for line in output.splitlines()]
    assert answers[0]["id"] == 1 and answers[-1] == {"jsonrpc": "2.0", "id": 99, "result": {"functions": []}}
