"""HTTP connections that do not send a request head in time are closed.

Over real loopback HTTP (``gridmux --transport http``, started by the test):
a silent connection and one that sent half a request are dropped once
``GRIDMUX_HTTP_HEADER_TIMEOUT`` (1 s here) passes, never before; a
keep-alive connection gets the bound afresh for each request.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from gridmux import Settings
from tests.unit.test_http_auth import Server

TIMEOUT = 1.0
#: How long a test waits for the server to close a connection: far above TIMEOUT.
PATIENCE = 30.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "log", GRIDMUX_HTTP_HEADER_TIMEOUT=str(TIMEOUT))
    try:
        yield running
    finally:
        running.stop()


def seconds_until_closed(port: int, sent: bytes) -> float:
    """Connect, send ``sent``, and time how long the server keeps the connection open."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as conn:
        started = time.monotonic()
        conn.sendall(sent)
        received = b""
        try:
            while chunk := conn.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
        assert received == b"", received  # dropped, not answered
        return time.monotonic() - started


async def serves(server: Server) -> None:
    """A whole MCP session over HTTP still works."""
    url = f"http://127.0.0.1:{server.port}/mcp"
    async with Client(StreamableHttpTransport(url, auth=server.announced)) as client:
        sessions = (await client.call_tool("list_sessions", {})).structured_content
    assert sessions == {"result": []}


@pytest.mark.parametrize(
    "sent",
    [b"", b"POS", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"],
    ids=["silent", "partial-request-line", "partial-headers"],
)
async def test_a_connection_without_a_whole_request_head_is_closed(
    server: Server, sent: bytes
) -> None:
    elapsed = seconds_until_closed(server.port, sent)
    assert TIMEOUT * 0.9 <= elapsed < PATIENCE
    await serves(server)


def test_keep_alive_connections_get_the_bound_per_request(server: Server) -> None:
    # Idle between requests for longer than the bound (within uvicorn's 5 s
    # keep-alive), the connection still takes a whole request; half a request
    # is then dropped, with the clock started at its first byte.
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=PATIENCE)
    try:
        connection.request("GET", "/mcp")
        assert connection.getresponse().read() is not None
        sock = connection.sock
        time.sleep(TIMEOUT * 1.5)  # deliberately idle past the bound
        connection.request("GET", "/mcp")
        response = connection.getresponse()
        response.read()
        assert response.status == 401  # answered, on the same connection
        assert connection.sock is sock
        time.sleep(TIMEOUT * 1.5)
        started = time.monotonic()
        sock.sendall(b"GET /mcp HTTP/1.1\r\n")
        assert sock.recv(4096) == b""
        assert TIMEOUT * 0.9 <= time.monotonic() - started < PATIENCE
    finally:
        connection.close()


def test_the_default_header_timeout_is_ten_seconds() -> None:
    assert Settings().http_header_timeout == 10.0
    with pytest.raises(ValueError, match="http_header_timeout"):
        Settings(http_header_timeout=0)
