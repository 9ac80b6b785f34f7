#!/usr/bin/env bash
# `wirekit generate --out` for all three languages, each result used where a
# user's project uses it, outside the tree: a protocol made by `wirekit init`
# is generated with the wheel's `wirekit` into gen/{python,typescript,rust};
# the Python package is imported and serves a session (judged by
# `wirekit conformance`) with only the installed wheel, beside a protocol
# derived from a published schema (tests/derive/agent); the TypeScript files
# compiles with `tsc --strict` against the packed npm package and its
# descriptor loads; the Rust module compiles (`cargo check`) and its
# `protocol()` runs in a scratch crate that depends on wirekit, serde and
# serde_json (and regress, for the schemas' patterns).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
wheel="$(ls "$repo"/target/wheels/python/wirekit-*.whl 2>/dev/null | head -1 || true)"
[ -n "$wheel" ] || { echo "FAIL: no wheel in target/wheels/python: run bindings/python/run-tests.sh first" >&2; exit 1; }
pkg="$repo/bindings/typescript"
[ -d "$pkg/node_modules" ] || (cd "$pkg" && npm ci --no-audit --no-fund --loglevel=error)
work="$(mktemp -d "${TMPDIR:-/tmp}/wirekit-out.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== a fresh venv with the wheel; wirekit init shop; wirekit generate --out gen"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
wirekit="$work/venv/bin/wirekit"
project="$work/shop"
mkdir -p "$project"
cd "$project"
"$wirekit" init shop >/dev/null
rm wirekit.toml
# Beside it, a protocol nobody here wrote, derived from its published schema as it is.
cp -r "$repo/tests/derive/agent/upstream" upstream
cp -r "$repo/tests/derive/agent/schemas/agent" schemas/agent
"$wirekit" generate --out gen --package shop_types --target python,typescript,rust | tail -1

echo "== Python: gen/python/shop_types imported and served with the installed wheel"
cat > own_server.py <<'PY'
import sys

sys.path.insert(0, "gen/python")
from shop_types import shop  # noqa: E402
import typing  # noqa: E402

import wirekit  # noqa: E402


class Server(shop.ShopServer):
    """A correct store, so the judge has nothing to fail: it notifies watched
    keys on put and delete (`notifies`), answers NOT_FOUND for a key never put
    (the declared error) and exits promptly after shutdown."""

    def __init__(self) -> None:
        super().__init__(exit_promptly=True)
        self.values: dict[str, tuple[str, int]] = {}
        self.watched: set[str] = set()

    def on_initialize(self, params: shop.InitializeParams) -> shop.InitializeResult:
        return {"server": {"name": "out", "version": "1"}}

    def on_put(self, params: shop.PutParams) -> shop.PutResult:
        key = params["key"]
        version = self.values.get(key, ("", 0))[1] + 1
        self.values[key] = (params["value"], version)
        if key in self.watched:
            self.notify_changed({"key": key, "value": params["value"], "version": version})
        return {"version": version}

    def on_get(self, params: shop.KeyParams) -> shop.GetResult:
        found = self.values.get(params["key"])
        if found is None:
            raise wirekit.RpcError("no such key", code=shop.ERROR_NOT_FOUND)
        return {"value": found[0], "version": found[1]}

    def on_delete(self, params: shop.KeyParams) -> shop.DeleteResult:
        key = params["key"]
        deleted = self.values.pop(key, None) is not None
        if deleted and key in self.watched:
            self.notify_changed({"key": key, "value": None, "version": 0})
        return {"deleted": deleted}

    def on_watch(self, params: shop.KeyParams) -> shop.WatchResult:
        self.watched.add(params["key"])
        return {"watching": params["key"]}

    def on_shutdown(self, params: shop.ShutdownParams) -> shop.ShutdownResult:
        return {}


assert typing.get_type_hints(shop.ChangedParams)["value"] == typing.Optional[str]
assert shop.protocol().id == "shop@1"
Server().run()
PY
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check mypy
"$work/venv/bin/python" -m mypy --strict --no-incremental own_server.py gen/python/shop_types
verdict="$("$wirekit" conformance --protocol shop@1 -- "$work/venv/bin/python" own_server.py | tail -1)"
echo "$verdict"
case "$verdict" in conforms:*) ;; *) echo "FAIL: the generated Python server does not conform" >&2; exit 1 ;; esac

echo "== TypeScript: gen/typescript/shop.ts with tsc --strict against the packed npm package"
tarball="$(cd "$pkg" && npm pack --silent --pack-destination "$work" | tail -1)"
tsc_version="$(node -p "require('$pkg/node_modules/typescript/package.json').version")"
types_version="$(node -p "require('$pkg/node_modules/@types/node/package.json').version")"
mkdir -p ts/src
cp gen/typescript/shop.ts gen/typescript/agent.ts ts/src/
cat > ts/package.json <<'JSON'
{ "name": "out", "version": "0.0.0", "private": true, "type": "module" }
JSON
cat > ts/tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "outDir": "dist", "rootDir": "src", "types": ["node"]
  },
  "include": ["src/**/*.ts"]
}
JSON
cat > ts/src/main.ts <<'TS'
import { descriptor, type ShopHandlers, type PutResult } from "./shop.js";
import { descriptor as agent, type AgentHandlers, type Task, type Message } from "./agent.js";

const result: PutResult = { version: 1 };
const handlers: ShopHandlers = {};
// The derived protocol's union result: either alternative is a valid answer.
const answers: (Task | Message)[] = [{ kind: "task", id: "t", status: "working" }, { kind: "message", role: "agent", text: "hi" }];
const agentHandlers: AgentHandlers = { "agent/getCard": () => ({ name: "a", version: "1" }) };
void handlers;
void agentHandlers;
console.log(JSON.stringify({ name: descriptor.name, version: descriptor.version, methods: Object.keys(descriptor.methods).length, result, agent: Object.keys(agent.methods), answers: answers.length }));
TS
(cd ts && npm install --no-audit --no-fund --loglevel=error --prefer-offline "$work/$tarball" "typescript@$tsc_version" "@types/node@$types_version" >/dev/null \
    && npx tsc -p . --strict && node dist/main.js)

echo "== Rust: gen/rust in a scratch crate (cargo check, then run protocol())"
mkdir -p rs/src
cp -r gen/rust rs/src/generated
cat > rs/Cargo.toml <<TOML
[package]
name = "out"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
wirekit = { path = "$repo/bindings/rust", default-features = false }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
regress = "0.12"

[workspace]
TOML
cat > rs/src/main.rs <<'RS'
mod generated;

use generated::{agent, shop};

fn main() {
    let derived = agent::protocol().expect("the derived protocol compiles");
    assert_eq!(derived.id(), "agent@1");
    let protocol = shop::protocol().expect("the embedded protocol compiles");
    let result = shop::types::PutResult { version: shop::types::Version(std::num::NonZeroU64::new(1).expect("1")) };
    println!("{} {}", protocol.id(), serde_json::to_string(&result).expect("JSON"));
}
RS
(cd rs && CARGO_TARGET_DIR="$repo/target/generate-out" cargo check -q && CARGO_TARGET_DIR="$repo/target/generate-out" cargo run -q)
echo "generate --out: Python served and conformed, TypeScript compiled and loaded, Rust compiled and ran"
