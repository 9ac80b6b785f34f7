"""The analyzer on a generated project of 30,000 functions with three side
effects each (about 12 MB of batch answer, over Gaze's 10 MiB line), driven
as Gaze's own client drives it (`bindings/python/tests/gaze_host.py`, in
`gaze crap` order): Gaze gets every function's side effects, and Close after
`shutdown` is prompt, with no answer lost."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bindings" / "python" / "tests"))
from gaze_host import MAX_SCAN_SIZE, GazeHost  # type: ignore[import-not-found]  # noqa: E402

FUNCTIONS = 30_000
PER_FILE = 100
ANALYZER = [sys.executable, "-m", "gaze_analyzer_python", "--stdio"]


def generate(root: Path) -> None:
    """`bigproject/module_NNN.py`, each with PER_FILE functions that mutate
    an argument, write to stderr and return a value."""
    package = root / "bigproject"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for n in range(FUNCTIONS // PER_FILE):
        lines = ["import sys", ""]
        for i in range(PER_FILE):
            lines += [
                f"def handle_request_{n:03d}_{i:03d}(items, path):",
                "    items.append(path)",
                '    print("handled", path, file=sys.stderr)',
                "    return len(items)",
                "",
            ]
        (package / f"module_{n:03d}.py").write_text("\n".join(lines))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("big")
    generate(root)
    yield root


def spawn(env: dict[str, str]) -> GazeHost:
    """A host whose analyzer runs with `env` added to the environment."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return GazeHost(ANALYZER, hang_after=300)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_gaze_gets_every_functions_side_effects_on_30000_functions(project: Path) -> None:
    gaze = spawn({})
    capabilities = gaze.initialize(str(project))["capabilities"]
    params = {"root_path": str(project), "patterns": ["./..."]}
    started = time.monotonic()
    # loadAll: analyze/stream when streaming is declared, else the batch analyze.
    if capabilities["streaming"]:
        functions = gaze.load_streaming(params)
        path = "analyze/stream"
    else:
        response = gaze.call("analyze", params)
        assert "error" not in response, response["error"]
        functions = response["result"]["functions"]
        path = "analyze"
    elapsed = time.monotonic() - started
    assert gaze.close() == 0
    assert not gaze.hung
    print(f"{path}: {len(functions)} functions, "
          f"{sum(len(f['side_effects']) for f in functions)} side effects, {elapsed:.2f} s")
    assert len(functions) == FUNCTIONS
    assert all(
        sorted(e["type"] for e in f["side_effects"]) == ["PointerArgMutation", "ReturnValue", "StderrWrite"]
        for f in functions
    )
    # The batch answer does not fit the host's line: the helper chose the
    # stream at initialize (the analyzer has classify_signals) and said why.
    assert path == "analyze/stream"
    stderr = gaze.stderr.decode()
    assert "declaring streaming" in stderr, stderr
    assert f"{MAX_SCAN_SIZE - 1}-byte line" in stderr, stderr


def test_the_sample_project_keeps_the_batch_analyze_and_classify_signals() -> None:
    gaze = spawn({})
    sample = REPO / "examples" / "python-analyzer" / "sample"
    capabilities = gaze.initialize(str(sample))["capabilities"]
    assert capabilities["streaming"] is False and capabilities["classify_signals"] is True
    params = {"root_path": str(sample), "patterns": ["./..."]}
    assert gaze.call("analyze", params)["result"]["functions"]
    assert "signals" in gaze.call("classify_signals", params)["result"]
    assert gaze.close() == 0
    assert "not declaring streaming" in gaze.stderr.decode()


def close_after_a_cached_parse(project: Path, env: dict[str, str]) -> tuple[float, bytes | None]:
    """The seconds from `shutdown` written to the process's exit, after a
    call that parsed (and cached) the whole project; and the shutdown answer."""
    gaze = spawn(env)
    gaze.initialize(str(project))
    complexity = gaze.call("complexity", {"root_path": str(project), "patterns": ["./..."]})
    assert len(complexity["result"]["functions"]) == FUNCTIONS
    # Client.Close: shutdown written, stdin closed, the exit awaited.
    shutdown_id = gaze._write("shutdown", None)
    started = time.monotonic()
    assert gaze.process.stdin is not None
    gaze.process.stdin.close()
    try:
        code = gaze.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        gaze.process.kill()
        raise
    elapsed = time.monotonic() - started
    gaze._watchdog.cancel()
    assert code == 0
    answer = gaze.stdout.scan()
    gaze._stderr_reader.join(timeout=5)
    for stream in (gaze.process.stdout, gaze.process.stderr):
        if stream is not None:
            stream.close()
    expected = f'{{"id":{shutdown_id},"jsonrpc":"2.0","result":{{}}}}'.encode()
    assert answer is not None and answer.replace(b" ", b"") in (
        expected,
        f'{{"jsonrpc":"2.0","id":{shutdown_id},"result":{{}}}}'.encode(),
    ), answer
    return elapsed, answer


def test_close_after_shutdown_is_prompt_on_a_big_cached_project(project: Path) -> None:
    slow, _ = close_after_a_cached_parse(project, {"WIREKIT_PROMPT_EXIT": "0"})
    fast, _ = close_after_a_cached_parse(project, {})
    print(f"exit after shutdown: {slow * 1000:.0f} ms with the interpreter's teardown, "
          f"{fast * 1000:.0f} ms prompt")
    assert fast < 0.3, f"{fast * 1000:.0f} ms"
