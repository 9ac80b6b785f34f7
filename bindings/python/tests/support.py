"""Shared paths and helpers: the repository's test vectors and servers spoken to over real pipes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

#: Lines the session prints in its summary (conftest's `pytest_terminal_summary`):
#: one line a suite that counts cases, such as the JSON-Schema-Test-Suite's.
SUMMARY: list[str] = []

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "tests" / "vectors"
SERVERS = Path(__file__).resolve().parent / "servers"
SAMPLE = REPO / "examples" / "python-analyzer" / "sample"


def load_cases(folder: str) -> list[tuple[str, dict[str, Any]]]:
    """Every case of `tests/vectors/<folder>/*.json` as (file/name, case)."""
    cases = []
    for path in sorted((VECTORS / folder).glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            cases.append((f"{path.stem}/{case['name']}", case))
    return cases


def default_sigint() -> None:
    """In the child, before exec: SIGINT back to its default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Peer:
    """A server process spoken to over its stdin and stdout pipes.

    A watchdog kills it after `deadline` seconds, so a server that stops
    answering fails the test (end of output) instead of hanging it.
    """

    def __init__(self, command: list[str], deadline: float = 120) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            # A test runner started in the background (as CI may be) inherits
            # SIGINT ignored, and Python then installs no Ctrl-C handler: give
            # the server the disposition a terminal would.
            preexec_fn=default_sigint,
        )
        self.watchdog = threading.Timer(deadline, self.process.kill)
        self.watchdog.daemon = True
        self.watchdog.start()

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def line(self) -> dict[str, Any]:
        """The next NDJSON answer, parsed."""
        assert self.process.stdout is not None
        raw = self.process.stdout.readline()
        assert raw.endswith(b"\n"), "the server closed stdout without answering"
        answer: dict[str, Any] = json.loads(raw)
        return answer

    def request(self, id: Any, method: str, params: Any = None, *, with_params: bool = True) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if with_params:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")
        return self.line()

    def read_exactly(self, count: int) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.read(count)

    def close(self, timeout: float = 30) -> tuple[int, bytes, str]:
        """Closes stdin; returns the exit code, the rest of stdout, and stderr."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        finally:
            self.watchdog.cancel()
        return self.process.returncode, out, err.decode("utf-8", "replace")


PYTHON = sys.executable


def mcp_session(server: Any, *calls: tuple[str, Any], version: str) -> list[dict[str, Any]]:
    """Serves an MCP `initialize` at `version`, `notifications/initialized`
    and `calls` (ids from 1) through `server.serve_bytes`; every line the
    server wrote, in order (answers and notifications)."""
    lines: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for i, (method, params) in enumerate(calls, start=1):
        line: dict[str, Any] = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            line["params"] = params
        lines.append(line)
    out = server.serve_bytes("".join(json.dumps(line) + "\n" for line in lines).encode())
    return [json.loads(line) for line in out.decode().splitlines()]
