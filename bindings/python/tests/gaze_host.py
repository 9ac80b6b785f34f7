"""A host that reads an analyzer the way Gaze's own client does.

Modelled on `internal/protocol/client.go` and `internal/adapter/sideeffect.go`
(gxmiranda/gaze, unbound-force/gaze):

* `NewClient`: stdout read by a `bufio.Scanner` whose buffer grows to
  10 MiB (`maxScanSize`); a line that does not fit, line feed included,
  fails `Scan` with `bufio.Scanner: token too long`, and nothing more is read.
* `Call`: writes one line, scans one line, unmarshals a Response, checks
  the id; the context's deadline kills the process.
* `CallStream` + `loadStreaming`: writes the request, then scans lines
  until EOF with no deadline; empty lines are skipped; each line is
  unmarshalled into an AnalyzedFunction and the first that fails ends the
  read with `malformed JSONL on line N: ... (content: <200 bytes>)`.
* `Close`: writes `shutdown` (errors ignored), closes stdin, waits for the
  process to exit without reading the reply.

The tests add what Gaze has not: a watchdog that kills the analyzer after
`hang_after` seconds and records it, so a hang fails the test instead of
blocking it.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from typing import Any, Optional

MAX_SCAN_SIZE = 10 * 1024 * 1024
"""Gaze's `maxScanSize`: the scanner's buffer, line feed included."""


class ScanError(Exception):
    """`bufio.Scanner` failed (`token too long`)."""


class HostError(Exception):
    """What Gaze would report."""


class GoScanner:
    """`bufio.Scanner` with `ScanLines` and a 10 MiB buffer."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.buffer = b""
        self.eof = False
        self.err: Optional[ScanError] = None

    def scan(self) -> Optional[bytes]:
        """The next line (CR dropped), None at EOF or after an error."""
        if self.err is not None:
            return None
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                return line[:-1] if line.endswith(b"\r") else line
            if self.eof:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line
                return None
            if len(self.buffer) >= MAX_SCAN_SIZE:
                self.err = ScanError("bufio.Scanner: token too long")
                return None
            chunk = os.read(self.stream.fileno(), min(1 << 20, MAX_SCAN_SIZE - len(self.buffer)))
            if not chunk:
                self.eof = True
            self.buffer += chunk


def unmarshal_analyzed_function(line: bytes) -> dict[str, Any]:
    """`json.Unmarshal(line, &protocol.AnalyzedFunction{})`: an object (or
    null) whose known members have their Go types; unknown members ignored."""
    try:
        value = json.loads(line)
    except ValueError as error:
        raise ValueError(f"invalid character: {error}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = {list: "array", str: "string", bool: "bool"}.get(type(value), "number")
        raise ValueError(f"json: cannot unmarshal {kind} into Go value of type protocol.AnalyzedFunction")
    expected: dict[str, type] = {"name": str, "package": str, "file": str, "line": int}
    for member, go_type in expected.items():
        if member in value and value[member] is not None and not isinstance(value[member], go_type):
            raise ValueError(f"json: cannot unmarshal into Go struct field AnalyzedFunction.{member}")
    effects = value.get("side_effects")
    if effects is not None and not isinstance(effects, list):
        raise ValueError("json: cannot unmarshal into Go struct field AnalyzedFunction.side_effects")
    return value


class GazeHost:
    """One analyzer session, driven as `gaze crap --analyzer` drives it."""

    def __init__(self, command: list[str], hang_after: float = 60) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.stdout = GoScanner(self.process.stdout)
        self.stderr = b""
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_reader.start()
        self.next_id = 0
        self.hung = False
        self._watchdog = threading.Timer(hang_after, self._kill_hung)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def _kill_hung(self) -> None:
        self.hung = True
        self.process.kill()

    def _write(self, method: str, params: Any) -> int:
        self.next_id += 1
        request: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise HostError(f"writing {method} request to analyzer stdin: write |1: broken pipe") from None
        return self.next_id

    def call(self, method: str, params: Any = None) -> dict[str, Any]:
        """`Client.Call`: the Response (check `error` before `result`)."""
        id = self._write(method, params)
        line = self.stdout.scan()
        if line is None:
            if self.stdout.err is not None:
                raise HostError(f"reading {method} response from analyzer: {self.stdout.err}")
            raise HostError(f"analyzer closed stdout while waiting for {method} response")
        response: dict[str, Any] = json.loads(line)
        if response.get("id") != id:
            raise HostError(f"response ID mismatch for {method}: expected {id}, got {response.get('id')}")
        return response

    def load_streaming(self, params: Any) -> list[dict[str, Any]]:
        """`CallStream` + `loadStreaming`: every function, or HostError."""
        self._write("analyze/stream", params)
        functions: list[dict[str, Any]] = []
        number = 0
        while (line := self.stdout.scan()) is not None:
            number += 1
            if not line:
                continue
            try:
                functions.append(unmarshal_analyzed_function(line))
            except ValueError as error:
                content = line[:200].decode("utf-8", "replace") + ("..." if len(line) > 200 else "")
                raise HostError(f"malformed JSONL on line {number}: {error} (content: {content})") from None
        if self.stdout.err is not None:
            raise HostError(f"reading analyze/stream response: {self.stdout.err}")
        return functions

    def initialize(self, root: str = "/project") -> dict[str, Any]:
        response = self.call("initialize", {"root_path": root})
        result: dict[str, Any] = response["result"]
        return result

    def close(self, wait: float = 30) -> int:
        """`Client.Close`: shutdown written (errors ignored), stdin closed,
        the exit awaited without reading the reply. Returns the exit code;
        raises HostError when the analyzer does not exit (Gaze would hang)."""
        try:
            self._write("shutdown", None)
        except HostError:
            pass
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            code = self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise HostError("Close hung: the analyzer did not exit") from None
        finally:
            self._watchdog.cancel()
        self._stderr_reader.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code
