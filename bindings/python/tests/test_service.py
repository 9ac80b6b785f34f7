"""The helpers in process: Service, Analyzer and AuthoringGuide served over bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest

import wirekit
from wirekit import Protocol, RpcError, Server, Service
from wirekit.gaze import Analyzer
from wirekit.gzkit import AuthoringGuide


def ndjson(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def answers(output: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p", "config": {"k": 1}}}


def test_initialize_is_answered_from_what_is_registered() -> None:
    app = Analyzer(name="snake-eyes", language="python", version="0.1.0", language_version="3.12.0")
    seen: list[Any] = []

    @app.on_initialize
    def remember(params: Any) -> None:
        seen.append(params)

    @app.test_mapping
    def test_mapping(params: Any) -> Any:
        return {"mappings": []}

    (init,) = answers(app.serve_bytes(ndjson(INIT)))
    assert init["result"] == {
        "capabilities": {"streaming": False, "discover": False, "test_mapping": True,
                         "classify_signals": False, "doc_coverage": False},
        "protocol_version": "1.1.0", "analyzer_name": "snake-eyes", "language": "python",
        "language_version": "3.12.0",
    }
    assert seen == [{"root_path": "/p", "config": {"k": 1}}]
    assert app.root_path == "/p" and app.config == {"k": 1}


def test_protocol_1_0_0_declares_only_its_capabilities() -> None:
    app = Analyzer(name="a", language="go", protocol="gaze-analyzer@1.0.0", language_version="1.22")
    (init,) = answers(app.serve_bytes(ndjson(INIT)))
    assert init["result"]["capabilities"] == {"discover": False, "test_mapping": False, "classify_signals": False}
    assert init["result"]["protocol_version"] == "1.0.0"


def test_required_method_without_handler_is_method_not_found() -> None:
    app = Analyzer(name="a", language="python")
    output = app.serve_bytes(ndjson(INIT, {"jsonrpc": "2.0", "id": 2, "method": "coverage", "params": {"root_path": "/p"}}))
    assert answers(output)[1]["error"]["code"] == -32601


def test_integer_ids_null_patterns_and_bare_shutdown() -> None:
    app = Analyzer(name="a", language="python")
    calls: list[Any] = []

    @app.complexity
    def complexity(params: Any) -> Any:
        calls.append(params)
        return {"functions": []}

    @app.on_shutdown
    def bye() -> None:
        calls.append("bye")

    output = app.serve_bytes(ndjson(
        INIT,
        {"jsonrpc": "2.0", "id": 2, "method": "complexity", "params": {"root_path": "/p", "patterns": None}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "id": 4, "method": "complexity", "params": {"root_path": "/p"}},
    ))
    assert [a["id"] for a in answers(output)] == [1, 2, 3]  # nothing is read after shutdown
    assert calls == [{"root_path": "/p", "patterns": None}, "bye"]


def test_a_result_that_is_not_json_answers_internal_error() -> None:
    app = Analyzer(name="a", language="python")

    @app.complexity
    def complexity(params: Any) -> Any:
        return {"functions": {1, 2}}

    answer = answers(app.serve_bytes(ndjson(INIT, {"jsonrpc": "2.0", "id": 2, "method": "complexity", "params": {"root_path": "/p"}})))[1]
    assert answer["error"]["code"] == -32603
    assert answer["error"]["data"]["type"] == "TypeError" and answer["error"]["data"]["pointer"] == "/functions"


def test_keyboard_interrupt_in_a_handler_stops_the_server() -> None:
    app = Analyzer(name="a", language="python")

    @app.complexity
    def complexity(params: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        app.serve_bytes(ndjson(INIT, {"jsonrpc": "2.0", "id": 2, "method": "complexity", "params": {"root_path": "/p"}}))


def test_registering_an_unknown_method_fails_early() -> None:
    app = Analyzer(name="a", language="python")
    with pytest.raises(ValueError, match="no request `explode`"):
        app.register("explode", lambda params: {})
    with pytest.raises(ValueError, match="an Analyzer speaks gaze-analyzer"):
        Analyzer(name="a", language="python", protocol="gzkit-authoring-guide")


def test_gzkit_service_negotiates_and_frames_with_content_length() -> None:
    guide = AuthoringGuide()

    @guide.analyze
    def analyze(params: Any) -> Any:
        return {"hints": []}

    def frame(body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)

    output = guide.serve_bytes(
        frame(b'{"id":1,"method":"analyze","params":{"file_path":"/a.py"}}')
        + frame(b'{"id":2,"method":"initialize","params":{"clientVersion":"1.9"}}')
        + frame(b'{"id":3,"method":"analyze","params":{}}')
        + frame(b'{"id":4,"method":"analyze","params":{"file_path":"/a.py","cursor_position":null}}')
    )
    decoder = wirekit.ContentLengthDecoder()
    decoder.push(output)
    bodies = [json.loads(f.body) for f in decoder]
    assert bodies[0]["error"]["code"] == -32601  # analyze before initialize, as the spec says
    assert bodies[1] == {"id": 2, "result": {"version": "1.0", "capabilities": ["analyze"]}}
    # gzkit's ErrorObject forbids `data`: the failing pointer is in the message.
    assert bodies[2]["error"]["code"] == -32602 and "data" not in bodies[2]["error"]
    assert "/file_path" in bodies[2]["error"]["message"]
    assert bodies[3] == {"id": 4, "result": {"hints": []}}


def test_a_generic_service_with_its_own_initialize() -> None:
    service = Service("gaze-analyzer@1.0.0", result_check="warn")

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        return {"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False},
                "protocol_version": "1.0.0", "analyzer_name": "generic", "language": "x"}

    @service.method("analyze")
    def analyze(params: Any) -> Any:
        raise RpcError("not today", code=-32001)

    assert service.capabilities() == {"discover": False, "test_mapping": False, "classify_signals": False}
    output = service.serve_bytes(ndjson(INIT, {"jsonrpc": "2.0", "id": 2, "method": "analyze", "params": {"root_path": "/p"}}))
    assert answers(output)[1]["error"] == {"code": -32001, "message": "not today"}


def test_native_server_logs_to_a_callback() -> None:
    lines: list[str] = []
    server = Server(Protocol("gaze-analyzer"), {}, log=lines.append)
    server.serve_bytes(ndjson({"jsonrpc": "2.0", "method": "no/such/notification"}))
    assert lines and "no/such/notification" in lines[0]
    with pytest.raises(ValueError, match="result_check"):
        Server(Protocol("gaze-analyzer"), result_check="maybe")


@pytest.mark.parametrize(
    "value",
    [{"b": [1, -2, 2.5, None, True, False, "é\u2028\ud7ff"], "a": {}}, [], "x", 0, 18446744073709551615, -9223372036854775808, 1e300],
)
def test_conversion_round_trips_through_the_core(value: Any) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    assert wirekit._native.loads(text) == value
    assert json.loads(wirekit._native.dumps(value)) == value


def test_conversion_refuses_too_deep_nesting() -> None:
    deep: Any = []
    for _ in range(1000):
        deep = [deep]
    with pytest.raises(ValueError, match="deeper"):
        wirekit._native.dumps(deep)


def test_a_service_registers_by_the_cores_model_of_each_method() -> None:
    """How each client method is served comes from the core (one model), not
    from the manifest's keys read again in Python."""
    gaze = Protocol("gaze-analyzer@1.1.0")
    served = dict(gaze.served_methods())
    assert served["analyze/stream"] == "stream"
    assert served["analyze"] == "request"
    assert "$/progress" not in served  # the server sends it
    service = Service(gaze)
    service.register("analyze/stream", lambda params: iter([]))
    assert "analyze/stream" in service._stream_handlers()
    with pytest.raises(ValueError, match="has no notification `analyze`"):
        service.notification("analyze")(lambda params: None)


