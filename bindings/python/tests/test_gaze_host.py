"""Analyzers written with wirekit.gaze, driven by a host that reads them as
Gaze's own client does (gaze_host.py): a failed stream, a partial stream,
classify_signals after the analysis and an answer over the host's 10 MiB
line each end without a hang and with the failure visible to the host."""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import pytest

from gaze_host import MAX_SCAN_SIZE, GazeHost, HostError
from support import SERVERS
from wirekit.gaze import Analyzer, TaxonomyWarning, types, unknown_side_effect_types

PARAMS = {"root_path": "/project", "patterns": None}


def host(case: str) -> GazeHost:
    return GazeHost([sys.executable, str(SERVERS / "gaze_cases.py"), case])


def test_a_stream_failing_before_its_first_item_fails_the_host_without_a_hang() -> None:
    gaze = host("stream-fails-first")
    assert gaze.initialize()["capabilities"]["streaming"] is True
    with pytest.raises(HostError) as failure:
        gaze.load_streaming(PARAMS)
    message = str(failure.value)
    assert message.startswith("malformed JSONL on line 1: json: cannot unmarshal array"), message
    # Gaze shows the line's first 200 bytes: the failure and its reason.
    assert "failed before its first item: Internal error: RuntimeError" in message
    assert "cannot read the project" in message
    assert gaze.close() == 0
    assert not gaze.hung


def test_a_stream_failing_mid_way_is_never_taken_for_a_whole_result() -> None:
    gaze = host("stream-fails-midway")
    gaze.initialize()
    with pytest.raises(HostError) as failure:
        gaze.load_streaming(PARAMS)
    message = str(failure.value)
    assert message.startswith("malformed JSONL on line 3:"), message
    assert "failed after 2 items, an incomplete result: Internal error: RuntimeError" in message
    assert gaze.close() == 0
    assert not gaze.hung


def test_a_refused_stream_item_ends_the_stream_visibly_instead_of_vanishing() -> None:
    gaze = host("stream-invalid-item")
    gaze.initialize()
    with pytest.raises(HostError) as failure:
        gaze.load_streaming(PARAMS)
    message = str(failure.value)
    assert message.startswith("malformed JSONL on line 2:"), message
    assert "item 1 was refused" in message
    assert gaze.close() == 0
    assert not gaze.hung


def test_classify_signals_follows_a_batch_analyze_instead_of_a_stream() -> None:
    # Gaze's adapter (the versions with the classify_signals integration)
    # calls classify_signals after loading the analysis, batch or stream:
    # with a classify_signals handler and a batch answer that fits the
    # host's line, the helper does not declare streaming, so the host takes
    # the batch path and the signals arrive.
    gaze = host("classify")
    capabilities = gaze.initialize()["capabilities"]
    assert capabilities["streaming"] is False and capabilities["classify_signals"] is True
    analyzed = gaze.call("analyze", PARAMS)
    assert [f["name"] for f in analyzed["result"]["functions"]] == ["function_000000", "function_000001"]
    signals = gaze.call("classify_signals", PARAMS)
    assert signals["result"]["signals"][0]["source"] == "docstring"
    assert gaze.close() == 0


def test_a_batch_answer_over_the_hosts_line_is_streamed_even_with_classify_signals() -> None:
    # About 11 MB of functions: the batch analyze would be refused and Gaze
    # would get no side effect; the stream gives it every one.
    gaze = host("huge-classify")
    capabilities = gaze.initialize()["capabilities"]
    assert capabilities["streaming"] is True and capabilities["classify_signals"] is True
    assert len(gaze.load_streaming(PARAMS)) == 60_000
    assert gaze.close() == 0
    stderr = gaze.stderr.decode()
    assert "streaming: decided at initialize" in stderr, stderr
    assert f"more than the host's {MAX_SCAN_SIZE - 1}-byte line less 2%: declaring streaming" in stderr, stderr


