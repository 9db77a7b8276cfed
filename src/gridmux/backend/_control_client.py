"""A persistent tmux control-mode client: tmux commands without a process each.

One ``tmux -C attach-session -f no-output,ignore-size`` client per tmux
server carries the backend's commands. ``no-output`` is set at attach time
(turning it on later can stall tmux before 3.7 when pane output is queued),
``ignore-size`` keeps the client out of every window-size calculation, and
the client never sets a size of its own, so nothing users see changes.

A request is one command line (the command list, kept atomic) plus a sentinel
line; ``_control_syntax`` builds them and splits the reply. Requests are
serialized by a lock: tmux runs one client's lines in order anyway. The list
goes as groups of commands, a marker between groups (``request_groups``:
what each group printed); ``request`` gives each command a group of its own
and joins the output. Nothing here depends on which commands they are: what
one release of tmux needs done differently (captures before 3.6,
``_capture_route``) its caller does with these two.

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
import secrets
import select
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ._commands import Command
from ._control_syntax import (
    Guard,
    ProtocolError,
    Segment,
    find_token_block,
    parse_segment,
    request_lines,
)
from ._spawn import reap, spawn
from ._transport import Completed, NotCarried, TransportBroken, TransportTimeout

_READ_SIZE = 1 << 16
#: Longer lines go as a subprocess (argv has room; a control line is buffered whole).
MAX_LINE_BYTES = 1 << 18
#: After a failed attach, wait this long before trying again (unless told to).
RETRY_AFTER = 1.0
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
        #: written by ``shutdown`` to wake a request: a stopped tmux server holds
        #: the client's pipes (tmux passes them over), so killing it ends no read
        self._wake_read, self._wake_write = os.pipe()
        weakref.finalize(self, _close_fds, self._wake_read, self._wake_write)
        self._buffer = bytearray()
        self._prefix = "gmx" + secrets.token_hex(12)
        self._serial = itertools.count(1)  # next() is atomic: tokens never repeat
        self._own_flags = b"1"
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self.disabled = False
        #: the attached server's ``#{version}``, learnt at each attach
        self._version = ""

    # -- lifecycle -----------------------------------------------------------
    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def allow_retry(self) -> None:
        """Let the next request try to attach at once (a session now exists)."""
        self._retry_at = 0.0

    def close(self) -> None:
        """Stop the client, without waiting: one a request holds is killed, and
        that request sees its output end and reaps it."""
        if self._lock.acquire(blocking=False):
            try:
                self._stop()
            finally:
                self._lock.release()
            return
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()

    def shutdown(self) -> None:
        """Attach no more, and stop the client (``close``) even mid-request."""
        self.disabled = True
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        self.close()

    @contextmanager
    def _held(self, deadline: float) -> Iterator[None]:
        """The client's lock, waited for no later than ``deadline`` (``TransportTimeout``)."""
        if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise TransportTimeout(f"no answer within {self._timeout:g}s (tmux is busy)")
        try:
            yield
        finally:
            self._lock.release()

    def server_version(self) -> str:
        """The ``#{version}`` of the server this client is attached to (attaching
        if it is not); ``NotCarried`` when no client can attach."""
        deadline = time.monotonic() + self._timeout
        with self._held(deadline):
            if not self._ready(deadline):
                raise NotCarried("no control client is attached")
            return self._version

    def _ready(self, deadline: float) -> bool:
        """A live, attached client: the one there is, or a new one (call holding the lock)."""
        proc = self._proc
        if proc is not None and proc.poll() is None and b"%exit" not in self._buffer:
            return True
        self._stop()
        return self._connect(deadline)

    def _connect(self, deadline: float) -> bool:
        """Attach a new client by ``deadline``; False when none can attach now.

        ``TransportTimeout`` when tmux does not answer (the session listing or
        the attach): a stopped or spinning server would not answer a one-off
        process either, so the call fails rather than fall back and wait again.
        """
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
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)  # writes wait by deadline
        self._poller = self._polling(self._proc.stdout.fileno(), select.POLLIN)
        self._buffer.clear()
        try:
            attached = self._await_attach(deadline)
        except (TransportTimeout, TransportBroken):  # no answer, or shutdown
            self._stop()
            self._retry_at = time.monotonic() + RETRY_AFTER
            raise
        if not attached:
            text = bytes(self._buffer).decode(errors="replace")
            self.disabled = any(word in text for word in _UNSUPPORTED)
            self._stop()
            self._retry_at = time.monotonic() + RETRY_AFTER
            return False
        return True

    def _await_attach(self, deadline: float) -> bool:
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
            if not self._read_more(deadline):
                return False
        token = self._token()
        lines = self._exchange(f"display-message -p {token}\n".encode(), token, deadline)
        if lines is None:
            return False
        begin = Guard.parse(lines[-1])
        self._own_flags = begin.flags if begin is not None else b"1"
        sentinel = self._token()
        shown = self._exchange(
            request_lines([[["display-message", "-p", "#{version}"]]], [], sentinel),
            sentinel,
            deadline,
        )
        if shown is None:
            return False
        try:
            version = joined(self._reply(shown[:-1], []))
        except TransportBroken:
            return False
        self._version = version.stdout.decode(errors="replace").strip()
        return True

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            reap(proc)

    def _token(self) -> str:
        return f"{self._prefix}x{next(self._serial)}"

    # -- requests --------------------------------------------------------------
    def request(self, commands: Sequence[Command]) -> Completed:
        """Run ``commands`` as one list; ``NotCarried`` when tmux did not run them."""
        return joined(self.request_groups([[command] for command in commands]))

    def request_groups(self, groups: Sequence[Sequence[Command]]) -> list[Segment]:
        """Run the groups as one list, a marker between groups: what each printed.

        One segment per group, but fewer when a command failed: the list stops
        there, and the last segment holds tmux's error. ``NotCarried`` when
        tmux did not run the list.
        """
        deadline = time.monotonic() + self._timeout
        with self._held(deadline):
            # A client found dead is replaced once; if the new one cannot
            # take the line either, the runner tries the next transport.
            for _attempt in range(2):
                if not self._ready(deadline):
                    raise NotCarried("no control client is attached")
                markers = [self._token() for _ in groups[1:]]
                sentinel = self._token()
                data = request_lines(groups, markers, sentinel)
                if len(data) > MAX_LINE_BYTES:
                    raise NotCarried(f"a command line over {MAX_LINE_BYTES} bytes")
                try:
                    lines = self._exchange(data, sentinel, deadline)
                except (TransportTimeout, TransportBroken):  # no answer, or shutdown
                    self._stop()
                    raise
                if lines is not None:
                    return self._reply(lines[:-1], markers)
                reply = self._lost(markers, groups)
                if reply is not None:
                    return reply
            raise NotCarried("the control client ended before running the line")

    def _lost(
        self, markers: list[str], groups: Sequence[Sequence[Command]]
    ) -> list[Segment] | None:
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
            return self._parsed(lines, markers)
        except ProtocolError:
            names = " ; ".join(command[0] for group in groups for command in group)
            raise TransportBroken(
                f"the tmux control client ended while running {names}; it may have run in part"
            ) from None

    def _reply(self, lines: list[bytes], markers: list[str]) -> list[Segment]:
        """The answer of a request whose sentinel came back (the client stays)."""
        try:
            return self._parsed(lines, markers)
        except ProtocolError as exc:
            self._stop()
            raise TransportBroken(str(exc)) from exc

    def _parsed(self, lines: list[bytes], markers: list[str]) -> list[Segment]:
        """Split the reply by its markers into one segment per group that ran."""
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
        failed = any(segment.error is not None for segment in segments)
        if not failed and len(segments) != len(markers) + 1:
            raise ProtocolError("a command list stopped without an error")
        return segments

    def _exchange(self, data: bytes, sentinel: str, deadline: float) -> list[bytes] | None:
        """Write ``data``; read through the sentinel's block (``_await``)."""
        self._write(data, deadline)
        return self._await(sentinel, deadline)

    def _write(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to the client by ``deadline`` (a stopped client
        reads nothing, and a full pipe would block a plain write for good)."""
        proc = self._proc
        assert proc is not None
        assert proc.stdin is not None
        fd = proc.stdin.fileno()
        writable = self._polling(fd, select.POLLOUT)
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                pass
            except OSError:
                return  # the client is gone: the read sees the end of its output
            if view:
                self._wait(writable, deadline)

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
        self._wait(self._poller, deadline)
        chunk = os.read(fd, _READ_SIZE)
        self._buffer += chunk
        return bool(chunk)

    def _polling(self, fd: int, event: int) -> select.poll:
        """A poller for ``event`` on ``fd``, woken by ``shutdown`` too."""
        poller = select.poll()
        poller.register(fd, event)
        poller.register(self._wake_read, select.POLLIN)
        return poller

    def _wait(self, poller: select.poll, deadline: float) -> None:
        """Until ``poller``'s descriptor is ready: ``TransportTimeout`` at ``deadline``,
        ``TransportBroken`` when ``shutdown`` wakes it."""
        remaining = deadline - time.monotonic()
        ready = poller.poll(max(1, math.ceil(remaining * 1000))) if remaining > 0 else []
        if any(fd == self._wake_read for fd, _ in ready):
            raise TransportBroken("gridmux is shutting down; the request may have run")
        if not ready:
            raise TransportTimeout(f"no answer within {self._timeout:g}s")

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


def _close_fds(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def joined(segments: Sequence[Segment]) -> Completed:
    """The list's answer: the output of each segment, up to tmux's error if any."""
    output: list[bytes] = []
    for segment in segments:
        output += segment.output
        if segment.error is not None:
            # tmux's message when a command failed (the rest did not run)
            message = b"\n".join(segment.error).decode("utf-8", errors="replace")
            return Completed(stdout=_text(output), stderr=message, status=1)
    return Completed(stdout=_text(output))


def _text(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""
