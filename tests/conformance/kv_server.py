#!/usr/bin/env python3
"""The tests' key-value store (tests/conformance/kv/1) in plain Python, no
wirekit: with no argument it does everything the protocol asks and the whole
battery of `wirekit conformance` passes; `--fault unchecked-length` stores a
value of any length, where the schema says at most 256 characters, which only
a probe past the upper bound (maxLength+1) finds (issue 43); `--fault
ignores-exit` exits only at the end of its input, not on `exit`;
`--fault not-found-as-result` answers `kv/get` of a key never put with an
empty value instead of the NOT_FOUND error the manifest's example shows;
`--fault silent-watch` never sends the kv/changed that kv/put `notifies`.
"""

import json
import sys

FAULTS = {
    "unchecked-length": "kv/put accepts a value longer than 256 characters",
    "ignores-exit": "keeps running after exit, until the end of its input",
    "not-found-as-result": "kv/get of a key never put answers a result",
    "silent-watch": "kv/put of a watched key sends no kv/changed",
}
MAX_LINE = 1048576
fault = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--fault" else None
if fault is not None and fault not in FAULTS:
    sys.exit(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")

state = "uninitialized"
values = {}
watched = set()
METHODS = ("initialize", "kv/put", "kv/get", "kv/watch", "shutdown")
ALLOWED = {"initialize": "uninitialized", "kv/put": "ready", "kv/get": "ready", "kv/watch": "ready", "shutdown": "ready"}


def write(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_key(params):
    key = params.get("key")
    if "key" not in params:
        return "key is required"
    if not isinstance(key, str):
        return "key must be a string"
    if not 1 <= len(key) <= 64:
        return "key must have 1 to 64 characters"
    return None


def check_params(method, params):
    """The params' problem, or None."""
    if method == "shutdown" and params is None:
        return None
    if not isinstance(params, dict):
        return "params must be an object"
    if method == "initialize":
        if not isinstance(params.get("client"), str):
            return "client is required and must be a string"
        return None
    if method == "shutdown":
        return None
    problem = check_key(params)
    if problem or method != "kv/put":
        return problem
    if not isinstance(params.get("value"), str):
        return "value is required and must be a string"
    if len(params["value"]) > 256 and fault != "unchecked-length":
        return "value must have at most 256 characters"
    return None


def handle(request):
    """The answers to one message (a notification gets none)."""
    global state
    rid = request.get("id")
    method = request.get("method")
    if request.get("jsonrpc") != "2.0" or not isinstance(method, str) or (
            "id" in request and not (isinstance(rid, str) or is_int(rid))):
        return [error(rid if isinstance(rid, str) or is_int(rid) else None, -32600, "Invalid Request")]
    params = request.get("params")
    if "id" not in request:
        if method == "exit" and state == "shutting_down" and fault != "ignores-exit":
            sys.exit(0)
        return []
    if method not in METHODS:
        return [error(rid, -32601, f"Method not found: {method}")]
    if state != ALLOWED[method]:
        return [error(rid, -32002, f"{method} is not allowed in state {state}")]
    problem = check_params(method, params)
    if problem:
        return [error(rid, -32602, f"invalid params for `{method}`: {problem}")]
    if method == "initialize":
        state = "ready"
        return [{"jsonrpc": "2.0", "id": rid, "result": {"server": "kv"}}]
    if method == "shutdown":
        state = "shutting_down"
        return [{"jsonrpc": "2.0", "id": rid, "result": None}]
    key = params["key"]
    if method == "kv/watch":
        watched.add(key)
        return [{"jsonrpc": "2.0", "id": rid, "result": {}}]
    if method == "kv/get":
        if key not in values and fault == "not-found-as-result":
            return [{"jsonrpc": "2.0", "id": rid, "result": {"value": ""}}]
        if key not in values:
            return [error(rid, -32004, f"no value under `{key}`")]
        return [{"jsonrpc": "2.0", "id": rid, "result": {"value": values[key][0]}}]
    version = values.get(key, ("", 0))[1] + 1
    values[key] = (params["value"], version)
    answers = [{"jsonrpc": "2.0", "id": rid, "result": {"version": version}}]
    if key in watched and fault != "silent-watch":
        answers.append({"jsonrpc": "2.0", "method": "kv/changed", "params": {"key": key, "version": version}})
    return answers


def main():
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline(MAX_LINE + 2)
        if not line:
            break
        if len(line) > MAX_LINE + 1 or (len(line) == MAX_LINE + 1 and not line.endswith(b"\n")):
            while line and not line.endswith(b"\n"):  # skip the rest of the line
                line = stdin.readline(65536)
            write(error(None, -32600, "FrameTooLong: line exceeds the frame bound"))
            continue
        text = line.strip()
        if not text:
            continue
        try:
            request = json.loads(text)
        except ValueError:
            write(error(None, -32700, "Parse error"))
            continue
        if not isinstance(request, dict):
            write(error(None, -32600, "Invalid Request: not an object"))
            continue
        for answer in handle(request):
            write(answer)


if __name__ == "__main__":
    main()
