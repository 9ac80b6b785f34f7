#!/usr/bin/env bash
# Installs the real MCP peers the MCP tests run, by package name, once: the reference
# "everything" and "filesystem" servers (npm @modelcontextprotocol/server-everything,
# @modelcontextprotocol/server-filesystem) into tests/mcp/node_modules,
# the time server (PyPI mcp-server-time) and the official Python SDK (PyPI mcp, its stdio
# client) into tests/mcp/.venv. A second run finds them and returns at once.
# Prints where they are; the tests find them there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# Test binaries may run this at the same time: one installs, the others wait.
exec 9>"$here/.install.lock"
flock 9
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/mcp-server-time ] || ! .venv/bin/python -c "import mcp.client.stdio" 2>/dev/null; then
  test -x .venv/bin/python || "$PYTHON" -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "mcp==2.*" "mcp-server-time>=2025.7"
fi
if [ ! -e node_modules/@modelcontextprotocol/server-everything/package.json ] || [ ! -e node_modules/@modelcontextprotocol/server-filesystem/package.json ]; then
  npm install --silent --no-audit --no-fund --no-save --prefix "$here" "@modelcontextprotocol/server-everything@2026" "@modelcontextprotocol/server-filesystem@2026"
fi
everything="$(node -p "require('$here/node_modules/@modelcontextprotocol/server-everything/package.json').version")"
filesystem="$(node -p "require('$here/node_modules/@modelcontextprotocol/server-filesystem/package.json').version")"
echo "mcp peers in $here: mcp (python sdk) $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("mcp"))'), mcp-server-time $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("mcp-server-time"))'), server-everything $everything, server-filesystem $filesystem"
