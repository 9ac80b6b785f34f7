"""Prints `wirekit drive` output (one JSON object a line) for a person.

Each answer is pretty-printed; a long list shows its first items and says
how many more there are, a long string its start and its length, so
nothing is cut mid-value. Standard library only (runs on the system python3).
"""

import json
import sys

MAX_ITEMS = 3
MAX_STRING = 100


def shorten(value: object) -> object:
    if isinstance(value, list):
        shown = [shorten(item) for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            shown.append(f"... {len(value) - MAX_ITEMS} more ({len(value)} in all)")
        return shown
    if isinstance(value, dict):
        return {key: shorten(item) for key, item in value.items()}
    if isinstance(value, str) and len(value) > MAX_STRING:
        return f"{value[:MAX_STRING]}... ({len(value)} characters)"
    return value


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            print(line)
            continue
        if "frame" in record and "body" in record:
            body = json.loads(record["body"])
            print(f"frame {record['frame']} ({record['len']} bytes):")
            print(indent(json.dumps(shorten(body), indent=2)))
            continue
        label = record.get("method") or record.get("notification") or record.get("awaiting") or "?"
        kind = "error" if "error" in record else ("notification" if "notification" in record else "result")
        payload = record.get("error", record.get("result", record.get("params")))
        print(f"{label} -> {kind}:")
        print(indent(json.dumps(shorten(payload), indent=2)))


def indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


if __name__ == "__main__":
    main()
