#!/usr/bin/env bash
# The Python binding under AddressSanitizer (issue 15): the native module is
# built with nightly's -Zsanitizer=address (the system allocator standing in
# for mimalloc, whose arenas ASan cannot see: --cfg wirekit_system_alloc),
# put before the installed wheel on PYTHONPATH, and the binding's test suite
# runs against it with the ASan runtime preloaded into the interpreter (which
# itself is not instrumented). Every allocation and access of the binding's
# own Rust code (the FFI paths: the in-place reader and writer, the parser
# that builds Python objects, the serve loop) is checked; a report aborts the
# process, which fails the run.
#
#   bash tests/asan/python.sh [pytest args]     (make asan-python)
#
# Needs the nightly toolchain (rustup toolchain install nightly) and the
# project's venv with the test tools (make test-python makes it). About 6
# minutes cold on 2 cores, then the suite at roughly half its usual speed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target=x86_64-unknown-linux-gnu
out="$repo/target/asan"
py="${VENV:-$repo/.venv}/bin/python"

echo "== cargo +nightly build --release with AddressSanitizer (bindings/python)"
RUSTFLAGS="-Zsanitizer=address --cfg wirekit_system_alloc" \
    cargo +nightly build --quiet --release --target "$target" --target-dir "$out" \
    --manifest-path "$repo/bindings/python/Cargo.toml"

# The package's Python sources with the instrumented module beside them.
site="$out/site"
rm -rf "$site"
mkdir -p "$site"
cp -r "$repo/bindings/python/python/wirekit" "$site/"
cp "$out/$target/release/lib_native.so" "$site/wirekit/_native.abi3.so"

# rustc links its ASan runtime statically into executables only; a cdylib
# loaded by an uninstrumented interpreter needs the shared runtime preloaded:
# GCC's libasan (the same ASan ABI, v8), installed with gcc or as libasan8.
runtime="$(gcc -print-file-name=libasan.so 2>/dev/null || true)"
if [ ! -e "$runtime" ] || [ "$runtime" = "libasan.so" ]; then
    apt-get install -y -qq libasan8 >/dev/null
    runtime="$(ls /usr/lib/x86_64-linux-gnu/libasan.so.* | head -n 1)"
fi
runtime="$(readlink -f "$runtime")"
echo "== ASan runtime: $runtime"

echo "== pytest under AddressSanitizer: bindings/python"
cd "$repo/bindings/python"
# Leak detection is off: CPython keeps its objects at exit by design.
# The check that the module is the instrumented one runs first.
PYTHONPATH="$site" LD_PRELOAD="$runtime" \
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1" \
    "$py" - <<'PY'
import wirekit._native as native
assert native.__file__.endswith("target/asan/site/wirekit/_native.abi3.so"), native.__file__
print("instrumented module:", native.__file__)
PY
PYTHONPATH="$site" LD_PRELOAD="$runtime" \
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1" \
    "$py" -m pytest -p no:cacheprovider -q "$@"
