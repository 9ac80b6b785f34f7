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

How the real host reads an analyzer, and what the helper does about it
(Gaze's `internal/protocol` and `internal/adapter` packages, in the
gxmiranda/gaze and unbound-force/gaze code lines):

* Streams end the session. `Client.CallStream` (client.go) hands the
  adapter the stdout scanner, and `ExternalSideEffectAnalyzer.loadStreaming`
  (adapter/sideeffect.go) reads lines until EOF, with no deadline: the
  stream ends only when the analyzer closes stdout, and nothing can be read
  after it. A stream that fails ends with its error response inside a
  one-element array, a line `loadStreaming` refuses ("malformed JSONL on
  line N" with the line's first 200 bytes), so Gaze fails visibly instead
  of waiting forever or taking the items before it for the whole result.
  After a stream, `run()` points descriptor 1 at stderr, so the host sees
  EOF even if the program goes on.
* `classify_signals` follows the analysis in the Gaze versions that call
  it (the `classify_signals` integration, unbound-force/gaze `adapter/
  classify.go`: `fetchClassifySignals` after `loadBatch` and after
  `loadStreaming`); older clients (the `gaze crap` of commit fae3ca57 among
  them) never call it. After a stream the session is over, so that call
  fails (`write |1: broken pipe`): Gaze warns, drops the signals and treats
  the effects as unclassified (contractual), but keeps every side effect.
  A batch `analyze` over the host's line (below) gives Gaze no side effect
  at all. Hence the rule for `streaming=None` (the default), which gives
  Gaze every function's side effects on any project size:

  - without `classify_signals`, `streaming` is declared whenever the
    analyzer can stream;
  - with `classify_signals`, the choice is made at `initialize`, whose
    params carry `root_path`: the helper runs the analysis of the whole
    project once (the `analyze/stream` handler, else `analyze`; an analyzer
    that caches its parse pays for it once) and measures the batch answer.
    Over the host's line (less a 2% margin), `streaming` is declared: every
    side effect arrives, and the signals are lost where Gaze asks for them
    after the stream. Within it, `streaming` is not declared: Gaze calls
    the batch `analyze`, then `classify_signals`, and gets both. Gaze gives
    `initialize` 30 s (the stream has no deadline): a measurement still
    running after a third of that (`Analyzer.measure_budget`) declares
    `streaming` too, and goes on in the background, the calls after
    `initialize` waiting for it (never two analyses at once; one that
    caches its parse parses once);
  - an analyzer with only an `analyze` handler streams that handler's
    functions one by one (`analyze/stream` is derived from it), and one
    with only `analyze/stream` answers the batch `analyze` by collecting
    the stream's items.

  `streaming=True` always declares it, `streaming=False` never does. `run()`
  says on stderr which rule applies, and `initialize` what it chose and why.
* Lines are at most 10 MiB. `NewClient` reads stdout with a `bufio.Scanner`
  bounded at 10 MiB (`maxScanSize`); the manifest's `max_frame_bytes` is
  that bound less the line feed, and an answer over it is answered -32603
  naming the bound and `analyze/stream` (never a partial line, which would
  leave the analyzer blocked on a pipe nobody reads while `Client.Close`,
  which sends `shutdown` without reading the reply, waits for it to exit).
* Side-effect types outside Gaze's taxonomy (the 48 names of
  `types.SIDE_EFFECT_TYPE_TIER`) cost one host warning per effect
  (`convertAnalysisResults` in sideeffect.go, defaulting them to P4). In
  debug mode (`debug=True`, `WIREKIT_DEBUG=1` or `python -X dev`) the
  helper checks what `analyze` and `analyze/stream` return and warns the
  analyzer's author once per unknown type (`TaxonomyWarning`); in tests,
  `unknown_side_effect_types()` gives the same answer.
* Close is prompt. `Client.Close` writes `shutdown`, closes stdin and waits
  for the process to exit, every `gaze crap` run; an interpreter that tears
  down a big cached project on its way out makes that wait seconds long.
  Once the session has ended normally (`shutdown` answered, or a stream
  finished), `run()` flushes stdout and stderr and ends the process at once
  with status 0 (`os._exit`): no `atexit` handler, finalizer or cache
  teardown runs after it. `exit_promptly=False` (or `WIREKIT_PROMPT_EXIT=0`
  in the environment) returns from `run()` instead; code that must run at
  the end belongs in an `on_shutdown` hook.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import Any, Callable, Optional, TypeVar, Union

