"""The example analyzer passes `wirekit conformance` (the core's battery,
run from Python with `wirekit.testing`) for the Gaze protocol it serves,
the project root at the sample project."""

from __future__ import annotations

import sys
from pathlib import Path

from wirekit.testing import assert_conforms

SAMPLE = Path(__file__).resolve().parents[1] / "sample"


def test_the_example_analyzer_conforms_to_gaze_1_1_0() -> None:
    report = assert_conforms(
        "gaze-analyzer@1.1.0", [sys.executable, "-m", "gaze_analyzer_python", "--stdio"], root=SAMPLE, timeout=120
    )
    assert report.warnings == [], report.text
    groups = report.json["summary"]["groups"]
    assert set(groups) == {"lifecycle", "capabilities", "exit", "state", "params", "envelope", "framing", "output"}
    assert report.json["summary"]["total"]["pass"] >= 25, report.text
