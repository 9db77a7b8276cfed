"""MCP over stdio on the event loop itself, without a thread per line.

The MCP SDK's stdio transport reads and writes through ``anyio.wrap_file``:
every line read, every write and every flush is a trip to a worker thread,
about a third of a millisecond of hand-offs per request on a small machine.
Here the wire descriptors are asyncio pipes instead; the SDK's own
``stdio_server`` still frames and parses the messages (it accepts explicit
streams). As the SDK does, descriptors 0 and 1 are pointed away from the
wire while serving (stdin at the null device, stdout at stderr), so a child
process or a stray print can never write into the protocol stream.

When stdin or stdout is not a pipe, socket or terminal (a regular file),
asyncio cannot poll it and the SDK's transport is used unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Iterator
from typing import Any

from fastmcp import FastMCP
from mcp.server.stdio import stdio_server

from gridmux._direct import DirectCalls, direct_calls

_POLLABLE = (stat.S_ISFIFO, stat.S_ISSOCK, stat.S_ISCHR)


def pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return any(test(mode) for test in _POLLABLE)


class LineReader:
    """``async for line in reader``: text lines from a pipe, as the SDK expects.

    Lines the direct path answers (``_direct``) are not passed on.
    """

    def __init__(self, reader: asyncio.StreamReader, direct: DirectCalls | None = None) -> None:
        self._reader = reader
        self._direct = direct

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._reader.readline()
            if not line:
                raise StopAsyncIteration
            if self._direct is None:
                return line.decode("utf-8", errors="replace")
            await self._direct.prepare(line)
            if not self._direct.inbound(line):
                return line.decode("utf-8", errors="replace")


class LineWriter:
    """``await write(text)`` / ``await flush()`` on a pipe, as the SDK expects.

    The direct path sees what the SDK writes until the handshake is done.
    """

    def __init__(self, writer: asyncio.StreamWriter, direct: DirectCalls | None = None) -> None:
        self._writer = writer
        self._direct = direct

    async def write(self, text: str) -> None:
        if self._direct is not None and not self._direct.ready:
            self._direct.outbound(text)
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@contextlib.contextmanager
def wire_descriptors() -> Iterator[tuple[int, int]]:
    """Private duplicates of fds 0 and 1; meanwhile 0 reads null and 1 writes to stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        os.close(null)
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


async def serve_stdio(mcp: FastMCP, *, direct: bool = True) -> None:
    """Run ``mcp`` over stdin/stdout with asyncio pipes (see the module docstring).

    With ``direct``, plain tool calls take the direct path (``_direct``).
    """
    from fastmcp.server.context import reset_transport, set_transport  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    with wire_descriptors() as (wire_in, wire_out):
        reader = asyncio.StreamReader(limit=1 << 26, loop=loop)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop),
            os.fdopen(wire_in, "rb", buffering=0),
        )
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
        )
        # flush() (drain) then returns only once every byte reached the pipe.
        transport.set_write_buffer_limits(high=0)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        token = set_transport("stdio")
        calls: DirectCalls | None = None
        try:
            low_level: Any = mcp._mcp_server
            async with mcp._lifespan_manager():
                calls = direct_calls(mcp, writer) if direct else None
                async with stdio_server(
                    stdin=LineReader(reader, calls),  # type: ignore[arg-type]
                    stdout=LineWriter(writer, calls),  # type: ignore[arg-type]
                ) as (read_stream, write_stream):
                    await low_level.run(
                        read_stream, write_stream, low_level.create_initialization_options()
                    )
                if calls is not None:
                    await calls.finish()
        finally:
            if calls is not None:
                calls.cancel_all()
            reset_transport(token)
            transport.close()
            read_transport.close()


def run_stdio(mcp: FastMCP, *, direct: bool = True) -> None:
    """Serve over stdio: asyncio pipes when both ends are pollable, else the SDK's way."""
    usable = pollable(0) and pollable(1) and hasattr(mcp, "_lifespan_manager")
    if not usable:
        mcp.run(transport="stdio", show_banner=False)
        return
    asyncio.run(serve_stdio(mcp, direct=direct))
