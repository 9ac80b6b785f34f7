"""A Gaze analyzer for the Gaze-host tests, one behaviour per case:

* `stream-fails-first`: analyze/stream raises before its first item.
* `stream-fails-midway`: analyze/stream yields two functions, then raises.
* `stream-invalid-item`: analyze/stream yields a function whose `line` is a string.
* `classify`: analyze/stream and classify_signals (streaming left to the helper).
* `classify-forced`: the same with `streaming=True`.
* `huge`: a batch analyze of about 11 MB and an analyze/stream of the same functions.
* `huge-classify`: the same with classify_signals (streaming left to the helper).
* `batch-only`: only a batch analyze (the helper derives analyze/stream from it).
* `slow-classify`: `classify` whose analysis takes 1.5 s, with 0.3 s to measure it at initialize.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

from wirekit.gaze import Analyzer, types

case = sys.argv[1]
app = Analyzer(name="cases", language="python", streaming=True if case == "classify-forced" else None)


runs: list[int] = []
if case == "slow-classify":
    app.measure_budget = 0.3


def function(i: int) -> types.AnalyzedFunction:
    return {"name": f"function_{i:06d}", "package": "a.long.package.name",
            "file": "a/long/package/name/module.py", "line": i + 1,
            "side_effects": [{"type": "ReturnValue", "description": "returns a value"}]}


def analyze_stream(params: types.AnalyzeParams) -> Iterator[Any]:
    if case == "stream-fails-first":
        raise RuntimeError("cannot read the project")
    if case == "stream-invalid-item":
        yield function(0)
        yield dict(function(1), line="two")
        return
    if case == "slow-classify":
        time.sleep(1.5)
        runs.append(1)
        print(f"cases: analysis run {len(runs)}", file=sys.stderr)
    count = 60_000 if case.startswith("huge") else 2
    for i in range(count):
        yield function(i)
    if case == "stream-fails-midway":
        raise RuntimeError("the parser died on c.py")


if case == "batch-only":

    @app.analyze
    def analyze_batch(params: types.AnalyzeParams) -> types.AnalyzeResult:
        return {"functions": [function(i) for i in range(3)]}

else:
    app.analyze_stream(analyze_stream)


if case.startswith("huge"):

    @app.analyze
    def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
        return {"functions": [function(i) for i in range(60_000)]}


@app.complexity
def complexity(params: types.ComplexityParams) -> types.ComplexityResult:
    return {"functions": []}


@app.coverage
def coverage(params: types.CoverageParams) -> types.CoverageResult:
    return {"functions": []}


if case.startswith("classify") or case in ("huge-classify", "slow-classify"):

    @app.classify_signals
    def classify_signals(params: types.ClassifySignalsParams) -> types.ClassifySignalsResult:
        return {"signals": [{"function": "function_000000", "package": "a.long.package.name",
                             "side_effect_type": "ReturnValue", "source": "docstring", "weight": 10}]}


if __name__ == "__main__":
    outcome = app.run()
    print(f"cases: run() returned {outcome}", file=sys.stderr)
