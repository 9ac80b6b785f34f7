#!/usr/bin/env bash
# Install path: npm. `npm pack` makes the package's tarball (prepack builds
# dist/); a scratch project outside the tree installs it with typescript and
# @types/node, type-checks with `tsc --strict` a program that imports the
# types and the client (plus the package README's examples), runs the program
# against the Gaze spec's minimal analyzer and has it load a protocol folder
# (schemas compiled by the installed package), builds a protocol of its own from
# embedded files (`protocolFromFiles`, as a file of `wirekit generate --out DIR
# --target typescript` does) and serves it in memory with typed handlers
# (`ServerHandlers`), and checks what the tarball holds.
# Run after bindings/typescript/run-tests.sh (it reuses node_modules).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pkg="$repo/bindings/typescript"
work="$(mktemp -d "${TMPDIR:-/tmp}/wirekit-npm.XXXXXX")"
trap 'rm -rf "$work"' EXIT

[ -d "$pkg/node_modules" ] || (cd "$pkg" && npm ci --no-audit --no-fund --loglevel=error)
echo "== npm pack (bindings/typescript)"
tarball="$(cd "$pkg" && npm pack --silent --pack-destination "$work" | tail -1)"
tarball="$work/$tarball"
[ -f "$tarball" ] || { echo "FAIL: npm pack made no tarball" >&2; exit 1; }

listing="$(tar -tzf "$tarball")"
for needed in package/package.json package/README.md package/dist/index.js package/dist/index.d.ts \
    package/dist/runtime/client.js package/dist/runtime/server.js package/dist/runtime/folder.d.ts \
    package/dist/generated/gaze_analyzer_v1_0_0.d.ts; do
    grep -qx "$needed" <<<"$listing" || { echo "FAIL: the tarball lacks $needed" >&2; exit 1; }
done
if grep -q "^package/dist/\.test/\|^package/src/\|^package/test/" <<<"$listing"; then
    echo "FAIL: the tarball holds tests or sources:" >&2
    grep "^package/dist/\.test/\|^package/src/\|^package/test/" <<<"$listing" | head >&2
    exit 1
fi

# The scratch project: the tarball plus the same typescript and @types/node
# versions the package builds with (npm's cache has them after npm ci).
tsc_version="$(node -p "require('$pkg/node_modules/typescript/package.json').version")"
types_version="$(node -p "require('$pkg/node_modules/@types/node/package.json').version")"
project="$work/project"
mkdir -p "$project/src"
cat > "$project/package.json" <<JSON
{ "name": "scratch", "version": "0.0.0", "private": true, "type": "module" }
JSON
cat > "$project/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "outDir": "dist", "rootDir": "src", "types": ["node"]
  },
  "include": ["src/**/*.ts"]
}
JSON
echo "== npm install the tarball into a scratch project (typescript $tsc_version)"
(cd "$project" && npm install --no-audit --no-fund --loglevel=error --prefer-offline \
    "$tarball" "typescript@$tsc_version" "@types/node@$types_version" >/dev/null)

# A protocol of one's own, shaped as `wirekit generate --out DIR --target typescript`
# writes it: the method maps, the descriptor from the embedded files, the handlers' type.
manifest_json="$(node -e '
const m = { protocol: "kv", version: "1.0", title: "kv", description: "A store.", roles: { client: "c", server: "s" },
  transport: { framing: "ndjson", envelope: "jsonrpc-2.0" }, schemas: ["kv.schema.json"],
  methods: { get: { description: "Reads a key.", kind: "request", direction: "client-to-server",
    params: { $ref: "kv.schema.json#/$defs/GetParams" }, result: { $ref: "kv.schema.json#/$defs/GetResult" } } } };
process.stdout.write(JSON.stringify(JSON.stringify(m)));')"
schema_json="$(node -e '
const s = { $schema: "https://json-schema.org/draft/2020-12/schema", $defs: {
  GetParams: { type: "object", properties: { key: { type: "string" } }, required: ["key"], additionalProperties: false },
  GetResult: { type: "object", properties: { value: { type: ["number", "null"] } }, required: ["value"] } } };
