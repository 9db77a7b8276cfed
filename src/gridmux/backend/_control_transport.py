"""The control-mode transport: one control client per server, and what it carries.

Most commands behave the same from a control client as from a one-off
``tmux`` process, because every command we send names its target. These do
not, and the transport declines them (``NotCarried``: the runner hands them
to the subprocess transport):

* ``wait-for`` (waiting) blocks the client's whole queue until signalled: the
  runner gives every wait a plain tmux process instead (``_transport.Waits``),
  so no wait attaches a client;
* ``kill-*``, ``detach-client``, ``switch-client``, ``attach-session`` can end
  or move the control client itself in the middle of its reply;
* commands that read standard input (``load-buffer -``) have none in control
  mode, and ``save-buffer -`` writes to a file descriptor control mode lacks.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Sequence

from ._capture_route import CaptureRoute
from ._commands import Command
from ._control_client import ControlClient
from ._sockets import default_socket_path
from ._transport import (
    Completed,
    NotCarried,
    TmuxProgram,
    Transport,
    TransportError,
    TransportTimeout,
)
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
#: leaves the session's environment alone (-E: no ``update-environment`` from
#: gridmux's own), attached with no pane output and no say in window sizes; ``new-layouts``
#: (3.8+; older releases ignore unknown flags) makes ``#{window_layout}``
#: print what a one-off tmux process sees, not the pre-3.8 form tmux keeps
#: for control clients.
ATTACH = ["-N", "-C", "attach-session", "-E", "-f", "no-output,ignore-size,new-layouts"]
#: Per session: its id, ``destroy-unattached`` (``0``/``1`` before tmux 3.4, then
#: ``off``/``on``/``keep-last``/``keep-group``) and how many clients are attached.
SESSIONS = "#{session_id} #{destroy-unattached} #{session_attached}"


def attach_target(listing: bytes) -> str | None:
    """The session the control client attaches to, from a :data:`SESSIONS` listing.

    Only a session whose ``destroy-unattached`` is off: tmux counts the client
    as attached, so in another it would keep the session alive after its last
    user left. Of those, one already attached (its attached-ness stays as it
    was) before one nobody is in. None when no session fits: the lists go as
    processes until one does.
    """
    rows = [line.split() for line in listing.decode(errors="replace").splitlines()]
    kept = [(row[2] == "0", row[0]) for row in rows if len(row) == 3 and row[1] in ("0", "off")]
    return min(kept)[1] if kept else None


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


class ControlTransport:
    """``Transport`` over control clients, one per tmux server socket."""

    def __init__(self, program: TmuxProgram, *, timeout: float, lister: Transport) -> None:
        self._program = program
        #: lists the sessions before an attach (a transport of its own: one process)
        self._lister = lister
        self._timeout = timeout
        self._clients: dict[str, ControlClient] = {}
        self._all: list[ControlClient] = []
        self._lock = threading.Lock()
        self._captures = CaptureRoute()  # tmux before 3.6 only
        weakref.finalize(self, _close_all, self._all)

    def client(self, server: ServerRef) -> ControlClient:
        key = default_socket_path(server)
        with self._lock:
            found = self._clients.get(key)
            if found is None:
                found = self._new(server)
                self._clients[key] = found
            return found

    def _new(self, server: ServerRef) -> ControlClient:
        # By its socket: the client runs without $TMUX, which names the default server
        by_path = ServerRef(socket_path=default_socket_path(server))
        argv = [*self._program.client_argv(by_path), *ATTACH]
        # (a function of the lister, not of self: the clients must not keep self alive)
        target = functools.partial(_listed_target, self._lister, by_path)
        client = ControlClient(argv, timeout=self._timeout, target=target)
        self._all.append(client)
        return client

    def client_pids(self) -> set[int]:
        """Process ids of the live control clients (to leave out of client lists)."""
        with self._lock:
            clients = list(self._all)
        return {pid for client in clients if (pid := client.pid) is not None}

    def run(
        self, server: ServerRef, commands: Sequence[Command], *, stdin: bytes | None = None
    ) -> Completed:
        """The answer of ``commands`` over the server's control client."""
        if stdin is not None or not carried(commands):
            raise NotCarried("a command a control client must not run")
        client = self.client(server)
        try:
            return self._captures.run(client, commands)
        except NotCarried:
            if any(command[0] == "new-session" for command in commands):
                # The next transport is about to create a session to attach to.
                client.allow_retry()
            raise

    def close(self) -> None:
        _close_all(self._all)
        self._captures.close()

    def shutdown(self) -> None:
        """No more clients; the ones there are stop, even mid-request."""
        with self._lock:
            self._clients.clear()
            clients = list(self._all)
        for client in clients:
            client.shutdown()


def _listed_target(lister: Transport, server: ServerRef) -> str | None:
    """:func:`attach_target` of the server's sessions as ``lister`` lists them."""
    try:
        listed = lister.run(server, [["list-sessions", "-F", SESSIONS]])
    except TransportTimeout:
        raise  # the server does not answer: no transport would get an answer
    except TransportError:
        return None
    return attach_target(listed.stdout) if listed.status == 0 else None


def _close_all(clients: list[ControlClient]) -> None:
    for client in list(clients):
        client.close()
