"""The official JSON-Schema-Test-Suite through the Python binding's paths.

Each group's schema becomes a one-method protocol (the folder the Rust and
TypeScript suites build: `schema.json`, the suite's remotes at their paths,
`base_uri` `http://localhost:1234/`, the method `m` taking and answering the
group's schema), loaded with `Protocol.from_manifest`. Every case's data is
checked as the result by `validate`, `write_result` and `read_result` (the
in-place paths with their quick check), and, where it is an object or an
array, as params through the Rust serve loop. Every group must load and every
verdict must be the suite's.

The suite is read from `../shared/upstream/json-schema-test-suite` beside the
clone (or `$WIREKIT_JSON_SCHEMA_SUITE`); without it the test says so in one
line and counts nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from support import SUMMARY
from wirekit import NotJsonError, Protocol, Server, ValidationError

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Suite:
    folder: str
    dialect: str
    other_remotes: tuple[str, ...]


SUITES = (
    Suite("draft2020-12", "https://json-schema.org/draft/2020-12/schema",
          ("draft3", "draft4", "draft6", "draft7", "draft2019-09", "v1")),
    Suite("draft7", "http://json-schema.org/draft-07/schema#",
          ("draft3", "draft4", "draft6", "draft2019-09", "draft2020-12", "v1")),
)


@dataclass
class Tally:
    groups: int = 0
    cases: int = 0
    agreed: int = 0
    invalid_accepted: list[str] = field(default_factory=list)
    valid_refused: list[str] = field(default_factory=list)
    groups_refused: list[str] = field(default_factory=list)


def suite_root() -> Optional[Path]:
    configured = os.environ.get("WIREKIT_JSON_SCHEMA_SUITE")
    root = Path(configured) if configured else REPO.parent / "shared/upstream/json-schema-test-suite"
    return root if (root / "tests").is_dir() else None


def remotes(root: Path, suite: Suite) -> dict[str, Any]:
    found: dict[str, Any] = {}
    base = root / "remotes"
    for path in sorted(base.rglob("*.json")):
        relative = path.relative_to(base)
        if len(relative.parts) > 1 and relative.parts[0] in suite.other_remotes:
            continue
        found[relative.as_posix()] = json.loads(path.read_text(encoding="utf-8"))
    return found


def manifest(suite: Suite, formats: bool, remote_names: list[str]) -> dict[str, Any]:
    return {
        "protocol": "suite",
        "version": "1",
        "title": "A JSON-Schema-Test-Suite group",
        "description": "One method whose params and result are the group's schema.",
        "roles": {"client": "client", "server": "server"},
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "json_schema": {"dialect": suite.dialect, "base_uri": "http://localhost:1234/",
                        "formats": "assert" if formats else "annotate"},
        "schemas": ["schema.json", *remote_names],
        "methods": {"m": {"kind": "request", "direction": "client-to-server",
                          "description": "Takes and answers a value of the group's schema.",
                          "params": {"$ref": "schema.json"}, "result": {"$ref": "schema.json"}}},
    }


def accepted(check: Any) -> bool:
    """True when `check()` returns, False when it refuses the value as the
    schema's (any other exception is a defect and propagates)."""
    try:
        check()
    except (ValidationError, NotJsonError):
        return False
    return True


def served(protocol: Protocol, data: Any) -> bool:
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "m", "params": data}).encode()
    answers = Server(protocol, {"m": lambda params: params}).serve_bytes(request + b"\n")
    first = json.loads(answers.splitlines()[0])
    return "result" in first


def run_group(suite: Suite, formats: bool, files: dict[str, Any], group: dict[str, Any],
              name: str, tally: Tally) -> None:
    tally.groups += 1
    cases = group.get("tests", [])
    tally.cases += len(cases)
    schemas = {"schema.json": group["schema"], **files}
    try:
        protocol = Protocol.from_manifest(manifest(suite, formats, list(files)), schemas,
                                          origin="suite/1")
    except Exception as error:  # noqa: BLE001 - a refused group is counted, not raised
        tally.groups_refused.append(f"{name}: {error}")
        return
    for case in cases:
        data, valid = case["data"], bool(case["valid"])
        text = json.dumps(data)
        verdicts = {
            "validate": accepted(lambda: protocol.check("m", "result", data)),
            "write_result": accepted(lambda: protocol.write_result("m", 1, data)),
            "read_result": accepted(lambda: protocol.read_result(
                "m", b'{"jsonrpc":"2.0","id":1,"result":%s}' % text.encode())),
        }
        if isinstance(data, (dict, list)):
            verdicts["serve loop"] = served(protocol, data)
        wrong = [path for path, verdict in verdicts.items() if verdict != valid]
        label = f"{name} / {case.get('description', '?')} (data {text})"
        if not wrong:
            tally.agreed += 1
        elif valid:
            tally.valid_refused.append(f"{label}: refused by {', '.join(wrong)}")
        else:
            tally.invalid_accepted.append(f"{label}: accepted by {', '.join(wrong)}")


def test_the_official_suite_through_the_python_paths() -> None:
    root = suite_root()
    if root is None:
        SUMMARY.append("json-schema-test-suite (python): not run: "
                       "../shared/upstream/json-schema-test-suite is absent (CI has it)")
        return
    failures: list[str] = []
    for suite in SUITES:
        files = remotes(root, suite)
        tally = Tally()
        folder = root / "tests" / suite.folder
        for subfolder, formats in (("", False), ("optional/format", True)):
            for path in sorted((folder / subfolder).glob("*.json")):
                stem = path.relative_to(root / "tests").as_posix()
                for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                    run_group(suite, formats, files, group,
                              f"{stem} #{index} {group.get('description', '?')}", tally)
        SUMMARY.append(
            f"json-schema-test-suite (python, {suite.folder}): {tally.agreed} agreed, "
            f"{len(tally.invalid_accepted)} invalid accepted, {len(tally.valid_refused)} valid "
            f"refused, {len(tally.groups_refused)} groups refused "
            f"(of {tally.groups} groups, {tally.cases} cases)")
        failures += tally.invalid_accepted + tally.valid_refused + tally.groups_refused
    assert not failures, "\n".join(failures)
