"""The benchmark's workload: a realistic Gaze analyze result and the schema peers validate with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
GAZE_SCHEMA = REPO / "schemas" / "gaze-analyzer" / "1.1.0" / "gaze.schema.json"

EFFECT_KINDS = [
    ("ReturnValue", "returns metric {n}", "result", None),
    ("ErrorReturn", "raises ValueError", "ValueError", {"exception_class": "ValueError"}),
    ("ReceiverMutation", "assigns self.cache", "self.cache", None),
    ("FileSystemWrite", "writes report {n}", "report_path", None),
]


def analyze_result(functions: int = 1000, effects: int = 3) -> dict[str, Any]:
    """`functions` functions with `effects` side effects each (about 690 KB as JSON for 1000 x 3)."""
    result: list[dict[str, Any]] = []
    for index in range(functions):
        module = f"project/pkg_{index % 37}/mod_{index % 11}.py"
        side_effects = []
        for position in range(effects):
            kind, description, target, detail = EFFECT_KINDS[(index + position) % len(EFFECT_KINDS)]
            effect: dict[str, Any] = {
                "type": kind,
                "description": description.format(n=index),
                "location": f"{module}:{10 + index % 400}:{5 + position * 4}",
                "target": target.format(n=index),
            }
            if detail is not None:
                effect["detail"] = detail
            effect["classification"] = {"label": ("contractual", "incidental", "ambiguous")[position % 3],
                                        "confidence": 50 + (index * 7 + position) % 50}
            side_effects.append(effect)
        result.append({
            "name": f"compute_metric_{index}",
            "package": f"project.pkg_{index % 37}.mod_{index % 11}",
            "file": module,
            "line": 10 + index % 400,
            "side_effects": side_effects,
        })
    return {"functions": result}


def response_body(result: dict[str, Any], id: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "result": result}, separators=(",", ":")).encode()


def result_schema(name: str = "AnalyzeResult") -> dict[str, Any]:
    """A self-contained Draft 2020-12 schema of one Gaze type, as a peer validator needs it."""
    document = json.loads(GAZE_SCHEMA.read_text(encoding="utf-8"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": document["$defs"],
        "$ref": f"#/$defs/{name}",
    }
