"""How a command list reaches tmux: the one interface both transports implement.

A transport runs a command list on one tmux server and reports what tmux
answered (``Completed``: stdout, tmux's message, status), without judging it.
Two implement :class:`Transport`:

* ``_control_transport.ControlTransport``: one persistent control-mode client
  per server; it raises :class:`NotCarried` for what it cannot carry;
* ``_subprocess_transport.SubprocessTransport``: one tmux process per list;
  it carries everything, and it alone carries waits (:class:`Waits`).

``_runner.TmuxRunner`` holds them in order of preference, is the one place
that falls back from one to the next, and the one place that turns answers
and the :class:`TransportError` classes into ``gridmux.errors``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from gridmux.errors import TmuxUnavailable

from ._commands import Command
from ._types import ServerRef


@dataclass(frozen=True, slots=True)
class Completed:
    """What tmux answered a command list: ``status`` 0, or its message in ``stderr``."""

    stdout: bytes
    stderr: str = ""
    status: int = 0


class TransportError(Exception):
    """A transport could not get an answer from tmux (not tmux refusing a command)."""


class NotCarried(TransportError):
    """This transport did not run the list at all: the next one may."""


class TransportTimeout(TransportError):
    """tmux did not answer within the transport's timeout; the list may have run."""


class TransportBroken(TransportError):
    """The connection ended in the middle of an answer: the list may have run in part."""


class CannotStart(TransportError):
    """The tmux executable could not be started (``program``, then the reason)."""

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(program, reason)
        self.program = program
        self.reason = reason


class CommandTooLong(TransportError):
    """The operating system refused to start tmux with an argv this long (E2BIG)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class Transport(Protocol):
    """Runs tmux command lists on a server, each bounded by the transport's timeout."""

    def run(
        self, server: ServerRef, commands: Sequence[Command], *, stdin: bytes | None = None
    ) -> Completed:
        """Run ``commands`` as ONE list (back-to-back in tmux) with ``stdin`` as its input."""
        ...

    def close(self) -> None:
        """Release what the transport holds open; later calls may open it again."""
        ...


class Waits(Protocol):
    """Carries ``wait-for``: the subprocess transport, a plain tmux process per wait.

    A wait never goes over a control client: it would hold that client's
    whole queue, so every concurrent wait would need a client of its own,
    and each such client is an attach (the user's ``client-attached`` hooks
    run, ``session_attached`` counts it). A one-off ``tmux wait-for``
    process attaches to nothing.
    """

    def wait_for(
        self, server: ServerRef, channel: str, timeout: float, release: Callable[[], None]
    ) -> Completed | None:
        """``wait-for channel``: tmux's answer once signalled, None after ``timeout``.

        At the deadline the transport calls ``release``, which signals the
        channel by another route, so that tmux answers and forgets this
        waiter (up to 3.6b at least, tmux keeps the waiter of a client that
        simply went away, and it absorbs the channel's next signal; 3.8 drops it).
        """
        ...


class TmuxProgram:
    """The tmux executable and how one of its clients addresses a server."""

    def __init__(
        self,
        path: str | None = None,
        environment: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self._configured = path
        self._resolved: str | None = None
        self._environment = environment

    def environment(self) -> Mapping[str, str] | None:
        """The environment of a one-off tmux process (and so of a server one
        starts), made now; None: gridmux's own."""
        return None if self._environment is None else self._environment()

    @property
    def path(self) -> str:
        """The executable, looked up on ``PATH`` at first use."""
        if self._resolved is None:
            if self._configured is not None:
                self._resolved = self._configured
            else:
                found = shutil.which("tmux")
                if found is None:
                    raise TmuxUnavailable("no tmux binary on PATH: install tmux 3.2a or newer")
                self._resolved = found
        return self._resolved

    def client_argv(self, server: ServerRef) -> list[str]:
        """``tmux -u [-S path | -L name]``: a client of ``server``."""
        argv = [self.path, "-u"]
        if server.socket_path is not None:
            argv += ["-S", server.socket_path]
        elif server.socket_name is not None:
            argv += ["-L", server.socket_name]
        return argv
