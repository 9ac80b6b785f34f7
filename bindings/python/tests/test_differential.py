"""Differential tests: every path of the package against its reference.

* `Protocol.validate` (the core), `write_result`, `read_result` and the serve
  loop against `jsonschema-rs`, over generated schemas (every keyword the
  fast paths handle) and instances (big integers, `1.0` against `1`, `-0.0`,
  deep nesting, str and int subclasses, bool, tuples, lone surrogates);
* the bytes `write_result` writes against `orjson`;
* canonical bytes against the `rfc8785` reference;
* decoded values against `json`.

Number literals against `json` under the wire's number rules (tests/vectors
README, "Numbers"): `-0` reads as the int 0 as `json` reads it, an integer
literal outside i64 and u64 is refused (`json` keeps it exact, wirekit does
not round it), every other integer keeps its exact value.

Any disagreement fails, accept-where-the-reference-refuses first of all.
`make test` runs a short fixed-seed budget; `make fuzz-long` sets
`WIREKIT_DIFF_EXAMPLES` (and a random seed) for a long run.
"""

from __future__ import annotations

import decimal
import json
import math
import os
from typing import Any, Callable, Optional

import jsonschema_rs
import orjson
import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wirekit
from wirekit import Server, ValidationError
from custom_protocol import protocol_for, request_line

EXAMPLES = int(os.environ.get("WIREKIT_DIFF_EXAMPLES", "60"))
LONG = "WIREKIT_DIFF_EXAMPLES" in os.environ
RUN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


class Int(int):
    """An int subclass: JSON to `json`, `orjson` and wirekit alike."""


class Str(str):
    """A str subclass."""


NUMBERS = st.sampled_from([
    0, 1, -1, 5, 100, 2**31, 2**53 - 1, 2**53, 2**53 + 1, 2**60, 2**63 - 1, 2**63, 2**64 - 1,
    -(2**63), 0.0, -0.0, 0.5, 1.0, -1.5, 2.5, 100.0, 1e20, 1e-7, 1e16, 1.5e300, 5e-324, 9007199254740993.0,
])
BOUNDS = st.sampled_from([0, 1, -1, 5, 2**53, 2**60, 2**63, 2**64 - 1, 0.5, -1.5, 100.0, 1e20])
NAMES = st.sampled_from(["a", "b", "id", "x y", "é", ""])
TYPES = st.sampled_from(["null", "boolean", "object", "array", "number", "integer", "string"])
STRINGS = st.one_of(st.sampled_from(["", "a", "ab", "abc", "é", "\U0001f600", "a\"\\\n", "\ud800"]),
                    st.text(max_size=6))


def leaf_schemas() -> st.SearchStrategy[Any]:
    keyword = st.one_of(
        st.builds(lambda t: {"type": t}, TYPES),
        st.builds(lambda ts: {"type": ts}, st.lists(TYPES, min_size=1, max_size=3, unique=True)),
        st.builds(lambda k, v: {k: v}, st.sampled_from(["minimum", "maximum", "exclusiveMinimum",
                                                         "exclusiveMaximum"]), BOUNDS),
        st.builds(lambda k, n: {k: n}, st.sampled_from(["minLength", "maxLength", "minItems", "maxItems",
                                                         "minProperties", "maxProperties"]),
                  st.integers(0, 3)),
        st.builds(lambda vs: {"enum": vs}, st.lists(st.one_of(STRINGS.filter(lambda s: "\ud800" not in s),
                                                              NUMBERS, st.none()), min_size=1, max_size=3)),
        st.builds(lambda v: {"const": v}, st.one_of(st.sampled_from(["a", ""]), NUMBERS)),
        st.builds(lambda names: {"required": names}, st.lists(NAMES, max_size=2, unique=True)),
    )
    return st.one_of(st.booleans(), st.lists(keyword, min_size=1, max_size=3).map(merge))


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for part in parts:
        merged.update(part)
    return merged


