"""wirekit against its peers, both directions and the serve loop over a pipe.

    python benches/python/bench.py [--quick]

Needs wirekit installed, plus jsonschema, fastjsonschema, orjson,
jsonschema-rs and msgspec (`pip install -r benches/python/requirements.txt`).
Prints Markdown tables (the `## python` section of BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import threading
import sys
import time
from pathlib import Path
from typing import Any, Callable

import wirekit

from peers import all_peers
from workload import analyze_result, response_body

HERE = Path(__file__).resolve().parent


def timed(call: Callable[[], Any], budget: float, least: int = 3) -> float:
    """Median CPU seconds per call (this thread's), within about `budget`
    seconds of wall time. CPU time rather than wall time: on a machine shared
    with other work, a call preempted half-way is not counted slower."""
    call()  # warm up
    samples: list[float] = []
    started = time.perf_counter()
    while len(samples) < least or (time.perf_counter() - started < budget and len(samples) < 200):
        begin = time.thread_time()
        call()
        samples.append(time.thread_time() - begin)
    return statistics.median(samples)


def directions(budget: float) -> list[tuple[str, float, float]]:
    result = analyze_result()
    body = response_body(result)
    gaze = wirekit.Protocol("gaze-analyzer")
    rows = [(
        "wirekit",
        timed(lambda: gaze.read_result("analyze", body), budget),
        timed(lambda: gaze.write_result("analyze", 1, result), budget),
    )]
    for name, (decode, encode) in all_peers().items():
        assert decode(body) is not None
        rows.append((name, timed(lambda: decode(body), budget), timed(lambda: encode(1, result), budget)))
    return rows


def serve_loop(name: str, small: int, large: int) -> tuple[float, float]:
    """(small requests a second, MB/s of large results) over a pipe."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "serve_peer.py"), name],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=str(HERE)),
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def ask(id: int, method: str, params: dict[str, Any]) -> bytes:
        stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n")
        stdin.flush()
        line = stdout.readline()
        assert b'"result"' in line[:64], line[:200]
        return line

    ask(1, "initialize", {"root_path": "/p"})
    for id in range(2, 12):  # warm up
        ask(id, "complexity", {"root_path": "/p", "patterns": None})
    begin = time.perf_counter()
    for id in range(100, 100 + small):
        ask(id, "complexity", {"root_path": "/p", "patterns": None})
    per_second = small / (time.perf_counter() - begin)
    ask(99, "analyze", {"root_path": "/p"})
    received = 0
    begin = time.perf_counter()
    for id in range(100_000, 100_000 + large):
        received += len(ask(id, "analyze", {"root_path": "/p", "patterns": ["./..."]}))
    megabytes = received / 1e6 / (time.perf_counter() - begin)
    ask(2_000_000, "shutdown", {})
    stdin.close()
    process.wait(timeout=30)
    return per_second, megabytes


def pipelined(name: str, count: int) -> float:
    """Small requests a second when the client does not wait for each answer:
    the server's own cost per request, without the pipe round trip."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "serve_peer.py"), name],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=str(HERE)),
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p"}}).encode() + b"\n")
    stdin.flush()
    stdout.readline()  # started and initialized: start-up is not timed
    batch = b"".join(
        json.dumps({"jsonrpc": "2.0", "id": id, "method": "complexity", "params": {"root_path": "/p", "patterns": None}}).encode()
        + b"\n"
        for id in range(2, 2 + count)
    )
    writer = threading.Thread(target=lambda: (stdin.write(batch), stdin.flush()))
    begin = time.perf_counter()
    writer.start()
    for _ in range(count):
        line = stdout.readline()
        assert b'"result"' in line[:64], line[:200]
    elapsed = time.perf_counter() - begin
    writer.join()
    stdin.close()
    process.wait(timeout=30)
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter runs (for a smoke test)")
    args = parser.parse_args()
    budget = 0.3 if args.quick else 2.0
    body = response_body(analyze_result())
    size = len(body)
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"wirekit {wirekit.__version__}")
    print(f"Workload: a Gaze `analyze` response, 1,000 functions x 3 side effects, {size / 1000:.0f} KB.\n")
    rows = directions(budget)
    baseline_decode, baseline_encode = next((d, e) for n, d, e in rows if n == "json + jsonschema")
    print("| bytes -> checked objects / objects -> checked bytes | decode ms | decode MB/s | vs json+jsonschema "
          "| encode ms | encode MB/s | vs json+jsonschema |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, decode, encode in rows:
        print(f"| {name} | {decode * 1e3:.2f} | {size / decode / 1e6:.0f} | {baseline_decode / decode:.0f}x "
              f"| {encode * 1e3:.2f} | {size / encode / 1e6:.0f} | {baseline_encode / encode:.0f}x |")
    by_name = {name: (decode, encode) for name, decode, encode in rows}
    wk_decode, wk_encode = by_name["wirekit"]
    print("\nGoals (issue 13), ratios of this run:")
    if "orjson + jsonschema-rs" in by_name:
        peer = by_name["orjson + jsonschema-rs"][0]
        print(f"- decode + validate: wirekit {peer / wk_decode:.2f}x orjson + jsonschema-rs (goal 1.5x)")
    if "msgspec (types only)" in by_name:
        peer = by_name["msgspec (types only)"][1]
        print(f"- validate + encode: wirekit {peer / wk_encode:.2f}x msgspec's encode (goal 1.0x)")
    small, large = (300, 5) if args.quick else (3000, 40)
    print("\n| serve loop over a pipe (median of 3 runs) | small requests/s | small requests/s, pipelined "
          "| large results MB/s |")
    print("| --- | ---: | ---: | ---: |")
    bursts: dict[str, float] = {}
    for name in ("wirekit", "orjson + jsonschema-rs", "json + jsonschema"):
        runs = [serve_loop(name, small, large if name != "json + jsonschema" else max(2, large // 10))
                for _ in range(3)]
        per_second = statistics.median(run[0] for run in runs)
        megabytes = statistics.median(run[1] for run in runs)
        bursts[name] = statistics.median(pipelined(name, small * 10) for _ in range(3))
        print(f"| {name} | {per_second:,.0f} | {bursts[name]:,.0f} | {megabytes:.1f} |")
    ratio = bursts["wirekit"] / bursts["orjson + jsonschema-rs"]
    print(f"\n- pipelined small requests: wirekit {ratio:.2f}x the orjson + jsonschema-rs loop (goal 1.2x)")


if __name__ == "__main__":
    main()
