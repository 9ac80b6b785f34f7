#!/usr/bin/env python3
"""Runs every `sh` block of docs/tutorial.md, in order, as one shell session
(a `cd` or an activated venv carries over), in WORK; after each block that a
`text` block follows, compares that block's standard output with it.

    run.py TUTORIAL WORK [SECTION]

With SECTION (a heading, `## A protocol of your own`), only the blocks
under that heading, up to the next heading of its level.

The environment says where the packages are (WIREKIT_WHEEL, WIREKIT_NPM).
Each block is printed before it runs; a failing block ends the run with its
number, its commands and what it printed. Exit status 0 when every block
exited 0 and printed what the page shows."""

import pathlib
import re
import subprocess
import sys


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)]


def main() -> int:
    tutorial, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    text = tutorial.read_text()
    if len(sys.argv) > 3:
        heading = sys.argv[3]
        level = heading.split(" ", 1)[0] + " "
        start = text.find("\n" + heading + "\n")
        if start < 0:
            print(f"FAIL: {tutorial} has no heading {heading!r}", file=sys.stderr)
            return 1
        rest = text[start + len(heading) + 2 :]
        end = rest.find("\n" + level)
        text = rest if end < 0 else rest[:end]
    found = blocks(text)
    shell = [(i, body) for i, (lang, body) in enumerate(found) if lang == "sh"]
    if not shell:
        print(f"FAIL: {tutorial} has no sh block", file=sys.stderr)
        return 1
    outputs = work / ".tutorial-output"
    outputs.mkdir(parents=True, exist_ok=True)
    # One shell for every block (a `cd` or an activated venv carries over);
    # each block's stdout goes to its file, shown once the block ends (by the
    # EXIT trap when it fails), its stderr straight to the log.
    script = ["set -euo pipefail", "current=/dev/null", 'trap \'cat "$current"\' EXIT']
    for number, (index, body) in enumerate(shell, 1):
        out = outputs / f"{number}.out"
        shown = "\n".join(f"$ {line}" for line in body.rstrip("\n").splitlines())
        script.append(f"printf '%s\\n' {sh_quote(f'-- block {number} of {len(shell)}')}")
        script.append(f"printf '%s\\n' {sh_quote(shown)}")
        script.append(f"current={sh_quote(str(out))}")
        script.append(f"{{\n{body}\n}} > \"$current\"")
        script.append('cat "$current"')
        script.append("current=/dev/null")
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work)
    if run.returncode != 0:
        print(f"FAIL: a block of {tutorial} exited {run.returncode} (the last block printed above)", file=sys.stderr)
        return 1
    failed = 0
    for number, (index, _) in enumerate(shell, 1):
        following = found[index + 1] if index + 1 < len(found) else None
        if following is None or following[0] != "text":
            continue
        got = (outputs / f"{number}.out").read_text().strip()
        expected = following[1].strip()
        if got != expected:
            failed += 1
            print(f"FAIL: block {number} printed\n{got}\nwhere the tutorial shows\n{expected}", file=sys.stderr)
    checked = sum(1 for n, (i, _) in enumerate(shell, 1) if i + 1 < len(found) and found[i + 1][0] == "text")
    print(f"tutorial: {len(shell)} blocks ran, {checked - failed} of {checked} outputs as shown")
    return 1 if failed else 0


def sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main())
