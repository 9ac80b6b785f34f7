"""A minimal MCP 2025-11-25 server on the standard library alone, with one
tool `add(a: integer, b: integer)`: `wirekit conformance` must fail it when
it does not check the tool's arguments against the `inputSchema` it lists
(`python mcp_tool_server.py`), and pass it when it does
(`python mcp_tool_server.py --checks`, answering a result with `isError`
as SEP-1303 says)."""

import json
import sys

CHECKS = "--checks" in sys.argv
TOOL = {
    "name": "add",
    "description": "Adds two integers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def text(value, error=False):
    result = {"content": [{"type": "text", "text": str(value)}]}
    if error:
        result["isError"] = True
    return result


def call(params):
    arguments = params.get("arguments") or {}
    if params.get("name") != "add":
        raise LookupError(f"no tool {params.get('name')!r}")
    if CHECKS:
        for name in ("a", "b"):
            value = arguments.get(name)
            if not isinstance(value, int) or isinstance(value, bool):
                return text(f"`{name}` must be an integer", error=True)
    return text(arguments.get("a", 0) + arguments.get("b", 0) if CHECKS else repr(arguments))


def answer(message):
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        version = params.get("protocolVersion")
        return {"protocolVersion": version if version == "2025-11-25" else "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "add", "version": "1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        return call(params)
    raise NotImplementedError(method)


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}), flush=True)
        continue
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        continue
    try:
        reply = {"result": answer(message)}
    except NotImplementedError as missing:
        reply = {"error": {"code": -32601, "message": f"Method not found: {missing}"}}
    except (LookupError, TypeError, AttributeError) as bad:
        reply = {"error": {"code": -32602, "message": f"Invalid params: {bad}"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}), flush=True)
