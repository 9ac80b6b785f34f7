"""Request params built straight from their text into Python objects (the
serve loop's `handle_params_text`, no `Value` in between): a handler must get
exactly what the usual path gives it, and bad params must be answered as the
usual path answers them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wirekit import Protocol, Server

GAZE = Protocol("gaze-analyzer")
INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}'
CAPS = {"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False,
                         "streaming": False, "doc_coverage": False},
        "protocol_version": GAZE.version, "analyzer_name": "t", "language": "x"}
RESULT = {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2}]}


def serve(*requests: str) -> tuple[list[Any], list[Any]]:
    """The answers to `requests` (after initialize) and the params each
    complexity call received."""
    received: list[Any] = []

    def complexity(params: Any) -> Any:
        received.append(params)
        return RESULT

    server = Server(GAZE, {"initialize": lambda p: CAPS, "complexity": complexity})
    data = "\n".join((INIT, *requests)).encode() + b"\n"
    answers = [json.loads(line) for line in server.serve_bytes(data).splitlines()]
    return answers[1:], received


# Params texts the handler must receive as `json.loads` reads them: escapes,
# non-ASCII, duplicates (the last wins, in the first one's place), numbers
# of every form the schema leaves free, whitespace, deep nesting in a member
# the schema does not describe, many members.
RECEIVED_AS_WRITTEN = [
    '{"root_path":"/p"}',
    '{"root_path":"/p","patterns":null}',
    '{"root_path":"/p\\u00e9\\n\\"\\\\","patterns":["./...","\\ud83d\\ude00"]}',
    '{"root_path":"/a","root_path":"/b","patterns":[]}',
    '{"patterns":["x"],"root_path":"/p"}',
    ' { "root_path" : "/p" , "patterns" : [ "a" , "b" ] } ',
    '{"root_path":"/p","n":[1,-1,1.5,1e2,-0.0,9223372036854775807,-9223372036854775808,123456789012345678]}',
    '{"root_path":"/p","deep":' + "[" * 90 + "]" * 90 + "}",
    '{"root_path":"/p",' + ",".join(f'"k{i}":{i}' for i in range(200)) + "}",
]


@pytest.mark.parametrize("params", RECEIVED_AS_WRITTEN)
def test_the_handler_receives_the_params_as_written(params: str) -> None:
    answers, received = serve(f'{{"jsonrpc":"2.0","id":2,"method":"complexity","params":{params}}}')
    assert answers == [{"jsonrpc": "2.0", "id": 2, "result": RESULT}]
    expected = json.loads(params)
    assert received == [expected]
    # Same types too (1 is not 1.0, -0.0 keeps its sign), and the same order.
    assert json.dumps(received[0]) == json.dumps(expected)


# Numbers the envelope settles: `-0` is the integer 0; beyond 64 bits and
# the params are refused, as on the usual path.
def test_minus_zero_in_params_reaches_the_handler_as_the_integer_zero() -> None:
    answers, received = serve('{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p","n":-0}}')
    assert answers[0]["result"] == RESULT
    assert received == [{"root_path": "/p", "n": 0}]
    assert type(received[0]["n"]) is int


def test_an_integer_beyond_64_bits_in_params_is_refused_before_the_handler() -> None:
    answers, received = serve(
        '{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p","n":18446744073709551616}}')
    assert received == []
    assert answers[0]["error"]["code"] == -32700
    assert "/params/n" in answers[0]["error"]["message"]


@pytest.mark.parametrize(("params", "code", "pointer"), [
    ('{"root_path":7}', -32602, "/root_path"),
    ('{"patterns":["x"]}', -32602, "/root_path"),
    ('{"root_path":"/p","patterns":[1]}', -32602, "/patterns/0"),
    ('[1,2]', -32602, ""),
    ('"x"', -32600, "/params"),
])
def test_invalid_params_are_answered_as_the_usual_path_answers_them(params: str, code: int, pointer: str) -> None:
    answers, received = serve(f'{{"jsonrpc":"2.0","id":2,"method":"complexity","params":{params}}}')
    assert received == []
    error = answers[0]["error"]
    assert error["code"] == code
    if code == -32602:
        assert pointer in [issue["pointer"] for issue in error["data"]["errors"]]
    else:
        assert error["data"]["pointer"] == pointer


def test_params_too_deep_for_the_message_are_refused_before_the_handler() -> None:
    deep = "[" * 130 + "]" * 130
    answers, received = serve(f'{{"jsonrpc":"2.0","id":2,"method":"complexity","params":{{"root_path":"/p","d":{deep}}}}}')
    assert received == []
    assert answers[0]["error"]["code"] == -32700
