#!/usr/bin/env python3
"""Maintainer's checker for wirekit's protocol schemas and test data.

Run from anywhere:  python3 schemas/check.py [-v]

It needs Python 3.9+ with the `jsonschema` (4.18+) and `referencing` packages,
and cargo (it builds the `wirekit` command of this checkout). It checks,
failing on the first-class problems it finds:

0. every protocol loads through the core (`wirekit validate` on an empty
   capture, which compiles it): the core's manifest model, its bundling (every $ref of the
   manifest and the schemas resolves into the listed files), its consistency
   rules (states, completions, the capability and negotiation methods, the
   negotiation error, rule methods) and its check of the declared server error
   answers against the error schemas. Those rules live in the core only;
   this script does not re-derive them.

What stays here is what the core does not check, each for its reason:

1. schemas/wirekit-protocol.schema.json is a valid draft 2020-12 schema, and
   every protocol.json validates against it (the core reads manifests with
   serde, which enforces types but not the meta-schema's patterns, lengths
   and closed objects), and every schema file of a folder is listed;
2. every message schema compiles under the reference validator
   (python-jsonschema), has the expected $id, follows the conventions of
   schemas/README.md (title and description on every $def and property,
   well-formed open enums): authoring conventions of this repository, not
   protocol rules;
3. what the core does not cross-check yet: JSON pointers of the manifest
   (capabilities, version negotiation, rules) name members the schemas have,
   every state is reachable, ends_session agrees with terminal states, error
   codes and names are unique, and every example validates;
4. every test vector in tests/vectors/protocols/<protocol>@<version>/ gives
   exactly the listed errors (or none) under the reference validator, every
   method has vectors, and every valid vector of an older minor version is
   still valid in a newer one (the core runs the same vectors in
   bindings/rust/tests/protocol_vectors.rs: two independent validators must
   agree on them);
5. every captured session in tests/sessions/<protocol>@<version>/ is paired
   with a well-formed .expect.json, and `wirekit validate` (built from this
   checkout) finds in it exactly the problems listed there.

The last line reads "check: N passed, M failed"; the exit status is 0 only
when nothing failed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import urljoin

try:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012
except ImportError as exc:  # pragma: no cover - environment problem
    sys.exit(f"check.py needs the jsonschema and referencing packages: {exc}")

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
META = SCHEMAS / "wirekit-protocol.schema.json"
VECTORS = REPO / "tests" / "vectors" / "protocols"
SESSIONS = REPO / "tests" / "sessions"
BASE = "https://wirekit.dev/schemas/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
PARTS = ("params", "result", "item", "error_data")
PROBLEM_KINDS = ("framing", "envelope", "unknown_method", "invalid_params", "lifecycle", "capability", "rule", "duplicate_id",
                 "invalid_result", "accepted_invalid", "wrong_error", "unanswered", "duplicate_answer", "answered_notification",
                 "unknown_id", "result_for_invalid_id", "version_mismatch", "empty_capture")
MIN_INVALID_CASES = 3


# --------------------------------------------------------------------------
# reporting


class Report:
    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.passed = 0
        self.failed = 0

    def ok(self, what: str) -> None:
        self.passed += 1
        if self.verbose:
            print(f"ok    {what}")

    def fail(self, what: str, why: str) -> None:
        self.failed += 1
        print(f"FAIL  {what}: {why}")

    def check(self, condition: bool, what: str, why: str) -> bool:
        if condition:
            self.ok(what)
        else:
            self.fail(what, why)
        return condition


# --------------------------------------------------------------------------
# JSON helpers


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"duplicate key {key!r}")
        out[key] = value
    return out


def loads_strict(text: str | bytes) -> Any:
    """json.loads refusing duplicate keys."""
    return json.loads(text, object_pairs_hook=_no_duplicates)


def load_json(path: Path) -> Any:
    return loads_strict(path.read_text(encoding="utf-8"))


def escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def pointer(path: Iterable[Any]) -> str:
    return "".join("/" + escape(str(p)) for p in path)


def split_pointer(ptr: str) -> list[str]:
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError(f"not a JSON pointer: {ptr!r}")
    return [unescape(s) for s in ptr[1:].split("/")]


def expand_wildcard(doc: Any, ptr: str) -> Iterator[tuple[str, Any]]:
    """(concrete pointer, value) for every match of a pointer with '*' segments."""

    def walk(cur: Any, segs: list[str], done: list[str]) -> Iterator[tuple[str, Any]]:
        if not segs:
            yield pointer(done), cur
            return
        seg, rest = segs[0], segs[1:]
        if seg == "*":
            if isinstance(cur, dict):
                for k, v in cur.items():
                    yield from walk(v, rest, done + [k])
            elif isinstance(cur, list):
                for i, v in enumerate(cur):
                    yield from walk(v, rest, done + [str(i)])
            return
        if isinstance(cur, dict) and seg in cur:
            yield from walk(cur[seg], rest, done + [seg])
        elif isinstance(cur, list) and seg.isdigit() and int(seg) < len(cur):
            yield from walk(cur[int(seg)], rest, done + [seg])

    yield from walk(doc, split_pointer(ptr), [])


def short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:200] + "..."


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def major_of(version: str) -> str | None:
    m = re.match(r"^(\d+)", version)
    return m.group(1) if m else None


def semver_key(version: str) -> tuple[int, ...] | None:
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        return None
    return tuple(int(x) for x in version.split("."))


# --------------------------------------------------------------------------
# schema errors as (pointer, keyword) pairs


def schema_errors(validator: Draft202012Validator, instance: Any) -> list[tuple[str, str]]:
    """Every validation error as (pointer of the offending member, keyword).

    For `required` and `dependentRequired` the pointer is where the missing
    member should be; for `additionalProperties` it is each unexpected member.
    Errors under anyOf/oneOf are reported as that keyword at its location.
    """
    out: list[tuple[str, str]] = []
    for err in validator.iter_errors(instance):
        path = list(err.absolute_path)
        kw = str(err.validator)
        if kw == "required":
            m = re.match(r"^(.*) is a required property$", err.message, re.S)
            name = ast.literal_eval(m.group(1)) if m else "?"
            out.append((pointer(path + [name]), kw))
        elif kw == "dependentRequired":
            m = re.match(r"^(.*) is a dependency of ", err.message, re.S)
            name = ast.literal_eval(m.group(1)) if m else "?"
            out.append((pointer(path + [name]), kw))
        elif kw == "additionalProperties" and isinstance(err.instance, dict):
            props = err.schema.get("properties", {})
            patterns = err.schema.get("patternProperties", {})
            extras = [k for k in err.instance if k not in props and not any(re.search(p, k) for p in patterns)]
            for k in extras:
                out.append((pointer(path + [k]), kw))
        else:
            out.append((pointer(path), kw))
    return out


# --------------------------------------------------------------------------
# protocols


class Protocol:
    def __init__(self, directory: Path, manifest: dict[str, Any]) -> None:
        self.dir = directory
        self.manifest = manifest
        self.name = manifest.get("protocol", directory.parent.name)
        self.version = manifest.get("version", directory.name)
        self.key = f"{self.name}@{self.version}"
        self.base = f"{BASE}{directory.parent.name}/{directory.name}/"
        self.files: dict[str, dict[str, Any]] = {}
        self.registry: Registry | None = None
        self._validators: dict[str, Draft202012Validator] = {}

    @property
    def methods(self) -> dict[str, dict[str, Any]]:
        return self.manifest.get("methods", {})

    @property
    def transport(self) -> dict[str, Any]:
        return self.manifest.get("transport", {})

    def ref_uri(self, ref: dict[str, str]) -> str:
        return urljoin(self.base + "protocol.json", ref["$ref"])

    def validator(self, ref: dict[str, str]) -> Draft202012Validator:
        uri = self.ref_uri(ref)
        if uri not in self._validators:
            self._validators[uri] = Draft202012Validator({"$ref": uri}, registry=self.registry)
        return self._validators[uri]

    def part_ref(self, method: str, part: str) -> dict[str, str] | None:
        if part == "error_data":
            return self.manifest.get("error_data")
        key = {"params": "params", "result": "result", "item": "result_stream"}[part]
        return self.methods.get(method, {}).get(key)

    def rules_for(self, method: str, part: str) -> list[dict[str, Any]]:
        return [r for r in self.manifest.get("rules", []) if r.get("method") == method and r.get("part") == part]

    def stateless_rule_errors(self, method: str, part: str, value: Any) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for rule in self.rules_for(method, part):
            if rule["rule"] != "not_before":
                continue
            for where, obj in expand_wildcard(value, rule["at"]):
                if not isinstance(obj, dict):
                    continue
                a, b = obj.get(rule["first"]), obj.get(rule["second"])
                if is_number(a) and is_number(b) and b < a:
                    out.append((where + "/" + escape(rule["second"]), "not_before"))
        return out

    def accepts_anything(self, ref: dict[str, str] | None) -> bool:
        """Whether the schema `ref` points to takes every value (no keyword but annotations)."""
        if ref is None or self.registry is None:
            return False
        resolved = self.registry.resolver(base_uri=self.base + "protocol.json").lookup(self.ref_uri(ref))
        schema = resolved.contents
        return schema is True or (isinstance(schema, dict) and not set(schema) - {"title", "description", "$comment"})

    def evaluate(self, method: str, part: str, value: Any) -> list[tuple[str, str]]:
        """Errors of one part of one message, as the test vectors list them."""
        spec = self.methods.get(method, {})
        if part == "params" and value is None:
            return [] if spec.get("params_optional") else [("", "required")]
        ref = self.part_ref(method, part)
        if ref is None:
            raise KeyError(f"{self.key} {method} has no {part} schema")
        return schema_errors(self.validator(ref), value) + self.stateless_rule_errors(method, part, value)

    # -- walking schemas (for pointer checks) --------------------------------

    def resolve_node(self, node: Any, resolver: Any) -> tuple[Any, Any]:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 32:
            resolved = resolver.lookup(node["$ref"])
            node, resolver = resolved.contents, resolved.resolver
            seen += 1
        return node, resolver

    def schema_has_pointer(self, ref: dict[str, str], ptr: str, wildcard: bool = False) -> bool:
        """Whether instances of the schema can have a member at ptr (False when unresolvable)."""
        try:
            return self._has_pointer(ref, ptr, wildcard)
        except Unresolvable:
            return False

    def _has_pointer(self, ref: dict[str, str], ptr: str, wildcard: bool) -> bool:
        assert self.registry is not None
        uri = self.ref_uri(ref)
        resolver = self.registry.resolver(base_uri=uri)
        resolved = resolver.lookup(uri)
        frontier = [(resolved.contents, resolved.resolver)]
        for seg in split_pointer(ptr):
            nxt = []
            for node, res in frontier:
                node, res = self.resolve_node(node, res)
                if not isinstance(node, dict):
                    continue
                branches = [node] + [b for k in ("anyOf", "oneOf", "allOf") for b in node.get(k, [])]
                for br in branches:
                    br, bres = self.resolve_node(br, res)
                    if not isinstance(br, dict):
                        continue
                    if seg == "*" and wildcard:
                        if "items" in br:
                            nxt.append((br["items"], bres))
                        if isinstance(br.get("additionalProperties"), dict):
                            nxt.append((br["additionalProperties"], bres))
                    elif seg in br.get("properties", {}):
                        nxt.append((br["properties"][seg], bres))
            frontier = nxt
            if not frontier:
                return False
        return True


def walk_schema(node: Any, path: list[str]) -> Iterator[tuple[list[str], dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            if k in ("enum", "const", "examples", "default", "x-wirekit-open-enum", "x-wirekit-enum-attributes"):
                continue
            yield from walk_schema(v, path + [k])
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_schema(v, path + [str(i)])


def check_meta(report: Report) -> Draft202012Validator | None:
    try:
        meta = load_json(META)
        Draft202012Validator.check_schema(meta)
    except Exception as exc:  # noqa: BLE001
        report.fail(str(META.relative_to(REPO)), f"not a valid draft 2020-12 schema: {exc}")
        return None
    report.ok("meta-schema compiles")
    return Draft202012Validator(meta)


def load_protocols(report: Report, meta: Draft202012Validator | None) -> list[Protocol]:
    protocols: list[Protocol] = []
    resources: list[tuple[str, Resource]] = []
    for manifest_path in sorted(SCHEMAS.glob("*/*/protocol.json")):
        d = manifest_path.parent
        what = str(manifest_path.relative_to(REPO))
        try:
            manifest = load_json(manifest_path)
        except Exception as exc:  # noqa: BLE001
            report.fail(what, f"unreadable: {exc}")
            continue
        if meta is not None:
            errs = sorted(meta.iter_errors(manifest), key=lambda e: list(e.absolute_path))
            report.check(not errs, f"{what} matches the meta-schema",
                         "; ".join(f"{pointer(e.absolute_path) or '/'}: {e.message[:200]}" for e in errs[:5]))
        proto = Protocol(d, manifest)
        # That it names its folder is the core's check (its registry refuses it otherwise).
        listed = manifest.get("schemas", [])
        present = sorted(p.name for p in d.glob("*.json") if p.name != "protocol.json")
        report.check(sorted(listed) == present, f"{what} lists its schema files", f"listed {sorted(listed)}, present {present}")
        for name in listed:
            path = d / name
            fwhat = str(path.relative_to(REPO))
            try:
                schema = load_json(path)
                Draft202012Validator.check_schema(schema)
            except Exception as exc:  # noqa: BLE001
                report.fail(fwhat, f"not a valid draft 2020-12 schema: {exc}")
                continue
            report.ok(f"{fwhat} compiles")
            expected_id = proto.base + name
            report.check(schema.get("$id") == expected_id, f"{fwhat} $id", f"$id {schema.get('$id')!r} != {expected_id!r}")
            report.check(schema.get("$schema") == DRAFT, f"{fwhat} $schema", f"$schema must be {DRAFT}")
            proto.files[name] = schema
            resources.append((expected_id, Resource.from_contents(schema, default_specification=DRAFT202012)))
        protocols.append(proto)
    registry = Registry().with_resources(resources)
    for proto in protocols:
        proto.registry = registry
    return protocols


def check_schema_conventions(report: Report, proto: Protocol) -> None:
    assert proto.registry is not None
    for name, schema in proto.files.items():
        what = f"{proto.key} {name}"
        base = proto.base + name
        resolver = proto.registry.resolver(base_uri=base)
        bad_refs, missing_docs, bad_enums = [], [], []
        if "$defs" not in schema and schema.get("type") != "object":
            missing_docs.append("(file has neither $defs nor a root type)")
        for path, node in walk_schema(schema, []):
            where = pointer(path) or "/"
            if "$ref" in node and isinstance(node["$ref"], str):
                try:
                    resolver.lookup(node["$ref"])
                except Unresolvable as exc:
                    bad_refs.append(f"{where}: {node['$ref']} ({type(exc).__name__})")
            if is_named_schema(path) and isinstance(node, dict):
                if not node.get("title") or not node.get("description"):
                    missing_docs.append(where)
            if "x-wirekit-open-enum" in node:
                known = node["x-wirekit-open-enum"]
                if node.get("type") != "string" or "enum" in node:
                    bad_enums.append(f"{where}: an open enum is type string without enum")
                if not (isinstance(known, list) and known and all(isinstance(k, str) for k in known) and len(set(known)) == len(known)):
                    bad_enums.append(f"{where}: x-wirekit-open-enum must list unique strings")
                    continue
                for attr, mapping in node.get("x-wirekit-enum-attributes", {}).items():
                    if not isinstance(mapping, dict) or set(mapping) != set(known):
                        bad_enums.append(f"{where}: attribute {attr!r} must map exactly the known names")
            elif "x-wirekit-enum-attributes" in node:
                bad_enums.append(f"{where}: x-wirekit-enum-attributes without x-wirekit-open-enum")
        if path_root_doc_missing(schema):
            missing_docs.append("/ (root title/description)")
        report.check(not bad_refs, f"{what} $refs resolve", "; ".join(bad_refs))
        report.check(not missing_docs, f"{what} titles and descriptions", "missing at " + ", ".join(missing_docs))
        report.check(not bad_enums, f"{what} open enums", "; ".join(bad_enums))


def is_named_schema(path: list[Any]) -> bool:
    """Whether the schema at `path` is a `$defs` entry or an object member.

    Read from the root, keyword by keyword, so that a member named
    `properties` (LSP's `resolveSupport.properties`) is not taken for the
    keyword.
    """
    expect, named = "keyword", False
    for seg in path:
        if expect == "keyword":
            named = False
            if seg in ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas"):
                expect = "name"
            elif seg in ("anyOf", "allOf", "oneOf", "prefixItems"):
                expect = "index"
        else:
            named = expect == "name"
            expect = "keyword"
    return named


def path_root_doc_missing(schema: dict[str, Any]) -> bool:
    return not schema.get("title") or not schema.get("description")


def check_manifest(report: Report, proto: Protocol) -> None:
    man = proto.manifest
    what = f"{proto.key} protocol.json"
    problems: list[str] = []
    methods = proto.methods
    assert proto.registry is not None

    # That every $ref of the manifest resolves into a listed file is the core's
    # check (step 0); pointers below are followed only through refs that resolve.
    for name, m in methods.items():
        if "params" not in m and m.get("kind") == "request":
            problems.append(f"methods/{name}: a request needs a params schema (use an empty object type)")

    # capabilities
    caps = man.get("capabilities")
    if caps:
        cm = methods.get(caps["method"])  # that it exists is the core's check
        if cm and "result" not in cm:
            problems.append(f"capabilities/method {caps['method']!r} is not a request with a result")
        elif cm and not proto.schema_has_pointer(cm["result"], caps["pointer"]):
            problems.append(f"capabilities/pointer {caps['pointer']!r} is not in {caps['method']}'s result")
        else:
            # Whose declaration gates a method, as the core's
            # CapabilityOf::held_by_server: for each side that sends it, the
            # server's (its result at pointer) or the client's (its params at
            # client_pointer).
            def declarations(m: dict[str, Any]) -> list[tuple[Any, str, str]]:
                direction = m.get("direction", "client-to-server")
                senders = {"client-to-server": [False], "server-to-client": [True], "both": [False, True]}[direction]
                of = m.get("capability_of", "server")
                found = []
                for sent_by_server in senders:
                    held_by_server = {"server": True, "client": False,
                                      "receiver": not sent_by_server, "sender": sent_by_server}[of]
                    if held_by_server:
                        entry = (cm["result"], caps["pointer"], "the declared capabilities")
                    elif "client_pointer" in caps:
                        entry = (cm["params"], caps["client_pointer"], "the client's declared capabilities")
                    else:
                        continue  # the core refuses it (consistency)
                    if entry not in found:
                        found.append(entry)
                return found
            for name, m in methods.items():
                if "capability" not in m:
                    continue
                for schema, pointer, whose in declarations(m):
                    if caps["style"] == "boolean-object":
                        if not proto.schema_has_pointer(schema, pointer + "/" + escape(m["capability"])):
                            problems.append(f"methods/{name}/capability {m['capability']!r} is not a member of {whose}")
                    elif caps["style"] == "provider":
                        # The path's first member must be a provider of the
                        # declaration; below it, options objects are open (LSP's are).
                        first = m["capability"].split("/")[0]
                        if not proto.schema_has_pointer(schema, pointer + "/" + first):
                            problems.append(f"methods/{name}/capability {m['capability']!r}: {first!r} is not a member of {whose}")
    declared = man.get("declared_version")
    if declared is not None:
        dm = methods.get(declared["method"])
        if dm is None or dm.get("kind") != "request" or "result" not in dm:
            problems.append(f"declared_version/method {declared['method']!r} is not a request with a result")
        elif not proto.schema_has_pointer(dm["result"], declared["pointer"]):
            problems.append(f"declared_version/pointer {declared['pointer']!r} is not in {declared['method']}'s result")

    # errors
    errors = man.get("errors", [])
    codes = [e["code"] for e in errors]
    names = [e["name"] for e in errors]
    if len(set(codes)) != len(codes) or len(set(names)) != len(names):
        problems.append("errors: duplicate code or name")

    # lifecycle
    lc = man.get("lifecycle")
    if lc:
        # Unknown states (initial, terminal, allowed_in, on_success) are the core's check.
        states = set(lc["states"])
        terminal = set(lc.get("terminal", []))
        if lc["initial"] in terminal:
            problems.append("lifecycle/initial is terminal")
        for name, m in methods.items():
            ml = m.get("lifecycle")
            if ml is None:
                problems.append(f"methods/{name}: no lifecycle although the protocol has one")
                continue
            allowed = set(ml["allowed_in"])
            if allowed != {"*"} and allowed & terminal:
                problems.append(f"methods/{name}/lifecycle/allowed_in includes terminal states")
            if ml.get("ends_session") and ml.get("on_success") not in terminal:
                problems.append(f"methods/{name}/lifecycle: ends_session needs a terminal on_success")
            if ml.get("on_success") in terminal and not ml.get("ends_session"):
                problems.append(f"methods/{name}/lifecycle: a terminal on_success needs ends_session")
        reachable = {lc["initial"]} | {m["lifecycle"]["on_success"] for m in methods.values() if "on_success" in m.get("lifecycle", {})}
        if states - reachable:
            problems.append(f"lifecycle: unreachable states {sorted(states - reachable)}")

    # version negotiation
    vn = man.get("version_negotiation")
    if vn:
        # That its method and error exist is the core's check.
        vm = methods.get(vn["method"])
        if vm and (vm.get("kind") != "request" or "params" not in vm):
            problems.append(f"version_negotiation/method {vn['method']!r} is not a request with params")
        elif vm and not proto.schema_has_pointer(vm["params"], vn["client_pointer"]):
            problems.append(f"version_negotiation/client_pointer {vn['client_pointer']!r} is not in its params")
        if major_of(vn["server_version"]) is None:
            problems.append("version_negotiation/server_version has no leading major number")

    # rules
    for i, rule in enumerate(man.get("rules", [])):
        where = f"rules/{i} ({rule.get('rule')})"
        m = methods.get(rule["method"])
        if m is None:
            problems.append(f"{where}: unknown method {rule['method']!r}")
            continue
        ref = proto.part_ref(rule["method"], rule["part"])
        if ref is None:
            problems.append(f"{where}: {rule['method']} has no {rule['part']} schema")
            continue
        kind = rule["rule"]
        if kind == "not_before":
            for member in (rule["first"], rule["second"]):
                if not proto.schema_has_pointer(ref, rule["at"] + "/" + escape(member), wildcard=True):
                    problems.append(f"{where}: {rule['at']}/{member} is not in the schema")
        else:
            pointers = rule["at"] if isinstance(rule["at"], list) else [rule["at"]]
            for p in pointers:
                if not proto.schema_has_pointer(ref, p):
                    problems.append(f"{where}: {p} is not in {rule['method']}'s params")
            scope = rule.get("scope")
            if scope:
                start, end = methods.get(scope["start"]), methods.get(scope["end"])
                if not start or start.get("kind") != "request":
                    problems.append(f"{where}: scope start {scope['start']!r} is not a request")
                if not end:
                    problems.append(f"{where}: scope end {scope['end']!r} is not a method")
                if kind == "matches_scope" and start and "params" in start:
                    for p in pointers:
                        if not proto.schema_has_pointer(start["params"], p):
                            problems.append(f"{where}: {p} is not in {scope['start']}'s params")
            for key in ("observed", "consumed"):
                if key in rule:
                    om = methods.get(rule[key]["method"])
                    if not om or "params" not in om or not proto.schema_has_pointer(om["params"], rule[key]["at"]):
                        problems.append(f"{where}: {key} {rule[key]} does not name a params member")
    report.check(not problems, f"{what} is consistent", "; ".join(problems))

    # examples
    bad: list[str] = []
    for name, m in methods.items():
        for j, ex in enumerate(m.get("examples", [])):
            tag = f"methods/{name}/examples/{j}"
            checks: list[tuple[str, Any]] = []
            if "params" in ex:
                checks.append(("params", ex["params"]))
            elif not m.get("params_optional"):
                bad.append(f"{tag}: no params although they are required")
            if "result" in ex:
                if "result" not in m:
                    bad.append(f"{tag}: result for a method without one")
                else:
                    checks.append(("result", ex["result"]))
            for item in ex.get("items", []):
                if "result_stream" not in m:
                    bad.append(f"{tag}: items for a method without result_stream")
                    break
                checks.append(("item", item))
            if "error" in ex and "error_data" in man:
                checks.append(("error_data", ex["error"].get("data")))
            for part, value in checks:
                try:
                    errs = proto.evaluate(name, part, value)
                except Exception as exc:  # noqa: BLE001 - an unresolvable schema
                    bad.append(f"{tag} {part}: cannot validate ({short(exc)})")
                    continue
                if errs:
                    bad.append(f"{tag} {part}: {errs}")
    report.check(not bad, f"{what} examples validate", "; ".join(bad))


# --------------------------------------------------------------------------
# test vectors


def method_slug(method: str) -> str:
    return method.replace("/", "-")


def check_vectors(report: Report, protocols: dict[str, Protocol]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Runs every vector; returns protocol key -> method -> cases."""
    seen: dict[str, dict[str, list[dict[str, Any]]]] = {}
    if not VECTORS.is_dir():
        report.fail(str(VECTORS.relative_to(REPO)), "missing")
        return seen
    for d in sorted(p for p in VECTORS.iterdir() if p.is_dir()):
        proto = protocols.get(d.name)
        if not report.check(proto is not None, f"vectors {d.name}", "no such protocol@version in schemas/"):
            continue
        assert proto is not None
        seen[proto.key] = {}
        for f in sorted(d.glob("*.json")):
            what = str(f.relative_to(REPO))
            try:
                doc = load_json(f)
            except Exception as exc:  # noqa: BLE001
                report.fail(what, f"unreadable: {exc}")
                continue
            header_ok = (doc.get("protocol") == proto.name and doc.get("version") == proto.version
                         and doc.get("method") in proto.methods and f.stem == method_slug(doc.get("method", ""))
                         and set(doc) == {"protocol", "version", "method", "cases"} and isinstance(doc.get("cases"), list))
            if not report.check(header_ok, f"{what} header", "protocol/version/method must match the folder, a method and the file name, and only cases may follow"):
                continue
            method = doc["method"]
            seen[proto.key][method] = doc["cases"]
            names = Counter(c.get("name") for c in doc["cases"])
            report.check(all(n == 1 for n in names.values()), f"{what} case names", f"duplicate names {[n for n, c in names.items() if c > 1]}")
            for case in doc["cases"]:
                cwhat = f"{what} [{case.get('name')}]"
                shape_ok = (isinstance(case.get("name"), str) and case.get("part") in PARTS and isinstance(case.get("valid"), bool)
                            and "value" in case
                            and set(case) <= {"name", "part", "value", "valid", "errors", "description"}
                            and (case["valid"] == ("errors" not in case)))
                if not report.check(shape_ok, cwhat + " shape", "needs name, part, value, valid, and errors exactly when invalid"):
                    continue
                try:
                    got = proto.evaluate(method, case["part"], case["value"])
                except Exception as exc:  # noqa: BLE001 - no such part, or an unresolvable schema
                    report.fail(cwhat, f"cannot validate ({short(exc)})")
                    continue
                if case["valid"]:
                    report.check(not got, cwhat, f"expected valid, got errors {got}")
                else:
                    expected = [(e.get("pointer"), e.get("keyword")) for e in case["errors"]]
                    report.check(bool(expected) and Counter(got) == Counter(expected), cwhat,
                                 f"expected errors {sorted(expected)}, got {sorted(got)}")
        # coverage
        for method, spec in proto.methods.items():
            cases = seen[proto.key].get(method)
            if not report.check(cases is not None, f"vectors {proto.key} {method} exist", f"no {method_slug(method)}.json"):
                continue
            assert cases is not None
            n_valid = sum(1 for c in cases if c.get("valid"))
            n_invalid = sum(1 for c in cases if c.get("valid") is False)
            # A notification whose params take any value (LSP's telemetry/event:
            # LSPAny) can only be refused when absent.
            need = 1 if spec.get("kind") == "notification" and proto.accepts_anything(spec.get("params")) else MIN_INVALID_CASES
            report.check(n_valid >= 1 and n_invalid >= need, f"vectors {proto.key} {method} coverage",
                         f"{n_valid} valid and {n_invalid} invalid cases; need >= 1 and >= {need}")
            valid_values = {(c["part"], json.dumps(c["value"], sort_keys=True)) for c in cases if c.get("valid")}
            missing = []
            for ex in spec.get("examples", []):
                wanted = []
                if "params" in ex:
                    wanted.append(("params", ex["params"]))
                if "result" in ex:
                    wanted.append(("result", ex["result"]))
                wanted += [("item", it) for it in ex.get("items", [])]
                for part, value in wanted:
                    if (part, json.dumps(value, sort_keys=True)) not in valid_values:
                        missing.append(f"{ex['title']} ({part})")
            report.check(not missing, f"vectors {proto.key} {method} include the manifest examples", "missing " + ", ".join(missing))
    for key in protocols:
        report.check(key in seen, f"vectors {key}", "no vector folder")
    return seen


def check_superset(report: Report, protocols: dict[str, Protocol], vectors: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    """Every valid vector of a version stays valid in each later version of the same major."""
    by_name: dict[str, list[Protocol]] = {}
    for p in protocols.values():
        by_name.setdefault(p.name, []).append(p)
    for name, versions in by_name.items():
        ordered = sorted((v for v in versions if semver_key(v.version)), key=lambda v: semver_key(v.version))
        for i, old in enumerate(ordered):
            for new in ordered[i + 1:]:
                if major_of(old.version) != major_of(new.version):
                    continue
                what = f"{new.key} accepts every valid {old.key} message"
                bad = []
                for method, cases in vectors.get(old.key, {}).items():
                    if method not in new.methods:
                        bad.append(f"method {method} was removed")
                        continue
                    for c in cases:
                        try:
                            if c.get("valid") and new.evaluate(method, c["part"], c["value"]):
                                bad.append(f"{method} [{c['name']}]")
                        except Exception as exc:  # noqa: BLE001
                            bad.append(f"{method} [{c['name']}] cannot validate ({short(exc)})")
                report.check(not bad, what, ", ".join(bad))


# --------------------------------------------------------------------------
# sessions: replayed through the real checker (`wirekit validate --json`)


def wirekit_validate() -> list[str]:
    """The `wirekit` command built from this checkout (built here if needed)."""
    subprocess.run(["cargo", "build", "-q", "-p", "wirekit-cli", "--manifest-path", str(REPO / "Cargo.toml")], check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return [str(target / "debug" / "wirekit"), "validate", "--schemas", str(SCHEMAS), "--json"]


def replay(command: list[str], key: str, capture: Path) -> list[tuple[int, str, str | None]]:
    """The (frame, kind, pointer) problems `wirekit validate` finds in a capture."""
    done = subprocess.run(command + ["--protocol", key, str(capture)], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr.strip() or f"exit status {done.returncode}")
    problems = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [(p["frame"], p["kind"], p["pointer"]) for p in problems]


def check_core_loads(report: Report, protocols: dict[str, Protocol], command: list[str]) -> None:
    """Step 0: each protocol compiled by the core (an empty capture replayed)."""
    empty = REPO / "target" / "check-empty-capture"
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.write_bytes(b"")
    for key in protocols:
        done = subprocess.run(command + ["--protocol", key, str(empty)], capture_output=True, text=True)
        # 0 or 1 (an empty capture is a problem of its own): the protocol compiled;
        # 2: the core refused it, its message names the file and pointer.
        report.check(done.returncode in (0, 1), f"{key} loads through the core",
                     done.stderr.strip() or f"exit status {done.returncode}")


def check_sessions(report: Report, protocols: dict[str, Protocol], command: list[str]) -> None:
    if not SESSIONS.is_dir():
        report.fail(str(SESSIONS.relative_to(REPO)), "missing")
        return
    covered = set()
    for d in sorted(p for p in SESSIONS.iterdir() if p.is_dir()):
        proto = protocols.get(d.name)
        if not report.check(proto is not None, f"sessions {d.name}", "no such protocol@version in schemas/"):
            continue
        assert proto is not None
        suffix = ".bin" if proto.transport["framing"] == "content-length" else ".ndjson"
        captures = sorted(p for p in d.iterdir() if p.suffix in (".bin", ".ndjson"))
        expects = sorted(d.glob("*.expect.json"))
        stems = {p.name[: -len(p.suffix)] for p in captures}
        report.check({p.name[: -len(".expect.json")] for p in expects} == stems, f"sessions {d.name} pairing",
                     "every capture needs a <name>.expect.json and vice versa")
        clean = 0
        for cap in captures:
            what = str(cap.relative_to(REPO))
            if not report.check(cap.suffix == suffix, f"{what} extension", f"{proto.transport['framing']} captures end in {suffix}"):
                continue
            exp_path = cap.with_name(cap.name[: -len(cap.suffix)] + ".expect.json")
            if not exp_path.exists():
                continue
            try:
                expect = load_json(exp_path)
            except Exception as exc:  # noqa: BLE001
                report.fail(str(exp_path.relative_to(REPO)), f"unreadable: {exc}")
                continue
            shape_ok = (set(expect) - {"foreign_server"} == {"protocol", "problems"} and expect["protocol"] == proto.key
                        and isinstance(expect.get("foreign_server", False), bool)
                        and isinstance(expect["problems"], list)
                        and all(isinstance(p, dict) and set(p) == {"frame", "kind", "pointer"} and is_integer(p["frame"])
                                and p["kind"] in PROBLEM_KINDS and (p["pointer"] is None or isinstance(p["pointer"], str))
                                for p in expect["problems"]))
            if not report.check(shape_ok, f"{exp_path.relative_to(REPO)} shape", f"needs protocol {proto.key!r}, problems [{{frame, kind, pointer}}] and optionally foreign_server: bool"):
                continue
            try:
                got = replay(command, proto.key, cap)
            except Exception as exc:  # noqa: BLE001
                report.fail(what, f"cannot replay ({short(exc)})")
                continue
            want = [(p["frame"], p["kind"], p["pointer"]) for p in expect["problems"]]
            report.check(Counter(got) == Counter(want), f"{what} replays as expected",
                         f"expected {sorted(want, key=str)}, got {sorted(got, key=str)}")
            clean += not want
        report.check(clean >= 1, f"sessions {d.name} has a clean session", "no capture without problems")
        covered.add(proto.key)
    for key in protocols:
        report.check(key in covered, f"sessions {key}", "no session folder")


# --------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check, not only failures")
    args = parser.parse_args()
    report = Report(args.verbose)
    meta = check_meta(report)
    protocols = load_protocols(report, meta)
    command = wirekit_validate()
    check_core_loads(report, {p.key: p for p in protocols}, command)
    for proto in protocols:
        check_schema_conventions(report, proto)
        check_manifest(report, proto)
    by_key = {p.key: p for p in protocols}
    vectors = check_vectors(report, by_key)
    check_superset(report, by_key, vectors)
    check_sessions(report, by_key, command)
    print(f"check: {report.passed} passed, {report.failed} failed")
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