process.stdout.write(JSON.stringify(JSON.stringify(s)));')"
cat > "$project/src/kv.ts" <<TS
import { protocolFromFiles, type ProtocolDescriptor, type ServerHandlers } from "@wirekit/protocols";

export interface KvRequests {
  "get": { params: { key: string }; result: { value: number | null } };
}
export interface KvNotifications {}
export interface KvServerNotifications {}

const files: Readonly<Record<string, string>> = {
  "protocol.json": $manifest_json,
  "kv.schema.json": $schema_json,
};

export const descriptor: ProtocolDescriptor<KvRequests, KvNotifications, KvServerNotifications> =
  protocolFromFiles<KvRequests, KvNotifications, KvServerNotifications>(files);

export type KvHandlers = ServerHandlers<KvRequests, KvNotifications, KvServerNotifications>;
TS

cat > "$project/src/main.ts" <<'TS'
import {
  CapabilityError,
  gazeAnalyzerV1_0_0,
  loadProtocol,
  resultIssues,
  serveBytes,
  spawnServer,
  type gaze_analyzer_v1_0_0,
} from "@wirekit/protocols";
import { descriptor as kv, type KvHandlers } from "./kv.js";

const peer = process.argv[2];
const folder = process.argv[3];
if (peer === undefined || folder === undefined) throw new Error("usage: main.js PEER PROTOCOL_FOLDER");
// A protocol folder loaded at run time: its schemas compiled from the installed package (worker thread included).
const loaded = loadProtocol(folder);
const checked = resultIssues(loaded, "complexity", { functions: "none" }).map((issue) => issue.pointer).join(",");
const analyzer = spawnServer("python3", [peer], gazeAnalyzerV1_0_0);
const init: gaze_analyzer_v1_0_0.InitializeResult = await analyzer.request("initialize", { root_path: "/tmp/p" });
async function neverCalled(): Promise<void> {
  // @ts-expect-error: root_path is required, so the types are real (not any)
  await analyzer.request("complexity", {});
}
void neverCalled;
let refused = false;
try {
  await analyzer.request("discover", { root_path: "/tmp/p" });
} catch (error) {
  refused = error instanceof CapabilityError;
}
const result = await analyzer.request("complexity", { root_path: "/tmp/p", patterns: null });
const functions: gaze_analyzer_v1_0_0.FunctionComplexity[] = result.functions;
await analyzer.close();
// The protocol of its own, served in memory: a typed handler, and params its schema refuses (-32602).
const handlers: KvHandlers = { get: ({ key }) => ({ value: key.length }) };
// @ts-expect-error: the handler's result is typed by the method map
const wrong: KvHandlers = { get: () => ({ value: "x" }) };
void wrong;
const served = Buffer.from(
  await serveBytes(kv, handlers, '{"jsonrpc":"2.0","id":1,"method":"get","params":{"key":"abc"}}\n{"jsonrpc":"2.0","id":2,"method":"get","params":{}}\n'),
)
  .toString()
  .trim()
  .split("\n")
  .map((line) => { const m = JSON.parse(line); return m.result?.value ?? m.error?.code; })
  .join(",");
console.log(JSON.stringify({ analyzer: init.analyzer_name, refused, functions: functions.length, checked, served }));
TS
# The package README's TypeScript example, as written.
awk '/^```ts$/{on=1; next} /^```$/{on=0} on' "$pkg/README.md" > "$project/src/readme.ts"
[ -s "$project/src/readme.ts" ] || { echo "FAIL: no TypeScript example in the package README" >&2; exit 1; }

echo "== tsc --strict in the scratch project (the program, a generated-style protocol module and the README examples)"
(cd "$project" && npx tsc -p . --strict)
echo "== the installed client drives the Gaze spec's minimal analyzer"
out="$(cd "$project" && node dist/main.js "$repo/tests/peers/gaze_minimal_analyzer.py" "$repo/schemas/gaze-analyzer/1.0.0")"
echo "$out"
expected='{"analyzer":"minimal-python","refused":true,"functions":0,"checked":"/result/functions","served":"3,-32602"}'
[ "$out" = "$expected" ] || { echo "FAIL: expected $expected" >&2; exit 1; }
echo "npm install: $(basename "$tarball") installs, type-checks with tsc --strict and runs from the tarball"
