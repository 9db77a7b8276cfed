"""Captures over control mode on tmux before 3.6: through a buffer and a file.

DELETE THIS MODULE when 3.6 is the oldest tmux release gridmux supports:
``ControlTransport.run`` then calls ``client.request`` directly, and
nothing else depends on it.

tmux before 3.6 never frees a ``capture-pane -p`` it answers a control
client with: it sends a copy and keeps the capture (tmux issue 4590; 3.6
frees it), so each read of a pane grew the user's server by the capture's
size for the server's lifetime (3.3a: 21 MB after 1,000 reads of a binary
screen). On such a server each ``capture-pane -p`` of a list goes as
``capture-pane -b NAME`` (a buffer of gridmux's own), and after the rest of
the list ``save-buffer -b NAME FILE ; delete-buffer -b NAME``: the server
writes the file itself for an attached client and frees the buffer, and the
file is the command's output. The same bytes, no growth, no process.

It runs on the control client's generic request (``request_groups``): the
saves and deletes of a list are one group, with no marker between them
(3.2a's server grows by ~100 bytes for every command a control client
sends). A tmux whose release cannot be placed counts as below 3.6
(``_release``): the route works on every release.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import secrets
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._commands import Command
from ._control_client import ControlClient, joined
from ._control_syntax import Segment
from ._release import tmux_release
from ._transport import Completed, NotCarried, TransportError

#: The first release that frees what ``capture-pane -p`` prints to a control client.
FLAT_OUTPUT_FROM = (3, 6)
#: Commands a list may hold for its captures to take the route: they only
#: read, so a list whose file could not be written can run again elsewhere.
_READ_ONLY = frozenset({"capture-pane", "display-message", "list-panes", "list-windows"})
#: Below ``FLAT_OUTPUT_FROM`` these go as one-off processes (rare, and their
#: output path is not the capture's).
_BULK_BY_PROCESS = frozenset({"show-buffer", "save-buffer"})


@dataclass
class _Server:
    """What the route knows of one client's server."""

    #: it could not write a capture's file (another user's server, another /tmp)
    by_process: bool = False
    #: a list with captures ended abnormally: its buffers may be left
    sweep: bool = False


@dataclass(frozen=True, slots=True)
class _Routed:
    """A list as sent: its groups, and the file of each capture by its group."""

    groups: list[list[Command]]
    files: dict[int, str]

    @property
    def buffers(self) -> set[str]:
        return {os.path.basename(path) for path in self.files.values()}


class NotSaved(Exception):
    """The server could not write a capture's file."""


