"""A pane program that writes exactly what a test sends and proves tmux parsed it.

Run inside a tmux pane as ``python -I -S pane_driver.py SOCKET LOG`` (see
``DriverListener.command``). It never prints anything on its own, so the pane
starts blank with the cursor at (0,0), and it never echoes: nothing but the
terminal's replies ever arrives on its tty, and the tty is put in raw, no-echo
mode for input while output keeps ``OPOST|ONLCR``, so ``\\n`` reaches tmux as
``\\r\\n`` exactly like any program's output.

The barrier. The driver connects to the test's Unix socket and sends a hello
(its ``$TMUX_PANE``). Then, for every payload the test sends, it

1. writes the payload to stdout (the pty);
2. writes the cursor position report query ``ESC[6n`` (DSR);
3. reads the terminal's answer ``ESC[row;colR`` from stdin;
4. sends that answer back to the test as the acknowledgement.

tmux parses a pane's output in order and answers the DSR from inside its
parser (``input.c``), so the answer exists only once every byte written
before the query has been applied to the grid. Nothing is written after the
query until the answer has come back, so when the test holds the
acknowledgement the grid reflects exactly the payloads sent so far and
stays that way until the next payload: there is no race and no sleep. (The
payload must not end inside an escape sequence or a UTF-8 character, or the
query would be swallowed by it; the acknowledgement would then time out.)

Frames on the socket, both ways: a 4-byte big-endian length, then the bytes.
A payload that starts with a NUL byte is a command instead (``PaneDriver.exit``):
``\0exit N`` ends the driver with exit status N, ``\0kill N`` with signal N.

This file is both the driver (``__main__``, standard library only, so it runs
under ``-I -S``) and the test-side API (``DriverListener``, ``PaneDriver``).
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import struct
import sys
import termios
import time
from pathlib import Path

_HEADER = struct.Struct(">I")
_REPLY = re.compile(rb"\x1b\[(\d+);(\d+)R")
_DSR = b"\x1b[6n"
_COMMAND = b"\x00"


class DriverError(AssertionError):
    """The driver did not answer in time, or went away."""


# -- framing -------------------------------------------------------------------


def _send_frame(conn: socket.socket, data: bytes) -> None:
    conn.sendall(_HEADER.pack(len(data)) + data)


def _recv_exact(conn: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer within the deadline ({size - remaining}/{size})")
            conn.settimeout(left)
        chunk = conn.recv(min(remaining, 65536))
        if not chunk:
            raise EOFError(f"connection closed ({size - remaining}/{size} bytes read)")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _recv_frame(conn: socket.socket, deadline: float | None) -> bytes:
    (size,) = _HEADER.unpack(_recv_exact(conn, _HEADER.size, deadline))
    return _recv_exact(conn, size, deadline)


# -- test side -----------------------------------------------------------------


class PaneDriver:
    """The test's end of one running driver (one pane)."""

    def __init__(self, conn: socket.socket, pane_id: str, log_path: Path) -> None:
        self._conn = conn
        self.pane_id = pane_id
        self._log_path = log_path

    def write(self, data: bytes, timeout: float = 10.0) -> tuple[int, int]:
        """Have the pane's program write ``data``; return once tmux has parsed it.

        Returns the cursor tmux reported for the DSR that followed ``data``
        (0-based ``(x, y)``, as the CPR gives it; tmux clamps a pending-wrap
        column in it).
        """
        deadline = time.monotonic() + timeout
        try:
            self._conn.settimeout(timeout)
            _send_frame(self._conn, data)
            reply = _recv_frame(self._conn, deadline)
        except (OSError, EOFError) as exc:  # TimeoutError is an OSError
            raise DriverError(
                f"pane {self.pane_id}: no acknowledgement for {len(data)} bytes "
                f"within {timeout:g}s ({exc}); driver log: {self.log_tail()!r}"
            ) from exc
        match = _REPLY.fullmatch(reply)
        if match is None:
            raise DriverError(f"pane {self.pane_id}: bad acknowledgement {reply!r}")
        return int(match.group(2)) - 1, int(match.group(1)) - 1

    def exit(self, status: int = 0, *, signal: int | None = None) -> None:
        """End the driver's process with ``status`` (or kill it with ``signal``).

        Nothing comes back: the test waits for tmux to see the pane die."""
        command = f"kill {signal}" if signal is not None else f"exit {status}"
        try:
            _send_frame(self._conn, _COMMAND + command.encode())
        except OSError as exc:
            raise DriverError(f"pane {self.pane_id}: cannot send {command!r} ({exc})") from exc
        self._conn.close()

    def log_tail(self) -> str:
        try:
            return self._log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def close(self) -> None:
        """Close the connection; the driver sees end-of-file and exits."""
        self._conn.close()


