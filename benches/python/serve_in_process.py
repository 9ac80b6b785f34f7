"""The serve loop's own work per small request, without pipes or processes.

    python benches/python/serve_in_process.py [--count N] [--rounds N]

wirekit's Rust serve loop (`wirekit.gaze.Analyzer.serve_bytes`) answers
`--count` `complexity` requests held in memory, beside the minimal orjson +
jsonschema-rs loop (serve_peer.py's `peer_loop`) reading the same lines
from an `io.BytesIO`; the two take turns for `--rounds` rounds. Thread CPU time; the
best and the median round, per request. Both give the same answers (checked
before timing). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from typing import Callable

from serve_peer import handlers, peer_loop
from wirekit.gaze import Analyzer


def requests(count: int) -> bytes:
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p"}}]
    lines += [
        {"jsonrpc": "2.0", "id": id, "method": "complexity", "params": {"root_path": "/p", "patterns": None}}
        for id in range(2, 2 + count)
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def wirekit_server(data: bytes) -> Callable[[], bytes]:
    app = Analyzer(name="bench", language="python")
    for name, handler in handlers().items():
        app.register(name, handler)
    return lambda: app.serve_bytes(data)


def peer_server(data: bytes) -> Callable[[], bytes]:
    serve = peer_loop("orjson + jsonschema-rs")

    def run() -> bytes:
        out = io.BytesIO()
        serve(io.BytesIO(data), out)
        return out.getvalue()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    data = requests(args.count)
    servers = {"wirekit serve loop": wirekit_server(data), "orjson + jsonschema-rs loop": peer_server(data)}
    answers = {name: serve().split(b"\n")[1:] for name, serve in servers.items()}
    first, second = answers.values()
    assert first == second, "the two servers answer the complexity requests alike"
    taken: dict[str, list[float]] = {name: [] for name in servers}
    for _ in range(args.rounds):
        for name, serve in servers.items():
            begin = time.thread_time()
            serve()
            taken[name].append((time.thread_time() - begin) / args.count * 1e6)
    best_peer = min(taken["orjson + jsonschema-rs loop"])
    print(f"{args.rounds} rounds of {args.count:,} requests, in process\n")
    print("| server | best µs/request | median | peer's best / this best |")
    print("| --- | ---: | ---: | ---: |")
    for name, samples in taken.items():
        print(f"| {name} | {min(samples):.2f} | {statistics.median(samples):.2f} | {best_peer / min(samples):.2f}x |")


if __name__ == "__main__":
    main()