def test_an_analysis_too_slow_to_measure_within_initialize_streams_and_runs_once() -> None:
    # Gaze gives initialize 30 s and the stream no deadline: a measurement
    # still running after its budget declares streaming, and the stream
    # waits for it instead of running the analysis a second time.
    gaze = host("slow-classify")
    capabilities = gaze.initialize()["capabilities"]
    assert capabilities["streaming"] is True
    assert len(gaze.load_streaming(PARAMS)) == 2
    assert gaze.close() == 0
    stderr = gaze.stderr.decode()
    assert "was still running after 0.3 s" in stderr, stderr
    assert "cases: analysis run 2" in stderr and "cases: analysis run 3" not in stderr, stderr


def test_an_analyzer_with_only_a_batch_analyze_streams_it() -> None:
    gaze = host("batch-only")
    assert gaze.initialize()["capabilities"]["streaming"] is True
    assert [f["line"] for f in gaze.load_streaming(PARAMS)] == [1, 2, 3]
    assert gaze.close() == 0


@pytest.mark.parametrize("prompt", [True, False])
def test_the_process_ends_once_the_session_has_ended_unless_told_not_to(
    prompt: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not prompt:
        monkeypatch.setenv("WIREKIT_PROMPT_EXIT", "0")
    gaze = host("classify")
    gaze.initialize()
    assert gaze.close() == 0
    returned = b"cases: run() returned ended" in gaze.stderr
    assert returned is not prompt, gaze.stderr


def test_forced_streaming_with_classify_signals_loses_the_signals_and_says_so() -> None:
    gaze = host("classify-forced")
    assert gaze.initialize()["capabilities"]["streaming"] is True
    assert len(gaze.load_streaming(PARAMS)) == 2
    with pytest.raises(HostError, match="broken pipe|closed stdout"):
        gaze.call("classify_signals", PARAMS)
    assert gaze.close() == 0
    assert b"loses the signals" in gaze.stderr


def test_an_answer_over_the_hosts_line_is_a_clear_error_and_close_returns() -> None:
    gaze = host("huge")
    gaze.initialize()
    response = gaze.call("analyze", PARAMS)
    error = response["error"]
    assert error["code"] == -32603
    assert f"{MAX_SCAN_SIZE - 1}-byte frame bound" in error["message"]
    assert "`analyze/stream`" in error["message"]
    assert error["data"]["bytes"] > MAX_SCAN_SIZE
    # The session goes on, and the streamed alternative carries it all.
    complexity = gaze.call("complexity", PARAMS)
    assert complexity["result"] == {"functions": []}
    assert len(gaze.load_streaming(PARAMS)) == 60_000
    assert gaze.close() == 0
    assert not gaze.hung


def test_the_author_is_warned_once_per_type_outside_the_taxonomy() -> None:
    app = Analyzer(name="author", language="python", debug=True)

    @app.analyze
    def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
        effect: Any = {"type": "NetworkCall", "description": "calls out"}
        return {"functions": [{"name": f"f{i}", "package": "p", "file": "p.py", "line": i + 1,
                               "side_effects": [effect, {"type": "ReturnValue", "description": "r"}]}
                              for i in range(3)]}

    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"root_path": "/p"}},
        {"jsonrpc": "2.0", "id": 2, "method": "analyze", "params": PARAMS},
        {"jsonrpc": "2.0", "id": 3, "method": "analyze", "params": PARAMS},
    ]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    with pytest.warns(TaxonomyWarning) as caught:
        output = app.serve_bytes(data)
    assert [str(w.message).split(":")[1].strip() for w in caught] == [
        "`analyze` emitted the side-effect type 'NetworkCall', which is not in Gaze's taxonomy"
    ]
    assert output.count(b'"NetworkCall"') == 6, "the answer is sent as it is"


def test_no_warning_outside_debug_mode_and_the_check_for_tests() -> None:
    app = Analyzer(name="quiet", language="python", debug=False)

    @app.analyze
    def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
        effect: Any = {"type": "SubprocessCall", "description": "runs git"}
        return {"functions": [{"name": "f", "package": "p", "file": "p.py", "line": 1,
                               "side_effects": [effect]}]}

    data = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"analyze","params":{"root_path":"/p","patterns":null}}\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        app.serve_bytes(data)
    assert unknown_side_effect_types(analyze({"root_path": "/p", "patterns": None})) == {"SubprocessCall"}
