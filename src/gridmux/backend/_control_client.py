"""A persistent tmux control-mode client: tmux commands without a process each.

One ``tmux -C attach-session -f no-output,ignore-size`` client per tmux
server carries the backend's commands. ``no-output`` is set at attach time
(turning it on later can stall tmux before 3.7 when pane output is queued),
``ignore-size`` keeps the client out of every window-size calculation, and
the client never sets a size of its own, so nothing users see changes.

A request is one command line (the command list, kept atomic) plus a sentinel
line; ``_control_syntax`` builds them and splits the reply. Requests are
serialized by a lock: tmux runs one client's lines in order anyway.

The client reports a request it could not deliver by raising ``NotCarried``,
and the runner runs it on the next transport instead. That is only done
when tmux provably did not run the line (no block of ours came back); a
client lost part-way through a reply is ``TransportBroken``, never a silent
retry.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
import secrets
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._commands import Command
from ._control_syntax import (
    Guard,
    ProtocolError,
    find_token_block,
    parse_segment,
    request_lines,
)
from ._spawn import spawn
from ._transport import (
    Completed,
    NotCarried,
    TransportBroken,
    TransportError,
    TransportTimeout,
)

_READ_SIZE = 1 << 16
#: Longer lines go as a subprocess (argv has room; a control line is buffered whole).
MAX_LINE_BYTES = 1 << 18
#: After a failed attach, wait this long before trying again (unless told to).
RETRY_AFTER = 1.0
#: tmux before 3.6 never frees a ``capture-pane -p`` for a control client: it
#: sends a copy and keeps the capture (tmux issue 4590), so each read of a
#: pane grew the user's server by the capture's size, for the server's lifetime
#: (3.3a: 21 MB after 1,000 reads of a binary screen). There a capture goes
#: into a private buffer that ``save-buffer`` writes to a private file (the
#: server writes it for an attached client, and frees the buffer), and the
#: file is the command's output: the same bytes, no growth, no process.
FLAT_OUTPUT_FROM = (3, 6)
#: Commands a list may hold for its captures to take that route: they only
#: read, so a list whose file could not be written can run again elsewhere.
_READ_ONLY = frozenset({"capture-pane", "display-message", "list-panes", "list-windows"})
#: Below ``FLAT_OUTPUT_FROM`` these go as one-off processes (rare, and their
#: output path is not the capture's).
_BULK_BY_PROCESS = frozenset({"show-buffer", "save-buffer"})
#: Words in an attach error meaning this tmux cannot do it at all.
_UNSUPPORTED = ("unknown flag", "usage:", "invalid flag")


class ControlClient:
    """One ``tmux -C`` client process and the state of its output stream."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        target: Callable[[], str | None] | None = None,
    ) -> None:
        self._argv = list(argv)
        #: the session to attach to (``-t``), asked at each attach; None: none fits now
        self._target = target
        self._timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        #: waits for the client's output (one per client, not one per read)
        self._poller = select.poll()
        self._buffer = bytearray()
        self._prefix = "gmx" + secrets.token_hex(12)
        self._serial = itertools.count(1)  # next() is atomic: tokens never repeat
        self._own_flags = b"1"
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self.disabled = False
        #: The attached server keeps what ``capture-pane -p`` prints to us.
        self.output_accumulates = False
        #: where that server writes captures for us (made on first use)
        self._capture_dir: str | None = None
        #: that server could not write there (another user's, another /tmp)
        self._captures_by_process = False
        #: a list with captures ended abnormally: its buffers may be left
        self._sweep_pending = False

    # -- lifecycle -----------------------------------------------------------
    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def allow_retry(self) -> None:
        """Let the next request try to attach at once (a session now exists)."""
        self._retry_at = 0.0

    def close(self) -> None:
        with self._lock:
            self._stop()
            folder, self._capture_dir = self._capture_dir, None
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    def _ready(self) -> bool:
        """A live, attached client: the one there is, or a new one (call holding the lock)."""
        proc = self._proc
        if proc is not None and proc.poll() is None and b"%exit" not in self._buffer:
            return True
        self._stop()
        return self._connect()

    def _connect(self) -> bool:
        if self.disabled or time.monotonic() < self._retry_at:
            return False
        argv = self._argv
        if self._target is not None:
            chosen = self._target()
            if chosen is None:  # no session to attach to: try again later
                self._retry_at = time.monotonic() + RETRY_AFTER
                return False
            argv = [*argv, "-t", chosen]
        env = {key: value for key, value in os.environ.items() if key != "TMUX"}
        try:
            self._proc = spawn(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        except OSError:
            self.disabled = True
            return False
        assert self._proc.stdout is not None
        self._poller = select.poll()
        self._poller.register(self._proc.stdout.fileno(), select.POLLIN)
        self._buffer.clear()
        try:
            attached = self._await_attach()
        except TransportTimeout:
            attached = False
        if not attached:
            text = bytes(self._buffer).decode(errors="replace")
            self.disabled = any(word in text for word in _UNSUPPORTED)
            self._stop()
            self._retry_at = time.monotonic() + RETRY_AFTER
            return False
        return True

    def _await_attach(self) -> bool:
        """Read until tmux reports the client attached (True) or gone (False).

        tmux may run lines we send before the attach command itself, so a
        reply proves nothing; ``%session-changed`` is printed once the client
        is attached. The attach command's own block (flags 0) is dropped; the
        flags of our first reply are learnt then.
        """
        while True:
            at = self._buffer.find(b"%session-changed ")
            if at == 0 or (at > 0 and self._buffer[at - 1] == 10):
                end = self._buffer.find(b"\n", at)
                if end >= 0:
                    break
            if not self._read_more(time.monotonic() + self._timeout):
                return False
        token = self._token()
        lines = self._exchange(f"display-message -p {token}\n".encode(), token)
        if lines is None:
            return False
        begin = Guard.parse(lines[-1])
        self._own_flags = begin.flags if begin is not None else b"1"
        sentinel = self._token()
        shown = self._exchange(
            request_lines([["display-message", "-p", "#{version}"]], [], sentinel), sentinel
        )
        if shown is None:
            return False
        try:
            version = self._reply(shown[:-1], []).stdout.decode(errors="replace")
        except TransportBroken:
            return False
        self.output_accumulates = _release(version) < FLAT_OUTPUT_FROM
        return True

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.communicate()

    def _token(self) -> str:
        return f"{self._prefix}x{next(self._serial)}"

    # -- requests --------------------------------------------------------------
    def request(self, commands: Sequence[Command]) -> Completed:
        """Run ``commands`` as one list; ``NotCarried`` when tmux did not run them."""
        with self._lock:
            # A client found dead is replaced once; if the new one cannot
            # take the line either, the runner tries the next transport.
            for _attempt in range(2):
                if not self._ready():
                    raise NotCarried("no control client is attached")
                if self._sweep_pending:  # a list with captures ended abnormally
                    self._sweep_pending = False
                    self._forget_buffers(lambda name: name.startswith(self._prefix))
                sent, saves, files = self._routed(commands)
                markers = [self._token() for _ in sent[1:]] + [self._token() for _ in saves[:1]]
                sentinel = self._token()
                data = request_lines(sent, markers, sentinel, saves)
                if len(data) > MAX_LINE_BYTES:
                    raise NotCarried(f"a command line over {MAX_LINE_BYTES} bytes")
                ours = {c[2] for c in saves if c[0] == "delete-buffer"}
                try:
                    lines = self._exchange(data, sentinel)
                except TransportTimeout:
                    self._stop()
                    self._sweep_pending = bool(files)
                    raise
                try:
                    if lines is not None:
                        answer = self._reply(lines[:-1], markers, files)
                        if answer.status and files:  # stopped before its deletes
                            self._forget_buffers(ours.__contains__)
                        return answer
                    self._sweep_pending = bool(files)  # the next client deletes them
                    reply = self._lost(markers, commands, files)
                except _NotSaved as exc:
                    # The list only reads (``_routed``): it can run again as a process.
                    self._captures_by_process = True
                    self._forget_buffers(ours.__contains__)
                    raise NotCarried(f"the tmux server could not write a capture: {exc}") from None
                except TransportBroken:
                    self._sweep_pending = bool(files)
                    raise
                finally:
                    for saved in files.values():
                        with contextlib.suppress(OSError):
                            os.unlink(saved.path)
                if reply is not None:
                    return reply
            raise NotCarried("the control client ended before running the line")

    def _routed(
        self, commands: Sequence[Command]
    ) -> tuple[list[Command], list[Command], dict[int, _Saved]]:
        """The commands to send, a tail of saves, and each capture's file by position.

        Where the server keeps what ``capture-pane -p`` prints (``FLAT_OUTPUT_FROM``),
        each capture becomes ``capture-pane -b NAME``, and the tail holds its
        ``save-buffer -b NAME FILE ; delete-buffer -b NAME``: the buffer is the
        client's own, the file in its own folder. The tail is one segment with no
        markers inside (tmux 3.2a grows by ~100 bytes per command a control client
        sends, so none is spent there). ``NotCarried`` for a list that could not go
        that way.
        """
        if not self.output_accumulates:
            return list(commands), [], {}
        names = {command[0] for command in commands if command}
        if names & _BULK_BY_PROCESS:
            raise NotCarried("this tmux keeps what it prints to a control client")
        captures = [i for i, c in enumerate(commands) if c and c[0] == "capture-pane"]
        if not any("-p" in commands[i] for i in captures):
            return list(commands), [], {}
        if self._captures_by_process:
            raise NotCarried("this tmux server cannot write captures for the client")
        if not names <= _READ_ONLY:
            raise NotCarried("captures in a list that changes something go as a process")
        if self._capture_dir is None:
            try:
                self._capture_dir = tempfile.mkdtemp(prefix="gridmux-captures-")
            except OSError as exc:
                self._captures_by_process = True
                raise NotCarried(f"no private folder for captures: {exc}") from None
        sent: list[Command] = []
        saves: list[Command] = []
        paths: dict[int, str] = {}
        for command in commands:
            if command and command[0] == "capture-pane" and "-p" in command:
                # never empty (a row prints at least its newline), so the buffer is
                # there for the save and delete; 3.2a takes a missing name as the newest
                name = self._token()
                paths[len(sent)] = path = os.path.join(self._capture_dir, name)
                sent.append(["capture-pane", "-b", name, *(a for a in command[1:] if a != "-p")])
                saves += [["save-buffer", "-b", name, path], ["delete-buffer", "-b", name]]
            else:
                sent.append(list(command))
        # The saves come last: tmux lets pane output in while one writes its file,
        # and everything before stays one instant as the list was. They are the
        # list's last segment (index len(sent)).
        files = {at: _Saved(path, len(sent)) for at, path in paths.items()}
        return sent, saves, files

    def _forget_buffers(self, ours: Callable[[str], bool]) -> None:
        """Delete the buffers of ours a list that stopped early left (holding the lock).

        Only names tmux lists: 3.2a's ``delete-buffer -b`` of a missing name
        deleted the newest buffer, which may be the user's.
        """
        if not self._ready():
            return
        with contextlib.suppress(TransportError, ProtocolError):
            sentinel = self._token()
            listing = [["list-buffers", "-F", "#{buffer_name}"]]
            shown = self._exchange(request_lines(listing, [], sentinel), sentinel)
            if shown is None:
                return
            listed = self._parsed(shown[:-1], [], {}).stdout.decode(errors="replace")
            names = {name for name in listed.split() if ours(name)}
            if names:
                deletes = [["delete-buffer", "-b", name] for name in sorted(names)]
                markers = [self._token() for _ in deletes[1:]]
                sentinel = self._token()
                self._exchange(request_lines(deletes, markers, sentinel), sentinel)

    def _lost(
        self, markers: list[str], commands: Sequence[Command], files: dict[int, _Saved]
    ) -> Completed | None:
        """The client ended before the sentinel. None if our line never ran."""
        lines = bytes(self._buffer).split(b"\n")[:-1]  # drop a partial last line
        self._stop()
        ran = any(
            (guard := Guard.parse(line)) is not None
            and guard.kind == "begin"
            and guard.flags == self._own_flags
            for line in lines
        )
        if not ran:
            return None
        try:
            return self._parsed(lines, markers, files)
        except ProtocolError:
            names = " ; ".join(command[0] for command in commands)
            raise TransportBroken(
                f"the tmux control client ended while running {names}; it may have run in part"
            ) from None

    def _reply(
        self, lines: list[bytes], markers: list[str], files: dict[int, _Saved] | None = None
    ) -> Completed:
        """The answer of a request whose sentinel came back (the client stays)."""
        try:
            return self._parsed(lines, markers, files or {})
        except ProtocolError as exc:
            self._stop()
            raise TransportBroken(str(exc)) from exc

    def _parsed(
        self, lines: list[bytes], markers: list[str], files: dict[int, _Saved]
    ) -> Completed:
        """Split the reply by its markers and gather output and error.

        A capture with an entry in ``files`` printed nothing: its output is the
        file its ``save-buffer`` wrote, if the list got that far. ``_NotSaved``
        when a ``save-buffer`` could not write its file.
        """
        bounds: list[tuple[int, int]] = []
        start = 0
        for token in markers:
            found = find_token_block(lines, token.encode(), start)
            if found is None:
                break
            bounds.append((start, found - 1))
            start = found + 2
        bounds.append((start, len(lines)))
        segments = [parse_segment(lines[low:high], self._own_flags) for low, high in bounds]
        for written in files.values():
            if written.at < len(segments) and (error := segments[written.at].error) is not None:
                raise _NotSaved(b"\n".join(error).decode("utf-8", errors="replace"))
            if written.at < len(bounds):
                # A save that failed (a full disk: a short write) is a bare line
                # after its block; the saves print nothing else.
                low, high = bounds[written.at]
                bare = [line for line in lines[low:high] if not line.startswith(b"%")]
                if bare:
                    raise _NotSaved(bare[0].decode("utf-8", errors="replace"))
        output: list[bytes] = []
        for index, segment in enumerate(segments):
            output += segment.output
            saved = files.get(index)
            if saved is not None and saved.at < len(segments):
                output += _saved_lines(saved.path)
            if segment.error is not None:
                # tmux's message when a command failed (the rest did not run)
                message = b"\n".join(segment.error).decode("utf-8", errors="replace")
                return Completed(stdout=_joined(output), stderr=message, status=1)
        if len(bounds) != len(markers) + 1:
            raise ProtocolError("a command list stopped without an error")
        return Completed(stdout=_joined(output))

    def _exchange(
        self, data: bytes, sentinel: str, deadline: float | None = None
    ) -> list[bytes] | None:
        """Write ``data``; read through the sentinel's block (``_await``)."""
        proc = self._proc
        assert proc is not None
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the read below sees the end of output
        return self._await(
            sentinel, time.monotonic() + self._timeout if deadline is None else deadline
        )

    def _await(self, sentinel: str, deadline: float) -> list[bytes] | None:
        """Read through the sentinel's block.

        Returns the lines before the sentinel's ``%begin`` plus that line, or
        None when the client's output ended first (what came is left in the
        buffer). Lines after the sentinel block stay buffered.
        """
        needle = b"\n" + sentinel.encode() + b"\n"
        scan = 0
        while True:
            found = self._buffer.find(needle, scan)
            if found >= 0:
                end_line = self._buffer.find(b"\n", found + len(needle))
                if end_line >= 0:
                    return self._take(found, end_line, sentinel)
            else:
                scan = max(0, len(self._buffer) - len(needle))
            if not self._read_more(deadline):
                return None

    def _read_more(self, deadline: float) -> bool:
        """Append what the client printed next; False at the end of its output."""
        proc = self._proc
        assert proc is not None
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not self._poller.poll(max(1, math.ceil(remaining * 1000))):
            raise TransportTimeout(f"no answer within {self._timeout:g}s")
        chunk = os.read(fd, _READ_SIZE)
        self._buffer += chunk
        return bool(chunk)

    def _take(self, found: int, end_line: int, sentinel: str) -> list[bytes]:
        head = bytes(self._buffer[:found])
        block = bytes(self._buffer[found + 1 : end_line]).split(b"\n")
        del self._buffer[: end_line + 1]
        lines = head.split(b"\n")
        begin = Guard.parse(lines[-1])
        end = Guard.parse(block[1]) if len(block) == 2 else None
        if begin is None or end is None or block[0] != sentinel.encode() or not end.closes(begin):
            self._stop()
            raise TransportBroken("the request's closing block is malformed")
        return lines


def _release(version: str) -> tuple[int, int]:
    """``(3, 3)`` for ``3.3a`` or ``next-3.8``; a build without a release number
    (``master``) counts as new, OpenBSD's base tmux (``openbsd-7.4``, numbered by
    OpenBSD's release) as old: the capture route works on any release."""
    if version.startswith("openbsd-"):  # OpenBSD's own release number, not tmux's
        return (0, 0)
    found = re.search(r"(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2])) if found else (99, 0)


@dataclass(frozen=True, slots=True)
class _Saved:
    """Where a capture's output is: ``path``, written by the list's segment ``at``."""

    path: str
    at: int


class _NotSaved(Exception):
    """The server could not write a capture's file."""


def _saved_lines(path: str) -> list[bytes]:
    """The lines a capture saved to ``path``; ``_NotSaved`` if it is not there."""
    try:
        with open(path, "rb") as saved:
            data = saved.read()
    except OSError as exc:
        # tmux reports a failed save-buffer after its block, as a bare line.
        raise _NotSaved(f"{path}: {exc.strerror}") from None
    lines = data.split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def _joined(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""
