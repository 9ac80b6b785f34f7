"""A one-method protocol around any result schema, for tests that need
schemas of their own (`Protocol.from_manifest`)."""

from __future__ import annotations

import json
from typing import Any, Optional

from wirekit import Protocol


def protocol_for(result_schema: Any, params_schema: Any = None, *, strict: bool = False,
                 extra_defs: Optional[dict[str, Any]] = None) -> Protocol:
    """A protocol whose method `m` takes `params_schema` (any object when
    None) and answers `result_schema` (`#/$defs/R`), with `extra_defs` beside."""
    defs = {"R": result_schema, "P": {"type": "object"} if params_schema is None else params_schema}
    defs.update(extra_defs or {})
    manifest = {
        "protocol": "differential",
        "version": "1.0.0",
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "strict": strict,
                      "max_frame_bytes": 16 * 1024 * 1024},
        "schemas": ["s.json"],
        "methods": {
            "m": {"kind": "request", "direction": "client-to-server", "params_optional": True,
                  "params": {"$ref": "s.json#/$defs/P"}, "result": {"$ref": "s.json#/$defs/R"}},
        },
    }
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return Protocol.from_manifest(manifest, {"s.json": schema})


def response(result_text: str, id: int = 1) -> bytes:
    """A success response body whose result is `result_text`, verbatim."""
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (id, result_text.encode())


def request_line(id: int, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "m", "params": params}).encode() + b"\n"
