"""The analyzer's measurements on the sample project (`sample/`) and on small snippets."""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from gaze_analyzer_python.complexity import cyclomatic_complexity
from gaze_analyzer_python.coverage_run import function_coverage, run_tests
from gaze_analyzer_python.docs import public_symbols, signals
from gaze_analyzer_python.effects import side_effects
from gaze_analyzer_python.project import Function, Project, matches
from gaze_analyzer_python.assertions import map_tests

SAMPLE = Path(__file__).resolve().parents[1] / "sample"


def function_of(source: str, name: str = "f", *, method: bool = False) -> Function:
    tree = ast.parse(textwrap.dedent(source))
    names = frozenset(
        t.id for s in tree.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)
    )
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return Function(name, "m", "m.py", node, method, names)
    raise LookupError(name)


@pytest.fixture(scope="module")
def project() -> Project:
    return Project(SAMPLE)


def test_sample_files_are_split_into_sources_and_tests(project: Project) -> None:
    assert [f.relative for f in project.sources()] == ["mathops/__init__.py", "mathops/ops.py"]
    assert [f.relative for f in project.tests()] == ["tests/__init__.py", "tests/test_ops.py"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(x):\n    return x\n", 1),
        ("def f(x):\n    if x:\n        return 1\n    if x > 2:\n        return 2\n    return 3\n", 3),
        ("def f(x):\n    if x:\n        pass\n    elif x == 2:\n        pass\n    else:\n        pass\n", 3),
        ("def f(xs):\n    for x in xs:\n        while x:\n            x -= 1\n", 3),
        ("def f(a, b, c):\n    return a and b or c\n", 3),
        ("def f(xs):\n    return [x for x in xs if x if x > 1]\n", 4),
        ("def f():\n    try:\n        pass\n    except ValueError:\n        pass\n    except KeyError:\n        pass\n", 3),
        ("def f(x):\n    def g():\n        if x:\n            pass\n    return 1 if x else 2\n", 2),
    ],
)
def test_cyclomatic_complexity(source: str, expected: int) -> None:
    assert cyclomatic_complexity(function_of(source).node) == expected


def test_side_effects_of_a_method() -> None:
    function = function_of(
        """
        import os
        CACHE = {}
        class C:
            def f(self, items, path):
                self.total = 0
                items.append(1)
                CACHE["k"] = 1
                os.environ["X"] = "1"
                with open(path, "a") as out:
                    out.write("x")
                os.remove(path)
                print("done")
                raise RuntimeError("no")
        """,
        method=True,
    )
    kinds = [(e["type"], e["target"]) for e in side_effects(function)]
    assert kinds == [
        ("ReceiverMutation", "self.total"),
        ("PointerArgMutation", "items"),
        ("GlobalMutation", "CACHE"),
        ("EnvVarMutation", "os.environ"),
        ("FileSystemWrite", "path"),
        ("FileSystemDelete", "os.remove"),
        ("StdoutWrite", "sys.stdout"),
        ("ErrorReturn", "RuntimeError"),
    ]


def test_a_local_shadowing_a_global_is_not_a_global_mutation() -> None:
    function = function_of("CACHE = []\ndef f():\n    CACHE = []\n    CACHE.append(1)\n    return None\n")
    assert side_effects(function) == []


def test_patterns() -> None:
    assert matches("a/b.py", None) and matches("a/b.py", ["./..."])
    assert matches("pkg/mod.py", ["./pkg/..."]) and not matches("other/mod.py", ["./pkg/..."])
    assert matches("pkg/mod.py", ["pkg/*.py"])


def test_coverage_of_the_sample_tests(project: Project) -> None:
    measured, code = run_tests(project.root)
    assert code == 0
    result = {f.name: c for f, c in function_coverage(project, project.functions(), measured).items()}
    assert (result["untested"].covered, result["untested"].percentage) == (0, 0.0)
    assert result["untested"].total == 6
    assert (result["add"].covered, result["add"].total, result["add"].percentage) == (1, 1, 100.0)
    assert result["divide"].percentage == 100.0
    assert result["Counter.increment"].percentage == 100.0
    assert result["save"].percentage == 0.0


def test_test_mapping_of_the_sample(project: Project) -> None:
    mappings = map_tests(project, project.functions())
    found = {(m.test, m.target.name, m.assertion_type, m.side_effect_type) for m in mappings}
    assert ("TestOps.test_divide_by_zero", "divide", "error_check", "ErrorReturn") in found
    assert ("TestOps.test_divide", "divide", "equality", "ReturnValue") in found
    assert not any(m.target.name == "untested" for m in mappings)


def test_public_symbols_and_their_docs(project: Project) -> None:
    (ops,) = [f for f in project.sources() if f.relative == "mathops/ops.py"]
    symbols = {s.name: s for s in public_symbols(ops)}
    assert symbols["divide"].docstring is not None and symbols["divide"].kind == "function"
    assert symbols["add"].docstring is None
    assert symbols["Counter"].kind == "class" and symbols["Counter"].docstring == "Counts up."
    assert symbols["Counter.increment"].kind == "method"
    assert "Counter.__init__" not in symbols


def test_classification_signals(project: Project) -> None:
    found = {(s.function.name, s.side_effect_type, s.source) for f in project.functions() for s in signals(f)}
    assert ("divide", "ErrorReturn", "docstring") in found
    assert ("add", "ReturnValue", "type_annotation") in found
    assert not any(name == "untested" for name, _, _ in found)


def test_each_file_is_parsed_once_per_session_and_again_when_it_changes(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    first = package / "a.py"
    first.write_text("def f():\n    return 1\n", encoding="utf-8")
    (package / "b.py").write_text("def g():\n    pass\n", encoding="utf-8")
    project = Project(tmp_path)
    assert [f.name for f in project.functions(["pkg/a.py"])] == ["f"]
    assert project.parses == 1, "patterns: only the file asked for is parsed"
    assert [f.name for f in project.functions(["./..."])] == ["f", "g"]
    assert project.parses == 2
    project.refresh()
    project.functions()
    assert project.parses == 2, "unchanged files are not parsed again"
    first.write_text("def f():\n    return 2\n\n\ndef h():\n    pass\n", encoding="utf-8")
    stamp = first.stat().st_mtime_ns + 1_000_000_000
    os.utime(first, ns=(stamp, stamp))
    project.refresh()
    assert [f.name for f in project.functions()] == ["f", "h", "g"]
    assert project.parses == 3, "the changed file, and only it, is parsed again"
    (package / "b.py").unlink()
    project.refresh()
    assert [f.name for f in project.functions()] == ["f", "h"]
