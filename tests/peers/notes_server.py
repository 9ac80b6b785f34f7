"""A notes server (tests/protocols/notes@1) in the standard library only:
`open` answers a random session id, and `put`, `get` and `close` must name
an open one (else UNKNOWN_SESSION, -32001)."""

import json
import sys
import uuid

sessions: dict[str, dict[str, str]] = {}


def answer(request: dict, result: object = None, error: object = None) -> None:
    message = {"jsonrpc": "2.0", "id": request["id"]}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    params = request.get("params") or {}
    method = request["method"]
    if method == "open":
        session = uuid.uuid4().hex
        sessions[session] = {}
        answer(request, {"session": session})
        continue
    notes = sessions.get(params.get("session", ""))
    if notes is None:
        answer(request, error={"code": -32001, "message": f"no open session {params.get('session')!r}"})
    elif method == "put":
        notes[params["key"]] = params["text"]
        answer(request, {"ok": True})
    elif method == "get":
        answer(request, {"text": notes.get(params["key"])})
    elif method == "close":
        del sessions[params["session"]]
        answer(request, {"ok": True})
    else:
        answer(request, error={"code": -32601, "message": f"unknown method {method}"})
