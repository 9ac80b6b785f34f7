#!/usr/bin/env python3
"""Hostile language servers for `wirekit lsp` (cli/tests/lsp_hostile.rs),
standard library only. One argument picks the behaviour:

  flood       after `initialized`, `window/logMessage` notifications without
              end (at most 60 s), and never an answer
  large       80 notifications of 15 MiB each, then a correct session
  wrong-id    answers `definition` to the id plus 1000
  many-uris   on open, diagnostics for the file, then for 10,000 other URIs
"""

import json
import sys
import threading
import time

MODE = sys.argv[1]
OUT = sys.stdout.buffer
LOCK = threading.Lock()


def write(data):
    with LOCK:
        OUT.write(data)
        OUT.flush()


def frame(message):
    message["jsonrpc"] = "2.0"
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return json.loads(stream.read(length))


def flood():
    line = frame({"method": "window/logMessage", "params": {"type": 4, "message": "x" * 1000}})
    chunk = line * 100
    ends = time.monotonic() + 60
    try:
        while time.monotonic() < ends:
            write(chunk)
    except (BrokenPipeError, OSError):
        return


def large():
    big = frame({"method": "window/logMessage", "params": {"type": 4, "message": "y" * (15 * 1024 * 1024)}})
    for _ in range(80):
        write(big)


def publish(uri, line):
    diagnostic = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}},
                  "message": "an error here", "severity": 1, "source": "hostile"}
    return frame({"method": "textDocument/publishDiagnostics",
                  "params": {"uri": uri, "version": None, "diagnostics": [diagnostic]}})


def main():
    stream = sys.stdin.buffer
    while True:
        message = read_message(stream)
        if message is None:
            return
        method = message.get("method")
        request_id = message.get("id")
        if method == "initialize":
            capabilities = {"textDocumentSync": 1, "definitionProvider": True, "documentSymbolProvider": True}
            write(frame({"id": request_id, "result": {"capabilities": capabilities}}))
        elif method == "initialized":
            if MODE == "flood":
                threading.Thread(target=flood, daemon=True).start()
            elif MODE == "large":
                large()
        elif method == "textDocument/didOpen" and MODE != "flood":
            uri = message["params"]["textDocument"]["uri"]
            chunks = [publish(uri, 1)]
            if MODE == "many-uris":
                chunks += [publish("file:///nowhere/f%d.py" % n, 0) for n in range(10000)]
            write(b"".join(chunks))
        elif method == "textDocument/definition" and MODE != "flood":
            uri = message["params"]["textDocument"]["uri"]
            location = {"uri": uri, "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}}
            answer_id = request_id + 1000 if MODE == "wrong-id" else request_id
            write(frame({"id": answer_id, "result": [location]}))
        elif method == "textDocument/documentSymbol":
            write(frame({"id": request_id, "result": []}))
        elif method == "shutdown":
            write(frame({"id": request_id, "result": None}))
        elif method == "exit":
            return
        elif request_id is not None and method is not None and MODE != "flood":
            write(frame({"id": request_id, "error": {"code": -32601, "message": "method not found"}}))


if __name__ == "__main__":
    main()
