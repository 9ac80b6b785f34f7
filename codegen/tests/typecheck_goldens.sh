#!/usr/bin/env bash
# Type-check every golden fixture's expected Python and TypeScript:
#   mypy --strict on tests/golden/*/expected.py
#   tsc --strict --noEmit on tests/golden/*/expected.ts
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
exit $status
