#!/usr/bin/env bash
# Installs the real language servers the LSP tests run, by package name, once:
# python-lsp-server with pyflakes and jedi-language-server (PyPI) into tests/lsp/.venv, pyright and
# typescript-language-server with TypeScript 5 (npm) into tests/lsp/node_modules. A second run finds them and returns at once.
# Prints where they are; the tests find them there (or on PATH).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# Test binaries may run this at the same time: one installs, the others wait.
exec 9>"$here/.install.lock"
flock 9
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/pylsp ] || [ ! -x .venv/bin/pyflakes ] || [ ! -x .venv/bin/jedi-language-server ]; then
  test -x .venv/bin/python || "$PYTHON" -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "python-lsp-server[pyflakes]==1.*" "jedi-language-server==0.*"
fi
# typescript-language-server with TypeScript 5 (TypeScript 7 on npm has no tsserver.js).
if [ ! -x node_modules/.bin/pyright-langserver ] || [ ! -x node_modules/.bin/typescript-language-server ]; then
  npm install --silent --no-audit --no-fund --no-save --prefix "$here" "pyright@1" "typescript-language-server@5" "typescript@5"
fi
echo "lsp servers in $here: pylsp $(.venv/bin/pylsp --version 2>&1 | tail -1), jedi-language-server $(.venv/bin/jedi-language-server --version 2>&1 | tail -1), $(node_modules/.bin/pyright --version 2>&1 | tail -1), typescript-language-server $(node_modules/.bin/typescript-language-server --version 2>&1 | tail -1)"
