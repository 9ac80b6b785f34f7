"""The Python files of a project, parsed once, and its functions."""

from __future__ import annotations

import ast
import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".tox", ".nox", ".venv", "venv", "env", "__pycache__", "build", "dist",
     "node_modules", ".mypy_cache", ".pytest_cache", "site-packages"}
)

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass(frozen=True)
class Function:
    """One function or method of a source file."""

    name: str
    """`f` for a function, `Class.method` for a method."""
    package: str
    """The dotted module path (`mathops.ops`)."""
    file: str
    """The file, relative to the project root, with `/`."""
    node: FunctionNode
    is_method: bool
    module_names: frozenset[str] = frozenset()
    """Names assigned at the module's top level (its globals)."""

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def end_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


@dataclass
class SourceFile:
    """A parsed Python file of the project."""

    path: Path
    relative: str
    package: str
    tree: ast.Module
    is_test: bool
    functions: list[Function] = field(default_factory=list)
    memo: dict[tuple[str, int, str], Any] = field(default_factory=dict)
    """Results computed from this file: (what, line, name) to value."""


def is_test_file(relative: str) -> bool:
    """`test_*.py`, `*_test.py`, `conftest.py`, or anything under a `tests`/`test` folder."""
    parts = relative.split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(part in ("tests", "test") for part in parts[:-1])
    )


def module_name(relative: str) -> str:
    """`pkg/mod.py` is `pkg.mod`, `pkg/__init__.py` is `pkg`."""
    parts = relative[: -len(".py")].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def matches(relative: str, patterns: Optional[Sequence[str]]) -> bool:
    """Gaze patterns: `./...` (or none) is everything, `dir/...` a folder, else a glob."""
    if not patterns:
        return True
    for pattern in patterns:
        pattern = pattern.strip()
        if pattern.startswith("./"):
            pattern = pattern[2:]
        if pattern in ("", ".", "...", "./..."):
            return True
        if pattern.endswith("/..."):
            prefix = pattern[: -len("...")]
            if relative.startswith(prefix):
                return True
        elif fnmatch.fnmatch(relative, pattern) or relative.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def iter_python_files(root: Path) -> Iterator[Path]:
    """Every `.py` file below `root`, skipping virtualenvs, caches and hidden folders."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def collect_functions(tree: ast.Module, package: str, relative: str) -> list[Function]:
    """Module functions and methods of module-level classes (nested ones too)."""
    found: list[Function] = []
    names: set[str] = set()
    for statement in tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    names.add(node.id)
    module_names = frozenset(names)

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{node.name}"
                found.append(Function(name, package, relative, node, in_class, module_names))
                visit(node.body, f"{name}.", False)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", True)

    visit(tree.body, "", False)
    return found


class Project:
    """A project's Python files, each parsed once per session.

    `refresh()` (called by every handler) lists the files again and keeps
    each parsed file whose modification time and size are unchanged; a file
    is parsed the first time a call needs it, so a call with `patterns`
    parses only the files they match. Results computed from a file (its
    side effects, complexities, signals) live on its `SourceFile.memo` and
    go with it when the file changes.
    """

    def __init__(
        self, root: Union[str, Path], on_parse: Optional[Callable[[SourceFile], None]] = None
    ) -> None:
        """`on_parse(source)` runs after each parse (to compute what every
        call needs while the file is fresh)."""
        self.root = Path(root).resolve()
        self.on_parse = on_parse
        if not self.root.is_dir():
            raise FileNotFoundError(f"root_path {self.root} is not a folder")
        self._paths: dict[str, Path] = {}
        self._stamps: dict[str, tuple[int, int]] = {}
        self._parsed: dict[str, SourceFile] = {}
        self._unparsable: dict[str, tuple[int, int]] = {}
        self.parses = 0
        """How many times a file was parsed (for tests and benchmarks)."""
        self.generation = 0
        """Moves on whenever a file appears, changes or goes away."""
        self.refresh()

    def refresh(self) -> None:
        """Lists the files again; drops what changed or went away."""
        paths: dict[str, Path] = {}
        stamps: dict[str, tuple[int, int]] = {}
        for path in iter_python_files(self.root):
            relative = path.relative_to(self.root).as_posix()
            try:
                status = path.stat()
            except OSError:
                continue
            paths[relative] = path
            stamps[relative] = (status.st_mtime_ns, status.st_size)
        for relative in list(self._parsed):
            if stamps.get(relative) != self._stamps.get(relative):
                del self._parsed[relative]
        for relative in list(self._unparsable):
            if stamps.get(relative) != self._unparsable[relative]:
                del self._unparsable[relative]
        if stamps != self._stamps:
            self.generation += 1
        self._paths, self._stamps = paths, stamps

    def _load(self, relative: str) -> Optional[SourceFile]:
        source = self._parsed.get(relative)
        if source is not None or relative in self._unparsable:
            return source
        path = self._paths[relative]
        self.parses += 1
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            self._unparsable[relative] = self._stamps[relative]
            return None
        package = module_name(relative)
        source = SourceFile(path, relative, package, tree, is_test_file(relative))
        source.functions = collect_functions(tree, package, relative)
        self._parsed[relative] = source
        if self.on_parse is not None:
            self.on_parse(source)
        return source

    def _loaded(self, relatives: list[str]) -> list[SourceFile]:
        return [s for s in (self._load(r) for r in relatives) if s is not None]

    @property
    def files(self) -> list[SourceFile]:
        """Every parsable file."""
        return self._loaded(list(self._paths))

    @property
    def unparsable(self) -> list[str]:
        """The files that do not parse (of those parsed so far)."""
        return sorted(self._unparsable)

    def source_of(self, function: Function) -> Optional[SourceFile]:
        """The parsed file `function` comes from."""
        return self._parsed.get(function.file)

    def sources(self, patterns: Optional[Sequence[str]] = None) -> list[SourceFile]:
        """The non-test files matching `patterns` (only those are parsed)."""
        return self._loaded(
            [r for r in self._paths if not is_test_file(r) and matches(r, patterns)]
        )

    def tests(self) -> list[SourceFile]:
        """The test files."""
        return self._loaded([r for r in self._paths if is_test_file(r)])

    def functions(self, patterns: Optional[Sequence[str]] = None) -> list[Function]:
        """Every function of the non-test files matching `patterns`."""
        return [fn for f in self.sources(patterns) for fn in f.functions]
