"""One wire path: `Protocol.write_result` frames through the core's `Wire`, the
function the Rust serve loop frames every answer with, so both write the
same bytes (RFC 8785 canonical for the driver) for the same result."""

import json
from typing import Any

import pytest

from wirekit import Protocol, Service

DRIVER = Protocol("agentapi-driver")
METHODS: dict[str, Any] = DRIVER.manifest["methods"]
REQUESTS = [name for name, spec in METHODS.items() if spec["kind"] == "request"]

# The calls that lead to a state where each method is allowed.
BEFORE = {
    "driver.hello": [],
    "driver.prepare": ["driver.hello"],
    "driver.capabilities": ["driver.hello"],
    "driver.invoke": ["driver.hello", "driver.prepare"],
    "driver.cancel": ["driver.hello", "driver.prepare", "driver.invoke"],
    "driver.reset": ["driver.hello", "driver.prepare"],
    "driver.shutdown": ["driver.hello", "driver.prepare"],
}


def example(method: str) -> dict[str, Any]:
    first: dict[str, Any] = METHODS[method]["examples"][0]
    return first


def reversed_members(value: Any) -> Any:
    """The same value with every object's members in reverse order."""
    if isinstance(value, dict):
        return {key: reversed_members(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_members(item) for item in value]
    return value


def canonical(value: Any) -> bytes:
    # RFC 8785 for these values (ASCII strings, small integers): sorted members, no spaces.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_every_driver_request_is_covered() -> None:
    assert sorted(BEFORE) == sorted(REQUESTS)


@pytest.mark.parametrize("method", REQUESTS)
def test_write_result_and_the_rust_server_write_identical_canonical_bytes(method: str) -> None:
    service = Service("agentapi-driver")
    for name in REQUESTS:
        result = reversed_members(example(name)["result"])
        service.register(name, lambda _params, result=result: result)
    calls = BEFORE[method] + [method]
    lines = []
    for index, name in enumerate(calls, start=1):
        request: dict[str, Any] = {"jsonrpc": "2.0", "id": index, "method": name}
        if "params" in example(name):
            request["params"] = example(name)["params"]
        lines.append(json.dumps(request))
    output = service.serve_bytes(("\n".join(lines) + "\n").encode())
    served = output.splitlines(keepends=True)[-1]
    written = DRIVER.write_result(method, len(calls), reversed_members(example(method)["result"]))
    assert written == served
    body = json.loads(written)
    assert body["id"] == len(calls) and body["result"] == example(method)["result"]
    assert written == canonical(body) + b"\n"


def test_a_lenient_protocol_keeps_the_members_in_order_through_the_same_wire() -> None:
    gaze = Protocol("gaze-analyzer@1.0.0")
    written = gaze.write_result("shutdown", 3, {"b": 1, "a": 2})
    assert written == b'{"jsonrpc":"2.0","id":3,"result":{"b":1,"a":2}}\n'
    gzkit = Protocol("gzkit-authoring-guide")
    framed = gzkit.write_result("shutdown", "s", {})
    assert framed == b'Content-Length: 22\r\n\r\n{"id":"s","result":{}}'
