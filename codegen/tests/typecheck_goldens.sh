#!/usr/bin/env bash
# Type-check every golden fixture's expected Python and TypeScript:
#   mypy --strict on tests/golden/*/expected.py
#   tsc --strict --noEmit on tests/golden/*/expected.ts
#   the same two on the committed bindings (wirekit/protocols, bindings/typescript)
#   the committed docs/openrpc/*.openrpc.json against the OpenRPC meta-schema
# (The expected Rust is compiled by the codegen/golden-check crate.)
# Needs: mypy on PATH (pip install mypy) and `npm ci` in bindings/typescript.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
golden="$here/golden"
tsc="$repo/bindings/typescript/node_modules/.bin/tsc"
if [ ! -x "$tsc" ]; then
  (cd "$repo/bindings/typescript" && npm ci --no-audit --no-fund >/dev/null)
fi
status=0
for py in "$golden"/*/expected.py; do
  fixture="$(basename "$(dirname "$py")")"
  # mypy keys modules by file name, so check each fixture on its own.
  if ! out="$(cd "$(dirname "$py")" && python3 -m mypy --strict --no-incremental --python-version 3.10 expected.py 2>&1)"; then
    echo "mypy --strict failed on $fixture/expected.py:"; echo "$out"; status=1
  else
    echo "mypy --strict: $fixture/expected.py ok"
  fi
done
ts_files=("$golden"/*/expected.ts)
if ! out="$("$tsc" --strict --noEmit --target ES2022 --module NodeNext --moduleResolution NodeNext --skipLibCheck "${ts_files[@]}" 2>&1)"; then
  echo "tsc --strict --noEmit failed:"; echo "$out"; status=1
else
  echo "tsc --strict --noEmit: ${#ts_files[@]} expected.ts files ok"
fi
# The committed bindings generated from schemas/ (not only the goldens).
if ! out="$(cd "$repo/bindings/python/python" && python3 -m mypy --strict --no-incremental --config-file= --python-version 3.10 wirekit/protocols 2>&1)"; then
  echo "mypy --strict failed on bindings/python/python/wirekit/protocols:"; echo "$out"; status=1
else
  echo "mypy --strict: wirekit/protocols ok"
fi
if ! out="$("$tsc" -p "$repo/bindings/typescript" --noEmit 2>&1)"; then
  echo "tsc --strict --noEmit failed on bindings/typescript:"; echo "$out"; status=1
else
  echo "tsc --strict --noEmit: bindings/typescript ok"
fi
# The committed OpenRPC documents against the OpenRPC meta-schema.
if ! node "$here/check_openrpc.cjs" "$repo"/docs/openrpc/*.openrpc.json; then
  status=1
fi
exit $status
