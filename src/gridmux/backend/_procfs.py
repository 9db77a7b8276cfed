"""What Linux's ``/proc`` says of a process: one reader of ``stat`` and ``cmdline``.

``/proc/PID/stat`` is ``PID (COMM) STATE PPID PGRP SESSION TTY_NR TPGID ...``.
The command name may hold spaces and parentheses, even ``) R 1``, so it runs
from the first ``(`` to the LAST ``)``, and the fields are what follows.
Elsewhere than Linux (no ``/proc``) every read is None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(rb"-?\d+")


@dataclass(frozen=True, slots=True)
class ProcStat:
    """The fields of ``/proc/PID/stat`` gridmux reads."""

    name: bytes
    #: ``R``, ``S``, ``Z`` (ended, not yet reaped), ...
    state: bytes
    ppid: int
    pgrp: int
    session: int
    tty: int
    #: the foreground process group of the process's terminal (-1: none)
    tpgid: int

    @property
    def ended(self) -> bool:
        """A zombie: the process has exited; only its reaping is due."""
        return self.state == b"Z"


def parse_stat(data: bytes) -> ProcStat:
    """``/proc/PID/stat``'s text as fields; ``ValueError`` when it is not one."""
    head, close, tail = data.rpartition(b")")
    opened = head.find(b"(")
    fields = tail.split()
    numbers = fields[1:6]
    if (
        not close
        or opened < 0
        or len(numbers) < 5
        or not all(_NUMBER.fullmatch(n) for n in numbers)
    ):
        raise ValueError(f"not a /proc stat line: {data[:80]!r}")
    ppid, pgrp, session, tty, tpgid = map(int, numbers)
    return ProcStat(head[opened + 1 :], fields[0], ppid, pgrp, session, tty, tpgid)


def read_stat(pid: int) -> ProcStat | None:
    """Process ``pid``'s stat, or None: no such process (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return parse_stat(stat.read())
    except (OSError, ValueError):
        return None


def command_line(pid: int) -> list[bytes] | None:
    """Process ``pid``'s argv from ``/proc/PID/cmdline``, or None when unreadable."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            data = cmdline.read()
    except OSError:
        return None
    return data.removesuffix(b"\0").split(b"\0") if data else []
