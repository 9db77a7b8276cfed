"""What runs in a simulated pane, and what it may do to the pane.

A real pane runs a process on a pty; here a ``Program`` object stands in for
it. tmux delivers keys to the program (``receive``), the program writes bytes
to its tty (``PaneIO.write``, which applies the tty's ONLCR like the real
line discipline, docs/tmux-model.md §2) and eventually exits
(``PaneIO.exit``). Time-based programs (``sleep``) say when they next need
to run (``next_deadline``) and are woken through ``tick`` by the server when
its clock passes that time.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Protocol


class PaneIO(Protocol):
    """The pane as its program sees it: a tty, an environment, a directory."""

    @property
    def pane_id(self) -> str: ...

    @property
    def environment(self) -> MutableMapping[str, str]:
        """The process environment (TERM, TMUX_PANE, session and -e variables)."""
        ...

    @property
    def current_path(self) -> str: ...

    @current_path.setter
    def current_path(self, path: str) -> None: ...

    @property
    def pid(self) -> int: ...

    def write(self, data: bytes) -> None:
        """Write to the tty: ``\\n`` becomes ``\\r\\n`` (ONLCR)."""
        ...

    def exit(self, status: int, *, signal: int | None = None) -> None:
        """The program ends with exit status ``status`` (or killed by ``signal``)."""
        ...

    def close_tty(self) -> None:
        """The program closes its tty (every descriptor on it) and goes on running."""
        ...

    def now(self) -> float: ...

    def signal_channel(self, channel: str) -> None:
        """``tmux wait-for -S channel`` on the pane's own server."""
        ...

    def tmux(self, args: Sequence[str]) -> TmuxClient:
        """Start ``tmux ARGS`` as a client of the pane's own server (``$TMUX``)."""
        ...


class TmuxClient(Protocol):
    """A ``tmux`` command run from a pane; it may block (``wait-for``)."""

    @property
    def output(self) -> str:
        """What the client printed (errors included)."""
        ...

    @property
    def status(self) -> int:
        """Its exit status, once ``run`` returned True."""
        ...

    def run(self) -> bool:
        """Run until done (True) or blocked (False); call again to resume."""
        ...


class Program(Protocol):
    @property
    def command_name(self) -> str:
        """What ``pane_current_command`` shows right now."""
        ...

    def start(self) -> None:
        """Called once the pane exists (a shell prints its prompt here)."""
        ...

    def receive(self, data: bytes) -> None:
        """Bytes typed into the pane (``send-keys``, ``paste-buffer``)."""
        ...

    def tick(self) -> None:
        """The clock moved: finish whatever became due."""
        ...

    def next_deadline(self) -> float | None:
        """The clock time at which ``tick`` has work to do, if any."""
        ...

    def stop(self) -> None:
        """Killed (``kill-pane``, ``respawn-pane -k``): end silently."""
        ...


#: Makes the program for a pane: ``command`` is None for the default shell.
ProgramFactory = Callable[[PaneIO, str | None], Program]


class IdleProgram:
    """A process that never reads its input or writes on its own.

    For tests that drive a pane only through ``SimPane.write``/``exit``.
    """

    def __init__(self, io: PaneIO, name: str = "cat") -> None:
        self._io = io
        self._name = name

    @property
    def command_name(self) -> str:
        return self._name

    def start(self) -> None:
        pass

    def receive(self, data: bytes) -> None:
        pass

    def tick(self) -> None:
        pass

    def next_deadline(self) -> float | None:
        return None

    def stop(self) -> None:
        pass
