"""msgspec Structs of a Gaze analyze response (types only, no schema)."""

from typing import Any, Dict, List, Optional

import msgspec


class Classification(msgspec.Struct):
    label: str
    confidence: int


class SideEffect(msgspec.Struct, omit_defaults=True):
    type: str
    description: str
    location: Optional[str] = None
    target: Optional[str] = None
    detail: Optional[Dict[str, Any]] = None
    classification: Optional[Classification] = None


class AnalyzedFunction(msgspec.Struct):
    name: str
    package: str
    file: str
    line: int
    side_effects: List[SideEffect]


class AnalyzeResult(msgspec.Struct):
    functions: List[AnalyzedFunction]


class Response(msgspec.Struct):
    jsonrpc: str
    id: int
    result: AnalyzeResult