class CaptureRoute:
    """Runs lists over control clients, routing captures on servers before 3.6."""

    def __init__(self) -> None:
        self._prefix = "gmxcap" + secrets.token_hex(8)
        self._serial = itertools.count(1)
        self._servers: dict[ControlClient, _Server] = {}
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._remove_folder: weakref.finalize[..., CaptureRoute] | None = None

    def run(self, client: ControlClient, commands: Sequence[Command]) -> Completed:
        """``commands`` over ``client``, as ``ControlClient.request`` answers them."""
        if tmux_release(client.server_version()) >= FLAT_OUTPUT_FROM:
            return client.request(commands)
        with self._lock:
            server = self._servers.setdefault(client, _Server())
        if server.sweep:
            server.sweep = False
            _forget_buffers(client, lambda name: name.startswith(self._prefix))
        routed = self._routed(server, commands)
        if routed is None:
            return client.request(commands)
        try:
            try:
                segments = client.request_groups(routed.groups)
            except NotCarried:
                raise  # tmux ran nothing
            except TransportError:
                server.sweep = True  # the next list deletes what it left
                raise
            try:
                answer = _answer(segments, routed)
            except NotSaved as exc:
                # The list only reads (``_routed``): it can run again as a process.
                server.by_process = True
                _forget_buffers(client, routed.buffers.__contains__)
                raise NotCarried(f"the tmux server could not write a capture: {exc}") from None
            if answer.status:  # stopped before its deletes
                _forget_buffers(client, routed.buffers.__contains__)
            return answer
        finally:
            for path in routed.files.values():
                with contextlib.suppress(OSError):
                    os.unlink(path)

    def close(self) -> None:
        """Remove the folder of capture files (made again when needed)."""
        with self._lock:
            remove, self._remove_folder, self._folder = self._remove_folder, None, None
        if remove is not None:
            remove()

    def _routed(self, server: _Server, commands: Sequence[Command]) -> _Routed | None:
        """The list with its captures routed; None for a list without captures.

        Each ``capture-pane -p`` becomes ``capture-pane -b NAME``, and a last
        group holds ``save-buffer -b NAME FILE ; delete-buffer -b NAME`` for
        each. ``NotCarried`` for a list that cannot go this way.
        """
        names = {command[0] for command in commands if command}
        if names & _BULK_BY_PROCESS:
            raise NotCarried("this tmux keeps what it prints to a control client")
        if not any(
            command and command[0] == "capture-pane" and "-p" in command for command in commands
        ):
            return None
        if server.by_process:
            raise NotCarried("this tmux server cannot write captures for the client")
        if not names <= _READ_ONLY:
            raise NotCarried("captures in a list that changes something go as a process")
        folder = self._made_folder(server)
        groups: list[list[Command]] = []
        saves: list[Command] = []
        files: dict[int, str] = {}
        for command in commands:
            if command and command[0] == "capture-pane" and "-p" in command:
                # never empty (a row prints at least its newline), so the buffer is
                # there for the save and delete; 3.2a takes a missing name as the newest
                name = f"{self._prefix}x{next(self._serial)}"
                files[len(groups)] = path = os.path.join(folder, name)
                groups.append(
                    [["capture-pane", "-b", name, *(a for a in command[1:] if a != "-p")]]
                )
                saves += [["save-buffer", "-b", name, path], ["delete-buffer", "-b", name]]
            else:
                groups.append([list(command)])
        # The saves come last: tmux lets pane output in while one writes its file,
        # and everything before stays one instant as the list was.
        groups.append(saves)
        return _Routed(groups, files)

    def _made_folder(self, server: _Server) -> str:
        """A private (0700) folder for the capture files, made on first use."""
        with self._lock:
            if self._folder is None:
                try:
                    self._folder = tempfile.mkdtemp(prefix="gridmux-captures-")
                except OSError as exc:
                    server.by_process = True
                    raise NotCarried(f"no private folder for captures: {exc}") from None
                self._remove_folder = weakref.finalize(self, shutil.rmtree, self._folder, True)
            return self._folder


def _answer(segments: list[Segment], routed: _Routed) -> Completed:
    """The list's answer, each capture's file in its place; ``NotSaved`` when
    a ``save-buffer`` could not write its file."""
    saves_at = len(routed.groups) - 1
    if len(segments) > saves_at:  # the saves ran
        saves = segments[saves_at]
        if saves.error is not None:
            raise NotSaved(b"\n".join(saves.error).decode("utf-8", errors="replace"))
        # A save that failed (a full disk: a short write) is a bare line after
        # its block; the saves print nothing else.
        bare = [line for line in saves.lines if not line.startswith(b"%")]
        if bare:
            raise NotSaved(bare[0].decode("utf-8", errors="replace"))
        segments = [
            dataclasses.replace(segment, output=segment.output + _saved_lines(routed.files[at]))
            if at in routed.files
            else segment
            for at, segment in enumerate(segments)
        ]
    return joined(segments)


def _saved_lines(path: str) -> list[bytes]:
    """The lines a capture saved to ``path``; ``NotSaved`` if it is not there."""
    try:
        with open(path, "rb") as saved:
            data = saved.read()
    except OSError as exc:
        # tmux reports a failed save-buffer after its block, as a bare line.
        raise NotSaved(f"{path}: {exc.strerror}") from None
    lines = data.split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def _forget_buffers(client: ControlClient, ours: Callable[[str], bool]) -> None:
    """Delete the buffers of ours a list that stopped early left.

    Only names tmux lists: 3.2a's ``delete-buffer -b`` of a missing name
    deleted the newest buffer, which may be the user's.
    """
    with contextlib.suppress(TransportError):
        listed = client.request([["list-buffers", "-F", "#{buffer_name}"]])
        names = sorted(
            name for name in listed.stdout.decode(errors="replace").split() if ours(name)
        )
        if names:
            client.request([["delete-buffer", "-b", name] for name in names])
