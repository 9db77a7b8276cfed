"""The fake shell's command language: lists joined by ``;``, ``&&``, ``||``,
words with ``'...'``, ``"..."`` and backslash quoting, ``$NAME``, ``${NAME}``,
``$?`` and ``$$`` expansion, and ``#`` comments.

Words are expanded only when their command runs, so ``false; echo $?``
prints 1. Pipes, redirections and background jobs are not part of the
language; they are reported as syntax errors rather than misread.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Connector = Literal[";", "&&", "||"]
Quote = Literal["bare", "single", "double"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ShellSyntaxError(Exception):
    """The message dash prints after ``sh: 1: ``."""


@dataclass(frozen=True, slots=True)
class Word:
    segments: tuple[tuple[Quote, str], ...]


@dataclass(frozen=True, slots=True)
class Step:
    connector: Connector  # how this command joins the one before it
    words: tuple[Word, ...]


def parse(line: str) -> list[Step]:
    steps: list[Step] = []
    words: list[Word] = []
    segments: list[tuple[Quote, str]] = []
    bare: list[str] = []
    connector: Connector = ";"
    in_word = False

    def flush_bare() -> None:
        if bare:
            segments.append(("bare", "".join(bare)))
            bare.clear()

    def end_word() -> None:
        nonlocal in_word
        flush_bare()
        if in_word:
            words.append(Word(tuple(segments)))
        segments.clear()
        in_word = False

    def end_command(next_connector: Connector, token: str) -> None:
        nonlocal connector
        end_word()
        if not words and next_connector != ";":
            raise ShellSyntaxError(f'Syntax error: "{token}" unexpected')
        if words:
            steps.append(Step(connector, tuple(words)))
        words.clear()
        connector = next_connector

    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "'":
            close = line.find("'", i + 1)
            if close < 0:
                raise ShellSyntaxError("Syntax error: Unterminated quoted string")
            flush_bare()
            segments.append(("single", line[i + 1 : close]))
            in_word = True
            i = close + 1
        elif ch == '"':
            flush_bare()
            i = _double_quoted(line, i + 1, segments)
            in_word = True
        elif ch == "\\":
            if i + 1 < len(line):
                bare.append("\\" + line[i + 1])  # kept escaped; removed at expansion
                in_word = True
            i += 2
        elif ch in " \t":
            end_word()
            i += 1
        elif ch == "#" and not in_word:
            break
        elif line.startswith(("&&", "||"), i):
            end_command("&&" if ch == "&" else "||", line[i : i + 2])
            i += 2
        elif ch in ";\n":
            end_command(";", ch)
            i += 1
        elif ch in "|&<>()`":
            raise ShellSyntaxError(f'Syntax error: "{ch}" is not supported by the simulated shell')
        else:
            bare.append(ch)
            in_word = True
            i += 1
    end_word()
    if words:
        steps.append(Step(connector, tuple(words)))
    elif connector != ";":
        raise ShellSyntaxError("Syntax error: end of file unexpected")
    return steps


def _double_quoted(line: str, start: int, segments: list[tuple[Quote, str]]) -> int:
    out: list[str] = []
    i = start
    while i < len(line):
        ch = line[i]
        if ch == '"':
            segments.append(("double", "".join(out)))
            return i + 1
        if ch == "\\" and i + 1 < len(line) and line[i + 1] in '$"\\`':
            out.append("\\" + line[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise ShellSyntaxError("Syntax error: Unterminated quoted string")


def _expand_dollars(text: str, variables: Mapping[str, str], *, unescape_all: bool) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(nxt if unescape_all or nxt in '$"\\`' else "\\" + nxt)
            i += 2
            continue
        if ch != "$" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "?$#0":
            out.append(variables.get(nxt, ""))
            i += 2
        elif nxt == "{":
            close = text.find("}", i + 2)
            if close < 0:
                out.append(text[i:])
                break
            out.append(variables.get(text[i + 2 : close], ""))
            i = close + 1
        else:
            match = _NAME.match(text, i + 1)
            if match is None:
                out.append("$")
                i += 1
            else:
                out.append(variables.get(match.group(), ""))
                i = match.end()
    return "".join(out)


def expand(words: tuple[Word, ...], variables: Mapping[str, str]) -> list[str]:
    """Argument strings; an unquoted word that expands to nothing disappears."""
    argv: list[str] = []
    for word in words:
        parts: list[str] = []
        quoted = False
        for quote, text in word.segments:
            if quote == "single":
                parts.append(text)
                quoted = True
            else:
                parts.append(_expand_dollars(text, variables, unescape_all=quote == "bare"))
                quoted = quoted or quote == "double"
        value = "".join(parts)
        if value or quoted:
            argv.append(value)
    return argv
