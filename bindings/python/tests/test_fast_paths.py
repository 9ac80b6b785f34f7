"""The in-place paths of Protocol.read_result and write_result give exactly
what the general path (envelope encoding of converted values) gives."""

from __future__ import annotations

import json
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
