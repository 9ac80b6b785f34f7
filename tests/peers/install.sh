#!/usr/bin/env bash
# The third-party peers of the peer tests, installed by package name once
# per checkout (a marker file names the versions): a venv at
# tests/peers/.venv with pygls 2.1 (a language server library) and
# snake-eyes-analyzer 0.1.0 (a Gaze analyzer for Python). vscode-jsonrpc 10
# is a devDependency of bindings/typescript (npm ci installs it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PEERS="pygls==2.1.* snake-eyes-analyzer==0.1.0"
if [ -f .venv/.installed ] && [ "$(cat .venv/.installed)" = "$PEERS" ]; then
  exit 0
fi
echo "== installing the third-party peers into tests/peers/.venv: $PEERS (once)"
rm -rf .venv
"${PYTHON:-python3}" -m venv .venv
# shellcheck disable=SC2086
.venv/bin/pip install --quiet --disable-pip-version-check $PEERS
echo "$PEERS" > .venv/.installed
