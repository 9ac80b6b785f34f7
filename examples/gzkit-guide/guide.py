#!/usr/bin/env python3
"""A gzkit authoring guide server on wirekit: hints for Python functions whose
nesting depth approaches the warn threshold. Content-Length framing, the bare
envelope, the lifecycle and version negotiation are the Rust core's work.

Run it as an editor plugin would: ``python examples/gzkit-guide/guide.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from wirekit.gzkit import AuthoringGuide, types

guide = AuthoringGuide()
WARN_DEPTH = 3


def nesting(node: ast.AST, depth: int = 0) -> int:
    """The deepest nesting of blocks below ``node``."""
    blocks = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.Match)
    deepest = depth
    for child in ast.iter_child_nodes(node):
        deeper = depth + 1 if isinstance(child, blocks) else depth
        deepest = max(deepest, nesting(child, deeper))
    return deepest


@guide.analyze
def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
    path = Path(params["file_path"])
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {"hints": []}  # the spec: an unreadable file gives no hints, not an error
    hints: list[types.AuthoringHint] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            depth = nesting(node)
            if depth >= WARN_DEPTH - 1:
                hints.append(
                    {
                        "metric": "nesting_depth",
                        "precedence_band": "approaching_warn" if depth >= WARN_DEPTH else "approaching",
                        "crossing_value": float(depth),
                        "archetype": "arrowhead",
                        "doctrinal_frame_headline": "Nesting depth approaching warn threshold",
                        "recommended_move": "Flatten nested conditions using early returns",
                        "file_path": str(path),
                        "start_line": node.lineno,
                        "end_line": node.end_lineno or node.lineno,
                    }
                )
    return {"hints": hints}


if __name__ == "__main__":
    guide.run()
