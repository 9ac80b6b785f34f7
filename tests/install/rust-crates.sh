#!/usr/bin/env bash
# Install path: Rust. Packages every publishable crate with `cargo package`
# (metadata, files: nothing may come from outside a crate's folder), then
# compiles the packaged sources (`cargo check`: macros such as include_str!
# and askama's templates are expanded), unpacked from the .crate files, as a
# workspace of their own with each other patched in (they are not on
# crates.io yet), so a crate that reads a file outside its folder fails here.
# Registry dependencies come from Cargo.lock; the shared target dir already
# holds their checked metadata (clippy), so this takes seconds.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
crates=(wirekit wirekit-protocols wirekit-codegen wirekit-lsp wirekit-cli)
version="$(cargo metadata --no-deps --format-version 1 \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="wirekit"))')"

echo "== cargo package --no-verify ${crates[*]}"
args=()
for crate in "${crates[@]}"; do args+=(-p "$crate"); done
cargo package --quiet --no-verify --allow-dirty "${args[@]}" 2> >(grep -v "manifest has no documentation\|^  |$\|^  = note: see" >&2)

work="$repo/target/package-check"
rm -rf "$work"
mkdir -p "$work"
members=()
patches=()
for crate in "${crates[@]}"; do
    file="$repo/target/package/$crate-$version.crate"
    tar -xzmf "$file" -C "$work"    # -m: fresh mtimes, so cargo compiles them anew
    outside="$(tar -tzf "$file" | grep -v "^$crate-$version/" || true)"
    if [ -n "$outside" ]; then
        echo "FAIL: $file holds paths outside its folder:" >&2
        echo "$outside" >&2
        exit 1
    fi
    members+=("\"$crate-$version\"")
    patches+=("$crate = { path = \"$crate-$version\" }")
done
{
    echo "[workspace]"
    echo "resolver = \"2\""
    echo "members = [$(IFS=,; echo "${members[*]}")]"
    echo
    echo "[patch.crates-io]"
    printf '%s\n' "${patches[@]}"
} > "$work/Cargo.toml"
cp "$repo/Cargo.lock" "$work/Cargo.lock"

echo "== cargo check of the packaged crates (target/package-check)"
(cd "$work" && CARGO_TARGET_DIR="$repo/target" cargo check --quiet --offline --workspace)
echo "== rust crates: ${#crates[@]} packaged and compiled from their packages: ${crates[*]}"

# `cargo install --path cli`, as the README says, in debug mode against the
# shared target dir (the release build a user runs takes minutes; the install
# path is the same), into a scratch root, then the installed command is run.
root="$repo/target/install-check"
rm -rf "$root"
echo "== cargo install --path cli (debug, into target/install-check)"
CARGO_TARGET_DIR="$repo/target" cargo install --quiet --locked --debug --path cli --root "$root" 2>&1 \
    | grep -v "be sure to add\|Installed package\|Installing\|^warning: be sure" || true
installed="$root/bin/wirekit"
[ -x "$installed" ] || { echo "FAIL: cargo install left no $installed" >&2; exit 1; }
"$installed" --version
session="$repo/tests/sessions/agentapi-driver@1/clean.ndjson"
(cd /tmp && "$installed" validate --protocol agentapi-driver "$session" >/dev/null) \
    || { echo "FAIL: the installed wirekit does not validate $session" >&2; exit 1; }
echo "rust install: cargo install --path cli gives a wirekit that validates a session outside the tree"
