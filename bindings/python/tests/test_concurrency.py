"""The concurrent loop from Python (`Service(..., concurrency=N)`): a ping
answered while a slow sync or async handler runs, cancellation reaching
sync and async handlers, a handler asking the client (`Context.request`)
and notifying (`Context.notify`, `Service.notify`), each checked by the
core, against a server process over real pipes (MCP 2025-11-25)."""

from __future__ import annotations

import json
import statistics
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import wirekit
from wirekit import Context, Service

from support import PYTHON, Peer

SERVER = textwrap.dedent(
    """
    import asyncio, sys, threading, time
    import wirekit
    from wirekit import Context, Service

    service = Service("mcp@2025-11-25", concurrency=4)
    service.method("initialize")(lambda params: {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "logging": {}, "resources": {}},
        "serverInfo": {"name": "slow", "version": "1"},
    })
    service.method("ping")(lambda params: {})

    def text(value):
        return {"content": [{"type": "text", "text": str(value)}]}

    async def sleep_async(seconds, context):
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            print("async handler cancelled", file=sys.stderr, flush=True)
            raise
        return "slept"

    @service.method("tools/call")
    def call(params, context: Context):
        name, arguments = params["name"], params.get("arguments", {})
        if name == "sleep":
            time.sleep(arguments["seconds"])
            return text("slept")
        if name == "until_cancelled":
            start = time.monotonic()
            while not context.cancelled and time.monotonic() - start < 5:
                time.sleep(0.001)
            print(f"sync handler saw cancelled={context.cancelled}", file=sys.stderr, flush=True)
            return text("stopped")
        if name == "roots":
            try:
                return text(context.request("roots/list"))
            except wirekit.RpcError as error:
                return text(f"RpcError {error.code}: {error}")
            except wirekit.PeerError as error:
                return text(f"PeerError {error.kind} {error.method} {error.pointer}")
        if name == "progress":
            sent = context.progress({"progress": 1, "total": 1})
            return text(f"sent={sent} token={context.progress_token!r}")
        if name == "log":
            context.notify("notifications/message", {"level": "info", "data": "from the context"})
            service.notify("notifications/message", {"level": "info", "data": "from the service"})
            other = threading.Thread(target=service.notify, args=(
                "notifications/message", {"level": "info", "data": "from a thread"}))
            other.start()
            other.join()
            try:
                context.notify("notifications/message", {"level": "shouting", "data": 1})
            except wirekit.PeerError as error:
                return text(f"PeerError {error.kind} {error.pointer}")
            return text("not refused")
        return text(f"no tool {name}")

    @service.method("resources/read")
    async def read(params, context: Context):
        return {"contents": [{"uri": params["uri"], "text": await sleep_async(1.0, context)}]}

    service.run()
    """
)


@pytest.fixture()
def server(tmp_path: Path) -> Peer:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    return Peer([PYTHON, str(script)], deadline=60)


