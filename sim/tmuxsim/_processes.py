"""The simulated machine: its host name, and process ids and pty numbers
handed out like an operating system would.

One ``ProcessTable`` stands for one machine: every SimServer a SimBackend
creates shares it, so a server started again on the same socket gets a new
pid (a cursor recorded against the old server is then recognisably foreign,
see ``PaneState.server_pid``) and two servers never hand out the same
``/dev/pts/N``. Numbers only grow, so the values are deterministic for a given
sequence of operations.
"""

from __future__ import annotations

#: The simulated machine's host name (``#{host}``, a new pane's title).
HOST = "tmuxsim"


class ProcessTable:
    def __init__(self, first_pid: int = 1000, first_pty: int = 0) -> None:
        self._next_pid = first_pid
        self._next_pty = first_pty

    def new_pid(self) -> int:
        pid = self._next_pid
        self._next_pid += 1
        return pid

    def new_tty(self) -> str:
        number = self._next_pty
        self._next_pty += 1
        return f"/dev/pts/{number}"
