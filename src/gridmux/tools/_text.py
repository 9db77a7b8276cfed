"""Pane text as the tools read it: blank tails and search patterns.

Patterns are matched by RE2 (``google-re2``), an engine that runs in time
linear in the text whatever the expression: no pattern an agent sends can
stall the server (Python's ``re`` backtracks, and ``^(a+)+$`` over 29
characters took 19 s). The dialect is RE2's, a subset of Python's: no
backreferences (``\\1``) and no lookaround (``(?=``, ``(?!``, ``(?<=``,
``(?<!``); ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; everything else
common (classes, ``|``, groups, ``(?:``, ``(?i)``, bounded repetition up
to 1000, ``^``/``$``) means what it means in Python. An expression outside
the dialect is refused with the reason, before anything is read.
"""

from __future__ import annotations

from typing import Protocol

import re2

from gridmux.errors import InvalidArgument

#: The hint every refused regular expression carries.
REGEX_HINT = (
    "gridmux matches with RE2 (linear time): no backreferences such as \\1 and no "
    "lookaround such as (?=...); rewrite the expression without them, or pass "
    "regex=false to search for the text literally."
)


class TextPattern(Protocol):
    """A compiled pattern: ``search(text)`` is a match object or None."""

    def search(self, text: str) -> object | None: ...


def strip_blank_tail(rows: tuple[str, ...]) -> list[str]:
    lines = list(rows)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def compile_regex(pattern: str, *, match_case: bool = True, literal: bool = False) -> TextPattern:
    """``pattern`` compiled by RE2; ``ValueError`` with RE2's reason when it is refused."""
    options = re2.Options()
    options.log_errors = False  # RE2 would print the refusal to stderr
    options.case_sensitive = match_case
    options.literal = literal
    try:
        compiled: TextPattern = re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "refused"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(str(reason)) from None
    return compiled


def compile_pattern(pattern: str, *, regex: bool, match_case: bool, what: str) -> TextPattern:
    """A literal or regular-expression pattern; a clear error when it is unusable."""
    if not pattern:
        raise InvalidArgument(
            f"{what} must not be empty", hint="Pass the text to look for, e.g. 'error'."
        )
    try:
        return compile_regex(pattern, match_case=match_case, literal=not regex)
    except ValueError as exc:
        raise InvalidArgument(
            f"{what} {pattern!r} is not a valid regular expression: {exc}", hint=REGEX_HINT
        ) from None


__all__ = ["REGEX_HINT", "TextPattern", "compile_pattern", "compile_regex", "strip_blank_tail"]
