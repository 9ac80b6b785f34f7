#!/usr/bin/env bash
# The quick start's main job, after `wirekit generate`: every binding at work.
#  1. a Rust Gaze analyzer (generated trait) driven by `wirekit drive`, its session recorded and checked;
#  2. the Python Gaze analyzer (wirekit.gaze) analyzing a real sample project;
#  3. a Python gzkit authoring guide (wirekit.gzkit) over Content-Length, shown frame by frame;
#  4. the TypeScript types type-checked, and the typed TypeScript client talking to that guide.
set -euo pipefail
cd "$(dirname "$0")/.."
wirekit=target/debug/wirekit
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cargo build -q -p wirekit-cli -p wirekit-example-rust-analyzer

say "1. Rust: examples/rust-analyzer, driven as the Gaze host drives it"
cat > "$out/gaze.requests" <<'JSON'
{"method": "initialize", "params": {"root_path": "examples/rust-analyzer"}}
{"method": "complexity", "params": {"root_path": "examples/rust-analyzer", "patterns": null}}
{"method": "analyze", "params": {"root_path": "examples/rust-analyzer", "patterns": null}}
{"method": "shutdown"}
JSON
"$wirekit" drive --protocol gaze-analyzer@1.0.0 --requests "$out/gaze.requests" --record "$out/rust.ndjson" \
  -- target/debug/gaze-analyzer-rust --stdio | cut -c1-160
"$wirekit" validate --protocol gaze-analyzer@1.0.0 "$out/rust.ndjson"

say "2. Python: gaze-analyzer-python on examples/python-analyzer/sample"
if [ ! -x .venv/bin/gaze-analyzer-python ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet ./bindings/python ./examples/python-analyzer
fi
sample="$(pwd)/examples/python-analyzer/sample"
cat > "$out/py.requests" <<JSON
{"method": "initialize", "params": {"root_path": "$sample"}}
{"method": "complexity", "params": {"root_path": "$sample", "patterns": null}}
{"method": "coverage", "params": {"root_path": "$sample", "patterns": null}}
{"method": "shutdown"}
JSON
"$wirekit" drive --protocol gaze-analyzer --requests "$out/py.requests" --record "$out/python.ndjson" \
  -- .venv/bin/gaze-analyzer-python --stdio | cut -c1-160
"$wirekit" validate --protocol gaze-analyzer "$out/python.ndjson"

say "3. Python: a gzkit authoring guide over Content-Length (examples/gzkit-guide)"
cat > "$out/gzkit.requests" <<JSON
{"method": "initialize", "params": {"clientVersion": "1.0"}}
{"method": "analyze", "params": {"file_path": "$(pwd)/examples/python-analyzer/sample/mathops/ops.py"}}
{"method": "shutdown", "params": {}}
JSON
"$wirekit" drive --protocol gzkit-authoring-guide --requests "$out/gzkit.requests" --record "$out/gzkit.bin" \
  -- .venv/bin/python examples/gzkit-guide/guide.py | cut -c1-160
"$wirekit" frames --framing content-length "$out/gzkit.bin" | cut -c1-120
"$wirekit" validate --protocol gzkit-authoring-guide "$out/gzkit.bin"

say "4. TypeScript: the generated types type-check, and the typed client asks the gzkit guide for hints"
(cd bindings/typescript && { [ -d node_modules ] || npm ci --silent; } && npx --no-install tsc -p . && echo "tsc --strict: ok")
node examples/typescript-client/gzkit-hints.mjs .venv/bin/python examples/gzkit-guide/guide.py \
  -- "$(pwd)/examples/python-analyzer/sample/mathops/ops.py"

say "5. AgentAPI: a full driver session (observations, completion, a cancel mid-way, reset) against the Rust serve-loop driver"
cargo build -q -p wirekit-cli --example rust_driver
head -c 200000 /dev/urandom > "$out/driver.input"
sed -e "s|@OPERATION@|fs.digest|; s|@PERMISSION@|filesystem-read|" \
    -e "s|@SLOW_INPUT@|$out/driver.input?delay_ms=300|; s|@INPUT@|$out/driver.input|" \
    tests/drivers/full-run.ndjson > "$out/driver.requests"
"$wirekit" drive --protocol agentapi-driver --requests "$out/driver.requests" --record "$out/driver.ndjson" \
  -- target/debug/examples/rust_driver | cut -c1-160
"$wirekit" validate --protocol agentapi-driver "$out/driver.ndjson"

say "All generated from schemas/; docs in docs/protocols/, OpenRPC in docs/openrpc/."
