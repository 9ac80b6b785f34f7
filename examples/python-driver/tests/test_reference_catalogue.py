"""The example driver judged by the driver protocol's reference package
(`pkg/driverprotocol` of whyiug/agentapi-doctor, ported in
`cli/examples/driver_catalogue/reference.rs`): the same catalogue of control
frames the Rust driver is judged by (`cli/tests/driver_reference.rs`), good
and faulty, sent in every lifecycle phase; each answer must be a response
the package's decoder accepts, and each verdict (no answer; a result; an
error of a class; the id) the one a driver built on the package gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_conformance import driver_command

REPO = Path(__file__).resolve().parents[3]


def catalogue() -> str:
    """The `driver_catalogue` example of the wirekit command's crate (built
    here when cargo is at hand and it is missing)."""
    found = os.environ.get("WIREKIT_DRIVER_CATALOGUE")
    if found:
        return found
    binary = REPO / "target" / "debug" / "examples" / "driver_catalogue"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "-q", "-p", "wirekit-cli", "--example", "driver_catalogue"],
            cwd=REPO,
            check=True,
        )
    return str(binary)


def test_every_verdict_of_the_python_driver_on_the_catalogue_is_the_reference_packages() -> None:
    # The invocation that holds INVOKING: a command that runs for a while.
    sleeper = f"{sys.executable} -c \"import time; time.sleep(10)\""
    run = subprocess.run(
        [catalogue(), "--op", "command.run", "--input", sleeper, "--", *driver_command()],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = run.stdout
    assert run.returncode == 0, report + run.stderr
    summary = report.strip().splitlines()[-1]
    assert summary.startswith("driver catalogue: 80 frames in 4 phases, 320 verdicts agree"), report
    print(summary)
