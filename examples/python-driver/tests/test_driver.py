"""The example driver driven end to end by `wirekit drive`, as AgentAPI Doctor's
Core drives a driver: every call sent, observations followed to completion, a
cancel mid-way, a 10 MiB body on the data plane, the recording validated."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
INVOCATION = "018f0000-0000-7000-8000-0000000000{:02x}"


def wirekit() -> str:
    found = os.environ.get("WIREKIT") or str(REPO / "target" / "debug" / "wirekit")
    if not Path(found).exists():
        subprocess.run(["cargo", "build", "-q", "-p", "wirekit-cli"], cwd=REPO, check=True)
    return found


def driver_command() -> list[str]:
    beside = Path(sys.executable).parent / "agentapi-driver-python"
    script = str(beside) if beside.exists() else shutil.which("agentapi-driver-python")
    assert script is not None, "pip install examples/python-driver"
    return [script]


def python_line(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def drive(tmp_path: Path, calls: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], list[Any]]:
    requests = tmp_path / "calls.ndjson"
    requests.write_text(calls)
    done = subprocess.run(
        [wirekit(), "drive", "--protocol", "agentapi-driver", "--requests", str(requests),
         "--record", str(tmp_path / "session.ndjson"), *extra, "--", *driver_command()],
        capture_output=True, text=True, timeout=120,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines()]


def validate(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [wirekit(), "validate", "--protocol", "agentapi-driver", str(tmp_path / "session.ndjson")],
        capture_output=True, text=True,
    )


def full_run(operation: str, first: str, second: str) -> str:
    template = (REPO / "tests" / "drivers" / "full-run.ndjson").read_text()
    lines = []
    for line in template.splitlines():
        call = json.loads(line)
        text = json.dumps(call)
        text = text.replace("@OPERATION@", operation).replace("@PERMISSION@", "process-spawn")
        text = text.replace('"@INPUT@"', json.dumps(first)).replace('"@SLOW_INPUT@"', json.dumps(second))
        lines.append(text)
    return "\n".join(lines) + "\n"


def test_a_full_session_sends_every_call_follows_each_invocation_and_validates(tmp_path: Path) -> None:
    first = python_line("for i in range(3): print('line', i)")
    slow = python_line("import time\nfor i in range(600):\n    print(i, flush=True)\n    time.sleep(0.05)")
    done, lines = drive(tmp_path, full_run("command.run", first, slow))
    assert done.returncode == 0, done.stdout + done.stderr
    methods = [line["method"] for line in lines if "method" in line]
    assert methods == [
        "driver.hello", "driver.capabilities", "driver.prepare", "driver.invoke",
        "driver.invoke", "driver.cancel", "driver.reset", "driver.shutdown",
    ]
    assert all("error" not in line for line in lines), done.stdout
    observed = [line["params"] for line in lines if line.get("notification") == "driver.observation"]
    first_run = [o for o in observed if o["invocation_id"].endswith("01")]
    assert [o["payload"] for o in first_run if o["kind"] == "command.line"] == [
        {"line": "line 0"}, {"line": "line 1"}, {"line": "line 2"},
    ]
    assert [o["payload"]["code"] for o in first_run if o["kind"] == "command.exit"] == [0]
    completed = [line["params"] for line in lines if line.get("notification") == "driver.completed"]
    assert [c["status"] for c in completed] == ["completed", "cancelled"]
    assert completed[0]["last_sequence"] == first_run[-1]["sequence"]
    cancelled_lines = [o for o in observed if o["invocation_id"].endswith("03") and o["kind"] == "command.line"]
    assert len(cancelled_lines) < 600, "cancelled mid-way: the command was terminated"
    checked = validate(tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_ten_mib_body_travels_on_the_data_plane_whole(tmp_path: Path) -> None:
    size = 10 << 20
    calls = full_run("http.get", f"/bytes/{size}", "/slow/600")
    data_dir = tmp_path / "data"
    done, lines = drive(tmp_path, calls, "--data-dir", str(data_dir), "--data-max-frame-bytes", "65536")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    body = next(line for line in lines if line.get("params", {}).get("kind") == "http.body" and "data" in line)
    assert body["data"]["bytes"] == size
    assert body["data"]["frames"] >= size // 65536, "no frame over the negotiated 64 KiB"
    summary = next(
        line["params"]["payload"] for line in lines if line.get("params", {}).get("kind") == "http.body.summary"
    )
    received = Path(body["data"]["file"]).read_bytes()
    assert len(received) == size
    assert hashlib.sha256(received).hexdigest() == summary["sha256"]
    completed = [line["params"]["status"] for line in lines if line.get("notification") == "driver.completed"]
    assert completed == ["completed", "cancelled"]
    checked = validate(tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_unknown_operation_is_answered_with_a_class_the_reference_accepts(tmp_path: Path) -> None:
    calls = full_run("no.such.operation", "x", "y").splitlines()[:4]
    done, lines = drive(tmp_path, "\n".join(calls) + "\n")
    # An error the protocol declares is an answer it allows: drive's run is clean.
    assert done.returncode == 0, done.stderr
    assert lines[-1]["declared"] is True
    error = lines[-1]["error"]
    assert error["kind"] == "remote"
    assert error["code"] == -32000
    assert error["data"] == {"class": "capability_mismatch"}


@pytest.mark.parametrize("operation", ["command.run", "http.get"])
def test_each_operation_is_declared(tmp_path: Path, operation: str) -> None:
    done, lines = drive(tmp_path, full_run("command.run", "true", "true").splitlines()[0] + "\n")
    capabilities = lines[0]["result"]["capabilities"]
    assert operation in capabilities["operations"]
