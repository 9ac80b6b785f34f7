"""Conformance from Python: `wirekit._native.conformance` runs the core's
battery (`wirekit::conformance::run`), `wirekit.testing` wraps it for tests,
and `python -m wirekit conformance` is the command from the wheel."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO
from wirekit import Protocol, _native
from wirekit.errors import ConformanceError, WirekitError
from wirekit.testing import ConformanceFailure, ConformanceReport, assert_conforms, conformance

GUIDE = REPO / "examples" / "gzkit-guide" / "guide.py"
ANALYZER = REPO / "tests" / "conformance" / "gaze_analyzer.py"
GROUPS = ["lifecycle", "capabilities", "exit", "state", "params", "envelope", "framing", "output"]


def analyzer(*fault: str) -> list[str]:
    return [sys.executable, str(ANALYZER), *(["--fault", *fault] if fault else [])]


def test_the_python_gzkit_guide_conforms_in_every_group() -> None:
    report = assert_conforms("gzkit-authoring-guide", [sys.executable, GUIDE])
    assert report.passed
    assert report.failures == [] and report.warnings == [], report.text
    assert list(report.json["summary"]["groups"]) == GROUPS
    assert report.json["summary"]["total"]["pass"] == len(report.checks) >= 15
    assert report.json["protocol"] == "gzkit-authoring-guide@1.0"
    assert report.text.rstrip().endswith(f"conforms: {len(report.checks)} passed, 0 warned, 0 failed")


def test_the_report_is_the_one_the_command_prints() -> None:
    """The same engine: the native call and `python -m wirekit conformance --json`
    give the same checks for the same server."""
    report = conformance("gaze-analyzer@1.0.0", analyzer(), only=["lifecycle", "capabilities"])
    done = subprocess.run(
        [sys.executable, "-m", "wirekit", "conformance", "--protocol", "gaze-analyzer@1.0.0",
         "--only", "lifecycle", "--only", "capabilities", "--json", "--", *analyzer()],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed = json.loads(done.stdout)
    outline = [(c["group"], c["name"], c["outcome"]) for c in printed["checks"]]
    assert outline == [(c["group"], c["name"], c["outcome"]) for c in report.checks]
    assert printed["passed"] is report.passed is True


def test_python_m_wirekit_conformance_exits_1_with_the_failed_check_named() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wirekit", "conformance", "--protocol", "gaze-analyzer@1.0.0",
         "--only", "state", "--", *analyzer("accepts-early")],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  state        `coverage` before `initialize` is refused" in done.stdout
    assert "does not conform: 1 passed, 0 warned, 1 failed" in done.stdout


def test_assert_conforms_raises_with_the_failed_checks_and_the_report() -> None:
    with pytest.raises(ConformanceFailure) as raised:
        assert_conforms("gaze-analyzer@1.0.0", analyzer("wrong-type"), only=["lifecycle"])
    failure = raised.value
    assert isinstance(failure, AssertionError)  # pytest reports it as a failed assertion
    assert [f"{f.group}/{f.name}" for f in failure.failures] == ["lifecycle/`complexity` answers"]
    (check,) = failure.failures
    assert check.outcome == "fail"
    assert '"none" is not of type "array"' in " ".join([check.message, *check.monitor])
    assert check.pointer is not None and check.pointer.startswith("/result")
    assert check.frames and check.frames[0]["from"] == "client"
    message = str(failure)
    assert "does not conform to gaze-analyzer@1.0.0: 1 check(s) failed" in message
    assert "lifecycle/`complexity` answers" in message
    assert "does not conform:" in message  # the whole text report follows
    assert failure.report.passed is False


def test_a_protocol_object_and_params_and_record(tmp_path: Path) -> None:
    record = tmp_path / "session.ndjson"
    report = assert_conforms(
        Protocol("gaze-analyzer@1.0.0"),
        analyzer(),
        only=["lifecycle"],
        params={"analyze": {"root_path": ".", "patterns": ["*.py"]}},
        record=record,
        timeout=60,
    )
    analyze = next(c for c in report.checks if c["name"] == "`analyze` answers")
    assert '"patterns":["*.py"]' in analyze["frames"][0]["body"]
    # The recording validates clean with the same protocol.
    done = _native.run_cli(["wirekit", "validate", "--protocol", "gaze-analyzer@1.0.0", str(record)])
    assert done == 0


def test_a_run_that_cannot_start_raises_conformance_error(tmp_path: Path) -> None:
    with pytest.raises(ConformanceError) as unknown:
        conformance("gaze-analyzer@1.0.0", analyzer(), only=["nothing"])
    assert unknown.value.code == "unknown_group"
    assert "unknown group `nothing`" in str(unknown.value)
    assert isinstance(unknown.value, WirekitError)
    with pytest.raises(ConformanceError) as empty:
        conformance("gaze-analyzer@1.0.0", [])
    assert empty.value.code == "no_command"
    with pytest.raises(ConformanceError) as missing:
        conformance("gaze-analyzer@1.0.0", ["bin/no-such-server"], root=tmp_path)
    assert missing.value.code == "bad_server"
    assert "is not a file in the project root" in str(missing.value)
    with pytest.raises(ValueError, match="timeout"):
        conformance("gaze-analyzer@1.0.0", analyzer(), timeout=0)


def test_a_server_that_cannot_be_started_fails_the_report_not_the_call() -> None:
    report = conformance("gaze-analyzer@1.0.0", ["/no/such/server"], only=["lifecycle"])
    assert isinstance(report, ConformanceReport)
    assert not report.passed
    assert any("cannot start" in f.message for f in report.failures), report.text
