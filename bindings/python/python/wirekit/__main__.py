"""The `wirekit` command (`wirekit ...` or `python -m wirekit ...`).

It is the Rust command of the `wirekit-cli` crate, run from the native
module: `frames`, `validate`, `drive` and `generate`, as documented in the
repository's README.
"""

from __future__ import annotations

import signal
import sys

from ._native import run_cli


def main() -> None:
    """Runs the command with this process's arguments and exits with its status."""
    # Ctrl-C stops the command as it stops the Rust binary (Python's handler
    # would only run once the command returned).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(run_cli(["wirekit", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
