"""wirekit.mcp beyond the basics: schemas from type hints, arguments and
structured output checked by the core, every kind of content, binary and
template resources, subscriptions, completions, logging and multi-message
prompts; each answer also validated against the official schema by the
core as it is sent (result_check="reject" would refuse an invalid one)."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest

import wirekit
from wirekit.mcp import Audio, Context, EmbeddedResource, Image, Message, ResourceLink, Server
from wirekit.mcp._hints import parameters_schema, schema_of

from support import mcp_session


def converse(server: Server, *calls: tuple[str, Any], version: str = "2025-11-25") -> list[dict[str, Any]]:
    """Every line the server wrote for initialize, initialized and `calls`."""
    return mcp_session(server, *calls, version=version)


def answer(lines: list[dict[str, Any]], id: int) -> dict[str, Any]:
    found = [line for line in lines if line.get("id") == id]
    assert len(found) == 1, lines
    return found[0]


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(TypedDict):
    x: float
    y: float


@dataclasses.dataclass
class Box:
    width: int
    label: str = "box"


def test_type_hints_become_the_schemas_a_client_relies_on() -> None:
    assert schema_of(list[float], "t") == {"type": "array", "items": {"type": "number"}}
    assert schema_of(Optional[str], "t") == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema_of(dict[str, int], "t") == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert schema_of(Literal["a", 1], "t") == {"enum": ["a", 1]}
    assert schema_of(Colour, "t") == {"enum": ["red", "blue"]}
    assert schema_of(tuple[int, str], "t") == {
        "type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}
    assert schema_of(set[str], "t") == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert schema_of(Point, "t") == {
        "type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "additionalProperties": False, "required": ["x", "y"]}
    assert schema_of(Box, "t") == {
        "type": "object", "properties": {"width": {"type": "integer"}, "label": {"type": "string", "default": "box"}},
        "additionalProperties": False, "required": ["width"]}
    assert schema_of(Annotated[int, "How many"], "t") == {"type": "integer", "description": "How many"}

    def tool(names: list[str], limit: int = 3, note: Optional[str] = None) -> str:
        return ""

    assert parameters_schema(tool, list(__import__("inspect").signature(tool).parameters.values())) == {
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer", "default": 3},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["names"],
    }
    with pytest.raises(TypeError, match=r"tool\(when\).*no JSON Schema"):
        server = Server("s", "1")

        @server.tool()
        def tool(when: complex) -> str:
            return ""


def test_arguments_are_checked_against_the_input_schema_before_the_tool_runs() -> None:
    calls: list[Any] = []
    server = Server("s", "1")

    @server.tool()
    def add(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    bad = {"name": "add", "arguments": {"a": "2", "b": "3"}}
    # 2025-11-25: a tool execution error the model can read (SEP-1303).
    lines = converse(server, ("tools/call", bad), ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}))
    refused = answer(lines, 1)["result"]
    assert refused["isError"] is True
    assert "/arguments/a" in refused["content"][0]["text"] and "/arguments/b" in refused["content"][0]["text"]
    assert answer(lines, 2)["result"]["content"] == [{"type": "text", "text": "5"}]
    assert calls == [(2, 3)]
    # 2025-06-18: -32602 with every issue and its pointer.
    lines = converse(server, ("tools/call", {"name": "add", "arguments": {"a": 1}}), version="2025-06-18")
    error = answer(lines, 1)["error"]
    assert error["code"] == -32602
    assert [e["pointer"] for e in error["data"]["errors"]] == ["/arguments/b"]
    assert calls == [(2, 3)]


def test_a_raw_input_schema_is_kept_exactly_and_enforced() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {"address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    }
    server = Server("s", "1")

    @server.tool(description="d", input_schema=schema)
    def where(**arguments: Any) -> str:
        return json.dumps(arguments)

    lines = converse(
        server, ("tools/list", None),
        ("tools/call", {"name": "where", "arguments": {"address": {"city": 7}}}),
        ("tools/call", {"name": "where", "arguments": {"other": 1}}),
        ("tools/call", {"name": "where", "arguments": {"address": {"city": "Oslo"}}}),
    )
    assert answer(lines, 1)["result"]["tools"][0]["inputSchema"] == schema
    assert "/arguments/address/city" in answer(lines, 2)["result"]["content"][0]["text"]
    assert "/arguments/other" in answer(lines, 3)["result"]["content"][0]["text"]
    assert answer(lines, 4)["result"]["isError"] is False
    with pytest.raises(ValueError, match="tool 'broken': the schema does not compile"):
        server.tool(name="broken", input_schema={"type": 7})(lambda: "")


def test_structured_output_is_declared_and_checked() -> None:
    server = Server("s", "1")

    @server.tool()
    def origin() -> Point:
        return {"x": 0.0, "y": 0.0}

    @server.tool()
    def wrong() -> Point:
        return {"x": "left", "y": 0.0}  # type: ignore[typeddict-item]

    lines = converse(server, ("tools/list", None), ("tools/call", {"name": "origin"}), ("tools/call", {"name": "wrong"}))
    tools = {t["name"]: t for t in answer(lines, 1)["result"]["tools"]}
    assert tools["origin"]["outputSchema"]["required"] == ["x", "y"]
    assert answer(lines, 2)["result"]["structuredContent"] == {"x": 0.0, "y": 0.0}
    error = answer(lines, 3)["error"]
    assert error["code"] == -32603
    assert "outputSchema refuses" in error["message"] and "/structuredContent/x" in error["message"]


def test_every_kind_of_content_is_sent_as_the_schema_says() -> None:
    server = Server("s", "1")

    @server.tool()
    def media() -> list[Any]:
        return ["see:", Image(b"\x89PNG"), Audio(b"RIFF", "audio/wav"),
                EmbeddedResource("mem://a", blob=b"\x00\x01", mime_type="application/octet-stream"),
                ResourceLink("mem://b", "b", mime_type="text/plain")]

    content = answer(converse(server, ("tools/call", {"name": "media"})), 1)["result"]["content"]
    assert [c["type"] for c in content] == ["text", "image", "audio", "resource", "resource_link"]
    assert content[1] == {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
    assert content[3]["resource"] == {"uri": "mem://a", "mimeType": "application/octet-stream", "blob": "AAE="}
    with pytest.raises(ValueError, match="exactly one"):
        EmbeddedResource("mem://c")


def test_resources_binary_templates_and_subscriptions() -> None:
    # One call at a time: each call sees the subscriptions before it.
    server = Server("s", "1", concurrency=1)

    @server.resource("mem://logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG"

    @server.resource("mem://users/{id}/profile", mime_type="application/json")
    def profile(id: str) -> str:
        return json.dumps({"id": id})

    @server.tool()
    def touch(context: Context) -> str:
        return str(server.resource_updated("mem://logo"))

    lines = converse(
        server,
        ("resources/read", {"uri": "mem://logo"}),
        ("resources/templates/list", None),
        ("resources/read", {"uri": "mem://users/7/profile"}),
        ("resources/read", {"uri": "mem://users/7/profile/x"}),
        ("tools/call", {"name": "touch"}),
        ("resources/subscribe", {"uri": "mem://logo"}),
        ("tools/call", {"name": "touch"}),
        ("resources/unsubscribe", {"uri": "mem://logo"}),
        ("tools/call", {"name": "touch"}),
    )
    assert answer(lines, 1)["result"]["contents"] == [{"uri": "mem://logo", "mimeType": "image/png", "blob": "iVBORw=="}]
    assert answer(lines, 2)["result"]["resourceTemplates"] == [
        {"uriTemplate": "mem://users/{id}/profile", "name": "profile", "mimeType": "application/json"}]
    assert json.loads(answer(lines, 3)["result"]["contents"][0]["text"]) == {"id": "7"}
    assert answer(lines, 4)["error"]["code"] == -32002
    assert [answer(lines, i)["result"]["content"][0]["text"] for i in (5, 7, 9)] == ["False", "True", "False"]
    updates = [line for line in lines if line.get("method") == "notifications/resources/updated"]
    assert updates == [{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "mem://logo"}}]


def test_prompts_return_several_messages_and_check_their_arguments() -> None:
    server = Server("s", "1")

    @server.prompt()
    def review(code: Annotated[str, "The code to review"], style: str = "short") -> list[Any]:
        """Reviews code."""
        return [Message(f"Review ({style}):"), Message(Image(b"x")), Message("Looks fine.", role="assistant")]

    lines = converse(
        server, ("prompts/list", None), ("prompts/get", {"name": "review", "arguments": {"code": "x = 1"}}),
        ("prompts/get", {"name": "review", "arguments": {}}),
        ("prompts/get", {"name": "review", "arguments": {"code": "x", "colour": "red"}}),
    )
    assert answer(lines, 1)["result"]["prompts"][0]["arguments"] == [
        {"name": "code", "required": True, "description": "The code to review"}, {"name": "style", "required": False}]
    got = answer(lines, 2)["result"]
    assert [m["role"] for m in got["messages"]] == ["user", "user", "assistant"]
    assert got["messages"][1]["content"]["type"] == "image"
    assert "missing required argument(s) code" in answer(lines, 3)["error"]["message"]
    assert "unknown argument(s) colour" in answer(lines, 4)["error"]["message"]


def test_completions_and_logging_levels() -> None:
    # One call at a time: each call sees the level set before it.
    server = Server("s", "1", concurrency=1)

    @server.completion()
    def complete(ref: dict[str, Any], argument: dict[str, Any]) -> list[str]:
        return [f"{argument['value']}{i}" for i in range(150)]

    @server.tool()
    def chatty(context: Context) -> str:
        sent = [context.log(level, level) for level in ("debug", "warning", "error")]
        return json.dumps(sent)

    lines = converse(
        server,
        ("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}}),
        ("tools/call", {"name": "chatty"}),
        ("logging/setLevel", {"level": "warning"}),
        ("tools/call", {"name": "chatty"}),
    )
    initialized = answer(lines, 0)["result"]["capabilities"]
    assert initialized["completions"] == {} and initialized["logging"] == {}
    completion = answer(lines, 1)["result"]["completion"]
    assert len(completion["values"]) == 100 and completion["total"] == 150 and completion["hasMore"] is True
    assert answer(lines, 2)["result"]["content"][0]["text"] == "[true, true, true]"
    assert answer(lines, 4)["result"]["content"][0]["text"] == "[false, true, true]"
    logged = [line["params"]["level"] for line in lines if line.get("method") == "notifications/message"]
    assert logged == ["debug", "warning", "error", "warning", "error"]
    with pytest.raises(ValueError, match="unknown logging level 'loud'"):
        server.log("loud", "x")


def test_a_context_request_the_client_cannot_answer_is_refused_before_it_is_sent() -> None:
    """The client declared no sampling capability: the core refuses the
    request (PeerError) instead of sending what the client must not get."""
    server = Server("s", "1")

    @server.tool()
    def ask(context: Context) -> str:
        try:
            context.sample("hello")
        except wirekit.PeerError as error:
            return f"{error.kind}"
        return "sent"

    assert answer(converse(server, ("tools/call", {"name": "ask"})), 1)["result"]["content"][0]["text"] == "refused"


def test_json_schema_validates_on_its_own() -> None:
    schema = wirekit.JsonSchema({"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}})
    assert schema.is_valid({"n": 3})
    issues = schema.validate({"n": 4}, "/arguments")
    assert [(i.instance_path, i.keyword) for i in issues] == [("/arguments/n", "maximum")]
    with pytest.raises(ValueError, match="does not compile"):
        wirekit.JsonSchema({"$ref": "#/$defs/missing"})
    with pytest.raises(wirekit.NotJsonError):
        schema.validate({"n": object()})


def test_the_example_of_docs_mcp_md_serves_as_it_says() -> None:
    """docs/mcp.md's example, run as written (without `server.run()`)."""
    from support import REPO

    text = (REPO / "docs" / "mcp.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert code.rstrip().endswith("server.run()")
    namespace: dict[str, Any] = {}
    exec(compile(code.replace("server.run()", ""), "docs/mcp.md", "exec"), namespace)  # noqa: S102
    server: Server = namespace["server"]
    lines = converse(
        server, ("tools/list", None),
        ("tools/call", {"name": "forecast", "arguments": {"city": "Oslo"}}),
        ("tools/call", {"name": "chart", "arguments": {"city": "Oslo"}, "_meta": {"progressToken": 1}}),
        ("resources/read", {"uri": "weather://cities/oslo/today"}),
    )
    tools = {t["name"]: t for t in answer(lines, 1)["result"]["tools"]}
    assert tools["forecast"]["inputSchema"]["properties"]["city"] == {"type": "string", "description": "The city"}
    assert tools["forecast"]["outputSchema"]["required"] == ["city", "celsius"]
    assert answer(lines, 2)["result"]["structuredContent"] == {"city": "Oslo", "celsius": 21.5}
    assert answer(lines, 3)["result"]["content"][0]["type"] == "image"
    methods = [line.get("method") for line in lines if "id" not in line]
    assert methods == ["notifications/progress", "notifications/message", "notifications/progress"]
    assert answer(lines, 4)["result"]["contents"][0]["text"] == '{"sky": "clear"}'


def test_a_list_that_changes_while_serving_is_announced() -> None:
    """A tool registered or removed while a client is served: the client is
    told with `notifications/tools/list_changed` (declared `listChanged`),
    and the next listing shows the change."""
    server = Server("s", "1", concurrency=1)

    @server.tool()
    def grow() -> str:
        @server.tool()
        def extra() -> str:
            return "extra"

        return "grown"

    @server.tool()
    def shrink() -> str:
        server.remove_tool("extra")
        return "shrunk"

    lines = converse(
        server, ("tools/call", {"name": "grow"}), ("tools/list", None),
        ("tools/call", {"name": "shrink"}), ("tools/list", None),
    )
    assert answer(lines, 0)["result"]["capabilities"]["tools"] == {"listChanged": True}
    changed = [line for line in lines if line.get("method") == "notifications/tools/list_changed"]
    assert len(changed) == 2, lines
    assert [t["name"] for t in answer(lines, 2)["result"]["tools"]] == ["grow", "shrink", "extra"]
    assert [t["name"] for t in answer(lines, 4)["result"]["tools"]] == ["grow", "shrink"]
    # Before any session nobody is told, and nothing fails.
    quiet = Server("q", "1")
    quiet.tool(name="t")(lambda: "")
    quiet.remove_tool("t")
