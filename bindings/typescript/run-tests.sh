#!/usr/bin/env bash
# The TypeScript suite: install (npm ci), check that the ajv validators are
# generated from the current schemas, type-check (strict), build, then
# node's built-in test runner over the compiled tests. Exits non-zero on any
# failure; its last line is the test summary (each failure above it in full).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

echo "== npm ci"
npm ci --no-audit --no-fund --loglevel=error

echo "== servers on the Rust serve loop (the sessions test sends the captures to them)"
(cd ../.. && cargo build -q -p wirekit-example-rust-analyzer -p wirekit-cli --bins --example rust_driver)

echo "== third-party peers (pygls, snake-eyes-analyzer; once per checkout) for test/peers.test.ts"
bash ../../tests/peers/install.sh

echo "== validators drift check"
node scripts/generate-validators.mjs --check

echo "== tsc --strict --noEmit ($(npx tsc --version))"
npx tsc -p . --strict --noEmit
npx tsc -p tsconfig.test.json --strict --noEmit

echo "== build"
rm -rf dist/.test
npx tsc -p .
npx tsc -p tsconfig.test.json

echo "== node --test"
# One line for the suite, each failure in full (scripts/concise-reporter.mjs).
exec node --test --test-reporter=./scripts/concise-reporter.mjs --test-reporter-destination=stdout \
  dist/.test/test/*.test.js
