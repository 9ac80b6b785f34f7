"""A hand-written server of the key-value protocol `wirekit init` writes
(stdlib only, NDJSON, JSON-RPC 2.0), for the CLI's tests of a protocol of
one's own. `--internal-error`: `get` of a missing key is answered -32603
(not a declared error) after a line on stderr; otherwise NOT_FOUND (-32004),
the error the protocol declares for it."""

import json
import sys

internal = "--internal-error" in sys.argv
values = {}


def answer(request, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": request["id"]}
    if error is None:
        message["result"] = result
    else:
        message["error"] = error
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        answer(request, {"server": {"name": "own", "version": "1"}})
    elif method == "put":
        version = values.get(params["key"], ("", 0))[1] + 1
        values[params["key"]] = (params["value"], version)
        answer(request, {"version": version})
    elif method == "get":
        if params["key"] in values:
            value, version = values[params["key"]]
            answer(request, {"value": value, "version": version})
        elif internal:
            print("boom: the store failed", file=sys.stderr, flush=True)
            answer(request, error={"code": -32603, "message": "internal error"})
        else:
            answer(request, error={"code": -32004, "message": "no value"})
    elif method == "shutdown":
        answer(request, {})
        break
    else:
        answer(request, error={"code": -32601, "message": "method not found"})
