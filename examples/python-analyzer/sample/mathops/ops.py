"""Arithmetic helpers, some of them with side effects."""

import json
import subprocess
import sys
import urllib.request

HISTORY = []
calls = 0


def add(a: int, b: int) -> int:
    return a + b


def classify(n):
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    return "positive"


def divide(a, b):
    """Divide a by b, raising ZeroDivisionError for a zero divisor."""
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a / b


def untested(values):
    values.append(0)
    total = 0
    for value in values:
        if value > 0 and value % 2 == 0:
            total += value
    return total


def record(value):
    global calls
    calls += 1
    HISTORY.append(value)
    print("recorded", value)


def save(path, data):
    with open(path, "w") as handle:
        json.dump(data, handle)


def warn(message):
    print(message, file=sys.stderr)


def fetch(url):
    with urllib.request.urlopen(url) as response:
        return response.read()


def git_head():
    return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout


def squares(limit):
    for n in range(limit):
        yield n * n


class Counter:
    """Counts up."""

    def __init__(self):
        self.count = 0

    def increment(self, by=1):
        self.count += by
        return self.count
