#!/usr/bin/env bash
# The quick start's main job, after `wirekit generate`: every binding at work.
#  1. a Rust Gaze analyzer (generated trait) driven by `wirekit drive`, its session recorded and checked;
#  2. the Python Gaze analyzer (wirekit.gaze) analyzing a real sample project;
#  3. a Python gzkit authoring guide (wirekit.gzkit) over Content-Length, shown frame by frame;
#  4. the TypeScript types type-checked, and the typed TypeScript client talking to that guide;
#  5. an AgentAPI driver session (observations, completion, cancel, reset) against the Rust driver;
#  6. `wirekit diff`: what gaze-analyzer 1.1.0 changed over 1.0.0, and whom it breaks.
# Each long step says what it does and how long it takes the first time; the
# builds show their own progress. Answers are pretty-printed, long lists
# summarised (examples/demo/show.py).
set -euo pipefail
cd "$(dirname "$0")/.."
wirekit=target/debug/wirekit
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step() { printf '\033[2m-- %s\033[0m\n' "$*"; }
show() { python3 examples/demo/show.py; }

# drive PROTOCOL REQUESTS RECORD -- SERVER...: the answers, then what drive said on stderr.
drive() {
  local protocol="$1" requests="$2" record="$3"
  shift 4
  local status=0
  "$wirekit" drive --protocol "$protocol" --requests "$requests" --record "$record" -- "$@" \
    >"$out/drive.out" 2>"$out/drive.err" || status=$?
  show <"$out/drive.out"
  cat "$out/drive.err" >&2
  return "$status"
}

say "0. Build"
step "cargo build: the wirekit command and the Rust example analyzer (first time: about 2 minutes; then seconds)"
cargo build -p wirekit-cli -p wirekit-example-rust-analyzer

say "1. Rust: examples/rust-analyzer, driven as the Gaze host drives it"
cat > "$out/gaze.requests" <<'JSON'
{"method": "initialize", "params": {"root_path": "examples/rust-analyzer"}}
{"method": "complexity", "params": {"root_path": "examples/rust-analyzer", "patterns": null}}
{"method": "analyze", "params": {"root_path": "examples/rust-analyzer", "patterns": null}}
{"method": "shutdown"}
JSON
step "wirekit drive: each call checked before it is sent and its answer after; the session recorded"
drive gaze-analyzer@1.0.0 "$out/gaze.requests" "$out/rust.ndjson" -- target/debug/gaze-analyzer-rust --stdio
step "wirekit validate: the recorded session checked again, both directions, in order"
"$wirekit" validate --protocol gaze-analyzer@1.0.0 "$out/rust.ndjson"

say "2. Python: gaze-analyzer-python on examples/python-analyzer/sample"
if [ ! -x .venv/bin/gaze-analyzer-python ]; then
  step "pip install ./bindings/python ./examples/python-analyzer into .venv: compiles the Rust core in release mode (first time: about 7 minutes on 2 cores; cargo's progress below)"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install -v ./bindings/python ./examples/python-analyzer 2>&1 \
    | grep --line-buffered -E '^ *(Compiling|Finished|Building wheel|Successfully)|error' || true
  [ -x .venv/bin/gaze-analyzer-python ] || { echo "the Python install failed; run it again without the filter to see why" >&2; exit 1; }
else
  step "the Python package is installed in .venv already (delete .venv to rebuild it)"
fi
sample="$(pwd)/examples/python-analyzer/sample"
cat > "$out/py.requests" <<JSON
{"method": "initialize", "params": {"root_path": "$sample"}}
{"method": "complexity", "params": {"root_path": "$sample", "patterns": null}}
{"method": "coverage", "params": {"root_path": "$sample", "patterns": null}}
{"method": "shutdown"}
JSON
step "wirekit drive: coverage runs the sample's tests under coverage.py (a few seconds)"
drive gaze-analyzer "$out/py.requests" "$out/python.ndjson" -- .venv/bin/gaze-analyzer-python --stdio
"$wirekit" validate --protocol gaze-analyzer "$out/python.ndjson"

say "3. Python: a gzkit authoring guide over Content-Length (examples/gzkit-guide)"
cat > "$out/gzkit.requests" <<JSON
{"method": "initialize", "params": {"clientVersion": "1.0"}}
{"method": "analyze", "params": {"file_path": "$(pwd)/examples/python-analyzer/sample/mathops/ops.py"}}
{"method": "shutdown", "params": {}}
JSON
drive gzkit-authoring-guide "$out/gzkit.requests" "$out/gzkit.bin" -- .venv/bin/python examples/gzkit-guide/guide.py
step "wirekit frames: the recorded byte stream, frame by frame"
"$wirekit" frames --framing content-length "$out/gzkit.bin" | show
"$wirekit" validate --protocol gzkit-authoring-guide "$out/gzkit.bin"

say "4. TypeScript: the generated types type-check, and the typed client asks the gzkit guide for hints"
if [ ! -d bindings/typescript/node_modules ]; then
  step "npm ci in bindings/typescript (first time: about 30 seconds)"
  (cd bindings/typescript && npm ci --no-audit --no-fund --loglevel=error)
fi
step "tsc --strict: the generated types and the client (about 20 seconds)"
(cd bindings/typescript && npx --no-install tsc -p . && echo "tsc --strict: ok")
node examples/typescript-client/gzkit-hints.mjs .venv/bin/python examples/gzkit-guide/guide.py \
  -- "$(pwd)/examples/python-analyzer/sample/mathops/ops.py"

say "5. AgentAPI: a full driver session (observations, completion, a cancel mid-way, reset) against the Rust serve-loop driver"
step "cargo build: the Rust driver example (first time: about a minute)"
cargo build -p wirekit-cli --example rust_driver
head -c 200000 /dev/urandom > "$out/driver.input"
sed -e "s|@OPERATION@|fs.digest|; s|@PERMISSION@|filesystem-read|" \
    -e "s|@SLOW_INPUT@|$out/driver.input?delay_ms=300|; s|@INPUT@|$out/driver.input|" \
    tests/drivers/full-run.ndjson > "$out/driver.requests"
step "wirekit drive: each answer and notification in arrival order, the invocation followed to driver.completed"
drive agentapi-driver "$out/driver.requests" "$out/driver.ndjson" -- target/debug/examples/rust_driver
"$wirekit" validate --protocol agentapi-driver "$out/driver.ndjson"

say "6. For protocol maintainers: wirekit diff gaze-analyzer 1.0.0 -> 1.1.0"
"$wirekit" diff --protocol gaze-analyzer 1.0.0 1.1.0 2>&1

say "All generated from schemas/; docs in docs/protocols/, OpenRPC in docs/openrpc/."
