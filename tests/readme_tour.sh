#!/usr/bin/env bash
# Runs every command of README.md's "## The tour" block, as written, from the
# repository root, with the `wirekit` built from this checkout first on PATH
# (what `cargo install --path cli` puts there). Each must exit 0; a failing
# one is printed with its output. One summary line at the end.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
cargo build -q -p wirekit-cli
export PATH="$repo/target/debug:$PATH"

# The first ```sh block after the "## The tour" heading, without comments.
mapfile -t commands < <(awk '
  /^## The tour/ { tour = 1; next }
  tour && /^```sh/ { inside = 1; next }
  inside && /^```/ { exit }
  inside && !/^[[:space:]]*#/ && NF { print }
' README.md)
[ "${#commands[@]}" -gt 0 ] || { echo "readme tour: no commands found under '## The tour'" >&2; exit 1; }

failed=0
for command in "${commands[@]}"; do
  if ! output="$(bash -euo pipefail -c "$command" 2>&1 </dev/null)"; then
    failed=$((failed + 1))
    printf 'FAIL: %s\n%s\n\n' "$command" "$output" | sed '2,$s/^/    /' >&2
  fi
done
echo "readme tour: $(( ${#commands[@]} - failed )) of ${#commands[@]} commands passed"
[ "$failed" -eq 0 ]
