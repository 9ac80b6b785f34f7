"""A small cart: the analyzed code of the snake-eyes session test."""

TOTALS = []


def add(a, b):
    """Return the sum."""
    return a + b


def record(total):
    TOTALS.append(total)
    print("recorded", total)
    if total > 100:
        raise ValueError("too large")
    return len(TOTALS)
