"""The Python examples of the READMEs run as written: each block is started as
a server and answers a real session over pipes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
READMES = [REPO / "README.md", REPO / "bindings" / "python" / "README.md"]


def python_blocks() -> list[tuple[str, str]]:
    blocks = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for index, match in enumerate(re.finditer(r"```python\n(.*?)```", text, re.S)):
            blocks.append((f"{readme.relative_to(REPO)}#{index}", match.group(1)))
    return blocks


def content_length(body: str) -> bytes:
    data = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def read_content_length(stream: bytes) -> list[dict[str, object]]:
    answers = []
    while stream:
        header, _, rest = stream.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        answers.append(json.loads(rest[:length]))
        stream = rest[length:]
    return answers


BLOCKS = python_blocks()


def test_the_readmes_have_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("name,code", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_readme_example_serves_a_session(name: str, code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    if "serve_bytes(" in code:
        # Self-checking: serves its own bytes and asserts what came back.
        done = subprocess.run([sys.executable, str(script)], input=b"", capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        return
    if "wirekit.gzkit" in code:
        stdin = b"".join(
            content_length(json.dumps(m, separators=(",", ":")))
            for m in [
                {"id": 1, "method": "initialize", "params": {"clientVersion": "1.0"}},
                {"id": 2, "method": "analyze", "params": {"file_path": "/x.py"}},
                {"id": 3, "method": "shutdown", "params": {}},
            ]
        )
        done = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True, timeout=60)
        answers = read_content_length(done.stdout)
        assert answers[0] == {"id": 1, "result": {"version": "1.0", "capabilities": ["analyze"]}}, name
        assert answers[1] == {"id": 2, "result": {"hints": []}}, name
    elif "wirekit.mcp" in code:
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        ]
        stdin = "".join(json.dumps(r) + "\n" for r in requests).encode()
        done = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True, timeout=60)
        answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
        assert answers[0]["result"]["protocolVersion"] == "2025-06-18", name
        assert answers[0]["result"]["capabilities"] == {"logging": {}, "tools": {"listChanged": True}}, name
        assert answers[1]["result"]["content"] == [{"type": "text", "text": "5"}], name
    else:
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": str(tmp_path)}},
            {"jsonrpc": "2.0", "id": 2, "method": "complexity", "params": {"root_path": str(tmp_path), "patterns": None}},
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        ]
        stdin = "".join(json.dumps(r) + "\n" for r in requests).encode()
        done = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True, timeout=60)
        answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
        assert answers[0]["result"]["analyzer_name"] == "snake-eyes", name
        assert answers[0]["result"]["capabilities"]["discover"] is False, name
        functions = answers[1]["result"]["functions"]
        assert functions and functions[0]["complexity"] >= 1, name
    assert done.returncode == 0, done.stderr.decode()
    assert answers[-1]["result"] == {}, name
