"""`wirekit conformance` against the real gzkit guide server: py-gzkit 0.34.9
from PyPI on CPython 3.13 (installed by tests/peers/install-gzkit.sh, which
run-tests.sh calls), started as `gz complexity guide --server`.

The reference server is the judge of our reading. Where it differed, the
spec and gzkit's own shipped schema (`gzkit/schemas/authoring_guide_protocol.json`)
decided: a malformed header is answered -32700 as the spec's error table says
(the manifest said -32600 before), and shutdown params are never refused ("the
server does not return errors for shutdown"). What remains below breaks the
spec's text or gzkit's own schema; docs/conformance-gzkit.md is the worked
example of this report.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import REPO
from wirekit.testing import ConformanceReport, conformance

PEERS = REPO / "tests" / "peers"
GZ = PEERS / ".venv-gzkit" / "bin" / "gz"

# Every check the real server fails, with words its message must carry.
FAILS = {
    # The spec: the shutdown result is an empty object.
    "exit/`shutdown` answers": "member `status` is not allowed here",
    # The spec: analyze before initialize is METHOD_NOT_FOUND.
    "state/`analyze` before `initialize` is refused": "`analyze` was accepted: expected the error -32601",
    # gzkit's schema: clientVersion is required; the server defaults it.
    "params/`initialize` with missing required member `clientVersion` at /clientVersion is refused":
        "`initialize` was accepted",
    # gzkit's schema: InitializeParams is closed.
    "params/`initialize` with an extra member `wirekit_unexpected_member` in a closed object"
    " at /wirekit_unexpected_member is refused": "`initialize` was accepted",
    # A non-string clientVersion crashes it ('int' object has no attribute 'split').
    "params/`initialize` with the integer 12345 instead of string at /clientVersion is refused":
        "the server exited (exit status 1) instead of answering `initialize`",
    # gzkit's schema has the pattern; it answers VERSION_MISMATCH instead of INVALID_PARAMS.
    "params/`initialize` with a string outside its pattern at /clientVersion is refused":
        "the server answered -32099",
    # The spec: VERSION_MISMATCH ends the session; the server keeps running.
    "state/`initialize` with the incompatible version 2.0 is refused":
        "still running 5 s after refusing the version",
    # The spec: the server rejects subsequent initialize calls.
    "state/a second `initialize` is refused": "`initialize` was accepted",
    # gzkit's schema: AnalyzeParams is closed.
    "params/`analyze` with an extra member `wirekit_unexpected_member` in a closed object"
    " at /wirekit_unexpected_member is refused": "`analyze` was accepted",
    # A non-string file_path crashes it.
    "params/`analyze` with the integer 12345 instead of string at /file_path is refused":
        "the server exited (exit status 1) instead of answering `analyze`",
    # A body that is not an object crashes it ('list' object has no attribute 'get').
    "envelope/a body that is not an object is refused":
        "the server exited (exit status 1) instead of answering a body that is not an object",
    # The spec: unrecognized headers are ignored; it answers id null -32700 and exits.
    "framing/a header other than Content-Length is ignored": "the answer carries id null (-32700",
}
# The spec sets no frame bound; wirekit's is 16 MiB: reading a bigger frame is a warning.
WARNS = {"framing/a frame over the bound of 16777216 bytes is refused": "read a frame over the bound"}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> ConformanceReport:
    assert GZ.exists(), f"the real gzkit server is not installed: run {PEERS / 'install-gzkit.sh'}"
    root = tmp_path_factory.mktemp("gzkit-root")
    (thresholds,) = (PEERS / ".venv-gzkit" / "lib").glob("python3.13/site-packages/gzkit/rules/complexity-thresholds.json")
    (root / ".gzkit" / "rules").mkdir(parents=True)
    shutil.copy(thresholds, root / ".gzkit" / "rules")
    shutil.copytree(PEERS / "gzkit-project" / "data", root / "data")
    return conformance("gzkit-authoring-guide@1.0", [GZ, "complexity", "guide", "--server"], root=root)


def test_the_real_gzkit_server_fails_exactly_its_deviations(report: ConformanceReport) -> None:
    assert sorted(report.names("fail")) == sorted(FAILS), report.text
    for check in report.failures:
        said = " ".join([check.message, *check.monitor])
        assert FAILS[f"{check.group}/{check.name}"] in said, said
    assert sorted(report.names("warn")) == sorted(WARNS), report.text
    for check in report.warnings:
        assert WARNS[f"{check.group}/{check.name}"] in check.message


def test_what_the_real_gzkit_server_does_as_the_protocol_says(report: ConformanceReport) -> None:
    passed = report.names("pass")
    assert passed == [
        "lifecycle/`initialize` answers",
        "lifecycle/`analyze` answers",
        "capabilities/declared capabilities are the protocol's",
        "exit/exits after `shutdown` and the end of its input",
        "params/`analyze` with missing required member `file_path` at /file_path is refused",
        "params/`analyze` with a string shorter than 1 at /file_path is refused",
        "envelope/an unknown method is refused",
        "envelope/malformed JSON is refused",
        "framing/a malformed Content-Length header is refused",
        "output/stdout carries only frames of the protocol",
    ], report.text
    malformed = next(c for c in report.checks if c["name"] == "a malformed Content-Length header is refused")
    assert malformed["message"] == "refused with -32700 as the protocol says"
    # The crashes' tracebacks are in the report, from the server's stderr.
    stderr = " ".join(s["stderr"] for s in report.json["sessions"])
    assert "'int' object has no attribute 'split'" in stderr
    assert "'list' object has no attribute 'get'" in stderr
    assert report.json["not_exercised"] == []
