"""Gaze analyzers in a few lines.

>>> from wirekit.gaze import Analyzer
>>> app = Analyzer(name="snake-eyes", language="python", version="0.1.0")
>>> @app.complexity
... def complexity(params): return {"functions": []}
>>> # app.run() serves stdin/stdout until shutdown or end of input

`initialize` is answered from what was registered: each capability is true
exactly when its optional method has a handler, with the protocol version,
the analyzer's name and its language. `shutdown` answers `{}`. Everything
else (framing, envelopes, the lifecycle, params and result validation) is
done by the Rust core.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, Callable, Optional, TypeVar

from .protocols import gaze_analyzer_v1_1_0 as types
from .service import ResultCheck, Service

__all__ = ["Analyzer", "types"]

AnalyzeHandler = Callable[[types.AnalyzeParams], types.AnalyzeResult]
AnalyzeStreamHandler = Callable[[types.AnalyzeParams], Iterable[types.AnalyzedFunction]]
ComplexityHandler = Callable[[types.ComplexityParams], types.ComplexityResult]
CoverageHandler = Callable[[types.CoverageParams], types.CoverageResult]
DiscoverHandler = Callable[[types.DiscoverParams], types.DiscoverResult]
TestMappingHandler = Callable[[types.TestMappingParams], types.TestMappingResult]
ClassifySignalsHandler = Callable[[types.ClassifySignalsParams], types.ClassifySignalsResult]
DocCoverageHandler = Callable[[types.DocCoverageParams], types.DocCoverageResult]
InitializeHook = Callable[[types.InitializeParams], None]
ShutdownHook = Callable[[], None]

H = TypeVar("H", bound=Callable[..., Any])


class Analyzer(Service):
    """A Gaze analyzer (`gaze-analyzer` protocol, 1.1.0 unless told otherwise).

    Register handlers with the decorators named after the methods; after
    `initialize`, `root_path` and `config` hold what the host sent.
    """

    def __init__(
        self,
        *,
        name: str,
        language: str,
        version: str = "0.0.0",
        language_version: Optional[str] = None,
        protocol: str = "gaze-analyzer@1.1.0",
        result_check: ResultCheck = "reject",
    ) -> None:
        super().__init__(protocol, result_check=result_check)
        if self.protocol.name != "gaze-analyzer":
            raise ValueError(f"an Analyzer speaks gaze-analyzer, not {self.protocol.name}")
        self.name = name
        self.language = language
        self.version = version
        self.language_version = language_version
        self.root_path: Optional[str] = None
        self.config: dict[str, Any] = {}
        self._initialize_hooks: list[InitializeHook] = []
        self._shutdown_hooks: list[ShutdownHook] = []

    def _add(self, method: str, handler: H) -> H:
        self.register(method, handler)
        return handler

    def analyze(self, handler: AnalyzeHandler) -> AnalyzeHandler:
        """Side effects per function (required)."""
        return self._add("analyze", handler)

    def analyze_stream(self, handler: AnalyzeStreamHandler) -> AnalyzeStreamHandler:
        """`analyze/stream`: yield one AnalyzedFunction at a time (declares `streaming`)."""
        return self._add("analyze/stream", handler)

    def complexity(self, handler: ComplexityHandler) -> ComplexityHandler:
        """Cyclomatic complexity per function (required)."""
        return self._add("complexity", handler)

    def coverage(self, handler: CoverageHandler) -> CoverageHandler:
        """Line coverage per function (required)."""
        return self._add("coverage", handler)

    def discover(self, handler: DiscoverHandler) -> DiscoverHandler:
        """Source and test files (declares `discover`)."""
        return self._add("discover", handler)

    def test_mapping(self, handler: TestMappingHandler) -> TestMappingHandler:
        """Assertions mapped to side effects (declares `test_mapping`)."""
        return self._add("test_mapping", handler)

    def classify_signals(self, handler: ClassifySignalsHandler) -> ClassifySignalsHandler:
        """Classification signals (declares `classify_signals`)."""
        return self._add("classify_signals", handler)

    def doc_coverage(self, handler: DocCoverageHandler) -> DocCoverageHandler:
        """Documentation status of public symbols (declares `doc_coverage`)."""
        return self._add("doc_coverage", handler)

    def on_initialize(self, hook: InitializeHook) -> InitializeHook:
        """Called with the `initialize` params before it is answered."""
        self._initialize_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: ShutdownHook) -> ShutdownHook:
        """Called when `shutdown` arrives, before it is answered."""
        self._shutdown_hooks.append(hook)
        return hook

    def initialize_result(self) -> dict[str, Any]:
        """The `initialize` answer, from what is registered."""
        result: dict[str, Any] = {
            "capabilities": self.capabilities(),
            "protocol_version": self.protocol.version,
            "analyzer_name": self.name,
            "language": self.language,
        }
        if self.language_version is not None:
            candidate = dict(result, language_version=self.language_version)
            if not self.protocol.validate("initialize", "result", candidate):
                result = candidate
        return result

    def _initialize(self, params: types.InitializeParams) -> dict[str, Any]:
        self.root_path = params["root_path"]
        self.config = dict(params.get("config") or {})
        for hook in self._initialize_hooks:
            hook(params)
        return self.initialize_result()

    def _shutdown(self, params: Any) -> dict[str, Any]:
        for hook in self._shutdown_hooks:
            hook()
        return {}

    def _handlers(self) -> dict[str, Callable[[Any], Any]]:
        handlers = super()._handlers()
        handlers.setdefault("initialize", self._initialize)
        handlers.setdefault("shutdown", self._shutdown)
        return handlers

    def run(self) -> str:
        """Serves stdin/stdout (the host spawns `<analyzer> --stdio`).

        `--version` prints the analyzer's name and version instead.
        """
        if "--version" in sys.argv[1:]:
            print(f"{self.name} {self.version} (gaze-analyzer {self.protocol.version})")
            return "version"
        missing = [m for m in ("analyze", "complexity", "coverage") if not self.handles(m)]
        if missing:
            print(
                f"wirekit: {self.name} has no handler for the required method(s) "
                f"{', '.join(missing)}; they answer -32601",
                file=sys.stderr,
            )
        return super().run()
