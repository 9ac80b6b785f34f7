"""Per-function line coverage: the project's tests run under coverage.py."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import coverage

from .project import Function, Project

TEST_TIMEOUT_SECONDS = 240


@dataclass(frozen=True)
class FunctionCoverage:
    """Statements of one function's body, and how many the tests ran."""

    covered: int
    total: int

    @property
    def percentage(self) -> float:
        return round(100.0 * self.covered / self.total, 2) if self.total else 0.0


def test_command(root: Path, data_file: Path) -> list[str]:
    """`coverage run` of pytest when it is installed, else of unittest discovery."""
    base = [sys.executable, "-m", "coverage", "run", f"--data-file={data_file}",
            f"--source={root}", "--branch"]
    if importlib.util.find_spec("pytest") is not None:
        return base + ["-m", "pytest", "-q", "-p", "no:cacheprovider", str(root)]
    return base + ["-m", "unittest", "discover", "-s", str(root), "-t", str(root)]


def run_tests(root: Path) -> tuple[dict[str, tuple[set[int], set[int]]], int]:
    """Runs the tests; returns, per absolute file, (statements, executed
    statements), and the test run's exit code. Output goes to stderr."""
    with tempfile.TemporaryDirectory(prefix="gaze-analyzer-python-") as scratch:
        data_file = Path(scratch) / "coverage.data"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        try:
            completed = subprocess.run(
                test_command(root, data_file),
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sys.stderr,
                stderr=sys.stderr,
                timeout=TEST_TIMEOUT_SECONDS,
                check=False,
            )
            code = completed.returncode
        except subprocess.TimeoutExpired:
            print(f"gaze-analyzer-python: tests of {root} timed out", file=sys.stderr)
            code = -1
        if not data_file.exists():
            return {}, code
        cov = coverage.Coverage(data_file=str(data_file))
        cov.load()
        data = cov.get_data()
        measured: dict[str, tuple[set[int], set[int]]] = {}
        for filename in data.measured_files():
            try:
                _, statements, _, missing, _ = cov.analysis2(filename)
            except coverage.CoverageException:
                continue
            measured[str(Path(filename).resolve())] = (set(statements), set(statements) - set(missing))
        return measured, code


def body_lines(function: Function) -> set[int]:
    """The lines of the function's body, without nested functions and classes
    (measured on their own) and without the `def` line itself."""
    node = function.node
    first = node.body[0].lineno if node.body else node.lineno
    lines = set(range(first, function.end_line + 1))
    for child in ast.walk(node):
        if child is node:
            continue
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in child.decorator_list] + [child.lineno])
            lines -= set(range(start, (child.end_lineno or child.lineno) + 1))
    return lines


def function_coverage(
    project: Project, functions: list[Function], measured: dict[str, tuple[set[int], set[int]]]
) -> dict[Function, FunctionCoverage]:
    """Coverage of each function; a file the tests never imported counts
    its statements as missed (coverage.py's own statement analysis)."""
    result: dict[Function, FunctionCoverage] = {}
    for function in functions:
        path = str((project.root / function.file).resolve())
        if path in measured:
            statements, executed = measured[path]
        else:
            statements, executed = statements_of(project.root / function.file), set()
        lines = body_lines(function)
        own = statements & lines
        result[function] = FunctionCoverage(len(own & executed), len(own))
    return result


def statements_of(path: Path) -> set[int]:
    """The statement lines coverage.py would measure in a file never run."""
    cov = coverage.Coverage(data_file=None)
    try:
        _, statements, _, _, _ = cov.analysis2(str(path))
    except coverage.CoverageException:
        return set()
    return set(statements)
