"""Running the server: MCP over stdio, or streamable HTTP on a loopback address.

Both are FastMCP's own transports, started through its public ``run``; gridmux
has no MCP framing of its own. Over stdio a gate (:mod:`gridmux._stdio_gate`)
holds the wire: it answers each line the SDK would drop unanswered (not
JSON, nested too deep, not a JSON-RPC message) with a JSON-RPC error, inside
the SDK's own reader and writer threads, and points descriptors 0 and 1 away
from the wire while serving, so a child process or a stray print cannot
write into the protocol stream.

Over HTTP the socket is bound here, before the server starts, so that port 0
can pick a free port and the address actually served can be announced on
stderr (stdout stays untouched on every transport). The socket is already
listening when the address is printed: a client that connects at once waits
in the backlog instead of being refused. Requests must name a loopback Host
(and Origin, when a browser sends one), which keeps web pages out, and carry
the bearer token (:mod:`gridmux.http_auth`), which keeps other local
processes and users out. A connection that has not sent a whole request head
(request line and headers) within ``http_header_timeout`` seconds is closed
(:func:`header_timeout_protocol`): uvicorn alone would keep a silent or
half-sent connection open forever, and enough of them exhaust the process's
file descriptors.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import sys
from collections.abc import Callable

import h11
from fastmcp import FastMCP
from uvicorn.protocols.http.h11_impl import H11Protocol

from gridmux._stdio_gate import gated_stdio
from gridmux.http_auth import BearerToken
from gridmux.settings import Settings, is_loopback

#: Where the streamable HTTP endpoint lives.
HTTP_PATH = "/mcp"


def serve(mcp: FastMCP, settings: Settings, on_end: Callable[[], None] = lambda: None) -> None:
    """Serve ``mcp`` on the transport the settings name, until stopped. Over
    stdio ``on_end`` runs as soon as the client's input ends."""
    if settings.transport == "stdio":
        with gated_stdio(on_end):  # every malformed line is answered, see _stdio_gate
            mcp.run(transport="stdio", show_banner=False, log_level="warning")
        return
    sock = bind_loopback(settings.host, settings.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"gridmux: serving MCP at http://{shown}:{port}{HTTP_PATH}", file=sys.stderr, flush=True)
    if isinstance(mcp.auth, BearerToken):
        where = mcp.auth.reveal() if mcp.auth.generated else f"<the token from {mcp.auth.source}>"
        print(f"gridmux: send Authorization: Bearer {where}", file=sys.stderr, flush=True)
    mcp.run(
        transport="http",
        host=host,
        port=port,
        path=HTTP_PATH,
        sockets=[sock],
        # Refuse requests whose Host or Origin is not this machine: a web page
        # must not reach the server through DNS rebinding or a cross-site POST.
        host_origin_protection=True,
        show_banner=False,
        log_level="warning",
        uvicorn_config={"http": header_timeout_protocol(settings.http_header_timeout)},
    )


def header_timeout_protocol(seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request head is late.

    The clock starts when the connection opens and again at the first byte
    of each later request on it; it stops once h11 has parsed the request
    line and headers. A connection still waiting for its head after
    ``seconds`` is closed (the client sees the connection end). Idle
    keep-alive connections are uvicorn's own ``timeout_keep_alive`` (5 s).
    """

    class HeaderTimeoutProtocol(H11Protocol):
        header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.arm_header_timer()

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:
                self.arm_header_timer()  # a new request head begins (or goes on)
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self.stop_header_timer()  # the head is in: the request runs

        def connection_lost(self, exc: Exception | None) -> None:
            self.stop_header_timer()
            super().connection_lost(exc)

        def arm_header_timer(self) -> None:
            if self.header_timer is None:
                self.header_timer = self.loop.call_later(seconds, self.header_overdue)

        def stop_header_timer(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def header_overdue(self) -> None:
            self.header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol


def bind_loopback(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; ``host`` must be a loopback address."""
    if not is_loopback(host):
        raise ValueError(f"refusing to listen on non-loopback address {host!r}")
    address = "127.0.0.1" if host == "localhost" else host.strip("[]")
    family = socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise SystemExit(f"gridmux: cannot listen on {host}:{port}: {exc.strerror}") from exc
    return sock


__all__ = ["HTTP_PATH", "bind_loopback", "header_timeout_protocol", "serve"]