class DriverListener:
    """A Unix socket the drivers of one test connect to, one per pane."""

    def __init__(self, directory: Path) -> None:
        self.socket_path = directory / "driver.sock"
        self.log_path = directory / "driver.log"
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.bind(str(self.socket_path))
            self._sock.listen(4)
        except OSError:
            self._sock.close()
            raise

    @property
    def command(self) -> str:
        """The pane command (``new-session`` runs it through ``sh -c``)."""
        argv = [sys.executable, "-I", "-S", __file__, str(self.socket_path), str(self.log_path)]
        return "exec " + shlex.join(argv)

    def accept(self, pane_id: str, timeout: float = 10.0) -> PaneDriver:
        """The driver that started in ``pane_id``; DriverError if none says hello in time."""
        deadline = time.monotonic() + timeout
        self._sock.settimeout(timeout)
        try:
            conn, _ = self._sock.accept()
        except TimeoutError as exc:
            raise DriverError(
                f"no driver connected within {timeout:g}s for pane {pane_id}; "
                f"driver log: {self._log_tail()!r}"
            ) from exc
        try:
            hello = _recv_frame(conn, deadline).decode()
        except (OSError, EOFError) as exc:
            conn.close()
            raise DriverError(f"the driver for {pane_id} sent no hello ({exc})") from exc
        if hello != pane_id:
            conn.close()
            raise DriverError(f"expected the driver of {pane_id}, got one from {hello!r}")
        return PaneDriver(conn, pane_id, self.log_path)

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def close(self) -> None:
        self._sock.close()
        self.socket_path.unlink(missing_ok=True)


# -- driver side (runs in the pane) ---------------------------------------------


def _raw_input_keep_output(fd: int) -> None:
    """Input raw and silent (no echo, no line editing, no signals); output ONLCR only."""
    iflag, _oflag, cflag, lflag, ispeed, ospeed, cc = termios.tcgetattr(fd)
    iflag &= ~(
        termios.BRKINT
        | termios.ICRNL
        | termios.INLCR
        | termios.IGNCR
        | termios.INPCK
        | termios.ISTRIP
        | termios.IXON
    )
    lflag &= ~(termios.ECHO | termios.ECHONL | termios.ICANON | termios.ISIG | termios.IEXTEN)
    oflag = termios.OPOST | termios.ONLCR  # and nothing else: no tab expansion, no CR mapping
    cc[termios.VMIN] = 1
    cc[termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, [iflag, oflag, cflag, lflag, ispeed, ospeed, cc])


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_reply(fd: int) -> bytes:
    pending = b""
    while True:
        chunk = os.read(fd, 256)
        if not chunk:
            raise EOFError("the tty closed while waiting for the cursor report")
        pending += chunk
        match = _REPLY.search(pending)
        if match is not None:
            return match.group(0)


def main(socket_path: str, log_path: str) -> int:
    # Anything the driver itself might print (a traceback) goes to the log,
    # never to the pane.
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)
    os.close(log)
    _raw_input_keep_output(0)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(socket_path)
    _send_frame(conn, os.environ.get("TMUX_PANE", "?").encode())
    while True:
        try:
            payload = _recv_frame(conn, None)
        except EOFError:
            return 0
        if payload.startswith(_COMMAND):
            verb, _, number = payload[1:].decode().partition(" ")
            if verb == "kill":
                os.kill(os.getpid(), int(number))
            return int(number)
        _write_all(1, payload + _DSR)
        _send_frame(conn, _read_reply(0))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
