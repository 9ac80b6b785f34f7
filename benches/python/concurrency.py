"""The concurrent loop against the sequential one, from Python (issue 34).

    python benches/python/concurrency.py [--rounds N] [--count N] [--trips N]

One MCP 2025-11-25 server script, served by `Service(..., concurrency=C)`
with C = None (the sequential loop) and C = 16 (the concurrent loop), in
alternating rounds so a change of the machine's load falls on both alike.
Three workloads:
- pipelined: `--count` small `tools/call` requests written at once, the
  answers read as they come (requests a second);
- one by one: `--trips` `tools/call` requests, each sent after the last
  answer (round trips a second: the latency a client sees);
- 8 concurrent handlers of 100 ms each (wall time until the 8 answers).
Prints a Markdown table: the median of the rounds, and the concurrent
loop's median against the sequential loop's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional

SERVER = """
import sys, time
from wirekit import Service

concurrency = None if sys.argv[1] == "none" else int(sys.argv[1])
service = Service("mcp@2025-11-25", concurrency=concurrency)
service.method("initialize")(lambda params: {
    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
    "serverInfo": {"name": "bench", "version": "1"}})

@service.method("tools/call")
def call(params):
    if params["name"] == "sleep":
        time.sleep(0.1)
    return {"content": [{"type": "text", "text": "ok"}]}

service.run()
"""

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def call(id: int, name: str = "echo") -> bytes:
    return line({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})


class Server:
    def __init__(self, script: str, concurrency: Optional[int]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, script, "none" if concurrency is None else str(concurrency)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.process.stdin and self.process.stdout
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.stdin.write(line(INITIALIZE))
        self.stdout.readline()
        self.stdin.write(line(INITIALIZED))

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=30)


def pipelined(server: Server, count: int) -> float:
    data = b"".join(call(id) for id in range(1, count + 1))
    start = time.perf_counter()
    writer = threading.Thread(target=server.stdin.write, args=(data,))
    writer.start()
    for _ in range(count):
        server.stdout.readline()
    writer.join()
    return count / (time.perf_counter() - start)


def one_by_one(server: Server, trips: int) -> float:
    start = time.perf_counter()
    for id in range(1, trips + 1):
        server.stdin.write(call(id))
        server.stdout.readline()
    return trips / (time.perf_counter() - start)


def eight_sleepers(server: Server) -> float:
    start = time.perf_counter()
    server.stdin.write(b"".join(call(id, "sleep") for id in range(1, 9)))
    for _ in range(8):
        server.stdout.readline()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--trips", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "server.py")
        with open(script, "w") as file:
            file.write(SERVER)
        loops: dict[str, Optional[int]] = {"sequential": None, "concurrent (16)": 16}
        results: dict[str, dict[str, list[float]]] = {
            label: {"pipelined": [], "one by one": [], "8 x 100 ms": []} for label in loops
        }
        for _ in range(args.rounds):
            for label, concurrency in loops.items():
                server = Server(script, concurrency)
                results[label]["pipelined"].append(pipelined(server, args.count))
                results[label]["one by one"].append(one_by_one(server, args.trips))
                results[label]["8 x 100 ms"].append(eight_sleepers(server))
                server.close()
    print(f"{args.rounds} rounds; {args.count:,} pipelined, {args.trips:,} one by one\n")
    print("| loop | pipelined requests/s | round trips/s | 8 handlers of 100 ms: ms |")
    print("| --- | ---: | ---: | ---: |")
    medians = {label: {k: statistics.median(v) for k, v in r.items()} for label, r in results.items()}
    for label, m in medians.items():
        print(f"| {label} | {m['pipelined']:,.0f} | {m['one by one']:,.0f} | {m['8 x 100 ms']:,.0f} |")
    seq, con = medians["sequential"], medians["concurrent (16)"]
    print(
        f"| concurrent vs sequential | {con['pipelined'] / seq['pipelined']:.2f}x "
        f"| {con['one by one'] / seq['one by one']:.2f}x | {con['8 x 100 ms'] / seq['8 x 100 ms']:.2f}x |"
    )


if __name__ == "__main__":
    main()
