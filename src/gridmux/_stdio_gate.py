"""A gate in front of the stdio transport: every line gets an answer.

The MCP SDK's stdio transport drops a line it cannot read as a JSON-RPC
message (not JSON, nested deeper than its parser allows, a request with a
malformed id, method or params, a batch): the client waits forever for the
answer. JSON-RPC 2.0 wants a reply: ``-32700`` (parse error) or ``-32600``
(invalid request), with the request's id when one can be read, else null.

The gate sits between the process's real descriptors 0 and 1 and FastMCP's
own stdio transport, which is started as usual through ``FastMCP.run``. The
transport reads ``sys.stdin.buffer`` and writes ``sys.stdout.buffer`` (in
place, as it does for streams that are not descriptors 0 and 1); while the
gate is open those are the gate's: reading passes each well-formed line on
and answers each malformed one itself, and writing sends the server's output
on in whole lines, under the same lock as the gate's own answers, so the two
never interleave. Both run in the transport's own reader and writer threads:
the gate adds no thread and no pipe to a request's path. A response to
nothing (``{"id": 5, "result": ...}`` with no request 5) is passed on
unanswered, as the spec says.

While the gate is open, descriptor 0 reads the null device and descriptor 1
writes to stderr, and ``print`` (text written to ``sys.stdout``) goes to
stderr too, so a child process or a stray print cannot write into the
protocol stream.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import select
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO, TextIO

import mcp_types
import pydantic_core
from pydantic import ValidationError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
#: Characters of a parser's or validator's reason kept in an answer.
_REASON_CHARS = 300


def _error(code: int, message: str, request_id: Any = None) -> bytes:
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return (json.dumps(reply, ensure_ascii=False) + "\n").encode()


def _usable_id(message: Any) -> Any:
    if isinstance(message, dict):
        found = message.get("id")
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


def check_line(line: bytes) -> bytes | None:
    """The error to answer ``line`` with, or None when the SDK can take it."""
    if not line.strip():
        return None  # blank lines are skipped by the transport
    try:
        message = pydantic_core.from_json(line)
    except ValueError as exc:
        reason = str(exc)[:_REASON_CHARS]
        return _error(
            PARSE_ERROR, f"Parse error: the line is not JSON the server can read ({reason})"
        )
    if isinstance(message, list):
        return _error(
            INVALID_REQUEST,
            "Invalid Request: batches (JSON arrays) are not supported; send one message per line",
        )
    try:
        mcp_types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        request_id = _usable_id(message)
        if isinstance(message, dict) and "method" not in message and request_id is not None:
            return None  # a response to nothing: answered by nobody
        errors = exc.errors(include_url=False)
        where = ".".join(str(part) for part in errors[0]["loc"]) if errors else "message"
        what = str(errors[0]["msg"] if errors else "invalid")[:_REASON_CHARS]
        return _error(
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 message MCP accepts "
            f"({where}: {what}); send an object with jsonrpc '2.0', a string or "
            "integer id, a string method and object params",
            request_id,
        )
    if isinstance(message, dict) and "id" in message and _usable_id(message) is None:
        # null, an object, a float ...: the SDK would take it for a notification
        return _error(INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
    return None


def _write_all(out: BinaryIO, data: bytes) -> None:
    """All of ``data``: an unbuffered write may take only part of it."""
    view = memoryview(data)
    while view:
        written: int | None = out.write(view)  # None: see io.RawIOBase.write
        if written is None:  # a non-blocking descriptor that is full: wait for room
            select.select([], [out], [])
            continue
        view = view[written:]


class _Gate:
    """The client's side of the wire: ``real_in`` and ``real_out`` (descriptors)."""

    def __init__(
        self, real_in: int, real_out: int, on_end: Callable[[], None] = lambda: None
    ) -> None:
        self._on_end = on_end
        self._lock = threading.Lock()
        self._in = real_in
        self._out: BinaryIO = os.fdopen(real_out, "wb", buffering=0, closefd=False)
        #: checked lines the transport has not read yet
        self._ready = bytearray()
        #: the client's current line, up to the bytes read so far
        self._line = bytearray()
        self._ended = False
        #: the server's output after its last newline
        self._unsent = bytearray()

    def _write_out(self, data: bytes) -> None:
        with self._lock, suppress(OSError):  # OSError: the client is gone
            _write_all(self._out, data)

    def _take(self, line: bytes) -> None:
        answer = check_line(line)
        if answer is None:
            self._ready += line
        else:
            self._write_out(answer)

    def readinto(self, buffer: Any) -> int:
        """Checked lines for the transport (0: the client's end of input)."""
        while not self._ready and not self._ended:
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                self._ended = True
                self._on_end()  # before the SDK sees the end: pending calls end now
                if self._line:
                    self._take(bytes(self._line))
                break
            scan = len(self._line)
            self._line += chunk
            start = 0
            while (end := self._line.find(b"\n", scan)) >= 0:
                self._take(bytes(self._line[start : end + 1]))
                start = scan = end + 1
            del self._line[:start]
        taken = min(len(buffer), len(self._ready))
        memoryview(buffer)[:taken] = self._ready[:taken]
        del self._ready[:taken]
        return taken

    def write(self, data: bytes) -> None:
        """The server's output, sent on up to its last newline."""
        self._unsent += data
        end = self._unsent.rfind(b"\n") + 1
        if end:
            self._write_out(bytes(self._unsent[:end]))
            del self._unsent[:end]

    def close(self) -> None:
        """The server has returned: send what it wrote after its last newline."""
        if self._unsent:
            self._write_out(bytes(self._unsent))
            self._unsent.clear()