def send(peer: Peer, message: dict[str, Any]) -> float:
    peer.send(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    return time.monotonic()


def initialize(peer: Peer, capabilities: Any = None) -> None:
    answer = peer.request(0, "initialize", {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities or {},
        "clientInfo": {"name": "test", "version": "1"},
    })
    assert answer["result"]["serverInfo"]["name"] == "slow", answer
    send(peer, {"method": "notifications/initialized"})


def call(id: int, name: str, arguments: Any = None) -> dict[str, Any]:
    return {"id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}


def text(answer: dict[str, Any]) -> str:
    value: str = answer["result"]["content"][0]["text"]
    return value


def pings_while(peer: Peer, first_id: int) -> list[float]:
    waits = []
    for id in range(first_id, first_id + 5):
        sent = send(peer, {"id": id, "method": "ping"})
        answer = peer.line()
        waits.append(time.monotonic() - sent)
        assert answer == {"jsonrpc": "2.0", "id": id, "result": {}}
    return waits


def test_a_ping_is_answered_while_a_slow_sync_handler_sleeps(server: Peer) -> None:
    initialize(server)
    send(server, call(1, "sleep", {"seconds": 1.0}))
    time.sleep(0.05)
    waits = pings_while(server, 2)
    print(f"pings answered in {[round(w * 1000, 2) for w in waits]} ms while the tool slept")
    # The goal is under 10 ms: the median is held to it, the worst (a busy
    # CI machine) to 100 ms; after the tool it would be ~950 ms.
    assert statistics.median(waits) < 0.01, waits
    assert max(waits) < 0.1, waits
    assert text(server.line()) == "slept"
    code, rest, err = server.close()
    assert (code, rest) == (0, b""), err


def test_a_ping_is_answered_while_an_async_handler_awaits(server: Peer) -> None:
    initialize(server)
    send(server, {"id": 1, "method": "resources/read", "params": {"uri": "file:///a"}})
    time.sleep(0.05)
    waits = pings_while(server, 2)
    assert statistics.median(waits) < 0.01, waits
    assert max(waits) < 0.1, waits
    assert server.line()["result"]["contents"][0]["text"] == "slept"
    server.close()


def test_cancellation_reaches_a_sync_and_an_async_handler(server: Peer) -> None:
    initialize(server)
    send(server, call(1, "until_cancelled"))
    send(server, {"id": 2, "method": "resources/read", "params": {"uri": "file:///a"}})
    time.sleep(0.1)
    for id in (1, 2):
        send(server, {"method": "notifications/cancelled", "params": {"requestId": id}})
    # MCP: a cancelled request is not answered; the next answer is the ping's.
    assert server.request(3, "ping", {}) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    code, rest, err = server.close()
    assert rest == b"", rest
    assert "sync handler saw cancelled=True" in err, err
    assert "async handler cancelled" in err, err
    assert "left `tools/call` (id 1) unanswered: the client cancelled it" in err, err
    assert "left `resources/read` (id 2) unanswered: the client cancelled it" in err, err


def test_a_handler_asks_the_client_and_gets_its_checked_answer(server: Peer) -> None:
    initialize(server, {"roots": {}})
    send(server, call(1, "roots"))
    asked = server.line()
    assert asked["method"] == "roots/list", asked
    send(server, {"id": asked["id"], "result": {"roots": [{"uri": "file:///w"}]}})
    assert text(server.line()) == "{'roots': [{'uri': 'file:///w'}]}"

    send(server, call(2, "roots"))
    asked = server.line()
    send(server, {"id": asked["id"], "result": {"roots": 3}})
    assert text(server.line()) == "PeerError invalid-answer roots/list /result/roots"

    send(server, call(3, "roots"))
    asked = server.line()
    send(server, {"id": asked["id"], "error": {"code": -32603, "message": "no roots"}})
    assert text(server.line()) == "RpcError -32603: no roots"
    server.close()


def test_a_request_the_client_did_not_declare_is_refused(server: Peer) -> None:
    initialize(server)  # no `roots` capability
    assert text(server.request(1, "tools/call", {"name": "roots"})) == "PeerError refused roots/list /method"
    server.close()


def test_notifications_from_the_context_the_service_and_a_thread(server: Peer) -> None:
    initialize(server)
    send(server, call(1, "log"))
    sent = [server.line() for _ in range(3)]
    assert [m["params"]["data"] for m in sent] == ["from the context", "from the service", "from a thread"]
    assert all(m["method"] == "notifications/message" for m in sent)
    assert text(server.line()) == "PeerError refused /params/level"
    server.close()


def test_the_loop_is_chosen_by_the_handlers() -> None:
    plain = Service("mcp@2025-11-25")
    plain.method("ping")(lambda params: {})
    assert plain._concurrency() is None

    with_context = Service("mcp@2025-11-25")

    def ping(params: Any, context: Context) -> Any:
        return {}

    with_context.method("ping")(ping)
    assert with_context._concurrency() == 16

    # A default is no context: `lambda params, result=result: result`.
    defaulted = Service("mcp@2025-11-25")
    defaulted.method("ping")(lambda params, result={}: result)
    assert defaulted._concurrency() is None

    awaiting = Service("mcp@2025-11-25")

    async def aping(params: Any) -> Any:
        return {}

    awaiting.method("ping")(aping)
    assert awaiting._concurrency() == 16
    assert Service("mcp@2025-11-25", concurrency=2)._concurrency() == 2
    with pytest.raises(ValueError, match="concurrency is at least 1"):
        Service("mcp@2025-11-25", concurrency=0)


def test_async_handlers_answer_in_serve_bytes() -> None:
    service = Service("mcp@2025-11-25")

    @service.method("initialize")
    async def initialize(params: Any) -> Any:
        return {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "a", "version": "1"}}

    data = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    out = service.serve_bytes(data.encode() + b"\n")
    assert json.loads(out)["result"]["serverInfo"]["name"] == "a"


def test_notify_before_any_session_says_so() -> None:
    service = Service("mcp@2025-11-25", concurrency=2)
    with pytest.raises(RuntimeError, match="no session is being served yet"):
        service.notify("notifications/message", {"level": "info", "data": "x"})
    assert isinstance(wirekit.PeerError("x", kind="closed"), wirekit.WirekitError)


def test_progress_goes_out_against_the_request_s_token(server: Peer) -> None:
    initialize(server)
    send(server, {"id": 1, "method": "tools/call",
                  "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 7}}})
    assert server.line() == {"jsonrpc": "2.0", "method": "notifications/progress",
                             "params": {"progress": 1, "total": 1, "progressToken": 7}}
    assert text(server.line()) == "sent=True token=7"
    assert text(server.request(2, "tools/call", {"name": "progress"})) == "sent=False token=None"
    server.close()


def test_ctrl_c_stops_the_concurrent_loop_while_it_waits(server: Peer) -> None:
    """The input is read on a thread of the core's, so Ctrl-C reaches the
    loop's own thread, which waits for events: it runs Python's signal
    handlers every 100 ms and the KeyboardInterrupt ends `run()`: uncaught,
    Python dies of SIGINT, as a script interrupted anywhere else does."""
    import signal

    initialize(server)
    time.sleep(0.3)  # blocked waiting, in Rust
    started = time.monotonic()
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=20) == -signal.SIGINT
    assert time.monotonic() - started < 2.0
    code, _, err = server.close()  # the pipes closed too
    assert code == -signal.SIGINT
    assert "KeyboardInterrupt" in err
