"""The `wirekit` command of the Python package: the Rust CLI run from the
native module, as `python -m wirekit` and as `wirekit._native.run_cli`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import REPO
from wirekit import _native

SESSIONS = REPO / "tests" / "sessions" / "gaze-analyzer@1.0.0"


def wirekit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wirekit", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version_is_the_packages() -> None:
    done = wirekit("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"wirekit {_native.__version__}"


def test_a_clean_session_validates() -> None:
    done = wirekit("validate", "--protocol", "gaze-analyzer@1.0.0", str(SESSIONS / "clean-full.ndjson"))
    assert done.returncode == 0, done.stderr
    assert "clean" in done.stderr


def test_a_faulty_session_reports_its_problems_as_json_and_exits_1() -> None:
    session = SESSIONS / "analyze-before-initialize.ndjson"
    done = wirekit("validate", "--protocol", "gaze-analyzer@1.0.0", "--json", str(session))
    assert done.returncode == 1
    problems = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    expected = json.loads(session.with_suffix(".expect.json").read_text())["problems"]
    assert [(p["frame"], p["kind"], p["pointer"]) for p in problems] == [
        (p["frame"], p["kind"], p["pointer"]) for p in expected
    ]


def test_the_monitor_judges_the_servers_answer_too() -> None:
    """The same request, answered -32600 or accepted with a result: two reports."""
    refused = wirekit("validate", "--protocol", "gaze-analyzer@1.0.0", "--json", str(SESSIONS / "analyze-before-initialize.ndjson"))
    accepted = wirekit(
        "validate", "--protocol", "gaze-analyzer@1.0.0", "--json", str(SESSIONS / "analyze-before-initialize-accepted.ndjson")
    )
    assert refused.returncode == accepted.returncode == 1
    kinds = [json.loads(line)["kind"] for line in accepted.stdout.splitlines() if line.strip()]
    assert kinds == ["lifecycle", "accepted_invalid"]
    assert refused.stdout != accepted.stdout


def test_an_empty_capture_says_so_and_exits_1(tmp_path: Path) -> None:
    empty = tmp_path / "empty.ndjson"
    empty.write_bytes(b"")
    done = wirekit("validate", "--protocol", "gaze-analyzer@1.0.0", str(empty))
    assert done.returncode == 1
    assert "the capture holds no frames" in done.stdout
    assert "the capture holds no frames" in done.stderr


def test_usage_errors_exit_2_with_clap_usage() -> None:
    done = wirekit("validate", "--no-such-flag")
    assert done.returncode == 2
    assert "Usage:" in done.stderr


def test_run_cli_returns_the_status_in_process() -> None:
    assert _native.run_cli(["wirekit", "validate", "--protocol", "no-such-protocol", "/dev/null"]) == 2
