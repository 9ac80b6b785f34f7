"""The serve loop over real pipes: the example analyzer, a misbehaving analyzer
and a gzkit authoring guide service, each started as a subprocess."""

from __future__ import annotations

import json
import signal
import time
from typing import Any, Callable

from support import PYTHON, SAMPLE, SERVERS, VECTORS, Peer
from wirekit import Protocol
from wirekit.gaze import TAXONOMY

StartPeer = Callable[..., Peer]
ROOT = str(SAMPLE)


def example(start: StartPeer) -> Peer:
    return start(PYTHON, "-m", "gaze_analyzer_python", "--stdio")


def flaky(start: StartPeer, *flags: str) -> Peer:
    return start(PYTHON, str(SERVERS / "flaky_analyzer.py"), "--stdio", *flags)


def initialize(peer: Peer) -> dict[str, Any]:
    answer = peer.request(1, "initialize", {"root_path": ROOT, "config": {}})
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def by_name(functions: list[dict[str, Any]], key: str = "name") -> dict[str, dict[str, Any]]:
    return {f[key]: f for f in functions}


def test_example_analyzer_measures_the_sample_project(peer_factory: StartPeer) -> None:
    peer = example(peer_factory)
    result = initialize(peer)
    # streaming is not declared: Gaze calls classify_signals after the
    # analysis, and after a stream the session is over (see wirekit.gaze).
    assert result["capabilities"] == {"streaming": False, "discover": True, "test_mapping": True,
                                      "classify_signals": True, "doc_coverage": True}
    assert (result["protocol_version"], result["analyzer_name"], result["language"]) == (
        "1.1.0", "gaze-analyzer-python", "python")

    complexity = peer.request(2, "complexity", {"root_path": ROOT, "patterns": None})
    functions = by_name(complexity["result"]["functions"])
    assert functions["classify"]["complexity"] == 3  # two ifs
    assert functions["add"]["complexity"] == 1
    assert functions["untested"]["complexity"] == 4  # a loop, an if and an `and`
    assert functions["Counter.increment"]["package"] == "mathops.ops"

    analyze = by_name(peer.request(3, "analyze", {"root_path": ROOT, "patterns": ["./..."]})["result"]["functions"])
    effects = {name: {e["type"] for e in f["side_effects"]} for name, f in analyze.items()}
    assert effects["divide"] == {"ErrorReturn", "ReturnValue"}
    assert effects["untested"] == {"PointerArgMutation", "ReturnValue"}
    assert effects["record"] == {"GlobalMutation", "StdoutWrite"}
    assert effects["save"] == {"FileSystemWrite"}
    assert effects["warn"] == {"StderrWrite"}
    assert effects["fetch"] == {"StreamOutput", "ReturnValue"}
    assert effects["git_head"] == {"GoroutineSpawn", "ReturnValue"}
    assert set().union(*effects.values()) <= TAXONOMY, "only types of Gaze's taxonomy"
    assert effects["squares"] == {"GeneratorYield"}
    assert effects["Counter.increment"] == {"ReceiverMutation", "ReturnValue"}
    raise_effect = next(e for e in analyze["divide"]["side_effects"] if e["type"] == "ErrorReturn")
    assert raise_effect["target"] == "ZeroDivisionError"
    assert raise_effect["location"] == "mathops/ops.py:27:9"

    coverage = by_name(peer.request(4, "coverage", {"root_path": ROOT})["result"]["functions"], "function")
    assert coverage["untested"]["percentage"] == 0.0 and coverage["untested"]["covered_stmts"] == 0
    assert coverage["untested"]["total_stmts"] == 6
    assert coverage["add"]["percentage"] == 100.0
    assert coverage["classify"] == {"file": "mathops/ops.py", "function": "classify", "start_line": 16,
                                    "end_line": 21, "covered_stmts": 5, "total_stmts": 5, "percentage": 100.0}

    mappings = peer.request(5, "test_mapping", {"root_path": ROOT, "patterns": None})["result"]["mappings"]
    pairs = {(m["test_function"], m["target_function"], m["assertion_type"]) for m in mappings}
    assert ("TestOps.test_add", "add", "equality") in pairs
    assert ("TestOps.test_divide_by_zero", "divide", "error_check") in pairs
    assert ("TestOps.test_record", "record", "nil_check") in pairs
    assert ("TestOps.test_counter", "Counter.increment", "equality") in pairs
    via_variable = [m for m in mappings if m["assertion_location"] == "tests/test_ops.py:12"]
    assert [(m["target_function"], m["confidence"]) for m in via_variable] == [("classify", 65)]

    discover = peer.request(6, "discover", {"root_path": ROOT})["result"]
    assert discover["source_files"] == ["mathops/__init__.py", "mathops/ops.py"]
    assert discover["test_files"] == ["tests/__init__.py", "tests/test_ops.py"]

    docs = by_name(peer.request(7, "doc_coverage", {"root_path": ROOT, "patterns": None})["result"]["symbols"])
    assert docs["divide"]["documented"] is True
    assert docs["divide"]["doc_snippet"] == "Divide a by b, raising ZeroDivisionError for a zero divisor."
    assert docs["untested"] == {"name": "untested", "package": "mathops.ops", "file": "mathops/ops.py",
                                "line": 31, "kind": "function", "documented": False}

    signals = peer.request(8, "classify_signals", {"root_path": ROOT})["result"]["signals"]
    assert {"function": "divide", "package": "mathops.ops", "side_effect_type": "ErrorReturn",
            "source": "docstring", "weight": 15, "reasoning": "docstring mentions ZeroDivisionError"} in signals

    assert peer.request(9, "shutdown", with_params=False) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    code, rest, stderr = peer.close()
    assert code == 0 and rest == b""
    assert "passed" in stderr or "OK" in stderr  # the sample's test run reported on stderr


