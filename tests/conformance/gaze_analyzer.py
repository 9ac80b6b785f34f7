#!/usr/bin/env python3
"""A Gaze analyzer (protocol 1.0.0) in plain Python, written for the tests of
`wirekit conformance`: with no argument it does everything the protocol asks
(lifecycle, params checks, the errors the manifest declares, a bounded line,
exit at the end of input) and the whole battery passes; `--fault NAME` breaks
exactly one thing (see FAULTS), and the test checks that the right check fails.
"""

import json
import sys
import time

FAULTS = {
    "wrong-type": "complexity's result has a string where the functions array goes",
    "missing-member": "initialize's result has no analyzer_name",
    "wrong-id": "analyze is answered with another id",
    "crash": "the process exits when coverage comes",
    "hang": "analyze is never answered",
    "stdout-noise": "a debug line on stdout before analyze's answer",
    "capability-not-served": "declares discover but answers it -32601",
    "accepts-early": "answers analyze before initialize",
    "malformed-error": "the error object of an unknown method has no message",
    "no-exit": "keeps running after shutdown and the end of input",
}

MAX_LINE = 10485759
fault = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--fault" else None
if fault is not None and fault not in FAULTS:
    sys.exit(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")

state = "uninitialized"
capabilities = {"discover": fault == "capability-not-served", "test_mapping": False, "classify_signals": False}
ANALYSIS = ("analyze", "complexity", "coverage")
OPTIONAL = ("discover", "test_mapping", "classify_signals")


def write(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(rid, code, message):
    if fault == "malformed-error" and code == -32601:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": code}}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def check_params(method, params):
    """The params' problem, or None."""
    if not isinstance(params, dict):
        return "params must be an object"
    if method in ("initialize",) + ANALYSIS + OPTIONAL:
        if "root_path" not in params:
            return "root_path is required"
        if not isinstance(params["root_path"], str):
            return "root_path must be a string"
    if method == "initialize" and "config" in params and not isinstance(params["config"], dict):
        return "config must be an object"
    if "patterns" in params and method != "initialize":
        patterns = params["patterns"]
        if patterns is not None and not (isinstance(patterns, list) and all(isinstance(p, str) for p in patterns)):
            return "patterns must be an array of strings or null"
    return None


def result_of(method):
    if method == "initialize":
        result = {"capabilities": capabilities, "protocol_version": "1.0.0", "analyzer_name": "conformance-test", "language": "python"}
        if fault == "missing-member":
            del result["analyzer_name"]
        return result
    if method == "complexity" and fault == "wrong-type":
        return {"functions": "none"}
    if method in ANALYSIS:
        return {"functions": []}
    if method == "discover":
        return {"source_files": [], "test_files": [], "framework": "unittest"}
    return {}


def handle(request):
    """The answer to one request (None for a notification)."""
    global state
    rid = request.get("id")
    method = request.get("method")
    params = request.get("params", {} if method != "shutdown" else None)
    if request.get("jsonrpc") != "2.0" or not isinstance(method, str):
        return error(rid if isinstance(rid, (int, str)) else None, -32600, "Invalid Request")
    if "id" not in request:
        return None
    if method == "shutdown":
        state = "shutdown"
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    if method not in ("initialize",) + ANALYSIS + OPTIONAL:
        return error(rid, -32601, f"Method not found: {method}")
    if method == "initialize" and state != "uninitialized":
        return error(rid, -32600, "initialize may be called only once per session")
    if method != "initialize" and state != "ready" and fault != "accepts-early":
        return error(rid, -32600, f"{method} is not allowed before initialize")
    if method in OPTIONAL and (not capabilities.get(method) or fault == "capability-not-served"):
        return error(rid, -32601, f"Method not found: {method}")
    problem = check_params(method, params)
    if problem:
        return error(rid, -32602, f"Invalid params: {problem}")
    if method == "initialize":
        state = "ready"
    if method == "coverage" and fault == "crash":
        sys.exit(3)
    if method == "analyze" and fault == "hang":
        time.sleep(3600)
    if method == "analyze" and fault == "stdout-noise":
        print("debug: analyzing", flush=True)
    if method == "analyze" and fault == "wrong-id":
        rid = rid + 1000 if isinstance(rid, int) else "other"
    return {"jsonrpc": "2.0", "id": rid, "result": result_of(method)}


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
        answer = handle(request)
        if answer is not None:
            write(answer)
    if fault == "no-exit":
        time.sleep(3600)


if __name__ == "__main__":
    main()
