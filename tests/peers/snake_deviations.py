"""Records a Gaze session with snake-eyes-analyzer that a host would refuse to
send (a call before initialize, a notification, a request whose id is an
object): each client line is written, then the analyzer's answer read, both
kept in order on stdout as a capture for `wirekit validate`.

Usage: python snake_deviations.py SNAKE_EYES ROOT > capture.ndjson
"""

import json
import subprocess
import sys


def main() -> None:
    analyzer, root = sys.argv[1], sys.argv[2]
    proc = subprocess.Popen([analyzer, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None
    capture: list[str] = []

    def send(message: object) -> None:
        line = json.dumps(message)
        capture.append(line)
        stdin.write(line.encode() + b"\n")
        stdin.flush()
        capture.append(stdout.readline().decode().rstrip("\n"))

    send({"jsonrpc": "2.0", "id": 1, "method": "complexity", "params": {"root_path": root}})
    send({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"root_path": root}})
    send({"jsonrpc": "2.0", "method": "initialized"})
    send({"jsonrpc": "2.0", "id": {"n": 3}, "method": "discover", "params": {"root_path": root}})
    send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
    stdin.close()
    proc.wait(timeout=30)
    sys.stdout.write("".join(line + "\n" for line in capture))


if __name__ == "__main__":
    main()
