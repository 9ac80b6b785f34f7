"""The peers measured beside wirekit: each turns bytes into checked objects and back."""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

from workload import result_schema

Decode = Callable[[bytes], Any]
Encode = Callable[[int, Any], bytes]


def json_jsonschema(schema: dict[str, Any]) -> tuple[Decode, Encode]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)

    def decode(body: bytes) -> Any:
        result = json.loads(body)["result"]
        validator.validate(result)
        return result

    def encode(id: int, result: Any) -> bytes:
        validator.validate(result)
        return json.dumps({"jsonrpc": "2.0", "id": id, "result": result}, separators=(",", ":")).encode() + b"\n"

    return decode, encode


def json_fastjsonschema(schema: dict[str, Any]) -> tuple[Decode, Encode]:
    import fastjsonschema

    draft7 = {"definitions": schema["$defs"], "$ref": schema["$ref"].replace("$defs", "definitions")}
    draft7 = json.loads(json.dumps(draft7).replace("#/$defs/", "#/definitions/"))
    validate = fastjsonschema.compile(draft7)

    def decode(body: bytes) -> Any:
        result = json.loads(body)["result"]
        validate(result)
        return result

    def encode(id: int, result: Any) -> bytes:
        validate(result)
        return json.dumps({"jsonrpc": "2.0", "id": id, "result": result}, separators=(",", ":")).encode() + b"\n"

    return decode, encode


def orjson_jsonschema_rs(schema: dict[str, Any]) -> tuple[Decode, Encode]:
    import jsonschema_rs
    import orjson

    validator = jsonschema_rs.validator_for(schema)

    def decode(body: bytes) -> Any:
        result = orjson.loads(body)["result"]
        validator.validate(result)
        return result

    def encode(id: int, result: Any) -> bytes:
        validator.validate(result)
        return orjson.dumps({"jsonrpc": "2.0", "id": id, "result": result}) + b"\n"

    return decode, encode


def msgspec_typed(schema_name: str) -> Optional[tuple[Decode, Encode]]:
    """msgspec Structs of the analyze response: types only, no schema."""
    if schema_name != "AnalyzeResult":
        return None
    import msgspec

    from msgspec_types import Response

    decoder = msgspec.json.Decoder(Response)
    encoder = msgspec.json.Encoder()

    def decode(body: bytes) -> Any:
        return decoder.decode(body).result

    def encode(id: int, result: Any) -> bytes:
        typed = msgspec.convert({"jsonrpc": "2.0", "id": id, "result": result}, Response)
        return encoder.encode(typed) + b"\n"

    return decode, encode


def all_peers(schema_name: str = "AnalyzeResult") -> dict[str, tuple[Decode, Encode]]:
    schema = result_schema(schema_name)
    peers = {
        "json + jsonschema": json_jsonschema(schema),
        "json + fastjsonschema": json_fastjsonschema(schema),
        "orjson + jsonschema-rs": orjson_jsonschema_rs(schema),
    }
    typed = msgspec_typed(schema_name)
    if typed is not None:
        peers["msgspec (types only)"] = typed
    return peers


def unchecked() -> dict[str, tuple[Decode, Encode]]:
    """No schema at all: what the JSON libraries alone cost (issue 28's
    reference rows). msgspec has no untyped decode faster than orjson's, so
    its row decodes with `msgspec.json.decode` (untyped) and encodes the
    handler's dicts with `msgspec.json.encode`."""
    import msgspec
    import orjson

    encoder = msgspec.json.Encoder()

    def orjson_decode(body: bytes) -> Any:
        return orjson.loads(body)["result"]

    def orjson_encode(id: int, result: Any) -> bytes:
        return orjson.dumps({"jsonrpc": "2.0", "id": id, "result": result}) + b"\n"

    def msgspec_decode(body: bytes) -> Any:
        return msgspec.json.decode(body)["result"]

    def msgspec_encode(id: int, result: Any) -> bytes:
        return encoder.encode({"jsonrpc": "2.0", "id": id, "result": result}) + b"\n"

    return {
        "orjson alone (no checks)": (orjson_decode, orjson_encode),
        PLAIN_MSGSPEC: (msgspec_decode, msgspec_encode),
    }


PLAIN_MSGSPEC = "msgspec.json plain (no checks, no types)"
