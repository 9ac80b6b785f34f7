#!/usr/bin/env python3
"""Writes the test vectors of the methods of derived protocols that have none yet.

The LSP manifest is derived from the meta model (93 methods) and MCP's from
the official schema.json, so most of their methods get their vectors here
rather than by hand: for each method without
`tests/vectors/protocols/<protocol>@<version>/<method>.json`, a minimal valid params
value (the required members only, each the simplest value its schema takes),
a minimal valid result for a request, and three invalid params values (params
of the wrong JSON type, a required member left out or, for an object without
required members, a member of the wrong type, and one more member of the
wrong type or a value the empty params refuse). The expected errors are the
reference validator's (`schemas/check.py`'s, Python `jsonschema`); the Rust,
Python and TypeScript suites must find the same. Existing files, written by
hand, are never touched.

    python3 tests/vectors/make_lsp_vectors.py                  # lsp@3.17; needs jsonschema, referencing
    python3 tests/vectors/make_lsp_vectors.py mcp@2025-06-18   # any protocol@version
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEFAULT_KEY = "lsp@3.17"


def load_check() -> Any:
    spec = importlib.util.spec_from_file_location("check", REPO / "schemas" / "check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["check"] = module
    spec.loader.exec_module(module)
    return module


def sample(schema: Any, resolver: Any, depth: int = 0) -> Any:
    """The simplest value `schema` takes (None when it takes anything)."""
    if depth > 40 or not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        resolved = resolver.lookup(schema["$ref"])
        return sample(resolved.contents, resolved.resolver, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "x-wirekit-open-enum" in schema:
        return schema["x-wirekit-open-enum"][0]
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"] or schema["anyOf"]
        return sample(options[0], resolver, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t == "object" or (t is None and "properties" in schema):
        props = schema.get("properties", {})
        return {k: sample(props.get(k, {}), resolver, depth + 1) for k in schema.get("required", [])}
    if t == "array":
        return [sample(s, resolver, depth + 1) for s in schema.get("prefixItems", [])]
    if t == "string":
        return "x"
    if t == "integer":
        return max(0, schema.get("minimum", 0))
    if t == "number":
        return 0
    if t == "boolean":
        return False
    return None


WRONG: list[Any] = [12345, "not this type", True, [], -1]


def resolve(proto: Any, ref: dict[str, str]) -> tuple[Any, Any]:
    resolver = proto.registry.resolver(base_uri=proto.base + "protocol.json")
    resolved = resolver.lookup(proto.ref_uri(ref))
    return resolved.contents, resolved.resolver


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="Writes the test vectors of the methods of derived protocols that have none yet "
        "(files written by hand are never touched). Needs jsonschema and referencing.",
    )
    parser.add_argument(
        "protocols", nargs="*", metavar="PROTOCOL@VERSION", help=f"the protocols (default: {DEFAULT_KEY})"
    )
    args = parser.parse_args()
    check = load_check()
    report = check.Report(False)
    protocols = {p.key: p for p in check.load_protocols(report, check.check_meta(report))}
    unknown = [key for key in args.protocols if key not in protocols]
    if unknown:
        parser.error(f"no protocol {', '.join(unknown)}; known: {', '.join(sorted(protocols))}")
    written = 0
    for key in args.protocols or [DEFAULT_KEY]:
        written += write_vectors(check, protocols[key], REPO / "tests" / "vectors" / "protocols" / key)
    print(f"make_lsp_vectors: {written} files written")
    return 0


def write_vectors(check: Any, proto: Any, folder: Path) -> int:
    """Writes the missing vector files of `proto` into `folder`; their count."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for method, spec in proto.methods.items():
        path = folder / f"{check.method_slug(method)}.json"
        if path.exists():
            continue
        cases: list[dict[str, Any]] = []

        def add(name: str, part: str, value: Any, want_valid: bool | None) -> None:
            errors = proto.evaluate(method, part, value)
            if want_valid is not None and want_valid != (not errors):
                raise SystemExit(f"{method} [{name}]: expected {'valid' if want_valid else 'invalid'}, got {errors}")
            case: dict[str, Any] = {"name": name, "part": part, "value": value, "valid": not errors}
            if errors:
                case["errors"] = [{"pointer": p, "keyword": k} for p, k in errors]
            cases.append(case)

        schema, resolver = resolve(proto, spec["params"])
        params = sample(schema, resolver)
        no_params = spec.get("params_optional", False) and schema.get("maxProperties") == 0
        if not (set(schema) - {"title", "description", "$comment"}) and "$ref" not in schema:
            # Params of any value (LSPAny): only an absent one is refused.
            add("an object", "params", {"k": 1}, True)
            add("a string", "params", "x", True)
            add("absent", "params", None, False)
        elif no_params:
            add("no params", "params", None, True)
            add("an empty object", "params", {}, True)
            add("a member", "params", {"unexpected": 1}, False)
            add("an item", "params", [1], False)
            add("a string", "params", "x", False)
        else:
            add("the required members only", "params", params, True)
            add("params a string", "params", "not params", False)
            while "$ref" in schema:
                resolved = resolver.lookup(schema["$ref"])
                schema, resolver = resolved.contents, resolved.resolver
            required = schema.get("required", [])
            props = list(schema.get("properties", {}))
            if required:
                first = required[0]
                add(f"without `{first}`", "params", {k: v for k, v in params.items() if k != first}, False)
            for name in props:
                if sum(1 for c in cases if not c["valid"]) >= 3:
                    break
                bad = next((w for w in WRONG if proto.evaluate(method, "params", {**params, name: w})), None)
                if bad is not None:
                    add(f"`{name}` {json.dumps(bad)}", "params", {**params, name: bad}, False)
            if sum(1 for c in cases if not c["valid"]) < 3:
                add("params an array of one number", "params", [1], False)
            if sum(1 for c in cases if not c["valid"]) < 3 and proto.evaluate(method, "params", {}):
                # Params that are a union (MCP 2025-11-25's elicitation form or URL).
                add("params an empty object", "params", {}, False)
        if "result" in spec:
            rschema, rresolver = resolve(proto, spec["result"])
            add("the simplest result", "result", sample(rschema, rresolver), True)
        invalid = sum(1 for c in cases if not c["valid"])
        if invalid < (1 if proto.accepts_anything(spec["params"]) else 3):
            raise SystemExit(f"{method}: only {invalid} invalid cases")
        doc = {"protocol": proto.name, "version": proto.version, "method": method, "cases": cases}
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        written += 1
    return written


if __name__ == "__main__":
    sys.exit(main())
