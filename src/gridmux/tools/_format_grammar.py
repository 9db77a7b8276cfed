"""The grammar of the format strings display_message evaluates: variables,
options and conditionals only, so that no ``#(...)`` job, modifier that runs
a command or control character reaches tmux (docs/safety.md, "Format
strings: read, never run")."""

from __future__ import annotations

import re

from gridmux.backend import CONTROL_CHARACTER
from gridmux.errors import InvalidArgument

#: A variable display_message reads: a format variable or an option, user ones included.
_VARIABLE = re.compile(r"@[A-Za-z0-9_-]+|[A-Za-z_][A-Za-z0-9_-]*")

_GRAMMAR_HINT = (
    "display_message reads variables only: literal text, '##' for a '#', "
    "'#{name}' (a format variable or an option, e.g. '#{pane_pid}' or '#{@my-option}') "
    "and '#{?name,then,else}' (each branch of the same form, with '#,' and '#}' for a "
    "literal comma and brace). Modifiers (E:, T:, s/../../, l:, =, ...), '#(...)' and "
    "the one-letter aliases such as '#S' are refused; read several variables instead, "
    "and to run a command use send_keys."
)


class _FormatRefused(Exception):
    """The format leaves display_message's grammar at ``offset``."""

    def __init__(self, offset: int, why: str) -> None:
        super().__init__(why)
        self.offset = offset
        self.why = why


def _text(fmt: str, at: int, *, branch: bool) -> int:
    """Parse literal text and ``#{...}`` items from ``at``; where the text ends.

    In a conditional's branch the text ends at an unescaped ``,`` or ``}``.
    """
    while at < len(fmt):
        char = fmt[at]
        if char == "#":
            following = fmt[at + 1 : at + 2]
            if following == "#":
                if fmt[at + 2 : at + 3] in ("(", "{", "["):
                    raise _FormatRefused(at, "'##' before '(', '{' or '[' is refused")
                at += 2
            elif following in (",", "}") and branch:
                at += 2
            elif following == "{":
                at = _item(fmt, at + 2)
            else:
                raise _FormatRefused(at, f"'#{following}' is not a variable reference")
        elif branch and char in ",}":
            return at
        else:
            at += 1
    return at


def _item(fmt: str, at: int) -> int:
    """Parse ``name}`` or ``?name,then,else}`` (after ``#{``); the offset after ``}``."""
    conditional = fmt.startswith("?", at)
    start = at + 1 if conditional else at
    name = _VARIABLE.match(fmt, start)
    if name is None:
        raise _FormatRefused(at, "'#{' must be followed by a variable name or '?name,'")
    at = name.end()
    if conditional:
        for _branch in ("then", "else"):
            if not fmt.startswith(",", at):
                raise _FormatRefused(at, "a conditional is '#{?name,then,else}'")
            at = _text(fmt, at + 1, branch=True)
    if not fmt.startswith("}", at):
        raise _FormatRefused(at, "modifiers and nested formats in '#{...}' are refused")
    return at + 1


def check_format(format_string: str) -> None:
    """Accept only formats that read variables, never ones that run or re-expand anything.

    A filter over tmux's full format language cannot be made safe (``#{l:##}``,
    ``s/../../``, ``E:`` and options holding ``#(`` combine into a shell job),
    so display_message takes a grammar of its own that tmux expands in a single
    pass: literal text, ``##``, ``#{name}`` and ``#{?name,then,else}``. No
    item in it can produce ``#(`` for a second expansion, and none asks for one.
    """
    if not format_string:
        raise InvalidArgument("format_string is empty", hint="Pass a format such as '#{pane_pid}'.")
    if CONTROL_CHARACTER.search(format_string):
        raise InvalidArgument(
            "format_string contains a control character",
            hint="Pass printable text only; ask for tabs or newlines as separate calls.",
        )
    try:
        _text(format_string, 0, branch=False)
    except _FormatRefused as refused:
        raise InvalidArgument(
            f"format_string is refused at offset {refused.offset}: {refused.why} "
            "(display_message never runs shell commands)",
            hint=_GRAMMAR_HINT,
        ) from None


__all__ = ["check_format"]
