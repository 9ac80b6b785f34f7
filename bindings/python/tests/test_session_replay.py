"""Replays the client side of every captured session (tests/sessions) through
the Python serve loop (`wirekit.Service`), its handlers answering as the
capture's server did: every answer the loop writes, its own errors included,
validates against the protocol's error schemas (`error_data`, `error_object`)
or the method's result schema."""

import json
from pathlib import Path
from typing import Any, Callable, Union

import pytest

from wirekit import ContentLengthDecoder, FramingError, NdjsonDecoder, Protocol, Service

SESSIONS = Path(__file__).resolve().parents[3] / "tests" / "sessions"
FOLDERS = sorted(p.name for p in SESSIONS.iterdir() if p.is_dir())


def split(protocol: Protocol, data: bytes) -> list[tuple[bytes, Union[Any, None]]]:
    """Each frame's raw bytes and its JSON (None for a fault or a body that is not JSON)."""
    decoder: Union[NdjsonDecoder, ContentLengthDecoder]
    if protocol.framing == "ndjson":
        decoder = NdjsonDecoder(max_frame_bytes=protocol.max_frame_bytes, strict_line_endings=protocol.strict)
    else:
        decoder = ContentLengthDecoder(max_frame_bytes=protocol.max_frame_bytes)
    decoder.push(data)
    decoder.finish()
    items = decoder.drain()
    starts = [item.offset for item in items] + [len(data)]
    frames: list[tuple[bytes, Union[Any, None]]] = []
    for index, item in enumerate(items):
        raw = data[starts[index] : starts[index + 1]]
        message: Union[Any, None] = None
        if not isinstance(item, FramingError):
            try:
                message = json.loads(item.body)
            except ValueError:
                message = None
        frames.append((raw, message))
    return frames


def from_client(protocol: Protocol, message: Union[Any, None], raw: bytes) -> bool:
    methods: dict[str, Any] = protocol.manifest["methods"]
    if isinstance(message, dict) and isinstance(message.get("method"), str):
        spec = methods.get(message["method"])
        return spec is None or spec["direction"] == "client-to-server"
    if message is None:
        return b'"method"' in raw or not raw.lstrip().startswith(b"{")
    return False


def replay(folder: str, capture: Path) -> tuple[int, list[str]]:
    protocol = Protocol(folder)
    methods: dict[str, Any] = protocol.manifest["methods"]
    frames = split(protocol, capture.read_bytes())
    requests = {
        json.dumps(m["id"]): m["method"]
        for _, m in frames
        if isinstance(m, dict) and "method" in m and "id" in m
    }
    queued: dict[str, list[Any]] = {}
    for _, message in frames:
        if isinstance(message, dict) and "result" in message and "method" not in message:
            method = requests.get(json.dumps(message.get("id")))
            if method is not None:
                queued.setdefault(method, []).append(message["result"])
    service = Service(folder)

    def answering(name: str) -> Callable[[Any], Any]:
        def handler(_params: Any) -> Any:
            results = queued.get(name, [])
            return results.pop(0) if results else {}

        return handler

    for name, spec in methods.items():
        if spec["kind"] == "request" and spec["direction"] == "client-to-server" and spec.get("result_stream") is None:
            service.register(name, answering(name))
    client = b"".join(raw for raw, message in frames if from_client(protocol, message, raw))
    output = service.serve_bytes(client)
    faults: list[str] = []
    answers = 0
    for _, answer in split(protocol, output):
        if not isinstance(answer, dict) or "method" in answer:
            continue
        answers += 1
        if "error" in answer:
            issues = protocol.validate_error(answer["error"])
        else:
            method = requests.get(json.dumps(answer.get("id")))
            issues = [] if method is None else protocol.validate(method, "result", answer["result"])
        faults.extend(f"{capture.name}: {json.dumps(answer)[:200]}: {issue.message}" for issue in issues)
    return answers, faults


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_answer_of_the_python_loop_to_the_captured_sessions_validates(folder: str) -> None:
    captures = sorted(p for p in (SESSIONS / folder).iterdir() if p.suffix in (".ndjson", ".bin"))
    assert captures
    total = 0
    faults: list[str] = []
    for capture in captures:
        answers, found = replay(folder, capture)
        total += answers
        faults.extend(found)
    assert faults == []
    assert total > len(captures)
