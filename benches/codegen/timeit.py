"""Time shell commands: `timeit.py RUNS LABEL CMD [LABEL CMD ...]`.

Runs each command once to warm up, then RUNS times, and prints a Markdown
table of median and minimum wall-clock seconds.
"""

import statistics
import subprocess
import sys
import time


def main() -> None:
    runs = int(sys.argv[1])
    pairs = sys.argv[2:]
    rows = []
    for label, cmd in zip(pairs[0::2], pairs[1::2]):
        warm = subprocess.run(cmd, shell=True, capture_output=True, text=True)
        if warm.returncode != 0:
            sys.exit(f"{label} failed ({warm.returncode}):\n{warm.stderr[-2000:]}")
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(cmd, shell=True, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        rows.append((label, statistics.median(times), min(times)))
        print(f"{label}: median {statistics.median(times) * 1000:.0f} ms", file=sys.stderr)
    print(f"| What ({runs} runs each) | Median | Min |")
    print("| --- | ---: | ---: |")
    for label, med, best in rows:
        print(f"| {label} | {med * 1000:.0f} ms | {best * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
