#!/usr/bin/env bash
# Install path: Python. Takes the abi3 wheel that bindings/python/run-tests.sh
# built with `maturin build` (target/wheels/python; built here the same way
# only if it is missing), installs it into a fresh venv with no cargo or rustc
# on PATH, together with the example analyzer, then, from outside the tree:
# `wirekit` and `python -m wirekit` answer, the wheel's own `wirekit drive`
# hosts the example analyzer (gaze-analyzer-python) over a real session, and
# `wirekit validate` finds that session clean.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
wheels="$repo/target/wheels/python"

if ! ls "$wheels"/wirekit-*.whl >/dev/null 2>&1; then
    echo "== no wheel in target/wheels/python: maturin build --release (a few minutes)"
    venv="${VENV:-$repo/.venv}"
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "maturin>=1.9.4,<2"
    "$venv/bin/maturin" build --quiet --release --out "$wheels" --manifest-path "$repo/bindings/python/Cargo.toml"
fi
wheel="$(ls "$wheels"/wirekit-*.whl | head -1)"
case "$(basename "$wheel")" in
    *-abi3-*) ;;
    *) echo "FAIL: $(basename "$wheel") is not an abi3 wheel" >&2; exit 1 ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/wirekit-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# A PATH without any folder that holds cargo or rustc: the wheel must not need them.
clean_path=""
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
    [ -n "$dir" ] || continue
    if [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ]; then continue; fi
    clean_path="${clean_path:+$clean_path:}$dir"
done
interpreter="$(command -v "$python")"
interpreter="$("$interpreter" -c 'import sys; print(sys.executable)')"
echo "== fresh venv ($("$interpreter" --version)), PATH without cargo, pip install $(basename "$wheel")"
"$interpreter" -m venv "$work/venv"
export PATH="$work/venv/bin:$clean_path"
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
    echo "FAIL: cargo or rustc is still on PATH" >&2; exit 1
fi
pip="$work/venv/bin/python -m pip"
$pip install --quiet --disable-pip-version-check --no-deps "$wheel"
# The example's own dependency (coverage) from the index; wirekit is already the wheel.
$pip install --quiet --disable-pip-version-check "$repo/examples/python-analyzer"
location="$($pip show --disable-pip-version-check wirekit | sed -n 's/^Location: //p')"
case "$location" in
    "$work/venv"/*) ;;
    *) echo "FAIL: wirekit is installed in '$location', not in the fresh venv" >&2; exit 1 ;;
esac

cd "$work"
echo "== wirekit --version; python -m wirekit --version"
[ "$(command -v wirekit)" = "$work/venv/bin/wirekit" ] || { echo "FAIL: no wirekit script in the venv" >&2; exit 1; }
wirekit --version
python -m wirekit --version
python -c 'import wirekit, sys; sys.exit(0 if "gaze-analyzer@1.0.0" in wirekit.embedded_protocols() else 1)'
status=0
wirekit validate --protocol no-such-protocol /dev/null 2>/dev/null || status=$?
[ "$status" = 2 ] || { echo "FAIL: an unknown protocol should exit 2, got $status" >&2; exit 1; }

echo "== wirekit drive (from the wheel) hosts gaze-analyzer-python (from the wheel's venv)"
sample="$repo/examples/python-analyzer/sample"
cat > calls.ndjson <<JSON
{"method": "initialize", "params": {"root_path": "$sample"}}
{"method": "complexity", "params": {"root_path": "$sample", "patterns": null}}
{"method": "shutdown"}
JSON
wirekit drive --protocol gaze-analyzer --requests calls.ndjson --record session.ndjson \
    -- gaze-analyzer-python --stdio > answers.ndjson
functions="$(python - <<'PY'
import json
answers = [json.loads(line) for line in open("answers.ndjson") if line.strip()]
complexity = next(a for a in answers if isinstance(a.get("result"), dict) and "functions" in a["result"])
print(len(complexity["result"]["functions"]))
PY
)"
[ "$functions" -gt 0 ] || { echo "FAIL: the analyzer found no function in $sample" >&2; exit 1; }
python -m wirekit validate --protocol gaze-analyzer session.ndjson
echo "python install: $(basename "$wheel") in a fresh venv without cargo: wirekit, python -m wirekit, and a hosted analyzer session ($functions functions) that validates"
