"""Envelope decoding and encoding against the shared vectors (`tests/vectors/envelope`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wirekit import EnvelopeError, Message, decode, encode

from support import load_cases

CASES = load_cases("envelope")


def body_of(case: dict[str, Any]) -> bytes:
    if "input_hex" in case:
        return bytes.fromhex(case["input_hex"])
    text: str = case["input"]
    return text.encode("utf-8")


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_vector(case: dict[str, Any]) -> None:
    dialect, strict, expect = case["dialect"], case["strict"], case["expect"]
    body = body_of(case)
    if "error" in expect:
        with pytest.raises(EnvelopeError) as raised:
            decode(body, dialect=dialect, strict=strict)
        error = raised.value
        assert (error.kind, error.code, error.pointer) == (expect["error"], expect["code"], expect["pointer"])
        assert error.id == expect.get("answer_id")
        answer = error.response
        assert answer.kind == "error_response" and answer.id == error.id
        assert answer.error is not None and answer.error["code"] == expect["code"]
        assert answer.error["data"]["kind"] == expect["error"]
        return
    message = decode(body, dialect=dialect, strict=strict)
    assert message.kind == expect["kind"]
    assert message.id == expect.get("id")
    assert message.method == expect.get("method")
    if "reencode" in case:
        assert encode(message, dialect=dialect) == case["reencode"].encode("utf-8")
    if "canonical" in case:
        assert encode(message, dialect=dialect, canonical=True) == case["canonical"].encode("utf-8")
    if "canonical_error" in case:
        with pytest.raises(EnvelopeError) as raised:
            encode(message, dialect=dialect, canonical=True)
        assert raised.value.kind == case["canonical_error"]["error"]
        assert raised.value.pointer == case["canonical_error"]["pointer"]
    assert decode(encode(message, dialect=dialect), dialect=dialect, strict=strict) == message


def test_every_error_kind_is_covered() -> None:
    kinds = {c["expect"]["error"] for _, c in CASES if "error" in c["expect"]}
    kinds |= {c["canonical_error"]["error"] for _, c in CASES if "canonical_error" in c}
    assert {"Parse", "InvalidUtf8", "TrailingData", "DuplicateKey", "NotAnObject", "MissingJsonRpc",
            "WrongJsonRpcVersion", "MethodNotString", "InvalidId", "MissingId", "ParamsNotStructured",
            "ResultAndError", "NeitherResultNorError", "InvalidErrorObject", "UnknownMember",
            "NotCanonicalizable"} <= kinds


def test_message_members_as_python_objects() -> None:
    message = decode(b'{"jsonrpc":"2.0","id":18446744073709551615,"method":"m","params":{"b":[1,2.5,null,true],"a":"\\u00e9"}}')
    assert message.kind == "request" and message.id == 18446744073709551615
    assert message.params == {"b": [1, 2.5, None, True], "a": "é"}
    assert list(message.params) == ["b", "a"]
    assert message.has_params and message.result is None and message.error is None


def test_lenient_keeps_null_params_strict_refuses_it() -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}'
    message = decode(body)
    assert message.has_params and message.params is None
    assert encode(message) == body
    with pytest.raises(EnvelopeError) as raised:
        decode(body, strict=True)
    assert raised.value.kind == "ParamsNotStructured"


def test_building_and_encoding_messages_in_both_dialects() -> None:
    request = Message.request(1, "initialize", {"clientVersion": "1.0"})
    assert encode(request, dialect="bare") == b'{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}'
    assert encode(Message.notification("exit")) == b'{"jsonrpc":"2.0","method":"exit"}'
    assert encode(Message.success("a", {"z": 1, "a": 2}), canonical=True) == b'{"id":"a","jsonrpc":"2.0","result":{"a":2,"z":1}}'
    failure = Message.failure(None, -32700, "Parse error")
    assert encode(failure) == b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
    with_data = Message.failure(3, -32099, "VERSION_MISMATCH", data=None)
    assert encode(with_data, dialect="bare") == b'{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH","data":null}}'
    assert with_data.error == {"code": -32099, "message": "VERSION_MISMATCH", "data": None}


@pytest.mark.parametrize("bad_id", [True, 1.5, None, [1], 2**64])
def test_request_ids_are_ints_or_strings(bad_id: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        Message.request(bad_id, "m")


@pytest.mark.parametrize("value", [{1: "x"}, {"a": {1, 2}}, float("nan"), 2**70, object()])
def test_values_that_are_not_json_are_refused(value: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="not JSON at"):
        Message.request(1, "m", value)


def test_unknown_dialect() -> None:
    with pytest.raises(ValueError, match="unknown envelope dialect"):
        decode(b"{}", dialect="json-rpc")


def test_decode_never_panics_on_garbage() -> None:
    for body in [b"", b"\x00", b"[" * 100000, b'{"a":' * 5000, b"\xef\xbb\xbf{}", json.dumps("x" * 10000).encode()]:
        with pytest.raises(EnvelopeError):
            decode(body)
