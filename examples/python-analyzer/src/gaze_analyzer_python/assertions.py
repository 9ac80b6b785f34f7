"""Assertions in test functions mapped to the project functions they check.

An assertion checks a function when it calls it, directly (`assert add(1, 2)
== 3`, `self.assertEqual(add(1, 2), 3)`) or through a local variable the test
assigned from a call (`total = add(1, 2)` then `assert total == 3`).
`pytest.raises(E)` and `assertRaises(E)` blocks check the calls inside them
for an ErrorReturn.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional, Union

from .project import Function, Project, SourceFile

EQUALITY = frozenset({"assertEqual", "assertEquals", "assertNotEqual", "assertAlmostEqual",
                      "assertListEqual", "assertDictEqual", "assertSequenceEqual",
                      "assertCountEqual", "assertIn", "assertNotIn", "assertTrue", "assertFalse",
                      "assertGreater", "assertLess", "assertGreaterEqual", "assertLessEqual"})
NIL = frozenset({"assertIsNone", "assertIsNotNone"})
RAISES = frozenset({"assertRaises", "assertRaisesRegex", "raises", "pytest.raises"})
TestNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass(frozen=True)
class Mapping:
    test: str
    test_file: str
    line: int
    assertion_type: str
    target: Function
    side_effect_type: str
    confidence: int



def test_functions(source: SourceFile) -> Iterator[tuple[str, TestNode]]:
    """`test_*` functions, and `test_*` methods of `Test*` classes."""
    for node in source.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    yield f"{node.name}.{item.name}", item


def called_names(node: ast.AST) -> Iterator[tuple[str, ast.Call]]:
    """The last part of each call's dotted name under `node` (`ops.add(...)` is `add`)."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Attribute):
                yield func.attr, child
            elif isinstance(func, ast.Name):
                yield func.id, child


def assertion_kind(node: ast.AST) -> Optional[tuple[str, list[ast.AST]]]:
    """For an assertion: its type and the expressions it checks."""
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot)) for op in test.ops) and any(
                isinstance(c, ast.Constant) and c.value is None for c in test.comparators
            ):
                return "nil_check", [test.left]
            return "equality", [test.left, *test.comparators]
        return "custom", [test]
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        name = func.attr if isinstance(func, ast.Attribute) else None
        if name in EQUALITY:
            return "equality", list(node.value.args)
        if name in NIL:
            return "nil_check", list(node.value.args)
        if name is not None and name.startswith("assert"):
            return "custom", list(node.value.args)
    return None


def raises_block(node: ast.AST) -> bool:
    if not isinstance(node, (ast.With, ast.AsyncWith)):
        return False
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in RAISES:
                return True
    return False


def map_tests(project: Project, targets: list[Function]) -> list[Mapping]:
    """Every assertion of every test mapped to the functions it checks."""
    by_name: dict[str, list[Function]] = {}
    for function in targets:
        by_name.setdefault(function.name.rsplit(".", 1)[-1], []).append(function)
    mappings: list[Mapping] = []
    for source in project.tests():
        for test_name, test in test_functions(source):
            assigned: dict[str, list[Function]] = {}
            for node in ast.walk(test):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    hits = [f for name, _ in called_names(node.value) for f in by_name.get(name, [])]
                    for target in node.targets:
                        if isinstance(target, ast.Name) and hits:
                            assigned[target.id] = hits
            for node in ast.walk(test):
                if raises_block(node):
                    assert isinstance(node, (ast.With, ast.AsyncWith))
                    for statement in node.body:
                        for name, call in called_names(statement):
                            for function in by_name.get(name, []):
                                mappings.append(Mapping(test_name, source.relative, call.lineno,
                                                        "error_check", function, "ErrorReturn", 85))
                    continue
                kind = assertion_kind(node)
                if kind is None:
                    continue
                assertion_type, checked = kind
                line = getattr(node, "lineno", test.lineno)
                found: dict[str, tuple[Function, int]] = {}
                for expression in checked:
                    for name, _ in called_names(expression):
                        for function in by_name.get(name, []):
                            found.setdefault(function.name + function.package, (function, 80))
                    for child in ast.walk(expression):
                        if isinstance(child, ast.Name) and child.id in assigned:
                            for function in assigned[child.id]:
                                found.setdefault(function.name + function.package, (function, 65))
                for function, confidence in found.values():
                    mappings.append(Mapping(test_name, source.relative, line, assertion_type,
                                            function, "ReturnValue", confidence))
    return mappings
