"""Tail-preserving truncation of a list of lines, reported as numbers.

A terminal reader cares about the newest output, so limits drop the OLDEST
lines first. Nothing is ever injected into the lines themselves: callers get
``truncated_lines`` (whole lines dropped) and ``truncated_bytes`` (UTF-8 bytes
dropped, counting one newline per line, including any partial line).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limited:
    lines: tuple[str, ...]
    truncated_lines: int
    truncated_bytes: int

    @property
    def truncated(self) -> bool:
        return self.truncated_lines > 0 or self.truncated_bytes > 0


def line_cost(line: str) -> int:
    """Bytes a line occupies in a newline-terminated UTF-8 transcript."""
    return len(line.encode()) + 1


def limit_tail(lines: tuple[str, ...], max_lines: int | None, max_bytes: int | None) -> Limited:
    """Keep the newest lines within ``max_lines`` and ``max_bytes``.

    When even the newest line alone exceeds ``max_bytes`` its tail is kept,
    cut at a character boundary, so the result is never empty while there was
    output and never larger than the budget.
    """
    if max_lines is not None and max_lines < 1:
        raise ValueError("max_lines must be at least 1")
    if max_bytes is not None and max_bytes < 1:
        raise ValueError("max_bytes must be at least 1")
    cut = 0 if max_lines is None else max(len(lines) - max_lines, 0)
    head, kept = lines[:cut], list(lines[cut:])
    dropped_lines = len(head)
    dropped_bytes = sum(line_cost(line) for line in head)
    if max_bytes is not None:
        total = sum(line_cost(line) for line in kept)
        while len(kept) > 1 and total > max_bytes:
            cost = line_cost(kept.pop(0))
            total -= cost
            dropped_lines += 1
            dropped_bytes += cost
        if kept:
            # The newest line alone may still be over the budget (a no-op otherwise).
            kept[0], cut = _keep_tail_bytes(kept[0], max_bytes - 1)
            dropped_bytes += cut
    return Limited(tuple(kept), dropped_lines, dropped_bytes)


def _keep_tail_bytes(line: str, budget: int) -> tuple[str, int]:
    """The last ``budget`` bytes of ``line`` (all of it when it fits), starting on
    a character, and how many bytes were cut."""
    data = line.encode()
    tail = data[max(len(data) - budget, 0) :]
    # Skip UTF-8 continuation bytes so the kept tail starts on a character.
    start = 0
    while start < len(tail) and (tail[start] & 0xC0) == 0x80:
        start += 1
    kept = tail[start:]
    return kept.decode(), len(data) - len(kept)
