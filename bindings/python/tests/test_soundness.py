"""Regression tests for the defects of issue 15: every fast path refuses what
the full validator refuses, integers beyond i64 leave the in-place paths,
reading and writing share one depth limit, refusals are the package's own
exceptions, and stdout comes back after a KeyboardInterrupt."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import wirekit
from wirekit import EnvelopeError, Server, UnexpectedMessage, ValidationError, WirekitError
from custom_protocol import protocol_for, request_line, response

OVERLAPPING_ONE_OF = {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "integer"}]}
NOT_IN_ONE_OF = {"oneOf": [{"not": {"type": "string"}}, {"type": "integer"}]}


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def wrapped_in_any_of(schema: Any, times: int) -> Any:
    for _ in range(times):
        schema = {"anyOf": [schema]}
    return schema


@pytest.mark.parametrize("value", [2**60, 2**53 + 1, 2**64 - 1, 0, 5])
def test_one_of_with_overlapping_branches_is_refused_on_every_path(value: int) -> None:
    protocol = protocol_for(OVERLAPPING_ONE_OF)
    assert protocol.validate("m", "result", value), "the core accepts what both branches match"
    with pytest.raises(ValidationError):
        protocol.write_result("m", 1, value)
    with pytest.raises(ValidationError):
        protocol.read_result("m", response(str(value)))


def test_one_of_through_not_is_refused() -> None:
    protocol = protocol_for(NOT_IN_ONE_OF)
    with pytest.raises(ValidationError):
        protocol.write_result("m", 1, 5)
    with pytest.raises(ValidationError):
        protocol.read_result("m", response("5"))
    assert json.loads(protocol.write_result("m", 1, 1.5))["result"] == 1.5


def test_one_of_under_deep_compositions_is_refused() -> None:
    # Q: nested arrays of integers, four `anyOf` wrappers a level, so a deep
    # value exhausts a depth bound counted in composition steps. Both branches
    # of R accept an array of Q, so `oneOf` refuses it.
    nested_integers = wrapped_in_any_of(
        {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Q"}}, {"type": "integer"}]}, 4)
    schema = {"oneOf": [{"$ref": "#/$defs/Q"}, {"type": "array"}]}
    protocol = protocol_for(schema, extra_defs={"Q": nested_integers})
    value = nested(110)
    assert protocol.validate("m", "result", value)
    with pytest.raises(ValidationError):
        protocol.write_result("m", 1, value)
    with pytest.raises(ValidationError):
        protocol.read_result("m", response(json.dumps(value)))


def test_the_serve_loop_does_not_send_an_invalid_result() -> None:
    protocol = protocol_for(OVERLAPPING_ONE_OF)
    server = Server(protocol, {"m": lambda params: 2**60})
    answer = json.loads(server.serve_bytes(request_line(1, {})))
    assert "result" not in answer, answer
    assert answer["error"]["code"] == -32603


def test_integers_beyond_i64_take_the_general_path_and_stay_exact() -> None:
    bounded = protocol_for({"type": "integer", "maximum": 2**63})
    for value in [2**63 - 1, 2**63, 2**64 - 1, -(2**63)]:
        expected_valid = value <= 2**63
        assert (not bounded.validate("m", "result", value)) == expected_valid
        if expected_valid:
            written = bounded.write_result("m", 1, value)
            assert json.loads(written)["result"] == value
            read = bounded.read_result("m", written.rstrip(b"\n"))
            assert type(read) is int and read == value
        else:
            with pytest.raises(ValidationError):
                bounded.write_result("m", 1, value)
            with pytest.raises(ValidationError):
                bounded.read_result("m", response(str(value)))


def test_integers_beyond_u64_are_refused_when_written_not_approximated() -> None:
    # Defect 2, the wire's number rules (tests/vectors README, "Numbers"):
    # an integer outside i64 and u64 is refused rather than sent as a float.
    protocol = protocol_for({"type": "object"})
    with pytest.raises(ValueError, match="/n: integer outside the range of i64 and u64"):
        protocol.write_result("m", 1, {"n": 2**64})


def test_integers_beyond_u64_are_refused_when_read_not_rounded() -> None:
    # Defect 2: `100000000000000000001` was read as `1e+20` and passed a
    # maximum of 1e20; it is now refused on every reading path.
    protocol = protocol_for({"type": "integer", "maximum": 1e20})
    for text in ["100000000000000000001", "-9223372036854775809", "[18446744073709551616]"]:
        with pytest.raises(EnvelopeError, match="outside the 64-bit range") as caught:
            protocol.read_result("m", response(text))
        assert caught.value.code == -32700
        with pytest.raises(EnvelopeError, match="outside the 64-bit range"):
            wirekit.decode(response(text))
    assert protocol.read_result("m", response("18446744073709551615")) == 2**64 - 1


def test_negative_zero_is_the_integer_zero() -> None:
    # Defect 2: `-0` was read as the float -0.0, so `"id":-0` was refused;
    # Go's encoding/json, the driver's RFC 8785 codec and `json` read 0.
    message = wirekit.decode(b'{"jsonrpc":"2.0","id":-0,"result":[-0,-0.0,{"x":-0}]}')
    assert message.id == 0 and type(message.id) is int
    assert message.result == json.loads("[-0,-0.0,{\"x\":-0}]")
    assert [type(v) for v in message.result] == [int, float, dict]
    assert math.copysign(1.0, message.result[1]) == -1.0
    protocol = protocol_for({"type": "integer", "maximum": 0})
    zero = protocol.read_result("m", response("-0"))
    assert zero == 0 and type(zero) is int
    assert wirekit.encode(message) == b'{"jsonrpc":"2.0","id":0,"result":[0,-0.0,{"x":0}]}'
    # `-0.0` stays a float: a fractional id, which a lenient protocol accepts
    # (JSON-RPC 2.0 allows it, discouraged) and echoes as written. A strict
    # one reads ids after RFC 8785, as the driver protocol's reference
    # package does: `-0.0` is written `0` there, the id 0.
    fractional = wirekit.decode(b'{"jsonrpc":"2.0","id":-0.0,"result":1}')
    assert type(fractional.id) is float and math.copysign(1.0, fractional.id) == -1.0
    assert wirekit.encode(fractional) == b'{"jsonrpc":"2.0","id":-0.0,"result":1}'
    strict = wirekit.decode(b'{"jsonrpc":"2.0","id":-0.0,"result":1}', strict=True)
    assert strict.id == 0 and type(strict.id) is int
    with pytest.raises(EnvelopeError, match="id"):
        wirekit.decode(b'{"jsonrpc":"2.0","id":-0.5,"result":1}', strict=True)


def test_big_integer_inside_a_parsed_document_is_validated_by_the_core() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 2**63}}}
    protocol = protocol_for(schema)
    assert protocol.read_result("m", response('{"n": %d}' % 2**63)) == {"n": 2**63}
    with pytest.raises(ValidationError):
        protocol.read_result("m", response('{"n": %d}' % (2**64 - 1)))


def test_reading_and_writing_share_one_depth_limit() -> None:
    protocol = protocol_for(True)
    deepest = nested(126)
    frame = protocol.write_result("m", 1, deepest)
    assert protocol.read_result("m", frame.rstrip(b"\n")) == deepest
    assert wirekit._native.loads(wirekit._native.dumps(deepest)) == deepest
    too_deep = nested(127)
    with pytest.raises(ValueError, match="deeper than 126"):
        protocol.write_result("m", 1, too_deep)
    with pytest.raises(ValueError, match="deeper than 126"):
        wirekit.Message.success(1, too_deep)
    with pytest.raises(EnvelopeError):
        protocol.read_result("m", response(json.dumps(too_deep)))
    with pytest.raises(ValueError):
        wirekit._native.loads(json.dumps(too_deep).encode())


def test_read_result_of_a_request_is_the_package_s_own_error() -> None:
    protocol = protocol_for(True)
    body = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{}}'
    with pytest.raises(UnexpectedMessage) as raised:
        protocol.read_result("m", body)
    assert isinstance(raised.value, WirekitError) and isinstance(raised.value, ValueError)
    assert (raised.value.kind, raised.value.expected) == ("request", "response")
    with pytest.raises(UnexpectedMessage) as notified:
        protocol.read_result("m", b'{"jsonrpc":"2.0","method":"m"}')
    assert notified.value.kind == "notification"


INTERRUPTED_SERVER = """
import os, sys, wirekit
def boom(params):
    raise KeyboardInterrupt
server = wirekit.Server(wirekit.Protocol("gaze-analyzer"), {"initialize": boom})
try:
    server.serve_stdio()
except KeyboardInterrupt:
    pass
os.write(1, b"descriptor 1 after\\n")
print("print after", flush=True)
"""


def test_stdout_is_restored_after_a_keyboard_interrupt() -> None:
    import subprocess
    import sys

    request = request_line(1, {"root_path": "/p"}).replace(b'"m"', b'"initialize"')
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_SERVER], input=request, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"descriptor 1 after\n" in done.stdout and b"print after\n" in done.stdout, (done.stdout, done.stderr)
    assert b"after" not in done.stderr
