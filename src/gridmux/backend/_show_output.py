"""Parsing of what ``show-options``, ``show-hooks`` and ``show-environment -s`` print.

``show-options`` prints ``name value`` with the value escaped the way
``arguments.c:args_escape`` does it: ``''`` for empty, double quotes when the
value holds any of `` #';${}%`` (then ``"``, ``$``, `` ` `` and ``\\`` are
backslash-escaped), single quotes when it holds a space or ``"`` otherwise,
and in every form ``vis(3)`` escapes (``\\n``, ``\\t``, ``\\033``, ``\\\\``) plus
a backslash before a leading ``~`` or a lone special character. ``unescape``
undoes all of that, so values come back exactly as they were set.

``show-environment -s`` is used instead of the plain form because a value may
contain newlines: the shell form quotes each value (``NAME="v"; export NAME;``
or ``unset NAME;``), so records can be read off one after another.
"""

from __future__ import annotations

import re

from ._types import HookEntry

_CSTYLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "s": " ",
    "E": "\x1b",
    "e": "\x1b",
}
_OCTAL = "01234567"


def unvis(text: str) -> str:
    """Undo ``vis(3)`` escaping (``VIS_OCTAL|VIS_CSTYLE``) and backslash quoting.

    Octal escapes are bytes (tmux escapes invalid UTF-8 byte by byte), so the
    result is assembled as bytes and decoded once.
    """
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 == len(text):
            out += char.encode("utf-8", errors="surrogatepass")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _OCTAL:
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in _OCTAL:
                j += 1
            out.append(int(text[i + 1 : j], 8) & 0xFF)
            i = j
        else:
            out += _CSTYLE.get(nxt, nxt).encode("utf-8", errors="surrogatepass")
            i += 2
    return out.decode("utf-8", errors="replace")


#: An even run of backslashes before ``$name``: tmux 3.4 added one of them.
_DOLLAR_34 = re.compile(r"(?<!\\)((?:\\\\)+)(?=\$[A-Za-z_{])")


def undollar(value: str) -> str:
    """Undo tmux 3.4's extra backslash before ``$name`` in a double-quoted value.

    Inside double quotes every release writes ``$`` as ``\\$`` and a backslash
    as ``\\\\``, so a ``$`` is preceded by an odd run of backslashes; 3.4 then
    puts one more before each ``$`` that starts a name, making the run even.
    """
    return _DOLLAR_34.sub(lambda m: m.group(1)[:-1], value)


def unescape(value: str) -> str:
    """An option value as tmux stored it, from the way ``show-options`` prints it."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return unvis(undollar(value[1:-1]) if value[0] == '"' else value[1:-1])
    return unvis(value)


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line]


def parse_options(text: str) -> dict[str, str]:
    """``show-options`` output -> ``{name: value}`` (array items as ``name[i]``)."""
    options: dict[str, str] = {}
    for line in _lines(text):
        name, _, value = line.partition(" ")
        options[name] = unescape(value)
    return options


_HOOK_NAME = re.compile(r"(?P<name>[^\[\s]+)(?:\[(?P<index>\d+)\])?")


def parse_hooks(text: str) -> list[HookEntry]:
    """``show-hooks`` output -> entries; hooks listed without a command are skipped.

    The command is kept as tmux prints it (tmux command syntax, not one quoted
    value), e.g. ``run-shell "echo hi"``.
    """
    entries: list[HookEntry] = []
    for line in _lines(text):
        key, _, command = line.partition(" ")
        match = _HOOK_NAME.fullmatch(key)
        if match is None or not command:
            continue
        index = match.group("index")
        entries.append(
            HookEntry(
                hook_name=match.group("name"),
                index=int(index) if index is not None else None,
                command=command,
            )
        )
    return entries


_ENV_RECORD = re.compile(
    r'(?P<name>[^=\n]+)="(?P<value>(?:[^"\\]|\\.)*)"; export (?P=name);\n'
    r"|unset (?P<unset>[^\n]+);\n",
    re.DOTALL,
)
_ENV_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


class EnvironmentFormatError(ValueError):
    """``show-environment -s`` printed something that is not a shell record."""


def parse_environment(text: str) -> dict[str, str | None]:
    """``show-environment -s`` output -> ``{name: value}``; ``None`` = marked removed."""
    environment: dict[str, str | None] = {}
    pos = 0
    while pos < len(text):
        match = _ENV_RECORD.match(text, pos)
        if match is None:
            raise EnvironmentFormatError(
                f"unexpected environment output at {text[pos : pos + 40]!r}"
            )
        if match.group("unset") is not None:
            environment[match.group("unset")] = None
        else:
            value = undollar(match.group("value"))
            environment[match.group("name")] = _ENV_ESCAPE.sub(r"\1", value)
        pos = match.end()
    return environment
