"""The quick subset check only ever accepts what the full validator accepts:
write_result and read_result on values mutated every which way agree with
the core's `Protocol.validate` (valid exactly when it reports no issue)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from wirekit import Protocol, ValidationError

GAZE = Protocol("gaze-analyzer")


def effect(index: int) -> dict[str, Any]:
    return {"type": "ReturnValue", "description": f"d{index}", "location": "a.py:1:2", "target": "t",
            "detail": {"k": [1, None]}, "classification": {"label": "contractual", "confidence": 50}}


def result() -> dict[str, Any]:
    return {"functions": [{"name": f"f{i}", "package": "p", "file": "p.py", "line": i + 1,
                           "side_effects": [effect(i), effect(i + 1)]} for i in range(3)]}


ODD: list[Any] = [None, True, False, 0, -1, 1.0, 1.5, 100, 101, -0.0, 2**53 + 1, 2**64, "", "x", "contractual",
                  [], [1], {}, {"label": "ambiguous", "confidence": 0}, float("inf")]


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, at + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, at + (index,))
    return found


def mutations(seed: int) -> list[Any]:
    rng = random.Random(seed)
    base = result()
    out = []
    for at in paths(base):
        if not at:
            continue
        for replacement in rng.sample(ODD, 4) + ["<delete>"]:
            value = copy.deepcopy(base)
            parent = value
            for step in at[:-1]:
                parent = parent[step]
            if replacement == "<delete>":
                del parent[at[-1]]
            else:
                parent[at[-1]] = replacement
            out.append(value)
    for extra in ODD[:6]:
        value = copy.deepcopy(base)
        value["functions"][1]["side_effects"][0]["unknown"] = extra
        out.append(value)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_write_and_read_result_agree_with_the_core(seed: int) -> None:
    for value in mutations(seed):
        try:
            issues = GAZE.validate("analyze", "result", value)
        except (TypeError, ValueError):
            continue  # not JSON: nothing to compare
        valid = not issues
        try:
            frame = GAZE.write_result("analyze", 1, value)
            written = True
        except ValidationError:
            written = False
        assert written == valid, value
        if written:
            body = frame.rstrip(b"\n")
            assert json.loads(body)["result"] == value
            assert GAZE.read_result("analyze", body) == value
        else:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": value}).encode()
            with pytest.raises(ValidationError):
                GAZE.read_result("analyze", body)
