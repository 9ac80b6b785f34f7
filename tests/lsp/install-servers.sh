#!/usr/bin/env bash
# Installs the real language servers the LSP tests run, by package name, once:
#   python-lsp-server with pyflakes and jedi-language-server (PyPI) into tests/lsp/.venv;
#   pyright, typescript-language-server with TypeScript 5 and bash-language-server (npm) into
#   tests/lsp/node_modules;
#   clangd, gopls (with Go) and shellcheck (bash-language-server's linter) from Debian with
#   apt-get (as root; elsewhere it says which packages to install and fails);
#   rust-analyzer with `rustup component add`, where that works: where it does not, the reason
#   goes to rust-analyzer.unavailable and its test says so.
# A second run finds them and returns at once. Prints where they are; the tests find them there
# (or on PATH).
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
# vscode-langservers-extracted (the HTML and CSS servers) and yaml-language-server: the servers
# that need a languageId other than plaintext and settings answers other than null.
if [ ! -x node_modules/.bin/pyright-langserver ] || [ ! -x node_modules/.bin/typescript-language-server ] \
  || [ ! -x node_modules/.bin/bash-language-server ] || [ ! -x node_modules/.bin/vscode-html-language-server ] \
  || [ ! -x node_modules/.bin/yaml-language-server ]; then
  npm install --silent --no-audit --no-fund --no-save --prefix "$here" "pyright@1" "typescript-language-server@5" "typescript@5" \
    "bash-language-server@5" "vscode-langservers-extracted@4.10.0" "yaml-language-server@1"
fi
# Debian's packages: clangd, gopls (it runs the go command), shellcheck.
missing=()
for pair in clangd:clangd gopls:gopls go:golang-go shellcheck:shellcheck; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-servers.sh: the LSP tests need Debian's ${missing[*]}: run 'sudo apt-get install ${missing[*]}'" >&2
    exit 1
  fi
  echo "install-servers.sh: apt-get install ${missing[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# rust-analyzer (and the standard library's source it reads) from rustup, where that works.
if ! rust-analyzer --version >/dev/null 2>&1; then
  if ! why="$(rustup component add rust-analyzer rust-src 2>&1)" || ! rust-analyzer --version >/dev/null 2>&1; then
    printf 'rustup component add rust-analyzer failed: %s\n' "$(printf '%s' "$why" | tail -1)" > rust-analyzer.unavailable
  else
    rm -f rust-analyzer.unavailable
  fi
else
  rm -f rust-analyzer.unavailable
fi
echo "lsp servers in $here: pylsp $(.venv/bin/pylsp --version 2>&1 | tail -1), jedi-language-server $(.venv/bin/jedi-language-server --version 2>&1 | tail -1), $(node_modules/.bin/pyright --version 2>&1 | tail -1), typescript-language-server $(node_modules/.bin/typescript-language-server --version 2>&1 | tail -1), bash-language-server $(node_modules/.bin/bash-language-server --version 2>&1 | tail -1), $(clangd --version | head -1), gopls $(gopls version 2>&1 | head -1), $(rust-analyzer --version 2>&1 || cat rust-analyzer.unavailable)"
