# wirekit: the two commands of the quick start are `make demo` and `make test`.
# Everything a fresh machine needs (Python venv, npm packages) is installed by
# the targets themselves; Rust comes from the machine's toolchain.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
CARGO ?= cargo
PYTHON ?= python3
VENV := .venv
WIREKIT := target/debug/wirekit

.PHONY: demo test test-tutorial test-rust test-readme test-schemas test-python test-typescript test-codegen test-install-rust test-install-npm test-install-python generate check-generated goldens bench miri asan-python fuzz-build fuzz-long

## The main job: regenerate every binding and the docs from schemas/, then show them working.
demo:
	@echo "-- cargo build: the wirekit command (first time: about 3 minutes on 2 cores; cargo's progress below)"
	$(CARGO) build -p wirekit-cli
	@echo "-- wirekit generate: every binding and doc regenerated from schemas/ (seconds)"
	$(WIREKIT) generate
	bash examples/demo.sh

## Every test: Rust (fmt, clippy, tests, generated-file drift), schemas, Python, TypeScript,
## and the generated goldens type-checked in their languages.
test: test-rust test-readme test-schemas test-python test-install-python test-typescript test-codegen test-install-rust test-install-npm test-tutorial
	@echo "make test: every suite passed"

# cargo test -q: one "test result" line per test binary, failures in full. The LSP client's tests
# run real language servers (pylsp from PyPI, pyright from npm), installed once into tests/lsp/;
# the MCP tests real MCP servers (server-everything from npm, mcp-server-time from PyPI) and the
# official Python SDK, installed once into tests/mcp/.
test-rust:
	bash tests/lsp/install-servers.sh
	bash tests/mcp/install-peers.sh
	$(CARGO) fmt --all --check
	$(CARGO) clippy -q --workspace --all-targets -- -D warnings
	@echo "-- the core's feature matrix: the runtime alone (with its tests), then each feature alone"
	$(CARGO) clippy -q -p wirekit --no-default-features --all-targets -- -D warnings
	for feature in host monitor conformance diff; do $(CARGO) clippy -q -p wirekit --no-default-features --features $$feature -- -D warnings; done
	@echo "-- wirekit-protocols without its lsp and mcp features (the typed derived modules left out)"
	$(CARGO) clippy -q -p wirekit-protocols --no-default-features -- -D warnings
	$(CARGO) test -q --workspace
	@echo "== test-rust: fmt, clippy and every Rust test passed"

# Every command of README.md's tour, run as written.
test-readme:
	bash tests/readme_tour.sh

# Install path Rust: every publishable crate packaged and compiled from its package,
# and `cargo install --path cli` run (fast after test-rust: it reuses its build).
test-install-rust:
	bash tests/install/rust-crates.sh

# Install path Python: the wheel test-python built (maturin, abi3) in a fresh venv without cargo:
# the wirekit command, python -m wirekit, and the example analyzer hosted by the wheel's wirekit drive.
test-install-python:
	PYTHON=$(PYTHON) bash tests/install/python-wheel.sh

# Install path npm: npm pack, the tarball installed into a scratch project, tsc --strict, run
# (after test-typescript: it reuses node_modules).
test-install-npm:
	bash tests/install/npm-pack.sh

# docs/tutorial.md, every command of it, in a fresh folder outside the tree with only the wheel
# test-python built, the npm package packed and the wheel's `wirekit` command.
# And `wirekit generate --out` for Python, TypeScript and Rust, each result used in a scratch project.
test-tutorial:
	PYTHON=$(PYTHON) bash tests/tutorial/run.sh
	PYTHON=$(PYTHON) bash tests/install/generate-out.sh

# schemas/check.py needs jsonschema and referencing: installed into the project's venv.
test-schemas: $(VENV)/.schema-tools
	$(VENV)/bin/python schemas/check.py

$(VENV)/.schema-tools:
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet "jsonschema>=4.18" referencing
	touch $@

test-python:
	PYTHON=$(PYTHON) bash bindings/python/run-tests.sh

test-typescript:
	bash bindings/typescript/run-tests.sh

# mypy --strict and tsc --strict on the golden outputs and the committed bindings.
test-codegen: $(VENV)/bin/mypy
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash codegen/tests/typecheck_goldens.sh

$(VENV)/bin/mypy:
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet mypy

generate:
	$(CARGO) run -q -p wirekit-cli -- generate
	cd bindings/typescript && npm ci --no-audit --no-fund --loglevel=error && node scripts/generate-validators.mjs

check-generated:
	$(CARGO) run -q -p wirekit-cli -- generate --check

goldens:
	WIREKIT_UPDATE_GOLDENS=1 $(CARGO) test -q -p wirekit-codegen --test golden

## Benchmarks (figures in BENCHMARKS.md), each printing its table with the peers measured in the
## same run: code generation, the Rust framing and serve loop (criterion), a 16 MiB frame's peak
## memory, and the Python binding (built from this tree first). Long: about 15 minutes on 2 cores.
CRITERION_DIR = $${CARGO_TARGET_DIR:-target}/criterion
bench:
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet datamodel-code-generator
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash benches/codegen/run.sh
	rm -rf $(CRITERION_DIR)
	nice -n 10 $(CARGO) bench -p wirekit-bench
	$(PYTHON) benches/rust/report.py $(CRITERION_DIR)
	nice -n 10 $(CARGO) run --release -q -p wirekit-bench --bin frame_rss
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --force-reinstall --no-deps ./bindings/python
	$(VENV)/bin/pip install --quiet -r benches/python/requirements.txt
	nice -n 10 $(VENV)/bin/python benches/python/bench.py

## Miri over the Python binding's pure-Rust unsafe (fast/escape.rs: the word moves of `put`), checked
## against safe references; needs the nightly toolchain with the miri component
## (`rustup component add --toolchain nightly miri rust-src`). About 12 minutes cold, 30 s warm.
miri:
	cd bindings/python && $(CARGO) +nightly miri test --lib -- fast::escape

## The Python binding's test suite against a native module built with AddressSanitizer (nightly;
## the binding's FFI paths, which Miri cannot run). About 6 minutes cold, then the suite.
asan-python:
	bash tests/asan/python.sh

fuzz-build:
	cd fuzz && $(CARGO) check

## Long differential runs (`make test` runs the same tests with a short fixed-seed budget):
## the Python paths against jsonschema-rs, orjson, rfc8785 and json (hypothesis) and the core's
## proptests against serde_json and the jsonschema crate, side by side, each repeated from fresh
## random seeds until MINUTES have passed (tests/differential/long.sh; logs in target/differential).
## Needs the package installed in .venv (`make test-python` does it).
MINUTES ?= 30
DIFF_EXAMPLES ?= 5000
PROPTEST_CASES ?= 1000000
fuzz-long:
	MINUTES=$(MINUTES) DIFF_EXAMPLES=$(DIFF_EXAMPLES) PROPTEST_CASES=$(PROPTEST_CASES) bash tests/differential/long.sh