def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda k, subs: {k: subs}, st.sampled_from(["allOf", "anyOf", "oneOf"]),
                  st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda sub: {"not": sub}, inner),
        st.builds(lambda sub, extra: merge([{"type": "array", "items": sub}, extra]), inner,
                  st.sampled_from([{}, {"minItems": 1}, {"maxItems": 2}])),
        st.builds(lambda props, extra, more: merge([{"type": "object", "properties": props}, extra, more]),
                  st.dictionaries(NAMES, inner, max_size=3),
                  st.sampled_from([{}, {"required": ["a"]}, {"required": ["a", "b"]}]),
                  st.one_of(st.just({}), inner.map(lambda sub: {"additionalProperties": sub}))),
        st.just({"type": "array", "items": {"$ref": "#/$defs/R"}}),
        st.just({"type": "object", "additionalProperties": {"$ref": "#/$defs/R"}}),
        st.just({"$ref": "#/$defs/L"}),
        # `$ref` beside other keywords (2020-12 applies both), written before
        # and after them: issue 24's quick check kept only the later one.
        st.builds(lambda sub, first: ({"$ref": "#/$defs/L", **sub} if first else {**sub, "$ref": "#/$defs/L"})
                  if isinstance(sub, dict) and "$ref" not in sub else {"$ref": "#/$defs/L", "allOf": [sub]},
                  inner, st.booleans()),
        st.builds(lambda sub, first: {"$ref": "#/$defs/L", "allOf": [sub]} if first
                  else {"allOf": [sub], "$ref": "#/$defs/L"}, inner, st.booleans()),
        st.builds(lambda sub: {"anyOf": [sub, {"type": "null"}]}, inner),
    )


SCHEMAS = st.recursive(leaf_schemas(), extend, max_leaves=8)
LEAF_DEF = {"type": ["integer", "string"], "maximum": 2**60}


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS,
                     st.builds(Int, st.sampled_from([0, 7, 2**63])), st.builds(Str, st.sampled_from(["a", "é"])))


INSTANCES = st.recursive(
    scalars(),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(NAMES, inner, max_size=3),
    ),
    max_leaves=10,
)


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


DEEP = st.builds(nested, st.sampled_from([100, 125, 126, 127, 130]), scalars())


def is_json(value: Any) -> bool:
    """Whether `json` writes it as UTF-8 JSON (finite numbers, no lone surrogates)."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError, RecursionError):
        return False
    return depth_of(value) <= 126


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    if isinstance(value, (list, tuple)):
        return 1 + max((depth_of(item) for item in value), default=0)
    return 0


def same(left: Any, right: Any) -> bool:
    """Equal with the same JSON types: an int is not a float, a list not a dict."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int) and isinstance(right, int):
        return int(left) == int(right)
    if isinstance(left, float) and isinstance(right, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    if isinstance(left, str) and isinstance(right, str):
        return str(left) == str(right)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    return left is None and right is None


def reference(schema: Any) -> Callable[[Any], bool]:
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                "$defs": {"R": schema, "L": LEAF_DEF}, "$ref": "#/$defs/R"}
    return jsonschema_rs.validator_for(document).is_valid


def expected_frame(instance: Any) -> Optional[bytes]:
    try:
        return b'{"jsonrpc":"2.0","id":1,"result":' + orjson.dumps(instance) + b"}\n"
    except (orjson.JSONEncodeError, TypeError):
        return None


def check_pair(schema: Any, instances: list[Any]) -> None:
    protocol = protocol_for(schema, extra_defs={"L": LEAF_DEF})
    valid = reference(schema)
    for instance in instances:
        if not is_json(instance):
            with pytest.raises((TypeError, ValueError)):
                protocol.write_result("m", 1, instance)
            answer = json.loads(Server(protocol, {"m": lambda _: instance}, log=lambda _: None).serve_bytes(request_line(1, {})))
            assert "result" not in answer, (schema, instance)
            continue
        # The same JSON in plain types (jsonschema-rs takes no subclasses or tuples).
        expected = valid(json.loads(json.dumps(instance)))
        label = f"schema={schema!r} instance={instance!r} reference={'accepts' if expected else 'refuses'}"
        assert (not protocol.validate("m", "result", instance)) == expected, "validate: " + label
        try:
            frame: Optional[bytes] = protocol.write_result("m", 1, instance)
        except ValidationError:
            frame = None
        assert (frame is not None) == expected, "write_result: " + label
        if frame is not None:
            assert same(json.loads(frame)["result"], instance), "write_result bytes: " + label
            orjson_frame = expected_frame(instance)
            if orjson_frame is not None:
                assert frame == orjson_frame, f"write_result bytes against orjson: {label}"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": instance}, ensure_ascii=False).encode()
        try:
            read: Any = protocol.read_result("m", body)
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted == expected, "read_result: " + label
        if accepted:
            assert same(read, json.loads(body)["result"]), "read_result value: " + label
        answer = json.loads(Server(protocol, {"m": lambda _: instance}, log=lambda _: None).serve_bytes(request_line(1, {})))
        assert ("result" in answer) == expected, f"serve loop: {label} answer={answer!r}"
        if "result" in answer:
            assert same(answer["result"], instance), "serve loop value: " + label