def test_bad_input_is_answered_and_serving_goes_on(peer_factory: StartPeer) -> None:
    peer = example(peer_factory)
    early = peer.request(1, "complexity", {"root_path": ROOT})
    assert early["error"]["code"] == -32600 and "before initialize" in early["error"]["message"]
    initialize(peer)
    peer.send(b'{"jsonrpc":"2.0","id":2,"method":\n')
    parse = peer.line()
    assert parse["id"] is None and parse["error"]["code"] == -32700
    peer.send(b"\n\r\n")  # empty lines are skipped, not answered
    unknown = peer.request(3, "explode", {})
    assert unknown["error"]["code"] == -32601 and unknown["id"] == 3
    wrong = peer.request(4, "complexity", {"root_path": 42, "patterns": "x"})
    assert wrong["error"]["code"] == -32602
    pointers = {e["pointer"] for e in wrong["error"]["data"]["errors"]}
    assert pointers == {"/root_path", "/patterns"}
    again = peer.request("five", "initialize", {"root_path": ROOT})
    assert again["id"] == "five" and again["error"]["code"] == -32600
    assert "result" in peer.request(6, "complexity", {"root_path": ROOT})
    code, rest, _ = peer.close()  # end of input without shutdown
    assert code == 0 and rest == b""


def test_ctrl_c_while_waiting_for_input_stops_the_server(peer_factory: StartPeer) -> None:
    peer = example(peer_factory)
    initialize(peer)
    time.sleep(0.2)  # the server is now blocked reading stdin, in Rust
    peer.process.send_signal(signal.SIGINT)
    assert peer.process.wait(timeout=20) == 130


def test_stdout_stays_clean_while_handlers_print(peer_factory: StartPeer) -> None:
    peer = flaky(peer_factory)
    initialize(peer)
    answer = peer.request(2, "complexity", {"root_path": ROOT})
    assert answer["result"]["functions"][0]["complexity"] == 2
    assert peer.request(3, "shutdown", None)["result"] == {}
    code, rest, stderr = peer.close()
    assert code == 0 and rest == b""
    for stray in ("stray print from complexity", "stray sys.stdout.write", "stray write to descriptor 1",
                  "stray print from a child process"):
        assert stray in stderr


def test_a_raising_handler_answers_internal_error_and_serving_goes_on(peer_factory: StartPeer) -> None:
    peer = flaky(peer_factory)
    initialize(peer)
    failed = peer.request(2, "analyze", {"root_path": "/nowhere"})
    assert failed["error"]["code"] == -32603
    assert failed["error"]["data"] == {"type": "ValueError", "message": "cannot analyze /nowhere"}
    own = peer.request(3, "discover", {"root_path": "/r"})
    assert own["error"] == {"code": -32000, "message": "nothing to discover", "data": {"root": "/r"}}
    assert "result" in peer.request(4, "complexity", {"root_path": ROOT})
    code, _, stderr = peer.close()
    assert code == 0
    assert "Traceback (most recent call last)" in stderr and "ValueError: cannot analyze /nowhere" in stderr


def test_an_invalid_result_is_refused_naming_the_pointers(peer_factory: StartPeer) -> None:
    peer = flaky(peer_factory)
    initialize(peer)
    answer = peer.request(2, "coverage", {"root_path": ROOT})
    assert answer["error"]["code"] == -32603
    pointers = {e["pointer"] for e in answer["error"]["data"]["errors"]}
    assert pointers == {"/functions/0/start_line", "/functions/0/end_line", "/functions/0/covered_stmts",
                        "/functions/0/total_stmts", "/functions/0/percentage"}
    assert "/functions/0/end_line" in answer["error"]["message"]
    code, _, stderr = peer.close()
    assert code == 0
    # Logged like a raising handler's traceback: every pointer, on stderr.
    assert "wirekit: fault invalid_result method=coverage pointer=/result" in stderr
    assert "the handler's result for `coverage` is invalid; answered an internal error instead: " in stderr
    assert all(pointer in stderr for pointer in pointers)


