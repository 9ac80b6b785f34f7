"""Cyclomatic complexity (McCabe) of one function, from its `ast`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .project import FunctionNode


def own_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """Every node of the function's body, not entering nested functions,
    lambdas or classes (those are measured on their own)."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    stack: list[ast.AST] = [node for node in reversed(function.body) if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not isinstance(child, nested):
                stack.append(child)


def cyclomatic_complexity(function: FunctionNode) -> int:
    """1, plus one for each `if`/`elif`, conditional expression, loop,
    `except` clause, `match` case, comprehension (and each of its `if`s),
    `assert`, and each extra operand of `and`/`or`."""
    decisions = 0
    for node in own_nodes(function):
        if isinstance(node, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.Assert)):
            decisions += 1
        elif isinstance(node, ast.ExceptHandler):
            decisions += 1
        elif isinstance(node, ast.comprehension):
            decisions += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            decisions += len(node.values) - 1
        elif type(node).__name__ == "match_case":
            decisions += 1
    return 1 + decisions
