"""The official MCP Python SDK's client (PyPI `mcp`) against
tests/mcp/context_server.py: pings while a slow tool runs, a call it
cancels by its read timeout, and the server's own requests (sampling,
elicitation, roots) answered by the SDK's callbacks. Prints one JSON
object of what it saw.

    tests/mcp/.venv/bin/python tests/mcp/sdk_client_context.py -- <server command...>
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def sampling(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="hi from the model"), model="test-model"
    )


async def elicitation(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])


async def main(command: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=command[0], args=command[1:])
    logged: list[Any] = []
    progress: list[float] = []

    async def logging(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with stdio_client(params) as (read, write), ClientSession(
        read, write, sampling_callback=sampling, elicitation_callback=elicitation,
        list_roots_callback=roots, logging_callback=logging,
    ) as session:
        await session.initialize()
        await session.list_tools()
        pings: list[float] = []
        slow_result: list[str] = []

        async def run_slow() -> None:
            result = await session.call_tool("slow", {"seconds": 1.5})
            slow_result.extend(c.text for c in result.content if c.type == "text")

        started = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(run_slow)
            await anyio.sleep(0.2)
            for _ in range(3):
                before = time.monotonic()
                await session.send_ping()
                pings.append(time.monotonic() - before)
        slow_seconds = time.monotonic() - started

        timed_out = ""
        try:
            await session.call_tool("slow", {"seconds": 5}, read_timeout_seconds=0.3)
        except Exception as error:  # noqa: BLE001 - the SDK's timeout error, whatever its class
            timed_out = type(error).__name__
        await anyio.sleep(0.3)
        cancelled = await session.call_tool("cancelled_calls", {})
        asked = await session.call_tool("ask_everything", {}, progress_callback=on_progress)
        asked_async = await session.call_tool("async_ask", {})
        return {
            "ping_seconds": pings,
            "slow": slow_result,
            "slow_seconds": slow_seconds,
            "timed_out": timed_out,
            "cancelled_calls": json.loads(cancelled.content[0].text),
            "ask_everything": json.loads(asked.content[0].text),
            "ask_is_error": asked.is_error,
            "async_ask": [c.text for c in asked_async.content if c.type == "text"],
            "logged": logged,
            "progress": progress,
        }


if __name__ == "__main__":
    argv = sys.argv[1:]
    command = argv[argv.index("--") + 1:] if "--" in argv else argv
    print(json.dumps(anyio.run(main, command)))
