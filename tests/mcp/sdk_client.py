"""The official MCP Python SDK's stdio client (PyPI `mcp`) talking to a server.

    tests/mcp/.venv/bin/python tests/mcp/sdk_client.py -- <server command...>

Spawns the server, initializes, lists and calls its tools, reads its
resources, gets its prompts and pings it, through the SDK's own session
(which checks every answer with its pydantic models), and prints one JSON
object of what it got. Run by bindings/python/tests/test_mcp.py with the
interpreter tests/mcp/install-peers.sh prepares.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(command: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        added = await session.call_tool("add", {"a": 2, "b": 3})
        failed = await session.call_tool("divide", {"a": 1, "b": 0})
        resources = await session.list_resources()
        readme = await session.read_resource("memo://readme")
        prompts = await session.list_prompts()
        prompt = await session.get_prompt("explain", {"operation": "add"})
        await session.send_ping()
        return {
            "protocol_version": init.protocol_version,
            "server": init.server_info.name,
            "capabilities": init.capabilities.model_dump(by_alias=True, exclude_none=True),
            "tools": sorted(t.name for t in tools.tools),
            "add": [c.text for c in added.content if c.type == "text"],
            "add_is_error": added.is_error,
            "divide_is_error": failed.is_error,
            "divide": [c.text for c in failed.content if c.type == "text"],
            "resources": [str(r.uri) for r in resources.resources],
            "readme": [getattr(c, "text", None) for c in readme.contents],
            "prompts": [p.name for p in prompts.prompts],
            "prompt": [m.content.text for m in prompt.messages if m.content.type == "text"],
        }


if __name__ == "__main__":
    argv = sys.argv[1:]
    command = argv[argv.index("--") + 1:] if "--" in argv else argv
    print(json.dumps(anyio.run(main, command)))
