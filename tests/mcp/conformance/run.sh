#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) against a stdio MCP server: the server is put
# behind supergateway's Streamable HTTP bridge (stateful: one server process
# a session, as a stdio client would spawn it) on a free port, and every
# server scenario of the suite (`--suite all`) is run against it.
#
#   tests/mcp/conformance/run.sh [--scenario NAME] [--no-baseline] [-- SERVER COMMAND...]
#
# The server defaults to examples/mcp/everything_server.py with the project's
# .venv Python. expected-failures.yml lists the verdicts that belong to the
# bridge (the suite then exits 0 only when everything else passes and each
# listed scenario still fails); --no-baseline runs without it. The suite's
# checks are kept in $WIREKIT_CONFORMANCE_OUT (a temporary folder by default).
# Exit status: the suite's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
scenario=()
baseline=(--expected-failures "$here/expected-failures.yml")
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) scenario=(--scenario "$2"); shift 2 ;;
    --no-baseline) baseline=(); shift ;;
    --) shift; break ;;
    *) echo "run.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ $# -gt 0 ]; then
  server="$*"
else
  python="${PYTHON:-$repo/.venv/bin/python}"
  server="$python $repo/examples/mcp/everything_server.py"
fi
[ ${#scenario[@]} -gt 0 ] || scenario=(--suite all)
node_bin="$(bash "$here/install.sh")"
export PATH="$node_bin:$PATH"
out="${WIREKIT_CONFORMANCE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")}"
mkdir -p "$out"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$here/node_modules/.bin/supergateway" --stdio "$server" --outputTransport streamableHttp --stateful \
  --port "$port" --logLevel none >"$out/bridge.log" 2>&1 &
bridge=$!
trap 'kill "$bridge" 2>/dev/null; wait "$bridge" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then break; fi
  kill -0 "$bridge" 2>/dev/null || { echo "run.sh: the bridge exited:" >&2; cat "$out/bridge.log" >&2; exit 1; }
  sleep 0.1
done
echo "== official MCP conformance suite $(node -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version") against: $server"
status=0
"$here/node_modules/.bin/conformance" server --url "http://127.0.0.1:$port/mcp" "${scenario[@]}" "${baseline[@]}" \
  -o "$out" >"$out/suite.txt" 2>&1 || status=$?
# The summary, then every failed check in full (from the suite's checks.json).
sed -n '/=== SUMMARY ===/,$p' "$out/suite.txt"
python3 - "$out" <<'PY'
import json, pathlib, sys
for checks in sorted(pathlib.Path(sys.argv[1]).glob("*/checks.json")):
    for check in json.loads(checks.read_text()):
        if check.get("status") not in ("SUCCESS", "INFO", "SKIPPED"):
            print(f"  {check.get('status')}: {checks.parent.name}: {check.get('id')}: "
                  f"{check.get('errorMessage') or check.get('description')}")
PY
[ "$status" -eq 0 ] || echo "(the suite's whole output: $out/suite.txt)"
exit "$status"
