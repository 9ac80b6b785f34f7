"""Small requests, two or more builds side by side, alternating.

    python benches/python/pipelined_ab.py [--rounds N] [--count N] [--one-by-one N] LABEL=PYTHON [LABEL=PYTHON ...]

Each PYTHON is an interpreter with a wirekit build installed (a venv's
`bin/python`); the orjson + jsonschema-rs loop runs under the first one as
the peer. Every round serves `--count` pipelined `complexity` requests with
each build and the peer in turn (bench.py's `pipelined`), so a change of the
machine's load falls on all of them alike. Prints a Markdown table: requests
a second (median, best) and the server's CPU time per request (median,
least; Linux `/proc`), and each build's median against the peer's. With
`--one-by-one N` each round also sends N requests one at a time (the client
waits for each answer: bench.py's `serve_loop`), and a second table gives
those round trips a second.
"""

from __future__ import annotations

import argparse
import statistics

from bench import pipelined, serve_loop

PEER = "orjson + jsonschema-rs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--one-by-one", type=int, default=0, metavar="N")
    parser.add_argument("builds", nargs="+", help="LABEL=PYTHON")
    args = parser.parse_args()
    builds = [tuple(build.split("=", 1)) for build in args.builds]
    runs: dict[str, list[tuple[float, float | None]]] = {label: [] for label, _ in builds}
    runs[PEER] = []
    one_by_one: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(args.rounds):
        for label, python in builds:
            runs[label].append(pipelined("wirekit", args.count, python))
            if args.one_by_one:
                one_by_one[label].append(serve_loop("wirekit", args.one_by_one, 0, python)[0])
        runs[PEER].append(pipelined(PEER, args.count, builds[0][1]))
        if args.one_by_one:
            one_by_one[PEER].append(serve_loop(PEER, args.one_by_one, 0, builds[0][1])[0])
    peer_rate = statistics.median(rate for rate, _ in runs[PEER])
    print(f"{args.rounds} rounds of {args.count:,} pipelined requests each\n")
    print("| server | requests/s (median) | best | vs the peer | server CPU µs/request (median) | least |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, samples in runs.items():
        rates = [rate for rate, _ in samples]
        cpus = [cpu for _, cpu in samples if cpu is not None]
        median = statistics.median(rates)
        cpu = f"{statistics.median(cpus):.2f} | {min(cpus):.2f}" if cpus else "n/a | n/a"
        print(f"| {label} | {median:,.0f} | {max(rates):,.0f} | {median / peer_rate:.2f}x | {cpu} |")
    if args.one_by_one:
        peer_trips = statistics.median(one_by_one[PEER])
        print(f"\n{args.rounds} rounds of {args.one_by_one:,} requests one at a time\n")
        print("| server | round trips/s (median) | best | vs the peer |")
        print("| --- | ---: | ---: | ---: |")
        for label, trips in one_by_one.items():
            median = statistics.median(trips)
            print(f"| {label} | {median:,.0f} | {max(trips):,.0f} | {median / peer_trips:.2f}x |")


if __name__ == "__main__":
    main()
