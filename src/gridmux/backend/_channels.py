"""Which commands go over control mode, and one control client per server.

Most commands behave the same from a control client as from a one-off
``tmux`` process, because every command we send names its target. These do
not, and always run as a subprocess:

* ``wait-for`` (waiting) blocks the client's whole queue until signalled, so it gets
  a control client of its own (``ChannelPool.wait``), kept for the next wait;
* ``kill-*``, ``detach-client``, ``switch-client``, ``attach-session`` can end
  or move the control client itself in the middle of its reply;
* commands that read standard input (``load-buffer -``) have none in control
  mode, and ``save-buffer -`` writes to a file descriptor control mode lacks.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from gridmux.errors import GridmuxError, TmuxFailure, TmuxTimeout

from ._control import ControlBroken, ControlChannel, ControlFailed, ControlTimeout
from ._runner import Command, TmuxRunner, default_socket_path, describe_server, translate_failure
from ._types import ServerRef

SUBPROCESS_ONLY = frozenset(
    {
        "wait-for",
        "kill-server",
        "kill-session",
        "kill-window",
        "kill-pane",
        "detach-client",
        "switch-client",
        "attach-session",
        "load-buffer",
        "save-buffer",
    }
)
#: The control client: never starts a server (-N; attach-session would, and
#: that server, finding no session, exits under the feet of the next caller),
#: attached with no pane output and no say in window sizes; ``new-layouts``
#: (3.8+; older releases ignore unknown flags) makes ``#{window_layout}``
#: print what a one-off tmux process sees, not the pre-3.8 form tmux keeps
#: for control clients.
ATTACH = ["-N", "-C", "attach-session", "-f", "no-output,ignore-size,new-layouts"]


def carried(commands: Sequence[Command]) -> bool:
    """Whether a command list may go over a control client.

    ``wait-for -S`` (signal) and ``-U`` (unlock) return at once and are carried.
    """
    return all(
        command
        and (
            command[0] not in SUBPROCESS_ONLY
            or (command[0] == "wait-for" and ("-S" in command or "-U" in command))
        )
        for command in commands
    )


class ChannelPool:
    """The control clients of one runner, one per tmux server socket."""

    def __init__(self, runner: TmuxRunner) -> None:
        self._runner = runner
        self._channels: dict[str, ControlChannel] = {}
        # Idle clients for wait-for, which holds a client until signalled.
        self._waiters: dict[str, list[ControlChannel]] = {}
        self._all: list[ControlChannel] = []
        self._lock = threading.Lock()
        weakref.finalize(self, _close_all, self._all)

    def channel(self, server: ServerRef) -> ControlChannel:
        key = default_socket_path(server)
        with self._lock:
            found = self._channels.get(key)
            if found is None:
                found = self._new(server)
                self._channels[key] = found
            return found

    def _new(self, server: ServerRef) -> ControlChannel:
        argv = [*self._runner.client_argv(server), *ATTACH]
        channel = ControlChannel(argv, timeout=self._runner.command_timeout)
        self._all.append(channel)
        return channel

    def client_pids(self) -> set[int]:
        """Process ids of the live control clients (to leave out of client lists)."""
        with self._lock:
            channels = list(self._all)
        return {pid for channel in channels if (pid := channel.pid) is not None}

    def wait(self, server: ServerRef, name: str, timeout: float, what: str) -> bool | None:
        """``wait-for name`` on an idle control client; None: use a subprocess."""
        key = default_socket_path(server)
        with self._lock:
            idle = self._waiters.setdefault(key, [])
            waiter = idle.pop() if idle else self._new(server)

        def release() -> None:
            self._runner.run(server, [["wait-for", "-S", name]], what=f"release the {what}")

        try:
            result = waiter.wait_for(name, timeout, release)
        except (ControlTimeout, ControlBroken, ControlFailed) as exc:
            raise self._translated(server, what, exc) from None
        with self._lock:
            idle.append(waiter)
        return result

    def _translated(self, server: ServerRef, what: str, exc: Exception) -> GridmuxError:
        where = describe_server(server)
        if isinstance(exc, ControlTimeout):
            return TmuxTimeout(
                f"tmux did not answer within {self._runner.command_timeout:g}s while trying "
                f"to {what} on {where}"
            )
        if isinstance(exc, ControlFailed):
            return translate_failure(server, what, 1, str(exc))
        return TmuxFailure(f"tmux failed to {what} on {where}: {exc}")

    def run(self, server: ServerRef, commands: Sequence[Command], what: str) -> bytes | None:
        """stdout of ``commands`` over the server's control client; None: use a subprocess."""
        if not carried(commands):
            return None
        channel = self.channel(server)
        try:
            reply = channel.request(commands)
        except (ControlTimeout, ControlBroken) as exc:
            raise self._translated(server, what, exc) from None
        if reply is None:
            return None
        if reply.error is not None:
            raise translate_failure(server, what, 1, reply.error)
        return reply.stdout

    def session_created(self, server: ServerRef) -> None:
        with self._lock:
            found = self._channels.get(default_socket_path(server))
        if found is not None:
            found.allow_retry()

    def close(self) -> None:
        _close_all(self._all)


def _close_all(channels: list[ControlChannel]) -> None:
    for channel in list(channels):
        channel.close()
