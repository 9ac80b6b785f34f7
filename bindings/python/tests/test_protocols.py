"""Embedded protocols, validation by method (`tests/vectors/protocols`), the session state machine."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wirekit import (
    Protocol,
    ProtocolError,
    Session,
    SessionViolation,
    ValidationError,
    embedded_protocols,
)

from support import VECTORS


def protocol_cases() -> list[tuple[str, str, str, dict[str, Any]]]:
    cases = []
    for path in sorted((VECTORS / "protocols").glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        spec = f"{doc['protocol']}@{doc['version']}"
        for case in doc["cases"]:
            cases.append((f"{spec}/{doc['method']}/{case['name']}", spec, doc["method"], case))
    return cases


CASES = protocol_cases()


@pytest.mark.parametrize(("spec", "method", "case"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_vector(spec: str, method: str, case: dict[str, Any]) -> None:
    protocol = Protocol(spec)
    issues = protocol.validate(method, case["part"], case["value"])
    got = {(issue.instance_path, issue.keyword) for issue in issues}
    expected = set() if case["valid"] else {(e.get("pointer", ""), e.get("keyword", "")) for e in case["errors"]}
    assert got == expected, [issue.message for issue in issues]


def test_vectors_cover_every_embedded_protocol() -> None:
    assert {c[1] for c in CASES} == set(embedded_protocols())
    assert len(CASES) > 100


def test_embedded_protocols_and_their_transport() -> None:
    assert {"gaze-analyzer@1.0.0", "gaze-analyzer@1.1.0", "gzkit-authoring-guide@1.0"} <= set(embedded_protocols())
    gaze = Protocol("gaze-analyzer")
    assert (gaze.name, gaze.version, gaze.id) == ("gaze-analyzer", "1.1.0", "gaze-analyzer@1.1.0")
    assert (gaze.framing, gaze.dialect, gaze.strict) == ("ndjson", "jsonrpc-2.0", False)
    assert "analyze/stream" in gaze.methods
    gzkit = Protocol("gzkit-authoring-guide")
    assert (gzkit.framing, gzkit.dialect) == ("content-length", "bare")
    assert gzkit.manifest["version_negotiation"]["server_version"] == "1.0"


def test_unknown_protocol() -> None:
    with pytest.raises(ProtocolError) as raised:
        Protocol("nope")
    assert raised.value.kind == "not-found"
    with pytest.raises(ProtocolError):
        Protocol("gaze-analyzer@9.9.9")


def test_issues_are_structured() -> None:
    (issue,) = Protocol("gaze-analyzer").validate("complexity", "result", {"functions": [{"name": 1}]})[:1]
    issues = Protocol("gaze-analyzer").validate("complexity", "result", {"functions": [{"name": 1}]})
    pointers = {(i.instance_path, i.keyword) for i in issues}
    assert ("/functions/0/name", "type") in pointers
    assert ("/functions/0/complexity", "required") in pointers
    assert issue.kind == "schema"
    assert issue.schema_path.startswith("/$defs/")
    assert set(issue.to_dict()) == {"pointer", "keyword", "schema_path", "message"}


def test_check_raises_validation_error() -> None:
    with pytest.raises(ValidationError) as raised:
        Protocol("gzkit-authoring-guide").check("analyze", "params", {})
    assert raised.value.pointers == ["/file_path"]
    assert raised.value.part == "params" and raised.value.method == "analyze"


def test_rules_beyond_json_schema() -> None:
    hint = {"metric": "radon_cc", "precedence_band": "approaching", "crossing_value": 9.0,
            "archetype": "arrowhead", "doctrinal_frame_headline": "h", "recommended_move": "m",
            "file_path": "/f.py", "start_line": 42, "end_line": 7}
    issues = Protocol("gzkit-authoring-guide").validate("analyze", "result", {"hints": [hint]})
    assert [(i.kind, i.instance_path) for i in issues] == [("rule", "/hints/0/end_line")]


def test_read_and_write_result_convert_once_and_check() -> None:
    gaze = Protocol("gaze-analyzer")
    result = {"functions": [{"name": "f", "package": "p", "file": "f.py", "line": 1, "complexity": 3}]}
    frame = gaze.write_result("complexity", 7, result)
    assert frame == b'{"jsonrpc":"2.0","id":7,"result":' + json.dumps(result, separators=(",", ":")).encode() + b"}\n"
    assert gaze.read_result("complexity", frame.rstrip(b"\n")) == result
    with pytest.raises(ValidationError) as raised:
        gaze.write_result("complexity", 7, {"functions": [{"name": "f"}]})
    assert "/functions/0/line" in raised.value.pointers
    bad = b'{"jsonrpc":"2.0","id":7,"result":{"functions":[{"name":"f"}]}}'
    with pytest.raises(ValidationError):
        gaze.read_result("complexity", bad)


def test_session_lifecycle_capabilities_and_end() -> None:
    session = Session(Protocol("gaze-analyzer"))
    assert session.state == "uninitialized" and not session.is_ended
    with pytest.raises(SessionViolation) as raised:
        session.check("analyze")
    assert raised.value.kind == "wrong-state" and raised.value.code == -32600
    session.check("initialize")
    session.succeeded("initialize", {"capabilities": {"discover": True, "test_mapping": False, "classify_signals": False},
                                     "protocol_version": "1.1.0", "analyzer_name": "x", "language": "python"})
    assert session.state == "ready" and session.capabilities == ["discover"]
    session.check("discover")
    with pytest.raises(SessionViolation) as gated:
        session.check("test_mapping")
    assert gated.value.kind == "capability-not-declared" and gated.value.code == -32601
    session.succeeded("shutdown", {})
    assert session.is_ended
    with pytest.raises(SessionViolation) as ended:
        session.check("analyze")
    assert ended.value.kind == "session-ended"


def test_session_version_negotiation() -> None:
    session = Session(Protocol("gzkit-authoring-guide"))
    session.admit("initialize", {"clientVersion": "1.3"})
    with pytest.raises(SessionViolation) as raised:
        session.admit("initialize", {"clientVersion": "2.0"})
    assert raised.value.kind == "version-mismatch" and raised.value.code == -32099
    assert raised.value.ends_session and raised.value.pointer == "/params/clientVersion"
    assert str(raised.value) == "VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"
    session.failed("initialize", -32099, str(raised.value))
    assert session.is_ended
