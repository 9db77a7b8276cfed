"""The text of control mode: command lines we write, reply blocks tmux prints.

A control-mode client (``tmux -C``) sends tmux one command *line* at a time,
parsed by tmux's command parser like a line of a config file, and tmux answers
every command it runs with a block::

    %begin <time> <number> <flags>
    ... output lines ...
    %end <time> <number> <flags>        (or %error ... when the command failed)

Lines outside a block starting with ``%`` are notifications. Command output
is printed raw inside a block, so pane text can hold lines that look exactly
like guard lines. This module keeps that from confusing us: every command
list we send is followed, on the same line, by marker commands that print a
random token no pane can know, and the request ends with a separate sentinel
line. Marker and sentinel blocks split the reply into one segment per command
with certainty; only inside a segment are guard lines parsed, and there a
block ends at the first guard line with its own time, number and flags that
is followed by the segment's end or another block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._commands import Command, command_text

_GUARD = re.compile(rb"^%(begin|end|error) (\d+) (\d+) (\d+)$")


def marker_command(token: str) -> str:
    """A command whose whole output is the line ``token``."""
    return f"display-message -p {token}"


def request_lines(
    groups: Sequence[Sequence[Command]], markers: Sequence[str], sentinel: str
) -> bytes:
    """The bytes to send: ``g1 ; m1 ; g2 ; m2 ; … ; gN`` then the sentinel line.

    A group is one or more commands with no marker between them, so what they
    print is one segment of the reply (usually a group is one command);
    ``markers`` has one token per group but the last. The list stays one
    line, so tmux runs it as one command list, back-to-back.
    """
    if not groups or not all(groups):
        raise ValueError("at least one tmux command is required")
    if any(isinstance(command, str) for group in groups for command in group):
        raise TypeError("a group is a list of commands, each a list of words")
    if len(markers) != len(groups) - 1:
        raise ValueError("one marker between each pair of groups")
    parts = [command_text(command) for command in groups[0]]
    for group, token in zip(groups[1:], markers, strict=True):
        parts += [marker_command(token), *(command_text(command) for command in group)]
    line = " ; ".join(parts)
    if "\n" in line:  # quote_word escapes control characters: this is a bug, not input
        raise ValueError("a control-mode command line holds a line break")
    line += "\n" + marker_command(sentinel) + "\n"
    return line.encode("utf-8", errors="surrogateescape")


@dataclass(frozen=True, slots=True)
class Guard:
    kind: str  # "begin", "end" or "error"
    time: bytes
    number: bytes
    flags: bytes

    @classmethod
    def parse(cls, line: bytes) -> Guard | None:
        match = _GUARD.match(line)
        if match is None:
            return None
        kind, time, number, flags = match.groups()
        return cls(kind.decode(), time, number, flags)

    def closes(self, begin: Guard) -> bool:
        return self.kind != "begin" and (self.time, self.number, self.flags) == (
            begin.time,
            begin.number,
            begin.flags,
        )


@dataclass(frozen=True, slots=True)
class Segment:
    """What one group of a request printed: its blocks' output, its error."""

    output: list[bytes]
    error: list[bytes] | None  # the %error block's lines, when a command failed
    #: every line of the segment as tmux sent it (guards, notifications, bare lines)
    lines: list[bytes]


class ProtocolError(Exception):
    """The control client printed something this parser cannot place."""


def find_token_block(lines: Sequence[bytes], token: bytes, start: int = 0) -> int | None:
    """Index of the ``token`` line of a ``%begin / token / %end`` block, or None."""
    for index in range(max(start, 1), len(lines) - 1):
        if lines[index] != token:
            continue
        begin, end = Guard.parse(lines[index - 1]), Guard.parse(lines[index + 1])
        if begin is not None and end is not None and begin.kind == "begin" and end.closes(begin):
            return index
    return None


def parse_segment(lines: Sequence[bytes], own_flags: bytes) -> Segment:
    """The blocks of one command (its own, then any it caused: if-shell, hooks).

    Notification lines between blocks are skipped, and so are bare lines
    (output of hooks run for notifications, which tmux prints unbracketed),
    and blocks before
    the first one with ``own_flags`` (the flags tmux gives commands this
    client sent): output of hooks that ran on the client's behalf before it.
    """
    blocks = _blocks(lines, 0)
    if blocks is None:
        raise ProtocolError("a reply does not divide into blocks")
    output: list[bytes] = []
    error: list[bytes] | None = None
    started = False
    for begin, failed, body in blocks:
        started = started or begin.flags == own_flags
        if not started:
            continue
        if failed:
            error = list(body) if error is None else error
        else:
            output += body
    if not started:
        raise ProtocolError("a command of the list has no reply block")
    return Segment(output=output, error=error, lines=list(lines))


_Block = tuple[Guard, bool, Sequence[bytes]]


def _blocks(lines: Sequence[bytes], start: int) -> list[_Block] | None:
    """``lines[start:]`` as notifications and blocks, or None if they are not.

    A block's body is raw command output and may hold lines equal to its own
    closing guard; the real one is the last such line after which the rest
    still divides into blocks (tried from the end, so normally the first try).
    """
    index = start
    while index < len(lines):
        begin = Guard.parse(lines[index])
        if begin is None or begin.kind != "begin":
            index += 1  # a notification, or a hook's unbracketed output
            continue
        for at in range(len(lines) - 1, index, -1):  # the real end is nearly always last
            line = lines[at]
            if not line.startswith(b"%e"):
                continue
            guard = Guard.parse(line)
            if guard is None or not guard.closes(begin):
                continue
            rest = _blocks(lines, at + 1)
            if rest is not None:
                failed = line.startswith(b"%error")
                return [(begin, failed, lines[index + 1 : at]), *rest]
        return None
    return []
