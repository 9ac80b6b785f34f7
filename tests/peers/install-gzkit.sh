#!/usr/bin/env bash
# The real gzkit authoring guide server for the conformance test
# (bindings/python/tests/test_conformance_gzkit.py): py-gzkit from PyPI, by
# package name, in its own venv at tests/peers/.venv-gzkit on CPython 3.13
# (py-gzkit requires it). Installed once per checkout (a marker file names
# the version). The interpreter is $PYTHON313, else a python3.13 on PATH that runs,
# else pyenv's newest 3.13.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PEER="py-gzkit==0.34.9"
if [ -f .venv-gzkit/.installed ] && [ "$(cat .venv-gzkit/.installed)" = "$PEER" ]; then
  exit 0
fi
python="${PYTHON313:-}"
# A pyenv shim for python3.13 is on PATH even where 3.13 is not the
# selected version (and then fails): a candidate must run.
if [ -z "$python" ] && python3.13 --version >/dev/null 2>&1; then
  python="$(command -v python3.13)"
fi
if [ -z "$python" ] && command -v pyenv >/dev/null; then
  for dir in $(ls -d "$(pyenv root)"/versions/3.13* 2>/dev/null | sort -V -r); do
    if [ -x "$dir/bin/python3.13" ]; then python="$dir/bin/python3.13"; break; fi
  done
fi
if [ -z "$python" ]; then
  echo "install-gzkit.sh: py-gzkit needs CPython 3.13: set PYTHON313, or put python3.13 on PATH (pyenv install 3.13)" >&2
  exit 1
fi
echo "== installing the real gzkit guide server into tests/peers/.venv-gzkit: $PEER on $("$python" --version) (once)"
rm -rf .venv-gzkit
"$python" -m venv .venv-gzkit
.venv-gzkit/bin/pip install --quiet --disable-pip-version-check "$PEER"
echo "$PEER" > .venv-gzkit/.installed
