"""The analyzer: wirekit's Gaze helper with this package's measurements.

Run as `gaze-analyzer-python --stdio` (Gaze's PATH convention); it serves
stdin/stdout until `shutdown` or end of input.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Callable, Optional, TypeVar

from wirekit.gaze import Analyzer, types

from . import __version__
from .complexity import cyclomatic_complexity
from .coverage_run import FunctionCoverage, function_coverage, run_tests
from .docs import public_symbols, signals, snippet
from .effects import side_effects
from .project import Function, Project, SourceFile
from .assertions import map_tests

app = Analyzer(
    name="gaze-analyzer-python",
    language="python",
    version=__version__,
    language_version=platform.python_version(),
)

_coverage_cache: dict[Path, dict[Function, FunctionCoverage]] = {}
_projects: dict[Path, Project] = {}
T = TypeVar("T")


def project_of(root_path: str) -> Project:
    """The session's parsed project at `root_path`, refreshed: each file is
    parsed once per session, again only when its mtime or size changes."""
    root = Path(root_path).resolve()
    project = _projects.get(root)
    if project is None:
        project = _projects[root] = Project(root, on_parse=analyze_file)
    else:
        project.refresh()
    return project


def analyze_file(source: SourceFile) -> None:
    """Side effects and complexity of a source file's functions, computed
    once when it is parsed: every later call of the session reads them."""
    if source.is_test:
        return
    for function in source.functions:
        source.memo[("analyzed", function.line, function.name)] = analyzed(function)
        source.memo[("complexity", function.line, function.name)] = cyclomatic_complexity(function.node)


def memo(project: Project, function: Function, what: str, compute: Callable[[Function], T]) -> T:
    """`compute(function)`, kept with the function's file until it changes."""
    source = project.source_of(function)
    if source is None:
        return compute(function)
    key = (what, function.line, function.name)
    if key not in source.memo:
        source.memo[key] = compute(function)
    value: T = source.memo[key]
    return value


def analyzed_in(project: Project, function: Function) -> types.AnalyzedFunction:
    return memo(project, function, "analyzed", analyzed)


def analyzed(function: Function) -> types.AnalyzedFunction:
    effects: list[types.SideEffect] = []
    for effect in side_effects(function):
        effects.append(
            {
                "type": str(effect["type"]),
                "description": str(effect["description"]),
                "location": str(effect["location"]),
                "target": str(effect["target"]),
            }
        )
    return {
        "name": function.name,
        "package": function.package,
        "file": function.file,
        "line": function.line,
        "side_effects": effects,
    }


@app.analyze
def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
    project = project_of(params["root_path"])
    return {"functions": [analyzed_in(project, f) for f in project.functions(params.get("patterns"))]}


@app.analyze_stream
def analyze_stream(params: types.AnalyzeParams) -> Iterator[types.AnalyzedFunction]:
    project = project_of(params["root_path"])
    for function in project.functions(params.get("patterns")):
        yield analyzed_in(project, function)


@app.complexity
def complexity(params: types.ComplexityParams) -> types.ComplexityResult:
    project = project_of(params["root_path"])
    return {
        "functions": [
            {
                "name": f.name,
                "package": f.package,
                "file": f.file,
                "line": f.line,
                "complexity": memo(project, f, "complexity", lambda f: cyclomatic_complexity(f.node)),
            }
            for f in project.functions(params.get("patterns"))
        ]
    }


def measured_coverage(project: Project) -> dict[Function, FunctionCoverage]:
    cached = _coverage_cache.get(project.root)
    if cached is None:
        measured, code = run_tests(project.root)
        if code not in (0, 1, 5):
            print(f"gaze-analyzer-python: the test run exited with {code}", file=sys.stderr)
        cached = function_coverage(project, project.functions(), measured)
        _coverage_cache[project.root] = cached
    return cached


@app.coverage
def coverage(params: types.CoverageParams) -> types.CoverageResult:
    project = project_of(params["root_path"])
    by_key = {(f.file, f.name, f.line): c for f, c in measured_coverage(project).items()}
    functions: list[types.FunctionCoverage] = []
    for f in project.functions(params.get("patterns")):
        measured: Optional[FunctionCoverage] = by_key.get((f.file, f.name, f.line))
        covered, total = (measured.covered, measured.total) if measured else (0, 0)
        functions.append(
            {
                "file": f.file,
                "function": f.name,
                "start_line": f.line,
                "end_line": f.end_line,
                "covered_stmts": covered,
                "total_stmts": total,
                "percentage": measured.percentage if measured else 0.0,
            }
        )
    return {"functions": functions}


@app.test_mapping
def test_mapping(params: types.TestMappingParams) -> types.TestMappingResult:
    project = project_of(params["root_path"])
    mappings = map_tests(project, project.functions(params.get("patterns")))
    return {
        "mappings": [
            {
                "test_function": m.test,
                "test_file": m.test_file,
                "assertion_location": f"{m.test_file}:{m.line}",
                "assertion_type": m.assertion_type,
                "target_function": m.target.name,
                "target_package": m.target.package,
                "side_effect_type": m.side_effect_type,
                "confidence": m.confidence,
            }
            for m in mappings
        ]
    }


@app.discover
def discover(params: types.DiscoverParams) -> types.DiscoverResult:
    project = project_of(params["root_path"])
    tests = [f.relative for f in project.tests()]
    uses_pytest = any("pytest" in f.path.read_text(encoding="utf-8") for f in project.tests())
    return {
        "source_files": [f.relative for f in project.sources()],
        "test_files": tests,
        "framework": "pytest" if uses_pytest or not tests else "unittest",
    }


@app.doc_coverage
def doc_coverage(params: types.DocCoverageParams) -> types.DocCoverageResult:
    project = project_of(params["root_path"])
    symbols: list[types.SymbolDocStatus] = []
    for source in project.sources(params.get("patterns")):
        for symbol in public_symbols(source):
            status: types.SymbolDocStatus = {
                "name": symbol.name,
                "package": symbol.package,
                "file": symbol.file,
                "line": symbol.line,
                "kind": symbol.kind,
                "documented": symbol.docstring is not None,
            }
            if symbol.docstring:
                status["doc_snippet"] = snippet(symbol.docstring)
            symbols.append(status)
    return {"symbols": symbols}


@app.classify_signals
def classify_signals(params: types.ClassifySignalsParams) -> types.ClassifySignalsResult:
    project = project_of(params["root_path"])
    return {
        "signals": [
            {
                "function": s.function.name,
                "package": s.function.package,
                "side_effect_type": s.side_effect_type,
                "source": s.source,
                "weight": s.weight,
                "reasoning": s.reasoning,
            }
            for f in project.functions(params.get("patterns"))
            for s in memo(project, f, "signals",
                          lambda f: list(signals(f, analyzed_in(project, f)["side_effects"])))
        ]
    }


def main() -> None:
    """The console script: serve until shutdown or end of input, exit 0
    (130 on Ctrl-C)."""
    try:
        app.run()
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(0)


if __name__ == "__main__":
    main()
