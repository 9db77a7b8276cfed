"""Which commands go over control mode, and one control client per server.

Most commands behave the same from a control client as from a one-off
``tmux`` process, because every command we send names its target. These do
not, and always run as a subprocess:

* ``wait-for`` blocks the client's whole queue until signalled;
* ``kill-*``, ``detach-client``, ``switch-client``, ``attach-session`` can end
  or move the control client itself in the middle of its reply;
* commands that read standard input (``load-buffer -``) have none in control
  mode, and ``save-buffer -`` writes to a file descriptor control mode lacks.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from gridmux.errors import TmuxFailure, TmuxTimeout

from ._control import ControlBroken, ControlChannel, ControlTimeout
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
#: The control client: attached with no pane output and no say in window sizes.
ATTACH = ["-C", "attach-session", "-f", "no-output,ignore-size"]


def carried(commands: Sequence[Command]) -> bool:
    """Whether a command list may go over a control client."""
    return all(command and command[0] not in SUBPROCESS_ONLY for command in commands)


class ChannelPool:
    """The control clients of one runner, one per tmux server socket."""

    def __init__(self, runner: TmuxRunner) -> None:
        self._runner = runner
        self._channels: dict[str, ControlChannel] = {}
        self._lock = threading.Lock()
        weakref.finalize(self, _close_all, self._channels)

    def channel(self, server: ServerRef) -> ControlChannel:
        key = default_socket_path(server)
        with self._lock:
            found = self._channels.get(key)
            if found is None:
                argv = [*self._runner.client_argv(server), *ATTACH]
                found = ControlChannel(argv, timeout=self._runner.command_timeout)
                self._channels[key] = found
            return found

    def client_pids(self) -> set[int]:
        """Process ids of the live control clients (to leave out of client lists)."""
        with self._lock:
            channels = list(self._channels.values())
        return {pid for channel in channels if (pid := channel.pid) is not None}

    def run(self, server: ServerRef, commands: Sequence[Command], what: str) -> bytes | None:
        """stdout of ``commands`` over the server's control client; None: use a subprocess."""
        if not carried(commands):
            return None
        channel = self.channel(server)
        try:
            reply = channel.request(commands)
        except ControlTimeout:
            raise TmuxTimeout(
                f"tmux did not answer within {self._runner.command_timeout:g}s while trying "
                f"to {what} on {describe_server(server)}"
            ) from None
        except ControlBroken as exc:
            where = describe_server(server)
            raise TmuxFailure(f"tmux failed to {what} on {where}: {exc}") from None
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
        _close_all(self._channels)


def _close_all(channels: dict[str, ControlChannel]) -> None:
    for channel in list(channels.values()):
        channel.close()
