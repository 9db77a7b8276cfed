"""A gate in front of the stdio transport: every line gets an answer.

The MCP SDK's stdio transport drops a line it cannot read as a JSON-RPC
message (not JSON, nested deeper than its parser allows, a request with a
malformed id, method or params, a batch): the client waits forever for the
answer. JSON-RPC 2.0 wants a reply: ``-32700`` (parse error) or ``-32600``
(invalid request), with the request's id when one can be read, else null.

The gate sits between the process's real descriptors 0 and 1 and FastMCP's
own stdio transport, which is started as usual through ``FastMCP.run``:
descriptors 0 and 1 become pipes, a reader thread passes each well-formed
line on and answers each malformed one itself, and a writer thread copies
FastMCP's output to the real stdout, one whole line at a time, under the same
lock as the gate's own answers, so the two never interleave. A response to
nothing (``{"id": 5, "result": ...}`` with no request 5) is passed on
unanswered, as the spec says.
"""

from __future__ import annotations

import json
import os
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO

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
    def __init__(self, real_in: int, real_out: int, to_server: int, from_server: int) -> None:
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._out: BinaryIO = os.fdopen(real_out, "wb", buffering=0)
        self._in: BinaryIO = os.fdopen(real_in, "rb")
        self._to_server: BinaryIO = os.fdopen(to_server, "wb", buffering=0)
        self._from_server: BinaryIO = os.fdopen(from_server, "rb")
        self.threads = [
            threading.Thread(target=self._guard, name="gridmux-stdio-in", daemon=True),
            threading.Thread(target=self._copy_out, name="gridmux-stdio-out", daemon=True),
        ]

    def _write_out(self, data: bytes) -> None:
        with self._lock, suppress(OSError):  # OSError: the client is gone
            _write_all(self._out, data)

    def _guard(self) -> None:
        try:
            for line in self._in:
                answer = check_line(line)
                if answer is not None:
                    self._write_out(answer)
                    continue
                try:
                    _write_all(self._to_server, line)
                except OSError:
                    return  # the server has stopped reading
        finally:
            self._to_server.close()  # end of input reaches the server as end of file

    def _copy_out(self) -> None:
        """Copy whole lines until the server's end of output, or ``close`` and no more.

        End of file may never come: a copy of the pipe's write end can outlive the
        server's descriptor 1 (the SDK's stdout wrapper); so once the server has
        returned, what is in the pipe is copied and the thread stops.
        """
        fd = self._from_server.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        pending = b""
        while True:
            if not poller.poll(0 if self._closing.is_set() else 100):
                if self._closing.is_set():
                    break
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            if lines:
                self._write_out(b"".join(line + b"\n" for line in lines))
        if pending:
            self._write_out(pending)

    def close(self, timeout: float) -> None:
        """The server has returned: copy what it wrote, then stop the writer."""
        self._closing.set()
        self.threads[1].join(timeout=timeout)

    def start(self) -> None:
        for thread in self.threads:
            thread.start()


@contextmanager
def gated_stdio() -> Iterator[None]:
    """While inside, descriptors 0 and 1 are pipes through the gate."""
    real_in, real_out = os.dup(0), os.dup(1)
    server_in, to_server = os.pipe()
    from_server, server_out = os.pipe()
    os.dup2(server_in, 0)
    os.dup2(server_out, 1)
    os.close(server_in)
    os.close(server_out)
    gate = _Gate(real_in, real_out, to_server, from_server)
    gate.start()
    try:
        yield
    finally:
        # Descriptor 1 back on the real stdout; the writer copies what is left
        # and stops; 0 back on the real stdin.
        os.dup2(real_out, 1)
        gate.close(timeout=5)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)


__all__ = ["INVALID_REQUEST", "PARSE_ERROR", "check_line", "gated_stdio"]
