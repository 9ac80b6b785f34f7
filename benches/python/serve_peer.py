"""A Gaze analyzer serving the benchmark's handlers, with wirekit or with a peer.

    python serve_peer.py wirekit | "json + jsonschema" | "orjson + jsonschema-rs"

The peer servers are the minimal loop a Python author would write (read a
line, parse, check params, call, check the result, write); they skip the
lifecycle and the envelope checks that wirekit also does.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO, Callable

from workload import analyze_result, result_schema

BIG = analyze_result()
SMALL = {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2}]}


def handlers() -> dict[str, Any]:
    return {"analyze": lambda params: BIG, "complexity": lambda params: SMALL}


def serve_wirekit() -> None:
    from wirekit.gaze import Analyzer

    app = Analyzer(name="bench", language="python")
    for name, handler in handlers().items():
        app.register(name, handler)
    app.run()


def peer_loop(name: str) -> Callable[[BinaryIO, BinaryIO], None]:
    """The minimal loop of peer `name`, its validators built once: reads
    request lines from one stream and writes each answer to the other,
    flushed, until `shutdown` or the end of the input."""
    import jsonschema

    if name == "orjson + jsonschema-rs":
        import jsonschema_rs
        import orjson

        loads, dumps = orjson.loads, orjson.dumps
        make = jsonschema_rs.validator_for
    else:
        loads = json.loads

        def dumps(value: Any) -> bytes:
            return json.dumps(value, separators=(",", ":")).encode()

        make = jsonschema.Draft202012Validator
    params_schema = {
        "analyze": make(result_schema("AnalyzeParams")),
        "complexity": make(result_schema("ComplexityParams")),
        "initialize": make(result_schema("InitializeParams")),
    }
    result_schemas = {
        "analyze": make(result_schema("AnalyzeResult")),
        "complexity": make(result_schema("ComplexityResult")),
    }
    table = handlers()
    table["initialize"] = lambda params: {"capabilities": {}, "protocol_version": "1.1.0"}
    table["shutdown"] = lambda params: {}

    def serve(lines: BinaryIO, out: BinaryIO) -> None:
        for line in lines:
            message = loads(line)
            method = message["method"]
            params = message.get("params")
            if method in params_schema:
                params_schema[method].validate(params)
            result = table[method](params)
            if method in result_schemas:
                result_schemas[method].validate(result)
            out.write(dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + b"\n")
            out.flush()
            if method == "shutdown":
                break

    return serve


def serve_peer(name: str) -> None:
    peer_loop(name)(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    if sys.argv[1] == "wirekit":
        serve_wirekit()
    else:
        serve_peer(sys.argv[1])
