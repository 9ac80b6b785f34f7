#!/usr/bin/env python3
"""Print the Markdown tables of a `cargo bench -p wirekit-bench` run.

    python3 benches/rust/report.py [target/criterion]

Reads criterion's estimates (median time per iteration) of every benchmark of
the run, and prints one table per group: MB/s (10^6 bytes a second) and each
row's ratio to the group's reference row, and to its peer row where it has one.
Not a test: figures only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Per group: the row the ratios are taken against, and the peer to beat.
REFERENCE = {
    "ndjson_decode": ("reference: memchr + copy + UTF-8 check", "tokio-util LinesCodec (owned)"),
    "content_length_decode": ("reference: memmem + copy + UTF-8 check", "lsp-server Message::read (parses the JSON too)"),
    "ndjson_encode": ("plain write_all + LF, same checks (bound, CR/LF, UTF-8)", None),
    "content_length_encode": ("plain write! header + body, same checks (bound, UTF-8)", None),
    "serve_round_trip": (None, "lsp-server server, raw client (Message::read)"),
    "serve_pipelined": (None, "lsp-server Message::read + Response + write (no checks)"),
    "serve_pipelined_pipes": (None, "lsp-server server, raw client"),
}


def load(root: Path) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for bench in sorted(root.glob("*/*/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        median_ns = estimates["median"]["point_estimate"]
        throughput = meta.get("throughput") or {}
        row = {
            "name": meta["function_id"],
            "median_ns": median_ns,
            "bytes": throughput.get("Bytes"),
            "elements": throughput.get("Elements"),
        }
        groups.setdefault(meta["group_id"], []).append(row)
    return groups


def rate(row: dict) -> float:
    if row["bytes"]:
        return row["bytes"] / (row["median_ns"] / 1e9) / 1e6
    return row["elements"] / (row["median_ns"] / 1e9)


def duration(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:,.1f} ms"
    return f"{ns / 1e3:,.1f} µs"


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    groups = load(root)
    if not groups:
        sys.exit(f"no criterion results under {root}")
    for group, rows in groups.items():
        reference, peer = REFERENCE.get(group, (None, None))
        by_name = {row["name"]: row for row in rows}
        unit = "MB/s" if rows[0]["bytes"] else "requests/s"
        print(f"\n### {group}\n")
        head = f"| | median time | {unit} |"
        line = "| --- | ---: | ---: |"
        if reference in by_name:
            head += " vs reference |"
            line += " ---: |"
        if peer in by_name:
            head += f" vs {peer.split(' (')[0]} |"
            line += " ---: |"
        print(head)
        print(line)
        rows.sort(key=rate, reverse=True)
        for row in rows:
            cells = [row["name"], duration(row["median_ns"]), f"{rate(row):,.0f}"]
            if reference in by_name:
                cells.append(f"{rate(row) / rate(by_name[reference]):.2f}x")
            if peer in by_name:
                cells.append(f"{rate(row) / rate(by_name[peer]):.2f}x")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
