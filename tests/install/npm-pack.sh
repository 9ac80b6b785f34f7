#!/usr/bin/env bash
# Install path: npm. `npm pack` makes the package's tarball (prepack builds
# dist/); a scratch project outside the tree installs it with typescript and
# @types/node, type-checks with `tsc --strict` a program that imports the
# types and the client (plus the package README's example), runs the program
# against the Gaze spec's minimal analyzer and has it load a protocol folder
# (schemas compiled by the installed package), and checks what the tarball holds.
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
    package/dist/runtime/client.js package/dist/gaze_analyzer_v1_0_0.d.ts; do
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

cat > "$project/src/main.ts" <<'TS'
import {
  CapabilityError,
  gazeAnalyzerV1_0_0,
  loadProtocol,
  resultIssues,
  spawnServer,
  type gaze_analyzer_v1_0_0,
} from "@wirekit/protocols";

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
console.log(JSON.stringify({ analyzer: init.analyzer_name, refused, functions: functions.length, checked }));
TS
# The package README's TypeScript example, as written.
awk '/^```ts$/{on=1; next} /^```$/{on=0} on' "$pkg/README.md" > "$project/src/readme.ts"
[ -s "$project/src/readme.ts" ] || { echo "FAIL: no TypeScript example in the package README" >&2; exit 1; }

echo "== tsc --strict in the scratch project (the program and the README example)"
(cd "$project" && npx tsc -p . --strict)
echo "== the installed client drives the Gaze spec's minimal analyzer"
out="$(cd "$project" && node dist/main.js "$repo/tests/peers/gaze_minimal_analyzer.py" "$repo/schemas/gaze-analyzer/1.0.0")"
echo "$out"
expected='{"analyzer":"minimal-python","refused":true,"functions":0,"checked":"/result/functions"}'
[ "$out" = "$expected" ] || { echo "FAIL: expected $expected" >&2; exit 1; }
echo "npm install: $(basename "$tarball") installs, type-checks with tsc --strict and runs from the tarball"
