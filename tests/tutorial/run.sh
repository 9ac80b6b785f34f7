#!/usr/bin/env bash
# docs/tutorial.md, run as a user runs it: in a fresh folder outside the
# repository, with only the installed wheel (target/wheels/python, built by
# bindings/python/run-tests.sh), the packed npm package (npm pack here) and
# the wheel's `wirekit` command; no cargo or rustc on PATH. Every `sh` block
# runs in order and every `text` block is compared (tests/tutorial/run.py).
# Then README.md's "A protocol of your own" block, in another fresh folder,
# with the wirekit the tutorial installed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
wheel="$(ls "$repo"/target/wheels/python/wirekit-*.whl 2>/dev/null | head -1 || true)"
[ -n "$wheel" ] || { echo "FAIL: no wheel in target/wheels/python: run bindings/python/run-tests.sh first" >&2; exit 1; }
pkg="$repo/bindings/typescript"
[ -d "$pkg/node_modules" ] || (cd "$pkg" && npm ci --no-audit --no-fund --loglevel=error)

work="$(mktemp -d "${TMPDIR:-/tmp}/wirekit-tutorial.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "== npm pack (bindings/typescript)"
tarball="$(cd "$pkg" && npm pack --silent --pack-destination "$work" | tail -1)"
export WIREKIT_WHEEL="$wheel" WIREKIT_NPM="$work/$tarball"

# A PATH without any folder that holds cargo or rustc, and no wirekit.
clean_path=""
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
    [ -n "$dir" ] || continue
    if [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || [ -e "$dir/wirekit" ]; then continue; fi
    clean_path="${clean_path:+$clean_path:}$dir"
done
interpreter="$("$python" -c 'import sys; print(sys.executable)')"
mkdir -p "$work/bin"
ln -s "$interpreter" "$work/bin/python3"
home="$work/tutorial"
mkdir -p "$home"
echo "== docs/tutorial.md in $home ($("$interpreter" --version), node $(node --version), PATH without cargo)"
PATH="$work/bin:$clean_path" npm_config_prefer_offline=true npm_config_loglevel=error \
    "$interpreter" "$repo/tests/tutorial/run.py" "$repo/docs/tutorial.md" "$home"
readme="$work/readme"
mkdir -p "$readme"
echo "== README.md's 'A protocol of your own' in $readme"
PATH="$home/.venv/bin:$work/bin:$clean_path" \
    "$interpreter" "$repo/tests/tutorial/run.py" "$repo/README.md" "$readme" "## A protocol of your own"