@RUN
@given(SCHEMAS, st.lists(st.one_of(INSTANCES, INSTANCES, DEEP), min_size=1, max_size=6))
def test_paths_agree_with_jsonschema_rs(schema: Any, instances: list[Any]) -> None:
    check_pair(schema, instances)


def test_overlapping_recursive_alternatives_are_reported_in_bounded_time() -> None:
    """The long run's find: with `R = {"anyOf": [A, A, A]}` and `A` an array of
    `R`, the full error report of nested arrays ending in `null` holds 3^depth
    errors (12 deep took 2.8 s and 1.9 GB, 14 deep 35 s and 17 GB). The core
    now reports such a schema along one path: the deepest place that fails."""
    branch = {"type": "array", "items": {"$ref": "#/$defs/R"}}
    schema = {"anyOf": [branch, branch, branch]}
    deep = nested(40, None)
    check_pair(schema, [deep, nested(40, []), nested(14, None)])
    issues = protocol_for(schema, extra_defs={"L": LEAF_DEF}).validate("m", "result", deep)
    assert [(issue.instance_path, issue.keyword) for issue in issues] == [("/0" * 40, "anyOf")]
    assert issues[0].message == "the value matches none of the 3 alternatives of `anyOf`"


NUMBER_LITERALS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["-0", "0", "-0.0", "1e20", "1E+2", "18446744073709551615", "18446744073709551616",
                     "-9223372036854775808", "-9223372036854775809", "100000000000000000001", "1e400",
                     "18446744073709552000", "-18446744073709552000", "100000000000000000000",
                     "1000000000000000000000"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


def is_rfc8785_form_of_its_double(value: int) -> bool:
    """Whether an integer beyond 64 bits is written exactly as RFC 8785 writes its double: below 1e21
    that is the double's shortest round-trip digits padded with zeros; from 1e21 up it is an exponent."""
    if -(2**63) <= value < 2**64 or abs(value) >= 10**21:
        return False
    return format(decimal.Decimal(repr(float(value))), "f") == str(value)


@RUN
@given(st.lists(NUMBER_LITERALS, min_size=1, max_size=4))
def test_number_literals_read_as_json_reads_them_under_the_wire_rules(literals: list[str]) -> None:
    result = "[%s]" % ",".join(literals)
    body = b'{"jsonrpc":"2.0","id":-0,"result":%s}' % result.encode()
    reference = json.loads(body)
    # The rule's one exception: a literal that is exactly its double's
    # RFC 8785 form (18446744073709552000) is that double.
    reference["result"] = [
        float(value) if isinstance(value, int) and is_rfc8785_form_of_its_double(value) else value
        for value in reference["result"]
    ]
    out_of_range = any(
        isinstance(value, int) and not -(2**63) <= value < 2**64 for value in reference["result"]
    ) or any(isinstance(value, float) and math.isinf(value) for value in reference["result"])
    protocol = protocol_for({"type": "array"})
    if out_of_range:
        with pytest.raises(wirekit.EnvelopeError):
            wirekit.decode(body)
        with pytest.raises(wirekit.EnvelopeError):
            protocol.read_result("m", body)
        return
    for decoded in (wirekit.decode(body).result, protocol.read_result("m", body)):
        assert same(decoded, reference["result"]), (body, decoded)
        assert [type(v) for v in decoded] == [type(v) for v in reference["result"]], body
    assert wirekit.decode(body).id == 0 and type(wirekit.decode(body).id) is int


@RUN
@given(INSTANCES)
def test_decoded_values_and_canonical_bytes_agree_with_json_and_rfc8785(instance: Any) -> None:
    if not is_json(instance):
        return
    text = json.dumps(instance, ensure_ascii=False).encode()
    assert same(wirekit._native.loads(text), json.loads(text)), text
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": instance}).encode()
    assert same(wirekit.decode(body).result, json.loads(body)["result"]), body
    try:
        canonical_reference: Optional[bytes] = rfc8785.dumps({"jsonrpc": "2.0", "id": 1, "result": instance})
    except rfc8785.CanonicalizationError:
        canonical_reference = None
    if canonical_reference is not None:
        ours = wirekit.encode(wirekit.Message.success(1, instance), canonical=True)
        assert ours == canonical_reference, (instance, ours, canonical_reference)
