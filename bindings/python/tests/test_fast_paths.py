"""The in-place paths of Protocol.read_result and write_result give exactly
what the general path (envelope encoding of converted values) gives."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from wirekit import ContentLengthEncoder, Message, NdjsonEncoder, Protocol, ValidationError, encode

STRANGE = ["é", "\u2028\u2029", '"quoted"', "back\\slash", "line\nbreak\r\t", "\x00\x01\x1f\x7f", "😀 𝄞", "", "/", "\ud7ff"]


def function(name: str, line: Any = 1) -> dict[str, Any]:
    return {"name": name, "package": "p", "file": "p.py", "line": line, "side_effects": [
        {"type": "ReturnValue", "description": name * 2, "detail": {"n": [1, -2, 2.5, 1e300, None, True, False, (1, 2)]},
         "classification": {"label": "contractual", "confidence": 90}},
    ]}


@pytest.mark.parametrize("name", STRANGE)
@pytest.mark.parametrize("id", [1, 0, -7, 18446744073709551615, "id-é"])
def test_write_result_matches_the_envelope_encoding(name: str, id: Any) -> None:
    gaze = Protocol("gaze-analyzer")
    result = {"functions": [function(name)]}
    expected = NdjsonEncoder(max_frame_bytes=gaze.max_frame_bytes).encode(encode(Message.success(id, result)))
    assert gaze.write_result("analyze", id, result) == expected


@pytest.mark.parametrize("name", STRANGE)
def test_read_result_matches_the_general_decoding(name: str) -> None:
    gaze = Protocol("gaze-analyzer")
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"functions": [function(name)]}}).encode()
    expected = json.loads(body)["result"]
    assert gaze.read_result("analyze", body) == expected
    escaped = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"functions": [function(name)]}}, ensure_ascii=True).encode()
    assert gaze.read_result("analyze", escaped) == expected


def test_invalid_values_take_the_general_path_and_say_why() -> None:
    gaze = Protocol("gaze-analyzer")
    with pytest.raises(ValidationError) as raised:
        gaze.write_result("analyze", 1, {"functions": [function("f", line="one")]})
    assert raised.value.pointers == ["/functions/0/line"]
    body = b'{"jsonrpc":"2.0","id":1,"result":{"functions":[{"name":"f"}]}}'
    with pytest.raises(ValidationError) as read:
        gaze.read_result("analyze", body)
    assert "/functions/0/file" in read.value.pointers
    with pytest.raises(TypeError, match="/functions/0/side_effects/0/detail/n"):
        gaze.write_result("analyze", 1, {"functions": [dict(function("f"), side_effects=[
            {"type": "ReturnValue", "description": "d", "detail": {"n": {1, 2}}}])]})


def test_content_length_and_bare_dialect_with_rules() -> None:
    gzkit = Protocol("gzkit-authoring-guide")
    hint = {"metric": "radon_cc", "precedence_band": "approaching", "crossing_value": 9.0, "archetype": "arrowhead",
            "doctrinal_frame_headline": "h", "recommended_move": "m", "file_path": "/f.py", "start_line": 1, "end_line": 2}
    frame = gzkit.write_result("analyze", 2, {"hints": [hint]})
    assert frame == ContentLengthEncoder().encode(encode(Message.success(2, {"hints": [hint]}), dialect="bare"))
    with pytest.raises(ValidationError):
        gzkit.write_result("analyze", 2, {"hints": [dict(hint, end_line=0)]})  # the not_before rule


def test_error_responses_and_bad_envelopes_on_read() -> None:
    from wirekit import EnvelopeError, RpcError

    gaze = Protocol("gaze-analyzer")
    with pytest.raises(RpcError) as raised:
        gaze.read_result("analyze", b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"no","data":[1]}}')
    assert (raised.value.code, raised.value.data) == (-32603, [1])
    for body in [b'{"id":1,"result":{"functions":[]}}', b'{"jsonrpc":"2.0","id":1,"result":{"functions":[]}} x',
                 b'{"jsonrpc":"2.0","id":true,"result":{"functions":[]}}', b"\xff"]:
        with pytest.raises(EnvelopeError):
            gaze.read_result("analyze", body)


# A fast SIMD tokenizer evaluated for read_result (sonic-rs 0.5) reads `-0`
# and `-0.0` as `0.0`; whatever the tokenizer, the fast path must give what
# the core's decoder gives: `-0` is the
# integer 0 (as `json` reads it), `-0.0` keeps its sign, and a `0.0` beside
# a "-0" elsewhere in the text (a string, a date) stays `0.0`.
ZEROS = [
    ("[-0]", [0], [int]),
    ("[-0.0]", [-0.0], [float]),
    ("[0.0,-0.0,0]", [0.0, -0.0, 0], [float, float, int]),
    ("[0.0,\"2026-01-05\"]", [0.0, "2026-01-05"], [float, str]),
    ("[-0e3,0e-2]", [-0.0, 0.0], [float, float]),
]


@pytest.mark.parametrize(("text", "expected", "types"), ZEROS)
def test_read_result_keeps_the_sign_and_type_of_zeros(text: str, expected: list[Any], types: list[type]) -> None:
    gaze = Protocol("gaze-analyzer")
    body = b'{"jsonrpc":"2.0","id":1,"result":{"functions":[{"name":"f","package":"p","file":"f.py","line":1,' \
           b'"side_effects":[{"type":"ReturnValue","description":"d","detail":{"n":%s}}]}]}}' % text.encode()
    read = gaze.read_result("analyze", body)["functions"][0]["side_effects"][0]["detail"]["n"]
    assert read == expected
    assert [type(value) for value in read] == types
    assert [math.copysign(1, value) for value in read if isinstance(value, float)] == [
        math.copysign(1, value) for value in expected if isinstance(value, float)
    ]


def test_read_result_refuses_what_nests_deeper_than_the_core_reads() -> None:
    """The fast path gives up at the core's bound (a tokenizer may allow
    more: sonic-rs reads 255 levels), and the core's decoder refuses the text."""
    gaze = Protocol("gaze-analyzer")
    # The result nests depth + 1 levels, the message one more: 128 is serde_json's bound.
    for depth, readable in [(100, True), (122, True), (126, False), (200, False), (300, False)]:
        detail = "[" * (depth - 5) + "]" * (depth - 5)
        body = ('{"jsonrpc":"2.0","id":1,"result":{"functions":[{"name":"f","package":"p","file":"f.py","line":1,'
                '"side_effects":[{"type":"ReturnValue","description":"d","detail":{"n":%s}}]}]}}' % detail).encode()
        if readable:
            assert gaze.read_result("analyze", body)["functions"][0]["line"] == 1, depth
        else:
            with pytest.raises(Exception) as raised:
                gaze.read_result("analyze", body)
            assert "deep" in str(raised.value) or "recursion" in str(raised.value), (depth, raised.value)
