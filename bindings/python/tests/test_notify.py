"""`Service.notify`: the server's own notifications, from handlers and from
other threads, checked when sent and on the wire after the answer."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

import pytest

import wirekit
from wirekit import Service, ValidationError

LSP = "lsp@3.17"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(id: int, method: str, params: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


INITIALIZE = request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})


def frames(data: bytes) -> list[dict[str, Any]]:
    """The messages of a Content-Length stream, in order, every byte read."""
    messages = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"Content-Length: "), data[:80]
        length = int(head[len(b"Content-Length: "):])
        messages.append(json.loads(rest[:length]))
        data = rest[length:]
    return messages


def log(message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": message}}


def test_notify_is_exported_and_typed() -> None:
    assert callable(Service.notify)
    assert "Service" in wirekit.__all__


def test_a_handlers_notifications_follow_its_answer_in_order() -> None:
    service = Service(LSP)

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        service.notify("window/logMessage", {"type": 3, "message": "first"})
        service.notify("window/logMessage", {"type": 3, "message": "second"})
        return {"capabilities": {}}

    out = service.serve_bytes(INITIALIZE)
    messages = frames(out)
    assert messages[0] == {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}}
    assert messages[1:] == [log("first"), log("second")]
    # The exact bytes of the first notification, as the core frames it.
    body = b'{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"first"}}'
    assert b"Content-Length: %d\r\n\r\n" % len(body) + body in out


def test_two_hundred_from_one_handler_do_not_deadlock() -> None:
    service = Service(LSP)

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        for index in range(200):
            service.notify("window/logMessage", {"type": 4, "message": str(index)})
        return {"capabilities": {}}

    messages = frames(service.serve_bytes(INITIALIZE))
    assert len(messages) == 201
    assert messages[0]["id"] == 1
    assert [m["params"]["message"] for m in messages[1:]] == [str(i) for i in range(200)]


def test_an_invalid_one_raises_with_the_pointer_and_the_handler_answers() -> None:
    service = Service(LSP)
    caught: list[ValidationError] = []

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        try:
            service.notify("window/logMessage", {"type": 3, "message": 5})
        except ValidationError as error:
            caught.append(error)
        return {"capabilities": {}}

    messages = frames(service.serve_bytes(INITIALIZE))
    assert messages == [{"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}}]
    [error] = caught
    assert error.method == "window/logMessage"
    assert error.part == "params"
    assert [issue.instance_path for issue in error.issues] == ["/message"]
    assert error.issues[0].keyword == "type"


def test_an_unknown_or_client_method_raises_value_error_naming_the_server_notifications() -> None:
    service = Service(LSP)
    caught: list[Exception] = []

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        for method in ("no/such", "textDocument/didOpen"):
            try:
                service.notify(method, {})
            except ValueError as error:
                caught.append(error)
        return {"capabilities": {}}

    messages = frames(service.serve_bytes(INITIALIZE))
    assert [m.get("id") for m in messages] == [1]
    assert len(caught) == 2
    for error in caught:
        assert type(error) is ValueError
        assert "is not a notification a server of lsp@3.17 sends" in str(error)
        assert "window/logMessage" in str(error)
        assert "textDocument/publishDiagnostics" in str(error)


def test_params_that_are_not_json_raise_with_the_pointer() -> None:
    service = Service(LSP)
    caught: list[ValueError] = []

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        try:
            service.notify("window/logMessage", {"type": 3, "message": {1, 2}})
        except ValueError as error:
            caught.append(error)
        return {"capabilities": {}}

    service.serve_bytes(INITIALIZE)
    [error] = caught
    assert isinstance(error, wirekit.NotJsonError)
    assert error.pointer == "/message"
    assert "the params of `window/logMessage` are not JSON at /message" in str(error)


def test_not_serving_raises_runtime_error() -> None:
    service = Service(LSP)
    with pytest.raises(RuntimeError, match=r"`window/logMessage` not sent: no serve loop is running"):
        service.notify("window/logMessage", {"type": 3, "message": "x"})


SERVER_WITH_A_WORKER = """
import threading
from wirekit import Service

service = Service("lsp@3.17", notify_from_threads=True)
service.register("shutdown", lambda params: None)

@service.method("initialize")
def initialize(params):
    def work():
        for index in range(100):
            service.notify("window/logMessage", {"type": 3, "message": f"worker {index}"})
    threading.Thread(target=work).start()
    return {"capabilities": {}}

print(service.run(), file=__import__("sys").stderr)
"""


def test_from_another_thread_without_notify_from_threads_raises() -> None:
    service = Service(LSP)
    caught: list[RuntimeError] = []

    @service.method("initialize")
    def initialize(params: Any) -> Any:
        def send() -> None:
            try:
                service.notify("window/logMessage", {"type": 3, "message": "x"})
            except RuntimeError as error:
                caught.append(error)

        worker = threading.Thread(target=send)
        worker.start()
        worker.join()
        return {"capabilities": {}}

    assert frames(service.serve_bytes(INITIALIZE)) == [
        {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}}
    ]
    [error] = caught
    assert "takes notifications from its handlers only" in str(error)
    assert "notify_from_threads=True" in str(error)


def read_frame(stream: Any) -> dict[str, Any]:
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = stream.read(1)
        assert byte, head
        head += byte
    length = int(head.split(b":")[1])
    return dict(json.loads(stream.read(length)))


def test_from_another_thread_while_serving(tmp_path: Any) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER_WITH_A_WORKER, encoding="utf-8")
    with subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(INITIALIZE)
        server.stdin.flush()
        # The answer first (the worker starts while initialize is handled, and
        # the loop writes the answer before it takes the next event), then
        # the worker's hundred, in order, while the client waits.
        assert read_frame(server.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}}
        got = [read_frame(server.stdout) for _ in range(100)]
        assert got == [log(f"worker {index}") for index in range(100)]
        server.stdin.write(request(2, "shutdown", None) + frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.close()
        assert read_frame(server.stdout) == {"jsonrpc": "2.0", "id": 2, "result": None}
        assert server.stdout.read() == b""
        assert server.wait(timeout=30) == 0
        assert server.stderr is not None
        assert server.stderr.read().decode().strip().splitlines()[-1] == "ended"


def test_a_client_notification_handlers_ones_go_out_at_once() -> None:
    service = Service(LSP)
    service.register("initialize", lambda params: {"capabilities": {}})
    service.register("shutdown", lambda params: None)

    @service.notification("initialized")
    def initialized(params: Any) -> None:
        service.notify("window/logMessage", {"type": 3, "message": "ready"})

    out = service.serve_bytes(
        INITIALIZE
        + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + request(2, "shutdown", None)
    )
    assert frames(out) == [
        {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}},
        log("ready"),
        {"jsonrpc": "2.0", "id": 2, "result": None},
    ]
