"""A `wirekit.mcp` server whose tools use the call's context: a slow tool
that watches for cancellation, tools that ask the client (sampling,
elicitation, roots), log and report progress. The official SDK's client
(tests/mcp/sdk_client_context.py) drives it."""

from __future__ import annotations

import json
import time

from wirekit.mcp import Context, Server

server = Server("wirekit-context", "1.0.0")
seen_cancelled: list[str] = []


@server.tool()
def slow(seconds: float, context: Context) -> str:
    """Sleeps in steps, stopping when the client cancels."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if context.cancelled:
            seen_cancelled.append(str(context.id))
            return "cancelled"
        time.sleep(0.01)
    return "slept"


@server.tool()
def cancelled_calls() -> str:
    """The ids of the calls `slow` saw cancelled."""
    return json.dumps(seen_cancelled)


@server.tool()
def ask_everything(context: Context) -> str:
    """Asks the client's model, the user and the roots, logging and
    reporting progress on the way."""
    context.report_progress(0, 3, "sampling")
    sampled = context.sample("Say hi", max_tokens=10)
    context.log("info", "sampled")
    context.report_progress(1, 3, "eliciting")
    elicited = context.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    context.report_progress(2, 3, "roots")
    roots = context.list_roots()
    context.report_progress(3, 3)
    return json.dumps({"sampled": sampled["content"]["text"], "elicited": elicited, "roots": [r["uri"] for r in roots]})


@server.tool()
async def async_ask(context: Context) -> str:
    """The same question from an `async def` tool."""
    sampled = await context.asample("Say hi again")
    return str(sampled["content"]["text"])


if __name__ == "__main__":
    server.run()
