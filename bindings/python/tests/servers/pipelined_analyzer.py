"""A Gaze analyzer for the pipelining tests: `complexity` answers at once
(and says so on stderr), `analyze` waits (at most 20 s) until the file
`<root_path>.go` exists and says in its answer whether it came, and
`discover` raises KeyboardInterrupt."""

from __future__ import annotations

import os
import sys
import time

from wirekit.gaze import Analyzer, types

app = Analyzer(name="pipelined", language="python", version="0.0.1")


@app.complexity
def complexity(params: types.ComplexityParams) -> types.ComplexityResult:
    print("complexity called", file=sys.stderr)
    return {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2}]}


@app.analyze
def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
    flag = params["root_path"] + ".go"
    deadline = time.monotonic() + 20
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.005)
    name = "released" if os.path.exists(flag) else "timed_out"
    return {"functions": [{"name": name, "package": "p", "file": "p.py", "line": 1, "side_effects": []}]}


@app.discover
def discover(params: types.DiscoverParams) -> types.DiscoverResult:
    raise KeyboardInterrupt


if __name__ == "__main__":
    app.run()