from .protocols import gaze_analyzer_v1_1_0 as types
from .service import ResultCheck, Service

__all__ = ["Analyzer", "TaxonomyWarning", "types", "unknown_side_effect_types"]

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

TAXONOMY: frozenset[str] = frozenset(types.SIDE_EFFECT_TYPE_TIER)
"""The side-effect types Gaze knows (its taxonomy's 48 canonical names)."""


class TaxonomyWarning(UserWarning):
    """A handler emitted a side-effect type outside Gaze's taxonomy."""


def unknown_side_effect_types(functions: Iterable[Any]) -> set[str]:
    """The side-effect types of `functions` (AnalyzedFunction dicts, or an
    `analyze` result) that Gaze's taxonomy lacks: each costs one host
    warning per effect, and Gaze files it under P4."""
    if isinstance(functions, dict):
        functions = functions.get("functions") or []
    unknown: set[str] = set()
    for function in functions:
        for effect in function.get("side_effects") or []:
            kind = effect.get("type")
            if kind not in TAXONOMY:
                unknown.add(str(kind))
    return unknown


def _debug_default() -> bool:
    return bool(os.environ.get("WIREKIT_DEBUG")) or sys.flags.dev_mode


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
        streaming: Optional[bool] = None,
        debug: Optional[bool] = None,
        schemas: Union[str, "os.PathLike[str]", None] = None,
        exit_promptly: Optional[bool] = None,
    ) -> None:
        """`streaming`: whether to declare the `streaming` capability. `None`
        (the default) follows the module's rule: streamed whenever no
        `classify_signals` handler would lose its signals, else decided at
        `initialize` from the size of the batch answer against the host's
        line. `debug`: check the side-effect types the handlers emit
        (default: `WIREKIT_DEBUG` set, or `python -X dev`). `schemas`: a
        folder to load the protocol from at run time (the embedded one by
        default). `exit_promptly`: end the process as soon as the session
        has ended (default: yes, unless `WIREKIT_PROMPT_EXIT=0`)."""
        super().__init__(
            protocol,
            result_check=result_check,
            schemas=schemas,
            exit_promptly=True if exit_promptly is None else exit_promptly,
        )
        if self.protocol.name != "gaze-analyzer":
            raise ValueError(f"an Analyzer speaks gaze-analyzer, not {self.protocol.name}")
        self.name = name
        self.language = language
        self.version = version
        self.language_version = language_version
        self.root_path: Optional[str] = None
        self.config: dict[str, Any] = {}
        self.streaming = streaming
        self.streaming_reason: Optional[str] = None
        """Why `initialize` declared `streaming` or not (after `initialize`)."""
        self._streaming_decided: Optional[bool] = None
        self._measuring: Optional[threading.Thread] = None
        self.measure_budget = self._initialize_timeout() / 3
        """Seconds `initialize` waits for the batch answer to be measured."""
        self.debug = _debug_default() if debug is None else debug
        self._warned_types: set[str] = set()
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

    def can_stream(self) -> bool:
        """Whether `analyze/stream` can be answered: the protocol has it, and
        an `analyze/stream` or an `analyze` handler is registered."""
        return "analyze/stream" in self._served and (
            self.handles("analyze/stream") or self.handles("analyze")
        )

    def declares_streaming(self) -> bool:
        """Whether `initialize` declares `streaming` (see the module's rule)."""
        if not self.can_stream() or self.streaming is False:
            return False
        if self.streaming is True or not self.handles("classify_signals"):
            return True
        return bool(self._streaming_decided)

    def batch_answer_bytes(self, root_path: str, limit: int) -> tuple[int, int, bool]:
        """The size of the batch `analyze` answer for the whole project at
        `root_path`, measured by running the analysis (the stream handler's
        items, else the `analyze` handler's functions) and counting each
        function's compact JSON; stops once over `limit`. Returns (bytes,
        functions counted, whether all were counted)."""
        params: dict[str, Any] = {"root_path": root_path}
        if self.handles("analyze/stream"):
            items: Iterable[Any] = self._streams["analyze/stream"](params)
        else:
            result = self._requests["analyze"](params)
            items = result.get("functions") or [] if isinstance(result, dict) else []
        # `{"id":…,"jsonrpc":"2.0","result":{"functions":[…]}}` and a line feed.
        size, count = 64, 0
        for item in items:
            size += len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode()) + 1
            count += 1
            if size > limit:
                return size, count, False
        return size, count, True

    def _initialize_timeout(self) -> float:
        """The host's deadline for `initialize`, in seconds (the manifest's)."""
        try:
            return float(self.protocol.manifest()["methods"]["initialize"]["timeout_ms"]) / 1000
        except (KeyError, TypeError, ValueError):
            return 30.0

    def _decide_streaming(self, root_path: str) -> None:
        """At `initialize`: stream when the batch answer would not fit the
        host's line (a `classify_signals` handler and `streaming=None` only)."""
        if not (self.streaming is None and self.can_stream() and self.handles("classify_signals")):
            return
        line = self.protocol.max_frame_bytes
        threshold = line - line // 50
        measured: list[tuple[int, int, bool]] = []
        failed: list[BaseException] = []

        def measure() -> None:
            try:
                measured.append(self.batch_answer_bytes(root_path, threshold))
            except Exception as error:  # the analysis fails: analyze will say so
                failed.append(error)

        thread = threading.Thread(target=measure, name="wirekit: the batch answer's size", daemon=True)
        thread.start()
        thread.join(self.measure_budget)
        if thread.is_alive():
            self._measuring = thread
            self._streaming_decided = True
            self.streaming_reason = (
                f"the analysis of {root_path} was still running after {self.measure_budget:g} s "
                f"(a third of the host's {self._initialize_timeout():g} s for initialize), before "
                "its batch answer could be measured: declaring streaming, which Gaze reads with "
                "no deadline and which carries every side effect whatever the size (Gaze "
                "versions that call classify_signals after a stream lose the signals, with a "
                "warning); the next call waits for that analysis"
            )
        elif failed:
            error = failed[0]
            self._streaming_decided = False
            self.streaming_reason = (
                f"the analysis of {root_path} failed while measuring the batch answer "
                f"({type(error).__name__}: {error}); not declaring streaming, so the batch "
                "analyze reports the failure"
            )
        else:
            size, count, complete = measured[0]
            if complete:
                self._streaming_decided = False
                self.streaming_reason = (
                    f"the batch analyze answer for {root_path} is about {size} bytes "
                    f"({count} functions), within the host's {line}-byte line less 2%: "
                    "not declaring streaming, so Gaze calls the batch analyze and then "
                    "classify_signals"
                )
            else:
                self._streaming_decided = True
                self.streaming_reason = (
                    f"the batch analyze answer for {root_path} is over {size} bytes after "
                    f"{count} functions, more than the host's {line}-byte line less 2%: "
                    "declaring streaming, so Gaze gets every side effect by analyze/stream "
                    "(Gaze versions that call classify_signals after a stream lose the "
                    "signals, with a warning)"
                )
        print(f"wirekit: {self.name}: {self.streaming_reason}", file=sys.stderr)

    def capabilities(self) -> Any:
        flags = super().capabilities()
        if isinstance(flags, dict) and "streaming" in flags:
            flags["streaming"] = self.declares_streaming()
        return flags

    def check_taxonomy(self, functions: Iterable[Any], method: str) -> None:
        """Warns once per side-effect type outside Gaze's taxonomy."""
        for kind in sorted(unknown_side_effect_types(functions) - self._warned_types):
            self._warned_types.add(kind)
            warnings.warn(
                f"{self.name}: `{method}` emitted the side-effect type {kind!r}, which is not "
                "in Gaze's taxonomy: Gaze warns once per such effect and files it under P4; "
                "map it to one of wirekit.gaze.TAXONOMY",
                TaxonomyWarning,
                stacklevel=2,
            )

    def streaming_rule(self) -> str:
        """Which streaming rule applies, and why (`run()` prints it)."""
        if not self.can_stream():
            if "analyze/stream" not in self._served:
                return f"streaming: not declared ({self.protocol.id} has no analyze/stream)"
            return "streaming: not declared (no analyze or analyze/stream handler)"
        if self.streaming is False:
            return (
                "streaming: not declared (streaming=False); an analyze answer over the host's "
                f"{self.protocol.max_frame_bytes}-byte line is refused, and Gaze gets no side effect"
            )
        if self.streaming is True:
            if self.handles("classify_signals"):
                return (
                    "streaming: declared (streaming=True) with classify_signals: where Gaze "
                    "calls classify_signals after analyze/stream, when the session is over, "
                    "it loses the signals (streaming=None lets the project's size decide)"
                )
            return "streaming: declared (streaming=True)"
        if not self.handles("classify_signals"):
            return "streaming: declared (no classify_signals handler loses its signals after a stream)"
        return (
            "streaming: decided at initialize: declared when the batch analyze answer for the "
            f"project would exceed the host's {self.protocol.max_frame_bytes}-byte line (less 2%), "
            "so Gaze gets every side effect; else not, so Gaze calls the batch analyze and then "
            "classify_signals"
        )

    def _checked(self, method: str, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def checked(params: Any) -> Any:
            result = handler(params)
            self.check_taxonomy(result if isinstance(result, dict) else [], method)
            return result

        def checked_stream(params: Any) -> Iterator[Any]:
            for item in handler(params):
                self.check_taxonomy([item], method)
                yield item

        return checked_stream if method == "analyze/stream" else checked

    def _after_measuring(self, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """`handler`, run once the measurement begun at `initialize` is over
        (never two analyses at once; the measurement warms the caches)."""

        def settled(params: Any) -> Any:
            measuring = self._measuring
            if measuring is not None:
                measuring.join()
                self._measuring = None
            return handler(params)

        return settled

    def _analyze_from_stream(self, params: Any) -> dict[str, Any]:
        return {"functions": list(self._streams["analyze/stream"](params))}

    def _stream_from_analyze(self, params: Any) -> Iterator[Any]:
        result = self._requests["analyze"](params)
        yield from (result.get("functions") or []) if isinstance(result, dict) else []

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
        self._decide_streaming(self.root_path)
        return self.initialize_result()

    def _shutdown(self, params: Any) -> dict[str, Any]:
        for hook in self._shutdown_hooks:
            hook()
        return {}

    def _handlers(self) -> dict[str, Callable[[Any], Any]]:
        handlers = super()._handlers()
        handlers.setdefault("initialize", self._initialize)
        handlers.setdefault("shutdown", self._shutdown)
        if "analyze" not in handlers and self.handles("analyze/stream"):
            handlers["analyze"] = self._analyze_from_stream
        if self.debug and "analyze" in handlers:
            handlers["analyze"] = self._checked("analyze", handlers["analyze"])
        for method, handler in handlers.items():
            if method not in ("initialize", "shutdown"):
                handlers[method] = self._after_measuring(handler)
        return handlers

    def _stream_handlers(self) -> dict[str, Callable[[Any], Iterable[Any]]]:
        streams = super()._stream_handlers()
        if "analyze/stream" not in streams and self.can_stream():
            streams["analyze/stream"] = self._stream_from_analyze
        if self.debug and "analyze/stream" in streams:
            streams["analyze/stream"] = self._checked("analyze/stream", streams["analyze/stream"])
        for method, stream in streams.items():
            streams[method] = self._after_measuring(stream)
        return streams

    def run(self) -> str:
        """Serves stdin/stdout (the host spawns `<analyzer> --stdio`).

        `--version` prints the analyzer's name and version instead.
        """
        if "--version" in sys.argv[1:]:
            print(f"{self.name} {self.version} (gaze-analyzer {self.protocol.version})")
            return "version"
        missing = [m for m in ("complexity", "coverage") if not self.handles(m)]
        if not self.handles("analyze") and not self.handles("analyze/stream"):
            missing.insert(0, "analyze")
        print(f"wirekit: {self.name}: {self.streaming_rule()}", file=sys.stderr)
        if missing:
            print(
                f"wirekit: {self.name} has no handler for the required method(s) "
                f"{', '.join(missing)}; they answer -32601",
                file=sys.stderr,
            )
        return super().run()
