"""An MCP server (stdio) built on wirekit.mcp: two tools, a resource, a prompt.

    python3 examples/mcp/server.py                      # the newest MCP version wirekit ships
    python3 examples/mcp/server.py --protocol-version 2025-06-18

`wirekit conformance --protocol mcp@2025-06-18 -- python3 examples/mcp/server.py --protocol-version 2025-06-18`
puts it through the battery; any MCP client (the official Python SDK's
`stdio_client`, an editor) can spawn it.
"""

from __future__ import annotations

import argparse
from typing import Optional

from wirekit.mcp import Server


def build(protocol_version: Optional[str] = None) -> Server:
    server = Server(
        "wirekit-example",
        "0.1.0",
        protocol_version=protocol_version,
        instructions="Adds integers and divides numbers.",
    )

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds two integers."""
        return a + b

    @server.tool()
    def divide(a: float, b: float) -> dict[str, float]:
        """Divides a by b; dividing by zero is the tool's error, not the protocol's."""
        if b == 0:
            raise ZeroDivisionError("cannot divide by zero")
        return {"quotient": a / b}

    @server.resource("memo://readme", name="readme")
    def readme() -> str:
        return "This server adds and divides."

    @server.prompt()
    def explain(operation: str, detail: str = "short") -> str:
        """Asks the model to explain an operation."""
        return f"Explain {operation} ({detail})."

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol-version", default=None)
    build(parser.parse_args().protocol_version).run()


if __name__ == "__main__":
    main()