def test_capabilities_come_from_the_core_for_every_style() -> None:
    """boolean-object (Gaze), string-array (gzkit) and provider (LSP) declarations."""
    handled = {"analyze/stream", "test_mapping"}
    assert Protocol("gaze-analyzer@1.1.0").capabilities_for(lambda name: name in handled) == {
        "streaming": True, "discover": False, "test_mapping": True, "classify_signals": False, "doc_coverage": False,
    }
    assert Protocol("gzkit-authoring-guide").capabilities_for(lambda name: name == "analyze") == ["analyze"]
    assert Protocol("gzkit-authoring-guide").server_version == "1.0"
    request = {"kind": "request", "direction": "client-to-server", "params_optional": True}
    manifest = {
        "protocol": "lsp-providers", "version": "3.17",
        "transport": {"framing": "content-length", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "schemas": ["s.json"],
        "capabilities": {"method": "initialize", "pointer": "/capabilities", "style": "provider"},
        "methods": {
            "initialize": request,
            "textDocument/hover": {**request, "capability": "hoverProvider"},
            "textDocument/rename": {**request, "capability": "renameProvider"},
            "textDocument/prepareRename": {**request, "capability": "renameProvider/prepareProvider"},
            "textDocument/definition": {**request, "capability": "definitionProvider"},
        },
    }
    lsp = Protocol.from_manifest(manifest, {"s.json": {"$schema": "https://json-schema.org/draft/2020-12/schema"}})
    service = Service(lsp)
    for method in ("textDocument/hover", "textDocument/rename", "textDocument/prepareRename"):
        service.register(method, lambda params: None)
    assert service.capabilities() == {"hoverProvider": True, "renameProvider": {"prepareProvider": True}}
    assert lsp.capabilities_for(lambda name: False) == {}


def test_mcp_capabilities_are_objects_and_initialize_answers_with_them() -> None:
    """MCP's capabilities are objects (`"tools": {}`): `true` would make the
    initialize result invalid, and the server answer -32603."""
    mcp = Protocol("mcp@2025-11-25")
    served = {"tools/list", "tools/call"}
    assert mcp.capabilities_for(lambda name: name in served) == {"tools": {}}
    service = Service(mcp)
    service.method("initialize")(lambda params: {
        "protocolVersion": "2025-11-25", "capabilities": service.capabilities(),
        "serverInfo": {"name": "s", "version": "1"}})
    service.method("tools/list")(lambda params: {"tools": []})
    service.method("tools/call")(lambda params: {"content": []})
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    answer = json.loads(service.server().serve_bytes(json.dumps(request).encode() + b"\n"))
    assert answer["result"]["capabilities"] == {"tools": {}}, answer
