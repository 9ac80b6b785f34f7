#!/usr/bin/env bash
# The Python binding's checks, against the installed package:
#   maturin build (one abi3 wheel, into target/wheels/python: the install
#   test tests/install/python-wheel.sh reuses it), pip install of that wheel
#   and the example,
#   mypy --strict on the helper and on the example, mypy.stubtest on the
#   native module, then pytest (the binding's suite and the example's).
# $PYTHON picks the interpreter that creates the venv (default python3); the
# venv lives in .venv/ at the repository root (or $VENV) and is reused.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
venv="${VENV:-$repo/.venv}"

if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv with $python"
    "$python" -m venv "$venv"
fi
py="$venv/bin/python"

echo "== installing wirekit, the example analyzer and the test tools"
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip install --quiet pytest mypy "maturin>=1.9.4,<2"
# The differential tests' references (tests/test_differential.py).
"$py" -m pip install --quiet hypothesis jsonschema-rs orjson rfc8785
# The real gzkit guide server (tests/test_conformance_gzkit.py): py-gzkit on
# CPython 3.13, in its own venv, once per checkout.
bash "$repo/tests/peers/install-gzkit.sh"
wheels="$repo/target/wheels/python"
echo "== maturin build --release (the wheel; a few minutes when the Rust side changed)"
rm -rf "$wheels"
"$venv/bin/maturin" build --quiet --release --out "$wheels" --manifest-path "$repo/bindings/python/Cargo.toml"
"$py" -m pip install --quiet --force-reinstall --no-deps "$wheels"/wirekit-*.whl
"$py" -m pip install --quiet --force-reinstall --no-deps "$repo/examples/python-analyzer"
"$py" -m pip install --quiet "$repo/examples/python-analyzer"   # its dependencies (coverage)
"$py" -m pip install --quiet --force-reinstall --no-deps "$repo/examples/python-driver"

cd "$repo"
if command -v cargo >/dev/null; then
    echo "== cargo fmt --check (bindings/python)"
    cargo fmt --manifest-path "$repo/bindings/python/Cargo.toml" --check
    echo "== cargo clippy -D warnings (bindings/python)"
    cargo clippy --quiet --manifest-path "$repo/bindings/python/Cargo.toml" --all-targets -- -D warnings
    echo "== cargo test --lib (bindings/python: the hot paths' own unit tests)"
    cargo test --quiet --manifest-path "$repo/bindings/python/Cargo.toml" --lib
fi
echo "== mypy --strict: the helper"
"$py" -m mypy --strict --no-incremental "$repo/bindings/python/python/wirekit"
echo "== mypy --strict: the MCP example servers"
"$py" -m mypy --strict --no-incremental "$repo/examples/mcp/server.py" "$repo/examples/mcp/everything_server.py" "$repo/tests/mcp/conformance/broken_server.py" "$repo/tests/mcp/context_server.py"
echo "== mypy --strict: the example analyzer and its tests"
"$py" -m mypy --strict --no-incremental "$repo/examples/python-analyzer/src" "$repo/examples/python-analyzer/tests"
echo "== mypy --strict: the example driver and its tests"
"$py" -m mypy --strict --no-incremental "$repo/examples/python-driver/src" "$repo/examples/python-driver/tests"
echo "== mypy.stubtest wirekit._native"
"$py" -m mypy.stubtest wirekit._native

echo "== pytest: bindings/python"
(cd "$repo/bindings/python" && "$py" -m pytest -p no:cacheprovider)
echo "== pytest: examples/python-analyzer"
(cd "$repo/examples/python-analyzer" && "$py" -m pytest -p no:cacheprovider)
echo "== pytest: examples/python-driver (driven by wirekit drive)"
if command -v cargo >/dev/null; then
    (cd "$repo" && cargo build -q -p wirekit-cli --bins --example driver_catalogue)
fi
(cd "$repo/examples/python-driver" && "$py" -m pytest -p no:cacheprovider)
