"""The example Python analyzer on a big project: pip's own source.

Drives `gaze-analyzer-python --stdio` through one session the way
`gaze crap` does (initialize, complexity, test_mapping, analyze,
classify_signals) plus doc_coverage, discover and an `analyze` asked for
three files, and prints the wall time of each call as a Markdown table.
`coverage` (which runs the project's tests) is left out unless asked for.

    pip download --no-binary :all: --no-deps pip -d /tmp/gaze-bench
    tar xzf /tmp/gaze-bench/pip-*.tar.gz -C /tmp/gaze-bench
    nice -n 10 .venv/bin/python benches/gaze/pip_session.py /tmp/gaze-bench/pip-26.3

`--analyzer-src DIR` runs the analyzer package from DIR instead of the
installed one (to measure an older version of the example beside this one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the project (pip's unpacked sdist)")
    parser.add_argument("--analyzer-src", type=Path, help="run gaze_analyzer_python from this folder")
    parser.add_argument("--with-coverage", action="store_true", help="also time `coverage` (runs the tests)")
    args = parser.parse_args()
    root = str(args.root.resolve())
    env = dict(os.environ)
    if args.analyzer_src:
        env["PYTHONPATH"] = str(args.analyzer_src.resolve())
    process = subprocess.Popen(
        [sys.executable, "-m", "gaze_analyzer_python", "--stdio"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    next_id = 0

    def call(method: str, params: Any) -> tuple[float, Any]:
        nonlocal next_id
        next_id += 1
        request = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}
        start = time.perf_counter()
        process.stdin.write(json.dumps(request).encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        answer = json.loads(process.stdout.readline())  # type: ignore[union-attr]
        elapsed = time.perf_counter() - start
        if "error" in answer:
            raise SystemExit(f"{method}: {answer['error']}")
        return elapsed, answer["result"]

    everything = {"root_path": root, "patterns": ["./..."]}
    sources = sorted(str(p.relative_to(root)) for p in Path(root, "src").rglob("*.py"))
    three = {"root_path": root, "patterns": sources[:3]}
    calls: list[tuple[str, str, dict[str, Any]]] = [("initialize", "initialize", {"root_path": root})]
    if args.with_coverage:
        calls.append(("coverage", "coverage", everything))
    calls += [
        ("complexity", "complexity", everything),
        ("test_mapping", "test_mapping", everything),
        ("analyze", "analyze", everything),
        ("classify_signals", "classify_signals", everything),
        ("doc_coverage", "doc_coverage", everything),
        ("discover", "discover", {"root_path": root}),
        ("analyze (3 files)", "analyze", three),
        ("complexity (again)", "complexity", everything),
    ]
    print(f"| call | seconds | items |\n| --- | ---: | ---: |")
    for label, method, params in calls:
        elapsed, result = call(method, params)
        items = next((len(v) for v in result.values() if isinstance(v, list)), "")
        print(f"| {label} | {elapsed:.2f} | {items} |", flush=True)
    process.stdin.close()
    process.wait(timeout=60)


if __name__ == "__main__":
    main()
