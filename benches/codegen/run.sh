#!/usr/bin/env bash
# Benchmark: generating every target for every protocol with `wirekit generate`,
# beside datamodel-code-generator (Python types) and json-schema-to-typescript
# (TypeScript types) on the same schema files. Not a test: it prints a table.
#
#   pip install datamodel-code-generator      # Python comparison
#   (cd bindings/typescript && npm ci)        # json2ts and tsc
#   benches/codegen/run.sh [runs]             # default 10 runs each, median and min
#
# Every tool runs as its own process per invocation (start-up included), on
# a scratch copy of `schemas/` so nothing in the work tree is written.
set -euo pipefail
runs="${1:-10}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/target-codegen}"
cargo build --quiet --release -p wirekit-cli --manifest-path "$repo/Cargo.toml"
wirekit="$CARGO_TARGET_DIR/release/wirekit"
json2ts="$repo/bindings/typescript/node_modules/.bin/json2ts"
[ -x "$json2ts" ] || (cd "$repo/bindings/typescript" && npm ci --no-audit --no-fund >/dev/null)

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# A scratch repository root: schemas plus a Cargo.toml marker.
mkdir -p "$scratch/root"
cp -r "$repo/schemas" "$scratch/root/schemas"
touch "$scratch/root/Cargo.toml"
# One directory of schema files a protocol version, for the other tools.
protos=()
for manifest in "$repo"/schemas/*/*/protocol.json; do
  dir="$(dirname "$manifest")"
  name="$(basename "$(dirname "$dir")")-$(basename "$dir" | tr . _)"
  mkdir -p "$scratch/in/$name" "$scratch/out-py/$name"
  find "$dir" -maxdepth 1 -name '*.json' ! -name protocol.json -exec cp {} "$scratch/in/$name/" \;
  protos+=("$name")
done
python3 "$repo/benches/codegen/timeit.py" "$runs" \
  "wirekit generate: all 5 targets, ${#protos[@]} protocols" \
    "$wirekit generate --root $scratch/root" \
  "wirekit generate: python only" \
    "$wirekit generate --root $scratch/root --target python" \
  "wirekit generate: typescript only" \
    "$wirekit generate --root $scratch/root --target typescript" \
  "datamodel-codegen: TypedDict, ${#protos[@]} protocols" \
    "$(for p in "${protos[@]}"; do printf 'datamodel-codegen --input %s --input-file-type jsonschema --output-model-type typing.TypedDict --output %s --disable-timestamp && ' "$scratch/in/$p" "$scratch/out-py/$p"; done) true" \
  "json2ts: ${#protos[@]} protocols" \
    "$(for p in "${protos[@]}"; do for f in "$scratch/in/$p"/*.json; do printf '%s -i %s -o %s --cwd %s --unreachableDefinitions && ' "$json2ts" "$f" "$scratch/out-ts-$p-$(basename "$f" .json).ts" "$scratch/in/$p"; done; done) true"
