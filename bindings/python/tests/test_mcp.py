"""wirekit.mcp: an MCP server in a few decorated functions, answering as the
specification and the official schema say (version negotiation, capability
objects, tool errors as results, unknown names as JSON-RPC errors), and the
example server put through `wirekit conformance`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from support import REPO, SUMMARY, mcp_session
from wirekit import Protocol
from wirekit.mcp import Server, negotiate, supported_versions
from wirekit.testing import assert_conforms

EXAMPLE = REPO / "examples" / "mcp" / "server.py"
# What the example serves: the battery's calls name its tool, resource and prompt.
PARAMS = {
    "tools/call": {"name": "add", "arguments": {"a": 1, "b": 2}},
    "resources/read": {"uri": "memo://readme"},
    "prompts/get": {"name": "explain", "arguments": {"operation": "add"}},
}
UPSTREAM = REPO.parent / "shared" / "upstream" / "mcp" / "2025-06-18.schema.json"


def example() -> Server:
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import server as module  # the example, as its users run it
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    built: Server = module.build("2025-06-18")
    return built


def session(server: Server, *calls: tuple[str, Any], version: str = "2025-06-18") -> dict[Any, Any]:
    """Serves initialize, notifications/initialized and `calls` (ids from 1);
    returns each answer by id (0 is initialize's)."""
    return {line["id"]: line for line in mcp_session(server, *calls, version=version) if "id" in line}


def test_the_version_is_negotiated_as_the_specification_says() -> None:
    shipped = supported_versions()
    assert shipped[:2] == ["2025-11-25", "2025-06-18"]
    assert supported_versions("2025-06-18") == ["2025-06-18"]
    assert negotiate("2025-06-18", shipped) == "2025-06-18"
    assert negotiate("2024-11-05", shipped) == "2025-11-25"
    assert negotiate(None, shipped) == "2025-11-25"
    newest = Server("s", "1")
    answers = session(newest, version="2025-06-18")
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    answers = session(newest, version="1999-01-01")
    assert answers[0]["result"]["protocolVersion"] == "2025-11-25"
    assert session(Server("s", "1", protocol_version="2025-06-18"), version="2025-11-25")[0]["result"][
        "protocolVersion"] == "2025-06-18"


def test_initialize_declares_capability_objects_the_schema_accepts() -> None:
    answers = session(example())
    result = answers[0]["result"]
    assert result["capabilities"] == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
    }
    assert result["serverInfo"] == {"name": "wirekit-example", "version": "0.1.0"}
    for version in supported_versions():
        assert Protocol(f"mcp@{version}").validate("initialize", "result", result) == []
    bare = session(Server("s", "1"))[0]["result"]
    assert bare["capabilities"] == {"logging": {}}


def test_tools_are_listed_called_and_fail_as_results() -> None:
    answers = session(
        example(),
        ("tools/list", None),
        ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
        ("tools/call", {"name": "divide", "arguments": {"a": 1, "b": 0}}),
        ("tools/call", {"name": "divide", "arguments": {"a": 1, "b": 4}}),
        ("tools/call", {"name": "nope", "arguments": {}}),
        ("tools/call", {"arguments": {}}),
        ("ping", None),
    )
    tools = {t["name"]: t for t in answers[1]["result"]["tools"]}
    assert tools["add"]["inputSchema"] == {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"],
    }
    assert tools["add"]["description"] == "Adds two integers."
    assert answers[2]["result"] == {"content": [{"type": "text", "text": "5"}], "isError": False}
    assert answers[3]["result"] == {"content": [{"type": "text", "text": "cannot divide by zero"}], "isError": True}
    assert answers[4]["result"]["structuredContent"] == {"quotient": 0.25}
    assert answers[5]["error"]["code"] == -32602 and "nope" in answers[5]["error"]["message"]
    assert answers[6]["error"]["code"] == -32602  # the schema requires `name`
    assert answers[7]["result"] == {}


