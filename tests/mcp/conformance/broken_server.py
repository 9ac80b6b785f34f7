"""The everything server with one capability broken on purpose, so a test
proves the official suite sees what this server does (a judge that passes a
broken server proves nothing).

    python broken_server.py image|progress|logging|template|sampling
"""

from __future__ import annotations

import pathlib
import runpy
import sys
from typing import Any

from wirekit.mcp import Context, Server

fault = sys.argv[1] if len(sys.argv) > 1 else ""
example = pathlib.Path(__file__).resolve().parents[3] / "examples" / "mcp" / "everything_server.py"
namespace = runpy.run_path(str(example), run_name="everything")
server: Server = namespace["server"]

if fault == "image":
    # Text where an image content is due.
    @server.tool(name="test_image_content", description="Tests image content response")
    def no_image() -> str:
        return "no image here"

elif fault == "progress":
    # The progress notifications are never sent.
    @server.tool(name="test_tool_with_progress", description="Tests tool that reports progress notifications")
    def no_progress(context: Context) -> str:
        return "done"

elif fault == "logging":
    @server.tool(name="test_tool_with_logging", description="Tests tool that emits log messages during execution")
    def no_logging() -> str:
        return "done"

elif fault == "template":
    # The template is not substituted: every URI answers the same contents.
    @server.resource("test://template/{id}/data", name="template", mime_type="application/json")
    def fixed(id: str) -> dict[str, Any]:
        return {"contents": [{"uri": "test://template/0/data", "mimeType": "application/json", "text": "{}"}]}

elif fault == "sampling":
    # The client is never asked.
    @server.tool(name="test_sampling", description="Tests server-initiated sampling")
    def no_sampling(prompt: str) -> str:
        return "LLM response: made up"

else:
    sys.exit(f"broken_server.py: name the fault: image, progress, logging, template or sampling (not {fault!r})")

server.run()
