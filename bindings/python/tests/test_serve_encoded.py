"""The serve loop answers Python handlers through the core's encoded-result
path (written straight from the objects, validated in place): its frames
must be what `Protocol.write_result` writes, and what it refuses or warns
about must be reported as the core's own result check does."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from wirekit import Protocol, Server

GAZE = Protocol("gaze-analyzer")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p"}}
CAPS = {"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False,
                         "streaming": False, "doc_coverage": False},
        "protocol_version": GAZE.version, "analyzer_name": "t", "language": "x"}


class Count(enum.IntEnum):
    TWO = 2


class Members(dict):  # type: ignore[type-arg]
    pass


def serve(result: Any, **options: Any) -> list[bytes]:
    server = Server(GAZE, {"initialize": lambda p: CAPS, "complexity": lambda p: result}, **options)
    request = {"jsonrpc": "2.0", "id": 2, "method": "complexity", "params": {"root_path": "/p"}}
    data = b"".join(json.dumps(m).encode() + b"\n" for m in (INIT, request))
    return server.serve_bytes(data).splitlines(keepends=True)


VALID = [
    {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2}]},
    {"functions": [{"name": "f\u00e9\n\"\\\u2028", "package": "p", "file": "p.py", "line": 1, "complexity": 2.0}]},
    {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 9.0, "complexity": Count.TWO}]},
    Members(functions=[Members(name="f", package="p", file="p.py", line=1, complexity=2)]),
    {"functions": ({"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2},)},
]


@pytest.mark.parametrize("result", VALID)
def test_a_valid_result_is_framed_as_write_result_writes_it(result: Any) -> None:
    assert serve(result)[1] == GAZE.write_result("complexity", 2, result)


def test_an_invalid_result_answers_the_issues_the_core_finds() -> None:
    result = {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": "one"}]}
    answer = json.loads(serve(result)[1])
    issues = GAZE.validate("complexity", "result", result)
    assert answer["error"]["code"] == -32603
    assert answer["error"]["message"].startswith("the server produced an invalid result for `complexity`: ")
    assert answer["error"]["data"] == {"part": "result", "errors": [issue.to_dict() for issue in issues]}


def test_an_invalid_result_is_logged_with_its_pointers() -> None:
    lines: list[str] = []
    result = {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": "one"}]}
    answer = json.loads(serve(result, log=lines.append)[1])
    assert answer["error"]["code"] == -32603
    assert len(lines) == 1
    assert lines[0].startswith("fault invalid_result method=complexity pointer=/result/functions/0/")
    assert "the handler's result for `complexity` is invalid; answered an internal error instead: " in lines[0]
    assert "/functions/0/line" in lines[0]


def test_warn_mode_sends_the_invalid_result_and_logs_every_issue() -> None:
    lines: list[str] = []
    result = {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": "one"}]}
    output = serve(result, result_check="warn", log=lines.append)
    assert json.loads(output[1])["result"] == result
    assert output[1] == json.dumps({"jsonrpc": "2.0", "id": 2, "result": result}, separators=(",", ":")).encode() + b"\n"
    assert len(lines) == 1
    assert lines[0].startswith("warning: sending an invalid result for `complexity` anyway: ")


def test_a_result_that_is_not_json_still_names_its_pointer() -> None:
    answer = json.loads(serve({"functions": [{"name": float("nan")}]})[1])
    assert answer["error"]["code"] == -32603
    assert answer["error"]["data"]["type"] == "ValueError" and answer["error"]["data"]["pointer"] == "/functions/0/name"