def test_warn_mode_sends_an_invalid_result_with_a_warning(peer_factory: StartPeer) -> None:
    peer = flaky(peer_factory, "--warn")
    initialize(peer)
    answer = peer.request(2, "coverage", {"root_path": ROOT})
    assert answer["result"]["functions"][0]["start_line"] == "one"
    code, _, stderr = peer.close()
    assert code == 0
    assert "warning" in stderr and "anyway" in stderr and "/functions/0/start_line" in stderr


def test_analyze_stream_writes_items_then_closes(peer_factory: StartPeer) -> None:
    peer = flaky(peer_factory)
    result = initialize(peer)
    assert result["capabilities"]["streaming"] is True and result["capabilities"]["discover"] is True
    assert result["capabilities"]["test_mapping"] is False
    peer.send(b'{"jsonrpc":"2.0","id":2,"method":"analyze/stream","params":{"root_path":"/r","patterns":null}}\n')
    code, rest, _ = peer.close()
    lines = [json.loads(line) for line in rest.splitlines()]
    assert [item["name"] for item in lines] == ["f1", "f2", "f3"]
    assert code == 0


def gzkit_example(name: str) -> bytes:
    cases = json.loads((VECTORS / "framing" / "gzkit_examples.json").read_text(encoding="utf-8"))["cases"]
    text: str = next(c["input"] for c in cases if c["name"].startswith(name))
    return text.encode("utf-8")


def test_gzkit_service_answers_the_worked_examples_byte_for_byte(peer_factory: StartPeer) -> None:
    peer = peer_factory(PYTHON, str(SERVERS / "gzkit_guide.py"))
    expected = gzkit_example("gzkit example 1 server") + gzkit_example("gzkit example 2 server")
    peer.send(gzkit_example("gzkit example 1 client") + gzkit_example("gzkit example 2 client"))
    assert peer.read_exactly(len(expected)) == expected
    body = b'{"id":4,"method":"shutdown","params":{}}'
    peer.send(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    code, rest, _ = peer.close()
    assert rest == b'Content-Length: 20\r\n\r\n{"id":4,"result":{}}' and code == 0


def test_gzkit_version_mismatch_answers_and_ends(peer_factory: StartPeer) -> None:
    peer = peer_factory(PYTHON, str(SERVERS / "gzkit_guide.py"))
    peer.send(gzkit_example("gzkit example 3 client"))
    expected = gzkit_example("gzkit example 3 server")
    assert peer.read_exactly(len(expected)) == expected
    code, rest, _ = peer.close()
    assert code == 0 and rest == b""


def request_line(id: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n"


def test_pipelined_requests_are_answered_in_order_and_a_quick_answer_is_not_held(
    peer_factory: StartPeer, tmp_path: Any
) -> None:
    # One write: a quick request, a slow one, then 300 more. The answers to
    # requests read ahead share writes (the core's `serve_batched`), but the
    # quick answer must reach the client while the slow handler runs: that
    # handler waits until the client has it (and says whether it came).
    peer = peer_factory(PYTHON, str(SERVERS / "pipelined_analyzer.py"), "--stdio")
    initialize(peer)
    flag = str(tmp_path / "flag")
    batch = request_line(2, "complexity", {"root_path": ROOT})
    batch += request_line(3, "analyze", {"root_path": flag})
    batch += b"".join(request_line(id, "complexity", {"root_path": ROOT}) for id in range(4, 304))
    peer.send(batch)
    quick = peer.line()
    assert quick["id"] == 2 and "result" in quick
    (tmp_path / "flag.go").touch()
    slow = peer.line()
    assert slow["id"] == 3 and slow["result"]["functions"][0]["name"] == "released"
    ids = [peer.line()["id"] for _ in range(4, 304)]
    assert ids == list(range(4, 304))
    assert peer.request(304, "shutdown", None)["result"] == {}
    code, rest, _ = peer.close()
    assert code == 0 and rest == b""


def test_a_handler_s_keyboard_interrupt_stops_a_pipelined_server_after_its_answer(peer_factory: StartPeer) -> None:
    peer = peer_factory(PYTHON, str(SERVERS / "pipelined_analyzer.py"), "--stdio")
    initialize(peer)
    batch = request_line(2, "complexity", {"root_path": ROOT})
    batch += request_line(3, "discover", {"root_path": ROOT})
    batch += request_line(4, "complexity", {"root_path": ROOT})
    peer.send(batch)
    assert "result" in peer.line()
    stopping = peer.line()
    assert stopping["id"] == 3 and stopping["error"]["code"] == -32603
    assert "stopping" in stopping["error"]["message"]
    assert Protocol("gaze-analyzer").validate_error(stopping["error"]) == [], "the protocol's error schema holds"
    code, rest, stderr = peer.close()
    assert rest == b"", "nothing is answered after the stop"
    assert code != 0
    assert stderr.count("complexity called") == 1, "no handler runs after the stop"