def test_resources_and_prompts() -> None:
    answers = session(
        example(),
        ("resources/list", None),
        ("resources/read", {"uri": "memo://readme"}),
        ("resources/read", {"uri": "memo://missing"}),
        ("prompts/list", {}),
        ("prompts/get", {"name": "explain", "arguments": {"operation": "add"}}),
        ("prompts/get", {"name": "explain", "arguments": {}}),
        ("prompts/get", {"name": "nope"}),
    )
    assert answers[1]["result"]["resources"] == [{"uri": "memo://readme", "name": "readme", "mimeType": "text/plain"}]
    assert answers[2]["result"]["contents"][0]["text"] == "This server adds and divides."
    assert answers[3]["error"]["code"] == -32002 and answers[3]["error"]["data"] == {"uri": "memo://missing"}
    assert answers[4]["result"]["prompts"][0]["arguments"] == [
        {"name": "operation", "required": True}, {"name": "detail", "required": False},
    ]
    assert answers[5]["result"]["messages"][0]["content"]["text"] == "Explain add (short)."
    assert answers[6]["error"]["code"] == -32602
    assert answers[7]["error"]["code"] == -32602


def test_what_is_not_registered_is_not_declared_and_not_served() -> None:
    server = Server("tools-only", "1")

    @server.tool(description="Echoes.", input_schema={"type": "object", "properties": {"text": {"type": "string"}}})
    def echo(text: str = "") -> str:
        return text

    answers = session(server, ("resources/list", None), ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
    assert answers[0]["result"]["capabilities"] == {"logging": {}, "tools": {"listChanged": True}}
    assert answers[1]["error"]["code"] == -32601
    assert answers[2]["result"]["content"][0]["text"] == "hi"


def test_the_example_server_conforms_to_mcp_2025_06_18(tmp_path: Path) -> None:
    """As the issue runs it, without --params: the manifest's params_from
    names the server's own tool, resource and prompt from its lists."""
    command = [sys.executable, str(EXAMPLE), "--protocol-version", "2025-06-18"]
    record = tmp_path / "conformance.ndjson"
    report = assert_conforms("mcp@2025-06-18", command, record=record)
    assert report.failures == [] and report.warnings == [], report.text
    assert len(report.checks) >= 10, report.text
    done = subprocess.run(
        [sys.executable, "-m", "wirekit", "validate", "--protocol", "mcp@2025-06-18", str(record)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_published_schema_unchanged_drives_the_example_server(tmp_path: Path) -> None:
    """The official schema.json, byte for byte, beside a hand-written
    manifest: the same battery passes through it, and its recording
    validates through it."""
    if not UPSTREAM.is_file():
        SUMMARY.append("mcp published schema (python): not run: "
                       "../shared/upstream/mcp/2025-06-18.schema.json is absent (CI has it)")
        return
    folder = tmp_path / "schemas" / "mcp" / "2025-06-18"
    folder.mkdir(parents=True)
    shutil.copyfile(UPSTREAM, folder / "schema.json")
    shutil.copyfile(REPO / "tests" / "mcp" / "published-schema" / "protocol.json", folder / "protocol.json")
    assert (folder / "schema.json").read_bytes() == UPSTREAM.read_bytes()
    command = [sys.executable, str(EXAMPLE), "--protocol-version", "2025-06-18"]
    record = tmp_path / "published.ndjson"
    report = assert_conforms("mcp@2025-06-18", command, schemas=tmp_path / "schemas", params=PARAMS, record=record)
    assert report.failures == [] and report.warnings == [], report.text
    done = subprocess.run(
        [sys.executable, "-m", "wirekit", "validate", "--schemas", str(tmp_path / "schemas"),
         "--protocol", "mcp@2025-06-18", str(record)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_official_python_sdk_client_talks_to_the_example_server() -> None:
    """The `mcp` package's stdio client (installed by tests/mcp/install-peers.sh
    into tests/mcp/.venv) spawns the example server and uses every feature
    it offers, checking each answer with the SDK's own models."""
    peers = REPO / "tests" / "mcp"
    subprocess.run(["bash", str(peers / "install-peers.sh")], check=True, capture_output=True, timeout=900)
    done = subprocess.run(
        [str(peers / ".venv" / "bin" / "python"), str(peers / "sdk_client.py"), "--", sys.executable, str(EXAMPLE)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    got = json.loads(done.stdout)
    assert got["protocol_version"] in supported_versions()
    assert got["server"] == "wirekit-example"
    assert set(got["capabilities"]) == {"logging", "tools", "resources", "prompts"}
    assert got["tools"] == ["add", "divide"]
    assert got["add"] == ["5"] and got["add_is_error"] is False
    assert got["divide"] == ["cannot divide by zero"] and got["divide_is_error"] is True
    assert got["resources"] == ["memo://readme"] and got["readme"] == ["This server adds and divides."]
    assert got["prompts"] == ["explain"] and got["prompt"] == ["Explain add (short)."]


TOOLS_SERVER = '''
import asyncio, time
from wirekit import Context
from wirekit.mcp import Server

server = Server("side-by-side", "1")

@server.tool()
def slow(seconds: float) -> str:
    "Sleeps."
    time.sleep(seconds)
    return "slept"

@server.tool()
def report(steps: int, context: Context) -> str:
    "Reports progress."
    for step in range(steps):
        context.progress({"progress": step + 1, "total": steps})
    return f"cancelled={context.cancelled}"

@server.tool()
async def later(text: str) -> str:
    "Answers after a while."
    await asyncio.sleep(0.05)
    return text.upper()

server.run()
'''


def test_tools_run_side_by_side_with_a_context_and_async(tmp_path: Path) -> None:
    from support import PYTHON, Peer

    script = tmp_path / "server.py"
    script.write_text(TOOLS_SERVER)
    peer = Peer([PYTHON, str(script)], deadline=60)

    def send(message: dict[str, Any]) -> None:
        peer.send(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    listed = peer.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "t", "version": "1"}})
    assert "tools" in listed["result"]["capabilities"]
    send({"method": "notifications/initialized"})
    tools = {t["name"]: t for t in peer.request(1, "tools/list", {})["result"]["tools"]}
    # The context is no argument a client names.
    assert tools["report"]["inputSchema"] == {
        "type": "object", "properties": {"steps": {"type": "integer"}}, "required": ["steps"]}
    send({"id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 1.0}}})
    time.sleep(0.05)
    started = time.monotonic()
    assert peer.request(3, "ping", {}) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert time.monotonic() - started < 0.5  # not after the tool's 1 s
    send({"id": 4, "method": "tools/call",
          "params": {"name": "report", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}})
    progress = [peer.line(), peer.line()]
    assert [m["params"] for m in progress] == [
        {"progress": 1, "total": 2, "progressToken": "p"}, {"progress": 2, "total": 2, "progressToken": "p"}]
    assert peer.line()["result"]["content"][0]["text"] == "cancelled=False"
    answer = peer.request(5, "tools/call", {"name": "later", "arguments": {"text": "hi"}})
    assert answer["result"]["content"][0]["text"] == "HI"
    assert peer.line()["id"] == 2  # the slow tool, last
    peer.close()


def test_the_official_sdk_client_sees_pings_cancellation_and_the_servers_own_requests() -> None:
    """The `mcp` package's client (tests/mcp/sdk_client_context.py) against
    tests/mcp/context_server.py: pings answered at once while a 1.5 s tool
    runs, a call the SDK cancels on its read timeout seen by the tool as
    `context.cancelled` (and left unanswered, as MCP says), and sampling,
    elicitation and roots asked of the client and answered by the SDK's
    callbacks, with the log line and the progress on the way."""
    peers = REPO / "tests" / "mcp"
    subprocess.run(["bash", str(peers / "install-peers.sh")], check=True, capture_output=True, timeout=900)
    done = subprocess.run(
        [str(peers / ".venv" / "bin" / "python"), str(peers / "sdk_client_context.py"), "--",
         sys.executable, str(peers / "context_server.py")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    got = json.loads(done.stdout)
    assert max(got["ping_seconds"]) < 0.5, got  # not after the tool's 1.5 s
    assert got["slow"] == ["slept"] and got["slow_seconds"] >= 1.5
    assert got["timed_out"], got
    assert len(got["cancelled_calls"]) == 1, got
    assert "unanswered: the client cancelled it" in done.stderr
    assert got["ask_everything"] == {
        "sampled": "hi from the model",
        "elicited": {"action": "accept", "content": {"name": "Ada"}},
        "roots": ["file:///work/project"],
    }
    assert got["ask_is_error"] is False
    assert got["async_ask"] == ["hi from the model"]
    assert got["logged"] == ["sampled"]
    assert got["progress"] == [0.0, 1.0, 2.0, 3.0]
