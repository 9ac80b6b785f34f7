"""Conformance in tests: put a server through the core's battery
(`wirekit conformance`) from Python, and fail a test with the report.

    from wirekit.testing import assert_conforms

    def test_my_analyzer_speaks_gaze() -> None:
        assert_conforms("gaze-analyzer@1.0.0", ["my-analyzer"], root="tests/project")

`conformance(...)` returns a `ConformanceReport`; `assert_conforms(...)`
raises `ConformanceFailure` (an `AssertionError`, so pytest shows it as a
failed assertion) carrying the failed checks and the whole report. The
battery is the Rust core's (`wirekit::conformance::run`), the very engine
of the `wirekit conformance` command: nothing is judged in Python.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from ._native import Protocol
from ._native import conformance as _run

__all__ = ["ConformanceFailure", "ConformanceReport", "FailedCheck", "assert_conforms", "conformance"]

_Path = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class FailedCheck:
    """A check that did not pass: its group and name, the sentence saying
    what was expected and what came instead, the JSON pointer at fault, what
    the monitor found at the server's frames, and the frames exchanged."""

    group: str
    name: str
    outcome: str
    message: str
    pointer: Optional[str]
    session: int
    monitor: list[str] = field(default_factory=list)
    frames: list[dict[str, str]] = field(default_factory=list)

    @staticmethod
    def from_json(check: Mapping[str, Any]) -> FailedCheck:
        return FailedCheck(
            group=str(check["group"]),
            name=str(check["name"]),
            outcome=str(check["outcome"]),
            message=str(check["message"]),
            pointer=check.get("pointer"),
            session=int(check["session"]),
            monitor=[str(m) for m in check.get("monitor", [])],
            frames=[dict(f) for f in check.get("frames", [])],
        )

    def __str__(self) -> str:
        at = f" at {self.pointer or '(root)'}" if self.pointer is not None else ""
        return f"{self.group}/{self.name}{at}: {self.message}"


@dataclass(frozen=True)
class ConformanceReport:
    """The report of a run: `json` is the object `wirekit conformance --json`
    prints (checks, sessions, summary, not_exercised), `text` the readable
    report with its summary table."""

    json: dict[str, Any]
    text: str

    @property
    def passed(self) -> bool:
        """Whether no check failed (warnings do not fail a run)."""
        return bool(self.json["passed"])

    @property
    def checks(self) -> list[dict[str, Any]]:
        """Every check, in the order it ran."""
        return list(self.json["checks"])

    def with_outcome(self, outcome: str) -> list[FailedCheck]:
        """The checks with `outcome` (`"pass"`, `"warn"` or `"fail"`)."""
        return [FailedCheck.from_json(c) for c in self.json["checks"] if c["outcome"] == outcome]

    @property
    def failures(self) -> list[FailedCheck]:
        """The checks that failed."""
        return self.with_outcome("fail")

    @property
    def warnings(self) -> list[FailedCheck]:
        """The checks that warned."""
        return self.with_outcome("warn")

    def names(self, outcome: str) -> list[str]:
        """`group/name` of every check with `outcome`."""
        return [f"{c.group}/{c.name}" for c in self.with_outcome(outcome)]


class ConformanceFailure(AssertionError):
    """A server that does not conform: `failures` are the failed checks,
    `report` the whole report (its text is the exception's message)."""

    def __init__(self, report: ConformanceReport) -> None:
        self.report = report
        self.failures = report.failures
        protocol = report.json.get("protocol", "?")
        listed = "\n".join(f"  - {failure}" for failure in self.failures)
        super().__init__(
            f"the server does not conform to {protocol}: {len(self.failures)} check(s) failed\n"
            f"{listed}\n\n{report.text}"
        )


def conformance(
    protocol: Union[str, Protocol],
    command: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    schemas: Optional[_Path] = None,
    root: Optional[_Path] = None,
    only: Optional[Sequence[str]] = None,
    timeout: Optional[float] = None,
    params: Optional[Mapping[str, Any]] = None,
    record: Optional[_Path] = None,
) -> ConformanceReport:
    """Runs the conformance battery of `protocol` (a spec such as
    `"gaze-analyzer@1.0.0"`, loaded from `schemas` when given, or a
    `Protocol`) against the server started with `command`.

    `root` is the project root (the server's working directory, and the
    params member the protocol names for it; a relative program path in
    `command` is found there too); `only` runs some groups; `timeout`
    (seconds) replaces every answer's own; `params` (method name to params)
    replaces the manifest's examples; `record` records the sessions in the
    format `wirekit validate` reads. Raises `wirekit.errors.ConformanceError`
    when the run cannot start.
    """
    report, text = _run(
        protocol,
        [os.fspath(part) for part in command],
        schemas=schemas,
        root=root,
        only=list(only) if only is not None else None,
        timeout=timeout,
        params=dict(params) if params is not None else None,
        record=record,
    )
    return ConformanceReport(json=report, text=text)


def assert_conforms(
    protocol: Union[str, Protocol],
    command: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    schemas: Optional[_Path] = None,
    root: Optional[_Path] = None,
    only: Optional[Sequence[str]] = None,
    timeout: Optional[float] = None,
    params: Optional[Mapping[str, Any]] = None,
    record: Optional[_Path] = None,
) -> ConformanceReport:
    """Runs `conformance(...)` and raises `ConformanceFailure` with the
    failed checks when any check failed; returns the report otherwise
    (warnings included, for a test to look at)."""
    report = conformance(
        protocol,
        command,
        schemas=schemas,
        root=root,
        only=only,
        timeout=timeout,
        params=params,
        record=record,
    )
    if not report.passed:
        raise ConformanceFailure(report)
    return report
