"""A Gaze analyzer with misbehaving handlers, for the pipe tests.

`--warn` serves with result_check="warn".
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

from wirekit import RpcError
from wirekit.gaze import Analyzer, types

app = Analyzer(
    name="flaky",
    language="python",
    version="0.0.1",
    result_check="warn" if "--warn" in sys.argv else "reject",
)


@app.complexity
def complexity(params: types.ComplexityParams) -> types.ComplexityResult:
    print("stray print from complexity")
    sys.stdout.write("stray sys.stdout.write\n")
    os.write(1, b"stray write to descriptor 1\n")
    subprocess.run([sys.executable, "-c", "print('stray print from a child process')"], check=True)
    return {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1, "complexity": 2}]}


@app.analyze
def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
    raise ValueError(f"cannot analyze {params['root_path']}")


@app.coverage
def coverage(params: types.CoverageParams) -> types.CoverageResult:
    return {"functions": [{"file": "p.py", "function": "f", "start_line": "one"}]}  # type: ignore[typeddict-item]


@app.discover
def discover(params: types.DiscoverParams) -> types.DiscoverResult:
    raise RpcError("nothing to discover", code=-32000, data={"root": params["root_path"]})


@app.analyze_stream
def analyze_stream(params: types.AnalyzeParams) -> Iterator[types.AnalyzedFunction]:
    for line in (1, 2, 3):
        yield {"name": f"f{line}", "package": "p", "file": "p.py", "line": line, "side_effects": []}


if __name__ == "__main__":
    app.run()
