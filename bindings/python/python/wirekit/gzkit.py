"""gzkit authoring guide servers in a few lines.

>>> from wirekit.gzkit import AuthoringGuide
>>> guide = AuthoringGuide()
>>> @guide.analyze
... def analyze(params): return {"hints": []}
>>> # guide.run() serves stdin/stdout

Content-Length framing, the bare envelope, version negotiation
(VERSION_MISMATCH) and the lifecycle are handled by the Rust core;
`initialize` answers the server version and the capabilities registered.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Union

from .protocols import gzkit_authoring_guide as types
from .service import ResultCheck, Service

__all__ = ["AuthoringGuide", "types"]

AnalyzeHandler = Callable[[types.AnalyzeParams], types.AnalyzeResult]


class AuthoringGuide(Service):
    """A gzkit authoring guide service (`gzkit-authoring-guide` protocol)."""

    def __init__(
        self,
        *,
        protocol: str = "gzkit-authoring-guide",
        result_check: ResultCheck = "reject",
        schemas: Union[str, "os.PathLike[str]", None] = None,
    ) -> None:
        super().__init__(protocol, result_check=result_check, schemas=schemas)
        self.server_version: str = self.protocol.server_version

    def analyze(self, handler: AnalyzeHandler) -> AnalyzeHandler:
        """Authoring hints for one file."""
        self.register("analyze", handler)
        return handler

    def _initialize(self, params: Any) -> dict[str, Any]:
        return {"version": self.server_version, "capabilities": self.capabilities()}

    def _shutdown(self, params: Any) -> dict[str, Any]:
        return {}

    def _handlers(self) -> dict[str, Callable[[Any], Any]]:
        handlers = super()._handlers()
        handlers.setdefault("initialize", self._initialize)
        handlers.setdefault("shutdown", self._shutdown)
        return handlers
