#!/usr/bin/env bash
# The long differential run (issue 15), `make fuzz-long`: the Python paths
# against jsonschema-rs, orjson, rfc8785 and json (hypothesis,
# tests/test_differential.py) and the core's proptests against serde_json and
# the jsonschema crate (bindings/rust/tests/differential_props.rs), side by
# side, each repeated from a fresh random seed until MINUTES have passed
# (default 30). Each round's result is logged under target/differential/;
# the closing lines give the rounds, the cases and any failure. A failed
# round stops that language's loop and the script exits 1.
#
#   MINUTES=30 DIFF_EXAMPLES=5000 PROPTEST_CASES=1000000 bash tests/differential/long.sh
#
# Needs the package installed in .venv (`make test-python` does it).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
minutes="${MINUTES:-30}"
examples="${DIFF_EXAMPLES:-5000}"
cases="${PROPTEST_CASES:-1000000}"
py="${VENV:-$repo/.venv}/bin/python"
logs="$repo/target/differential"
mkdir -p "$logs"
end=$(( $(date +%s) + minutes * 60 ))

cargo test -q --release -p wirekit --test differential_props --lib --no-run --manifest-path "$repo/Cargo.toml" || exit 1

python_loop() {
    local round=0
    while [ "$(date +%s)" -lt "$end" ]; do
        round=$((round + 1))
        if ! (cd "$repo/bindings/python" && WIREKIT_DIFF_EXAMPLES="$examples" \
                "$py" -m pytest -p no:cacheprovider -q tests/test_differential.py) \
                > "$logs/python-$round.log" 2>&1; then
            echo "python round $round FAILED: $logs/python-$round.log"
            echo "python: $round rounds of $examples examples a test, FAILED" > "$logs/python.summary"
            return 1
        fi
    done
    echo "python: $round rounds of $examples examples a test, no disagreement" > "$logs/python.summary"
}

rust_loop() {
    local round=0
    while [ "$(date +%s)" -lt "$end" ]; do
        round=$((round + 1))
        # The core's proptests against serde_json and the jsonschema crate, then the
        # envelope's one-pass and kept-params decodes against the whole decode.
        if ! { PROPTEST_CASES="$cases" cargo test -q --release -p wirekit --test differential_props \
                   --manifest-path "$repo/Cargo.toml" \
               && PROPTEST_CASES="$cases" cargo test -q --release -p wirekit --lib envelope::decode \
                   --manifest-path "$repo/Cargo.toml"; } > "$logs/rust-$round.log" 2>&1; then
            echo "rust round $round FAILED: $logs/rust-$round.log"
            echo "rust: $round rounds of $cases cases a property, FAILED" > "$logs/rust.summary"
            return 1
        fi
    done
    echo "rust: $round rounds of $cases cases a property, no disagreement" > "$logs/rust.summary"
}

started=$(date -u +%T)
python_loop & python_pid=$!
rust_loop & rust_pid=$!
status=0
wait "$python_pid" || status=1
wait "$rust_pid" || status=1
echo "differential run from $started to $(date -u +%T) UTC ($minutes minutes asked; a round started before the end runs to its end):"
cat "$logs/python.summary" "$logs/rust.summary"
exit "$status"
