"""The example driver passes `wirekit conformance` (the core's battery, run
from Python with `wirekit.testing`) through a whole invocation of
`command.run`, followed to `driver.completed`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from wirekit.testing import assert_conforms


def driver_command() -> list[str]:
    beside = Path(sys.executable).parent / "agentapi-driver-python"
    script = str(beside) if beside.exists() else shutil.which("agentapi-driver-python")
    assert script is not None, "pip install examples/python-driver"
    return [script]


def test_the_example_driver_conforms_through_a_whole_invocation() -> None:
    params = {
        "driver.prepare": {
            "resolved_plan_digest": "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
            "capability_token": "conformance",
            "approved_permissions": ["process-spawn"],
        },
        "driver.invoke": {
            "invocation_id": "018f0000-0000-7000-8000-000000000001",
            "attempt_id": "018f0000-0000-7000-8000-000000000002",
            "operation": "command.run",
            "ephemeral_exact_input_handle": {"kind": "pipe", "value": f"{sys.executable} -c \"print('conforms')\""},
        },
    }
    report = assert_conforms("agentapi-driver", driver_command(), params=params, timeout=60)
    assert report.warnings == [], report.text
    invoke = next(c for c in report.checks if c["name"] == "`driver.invoke` answers")
    assert "up to `driver.completed`" in invoke["message"], report.text
    # A strict protocol: the duplicate key and the unknown member are refused too.
    assert "envelope/a duplicate key is refused" in report.names("pass")
    assert "envelope/an unknown envelope member is refused" in report.names("pass")
