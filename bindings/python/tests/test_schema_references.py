"""Issue 24: references resolved as JSON Schema says, on every Python path.

Each case is a protocol folder written as a user writes one (a method whose
result is `{"$ref": R}`), loaded with `wirekit.Protocol(spec, schemas=DIR)`;
every verdict must be the same on `validate`, `write_result` and
`read_result` (the in-place paths and their quick check)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wirekit import EnvelopeError, NotJsonError, Protocol, ValidationError, WirekitError
from custom_protocol import protocol_for


def folder(tmp_path: Path, files: dict[str, Any], result_ref: str) -> Protocol:
    manifest = {
        "protocol": "p", "version": "1",
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "schemas": list(files),
        "methods": {"m": {"kind": "request", "direction": "client-to-server",
                          "description": "Answers a value of R.", "result": {"$ref": result_ref}}},
    }
    root = tmp_path / "schemas"
    for name, schema in {"protocol.json": manifest, **files}.items():
        (root / "p" / "1" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "p" / "1" / name).write_text(json.dumps(schema))
    return Protocol("p@1", schemas=root)


def verdicts(protocol: Protocol, value: Any) -> dict[str, bool]:
    """Whether each path accepts `value` as the result of `m`."""
    out = {"validate": not protocol.validate("m", "result", value)}
    for path, check in [
        ("write_result", lambda: protocol.write_result("m", 1, value)),
        ("read_result", lambda: protocol.read_result(
            "m", b'{"jsonrpc":"2.0","id":1,"result":%s}' % json.dumps(value).encode())),
    ]:
        try:
            check()
            out[path] = True
        except ValidationError:
            out[path] = False
    return out


def assert_everywhere(protocol: Protocol, value: Any, accepted: bool) -> None:
    assert verdicts(protocol, value) == dict.fromkeys(["validate", "write_result", "read_result"],
                                                      accepted), value


def test_a_ref_beside_all_of_is_checked_by_the_quick_check(tmp_path: Path) -> None:
    name = {"type": "string"}
    for member in ({"$ref": "#/$defs/Name", "allOf": [{}]}, {"allOf": [{}], "$ref": "#/$defs/Name"}):
        protocol = folder(tmp_path, {"x.json": {"$defs": {"Name": name, "R": {
            "type": "object", "properties": {"a": member}}}}}, "x.json#/$defs/R")
        assert_everywhere(protocol, {"a": 1}, False)
        assert_everywhere(protocol, {"a": "one"}, True)


def test_an_anchor_stays_an_anchor(tmp_path: Path) -> None:
    protocol = folder(tmp_path, {"node.json": {
        "title": "Node", "type": "object",
        "$defs": {"Nodes": {"type": "array"}, "Str": {"$anchor": "s", "type": "string"}},
        "properties": {"name": {"$ref": "#s"}}}}, "node.json")
    assert_everywhere(protocol, {"name": []}, False)
    assert_everywhere(protocol, {"name": "x"}, True)


@pytest.mark.parametrize("member", ["default", "enum", "const", "examples"])
def test_a_property_named_like_a_keyword_resolves_in_its_own_file(tmp_path: Path, member: str) -> None:
    protocol = folder(tmp_path, {
        "a.json": {"title": "A", "type": "object", "properties": {"child": {"$ref": "b.json"}}},
        "b.json": {"title": "B", "type": "object", "required": ["k"],
                   "properties": {member: {"$ref": "#"}}},
    }, "a.json")
    assert_everywhere(protocol, {"child": {"k": 1, member: {}}}, False)
    assert_everywhere(protocol, {"child": {"k": 1, member: {"k": 2}}}, True)


def test_schemas_the_standard_allows_load(tmp_path: Path) -> None:
    # A relative `$id` base, an anchor in another file, a percent-escaped
    # pointer, a URN id, a boolean file, the same `$defs` name in two files.
    protocol = folder(tmp_path, {
        "r.json": {"$id": "nested/r.json", "type": "object", "properties": {
            "near": {"$ref": "leaf.json"},
            "anchored": {"$ref": "../other.json#word"},
            "escaped": {"$ref": "../other.json#/$defs/percent%25field"},
            "urn": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"},
            "anything": {"$ref": "../yes.json"},
            "twin": {"$ref": "../other.json#/$defs/Twin"}},
            "$defs": {"Twin": {"type": "integer"}}},
        "nested/leaf.json": {"type": "integer"},
        "other.json": {"$defs": {"Word": {"$anchor": "word", "type": "string"},
                                 "percent%field": {"type": "boolean"},
                                 "Twin": {"type": "string"}}},
        "u.json": {"$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "type": "null"},
        "yes.json": True,
    }, "r.json")
    good = {"near": 1, "anchored": "w", "escaped": True, "urn": None, "anything": [1], "twin": "t"}
    assert_everywhere(protocol, good, True)
    for member, bad in [("near", "1"), ("anchored", 1), ("escaped", 0), ("urn", 0), ("twin", 1)]:
        assert_everywhere(protocol, {**good, member: bad}, False)


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_values_json_cannot_carry_raise_the_package_s_own_error() -> None:
    protocol = protocol_for(True)
    with pytest.raises(NotJsonError) as caught:
        protocol.write_result("m", 1, {"n": [2**64]})
    assert (caught.value.kind, caught.value.pointer) == ("value", "/n/0")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, WirekitError)
    with pytest.raises(NotJsonError) as caught_type:
        protocol.write_result("m", 1, {"s": {1, 2}})
    assert (caught_type.value.kind, caught_type.value.pointer) == ("type", "/s")
    assert isinstance(caught_type.value, TypeError)
    with pytest.raises(NotJsonError, match="deeper than") as too_deep:
        protocol.write_result("m", 1, nested(130))
    assert too_deep.value.kind == "value"
    with pytest.raises(EnvelopeError) as envelope:
        protocol.read_result("m", b"{not json")
    assert isinstance(envelope.value, ValueError)