class _GateReader(io.RawIOBase):
    def __init__(self, gate: _Gate) -> None:
        self._gate = gate

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._gate.readinto(buffer)


class _GateWriter(io.RawIOBase):
    def __init__(self, gate: _Gate) -> None:
        self._gate = gate

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._gate.write(bytes(data))
        return len(data)


class _Redirected(io.TextIOWrapper):
    """A standard stream whose ``buffer`` is the gate's (the transport's side), while
    text written or read through it goes where ``text`` does (stderr, the null device)."""

    def __init__(self, binary: io.BufferedReader | io.BufferedWriter, text: TextIO) -> None:
        super().__init__(binary, encoding="utf-8", errors="replace", line_buffering=True)
        self._text = text

    def write(self, text: str, /) -> int:
        return self._text.write(text)

    def read(self, size: int | None = -1, /) -> str:
        return self._text.read(-1 if size is None else size)

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        return self._text.readline(size)

    def flush(self) -> None:
        self._text.flush()


@contextmanager
def gated_stdio(on_end: Callable[[], None] = lambda: None) -> Iterator[None]:
    """While inside, ``sys.stdin.buffer`` and ``sys.stdout.buffer`` are the gate's, and
    descriptors 0 and 1 read the null device and write to stderr. ``on_end`` runs
    (on the reader's thread) when the client's input ends."""
    real_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    real_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    gate = _Gate(real_in, real_out, on_end)
    saved = sys.stdin, sys.stdout
    sys.stdin = _Redirected(io.BufferedReader(_GateReader(gate)), saved[0])
    sys.stdout = _Redirected(io.BufferedWriter(_GateWriter(gate)), saved[1])
    try:
        yield
    finally:
        sys.stdin, sys.stdout = saved
        gate.close()
        # Descriptor 1 back on the wire (0 stays on the null device). Neither copy
        # is closed: the transport's reader thread may still be blocked reading
        # one, and a closed descriptor's number could be reused under it.
        os.dup2(real_out, 1)


__all__ = ["INVALID_REQUEST", "PARSE_ERROR", "check_line", "gated_stdio"]
