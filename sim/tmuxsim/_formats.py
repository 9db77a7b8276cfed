"""A subset of tmux's format language (``format.c``), enough for
``display-message -p`` and ``remain-on-exit-format``.

Supported: ``#{name}``, single-letter aliases (``#D #P #S #W #I #T #H #h #F``),
``##`` ``#,`` ``#}`` escapes, conditionals ``#{?cond,a,b}`` (and chained
``#{?c1,a,c2,b,else}``), comparisons ``#{==:a,b}`` ``#{!=:a,b}`` ``#{<:a,b}``
``#{>:a,b}`` ``#{<=:a,b}`` ``#{>=:a,b}`` ``#{||:a,b}`` ``#{&&:a,b}``,
arithmetic ``#{e|+:a,b}`` (``+ - * / m``, ``|f`` for floats), ``#{t:name}``
(ctime-style, UTC so runs are reproducible), ``#{=N:name}`` truncation,
``#{l:text}``, ``#{b:name}``, ``#{d:name}``, ``#{n:name}``. As in tmux
(docs/tmux-model.md §16), an unknown name expands to an empty string, never an error.
``#(command)`` (shell output) expands to nothing.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Mapping

_ALIASES = {
    "D": "pane_id",
    "P": "pane_index",
    "S": "session_name",
    "W": "window_name",
    "I": "window_index",
    "T": "pane_title",
    "H": "host",
    "h": "host_short",
    "F": "window_flags",
}
_COMPARISON = re.compile(r"^(==|!=|<=|>=|<|>|\|\||&&):")
_ARITHMETIC = re.compile(r"^e\|([-+*/m])(\|f)?(?:\|(\d+))?:")
_TRUNCATE = re.compile(r"^=(-?\d+):")
_SIMPLE_MODIFIER = re.compile(r"^([tlbdn]):")


def expand(fmt: str, variables: Mapping[str, str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch != "#" or i + 1 == len(fmt):
            out.append(ch)
            i += 1
            continue
        nxt = fmt[i + 1]
        if nxt == "{":
            close = _closing_brace(fmt, i + 2)
            if close < 0:  # unterminated: tmux copies the rest as it is
                out.append(fmt[i:])
                break
            out.append(_replace(fmt[i + 2 : close], variables))
            i = close + 1
        elif nxt in "#,}":
            out.append(nxt)
            i += 2
        elif nxt == "(":
            close = fmt.find(")", i + 2)
            i = len(fmt) if close < 0 else close + 1
        elif nxt in _ALIASES:
            out.append(variables.get(_ALIASES[nxt], ""))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    i = start
    while i < len(text):
        if text[i] == "#" and i + 1 < len(text):
            if text[i + 1] == "{":
                depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside a nested ``#{...}`` or escaped."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "#" and i + 1 < len(text):
            if text[i + 1] == "{":
                depth += 1
            current.append(text[i : i + 2])
            i += 2
            continue
        if text[i] == "}" and depth > 0:
            depth -= 1
        elif text[i] == "," and depth == 0:
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(text[i])
        i += 1
    parts.append("".join(current))
    return parts


def _truthy(value: str) -> bool:
    return value not in ("", "0")


def _operand(text: str, variables: Mapping[str, str]) -> str:
    # A condition or operand is a format if it contains "#{", else a name.
    if "#" in text:
        return expand(text, variables)
    return variables.get(text, "")


def _replace(inner: str, variables: Mapping[str, str]) -> str:
    if inner.startswith("?"):
        parts = _split_top_level(inner[1:])
        while len(parts) >= 3:
            if _truthy(_operand(parts[0], variables)):
                return expand(parts[1], variables)
            parts = parts[2:]
        return expand(parts[0], variables) if parts else ""
    match = _COMPARISON.match(inner)
    if match:
        return _compare(match.group(1), inner[match.end() :], variables)
    match = _ARITHMETIC.match(inner)
    if match:
        return _arithmetic(match, inner[match.end() :], variables)
    match = _TRUNCATE.match(inner)
    if match:
        value = _operand(inner[match.end() :], variables)
        width = int(match.group(1))
        return value[:width] if width >= 0 else value[width:]
    match = _SIMPLE_MODIFIER.match(inner)
    if match:
        rest = inner[match.end() :]
        if match.group(1) == "l":
            return rest
        value = _operand(rest, variables)
        if match.group(1) == "t":
            return ctime(value)
        if match.group(1) == "b":
            return posixpath.basename(value)
        if match.group(1) == "d":
            return posixpath.dirname(value)
        return str(len(value))
    return variables.get(inner, "")


def _compare(op: str, rest: str, variables: Mapping[str, str]) -> str:
    parts = _split_top_level(rest)
    if len(parts) != 2:
        return ""
    left, right = (expand(p, variables) for p in parts)
    if op == "||":
        result = _truthy(left) or _truthy(right)
    elif op == "&&":
        result = _truthy(left) and _truthy(right)
    elif op == "==":
        result = left == right
    elif op == "!=":
        result = left != right
    elif op == "<":
        result = left < right
    elif op == ">":
        result = left > right
    elif op == "<=":
        result = left <= right
    else:
        result = left >= right
    return "1" if result else "0"


def _arithmetic(match: re.Match[str], rest: str, variables: Mapping[str, str]) -> str:
    parts = _split_top_level(rest)
    if len(parts) != 2:
        return ""
    try:
        left, right = (float(expand(p, variables)) for p in parts)
    except ValueError:
        return ""
    op, floating = match.group(1), match.group(2) is not None
    if op == "+":
        result = left + right
    elif op == "-":
        result = left - right
    elif op == "*":
        result = left * right
    elif right == 0:
        return ""
    elif op == "/":
        result = left / right if floating else float(int(left / right))
    else:
        result = left % right
    if floating:
        digits = int(match.group(3) or 2)
        return f"{result:.{digits}f}"
    return str(int(result))


def ctime(value: str) -> str:
    """``ctime(3)`` without the newline, in UTC (tmux uses local time)."""
    try:
        moment = time.gmtime(int(value))
    except (ValueError, OverflowError):
        return ""
    return (
        time.strftime("%a %b ", moment)
        + f"{moment.tm_mday:>2}"
        + time.strftime(" %H:%M:%S %Y", moment)
    )
