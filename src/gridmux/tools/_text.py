"""Pane text as the tools read it: blank tails and search patterns."""

from __future__ import annotations

import re

from gridmux.errors import InvalidArgument


def strip_blank_tail(rows: tuple[str, ...]) -> list[str]:
    lines = list(rows)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def compile_pattern(pattern: str, *, regex: bool, match_case: bool, what: str) -> re.Pattern[str]:
    """A literal or regular-expression pattern; a clear error when it is unusable."""
    if not pattern:
        raise InvalidArgument(
            f"{what} must not be empty", hint="Pass the text to look for, e.g. 'error'."
        )
    flags = 0 if match_case else re.IGNORECASE
    try:
        return re.compile(pattern if regex else re.escape(pattern), flags)
    except re.error as exc:
        raise InvalidArgument(
            f"{what} {pattern!r} is not a valid regular expression: {exc}",
            hint="Fix the expression, or pass regex=false to search for the text literally.",
        ) from None


__all__ = ["compile_pattern", "strip_blank_tail"]
