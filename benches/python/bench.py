"""wirekit against its peers, both directions and the serve loop over a pipe.

    python benches/python/bench.py [--quick]

Needs wirekit installed, plus jsonschema, fastjsonschema, orjson,
jsonschema-rs and msgspec (`pip install -r benches/python/requirements.txt`).
Prints Markdown tables (the `## python` section of BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import marshal
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

from peers import PLAIN_MSGSPEC, all_peers, unchecked
from workload import analyze_result, response_body

HERE = Path(__file__).resolve().parent


def timed_together(calls: dict[str, Callable[[], Any]], budget: float, least: int = 3) -> dict[str, float]:
    """Median CPU seconds per call (this thread's) of each call, the calls
    taken in turn (one sample of each a round) for about `budget` seconds of
    wall time each. CPU time rather than wall time, and in turn rather than
    one after the other: on a machine shared with other work a call
    preempted half-way is not counted slower, and a change of load falls on
    every call alike, so the ratios of one run hold even when the figures
    swing. The order turns each round (see below)."""
    for call in calls.values():
        call()  # warm up
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    started = time.perf_counter()
    rounds = 0
    while rounds < least or (time.perf_counter() - started < budget * len(calls) and rounds < 200):
        # Each round starts one call further on, so every call follows each
        # of the others equally often: a call right after one that read the
        # same input finds it in the cache, and a fixed order would give
        # that head start to the same calls every round.
        for name in names[rounds % len(names):] + names[:rounds % len(names)]:
            begin = time.thread_time()
            calls[name]()
            samples[name].append(time.thread_time() - begin)
        rounds += 1
    return {name: statistics.median(taken) for name, taken in samples.items()}


def directions(budget: float) -> list[tuple[str, float, float]]:
    result = analyze_result()
    body = response_body(result)
    gaze = wirekit.Protocol("gaze-analyzer")
    decoders: dict[str, Callable[[], Any]] = {"wirekit": lambda: gaze.read_result("analyze", body)}
    encoders: dict[str, Callable[[], Any]] = {"wirekit": lambda: gaze.write_result("analyze", 1, result)}
    for name, (decode, encode) in {**all_peers(), **unchecked()}.items():
        assert decode(body) is not None
        decoders[name] = lambda decode=decode: decode(body)
        encoders[name] = lambda encode=encode: encode(1, result)
    # Not a peer: no JSON and no checks, the same objects built from (and
    # written to) marshal's binary form, about the least CPython can spend
    # building (freeing) them. A decode cannot be much faster than this.
    packed = marshal.dumps(result)
    decoders[FLOOR] = lambda: marshal.loads(packed)
    encoders[FLOOR] = lambda: marshal.dumps(result)
    # The slow pure-Python peer is timed on its own: in turn with the others,
    # its 0.2-0.5 s calls would leave them a handful of rounds each.
    slow = "json + jsonschema"
    slow_decode = decoders.pop(slow)
    slow_encode = encoders.pop(slow)
    decoded = timed_together(decoders, budget)
    encoded = timed_together(encoders, budget)
    decoded[slow] = timed_together({slow: slow_decode}, budget)[slow]
    encoded[slow] = timed_together({slow: slow_encode}, budget)[slow]
    order = ["wirekit", *all_peers(), *unchecked(), FLOOR]
    return [(name, decoded[name], encoded[name]) for name in order]


FLOOR = "marshal (floor: no JSON, no checks)"


def serve_loop(name: str, small: int, large: int, python: str = sys.executable) -> tuple[float, float]:
    """(small requests a second, MB/s of large results) over a pipe, the
    client waiting for each answer before it sends the next request."""
    process = subprocess.Popen(
        [python, str(HERE / "serve_peer.py"), name],
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


def server_cpu(pid: int) -> float | None:
    """The process's user + system CPU seconds so far (Linux `/proc`), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pipelined(name: str, count: int, python: str = sys.executable) -> tuple[float, float | None]:
    """Small requests a second when the client does not wait for each answer,
    and the server's CPU time per request (microseconds; None off Linux):
    the server's own cost per request, without the pipe round trip."""
    process = subprocess.Popen(
        [python, str(HERE / "serve_peer.py"), name],
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
    cpu_before = server_cpu(process.pid)
    begin = time.perf_counter()
    writer.start()
    for _ in range(count):
        line = stdout.readline()
        assert b'"result"' in line[:64], line[:200]
    elapsed = time.perf_counter() - begin
    cpu_after = server_cpu(process.pid)
    writer.join()
    stdin.close()
    process.wait(timeout=30)
    cpu = None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) / count * 1e6
    return count / elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter runs (for a smoke test)")
    args = parser.parse_args()
    budget = 0.3 if args.quick else 2.0
    body = response_body(analyze_result())
    size = len(body)
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"wirekit {wirekit.__version__}, commit {commit}; command: python benches/python/bench.py"
          f"{' --quick' if args.quick else ''}")
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
    print("\nGoals (issues 13 and 28), ratios of this run:")
    if "orjson + jsonschema-rs" in by_name:
        peer = by_name["orjson + jsonschema-rs"][0]
        print(f"- decode + validate: wirekit {peer / wk_decode:.2f}x orjson + jsonschema-rs (goal 1.5x)")
        floor = by_name[FLOOR][0]
        print(f"  (building the objects alone, {FLOOR}: {peer / floor:.2f}x orjson + jsonschema-rs;"
              f" the goal needs {peer / 1.5 * 1e3:.2f} ms, the floor is {floor * 1e3:.2f} ms)")
    if "orjson + jsonschema-rs" in by_name:
        peer = by_name["orjson + jsonschema-rs"][1]
        print(f"- validate + encode: wirekit {peer / wk_encode:.2f}x orjson + jsonschema-rs")
    plain = by_name[PLAIN_MSGSPEC][1]
    print(f"- validate + encode: wirekit {plain / wk_encode:.2f}x msgspec.json.encode of the same dicts,"
          " no schema (issue 28's goal 1.0x)")
    if "msgspec (types only)" in by_name:
        peer = by_name["msgspec (types only)"][1]
        print(f"  (and {peer / wk_encode:.2f}x msgspec's convert to Structs + encode, a validating peer)")
    small, large = (300, 5) if args.quick else (3000, 40)
    print("\n| serve loop over a pipe (median of 3 runs) | small requests/s | small requests/s, pipelined "
          "| server CPU µs per pipelined request | large results MB/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    bursts: dict[str, float] = {}
    for name in ("wirekit", "orjson + jsonschema-rs", "json + jsonschema"):
        runs = [serve_loop(name, small, large if name != "json + jsonschema" else max(2, large // 10))
                for _ in range(3)]
        per_second = statistics.median(run[0] for run in runs)
        megabytes = statistics.median(run[1] for run in runs)
        bursts_run = [pipelined(name, small * 10) for _ in range(3)]
        bursts[name] = statistics.median(rate for rate, _ in bursts_run)
        cpus = [cpu for _, cpu in bursts_run if cpu is not None]
        cpu_text = f"{statistics.median(cpus):.2f}" if cpus else "n/a"
        print(f"| {name} | {per_second:,.0f} | {bursts[name]:,.0f} | {cpu_text} | {megabytes:.1f} |")
    ratio = bursts["wirekit"] / bursts["orjson + jsonschema-rs"]
    print(f"\n- pipelined small requests: wirekit {ratio:.2f}x the orjson + jsonschema-rs loop (goal 1.2x)")


if __name__ == "__main__":
    main()
