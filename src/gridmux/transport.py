"""Running the server: MCP over stdio, or streamable HTTP on a loopback address.

Both are FastMCP's own transports, started through its public ``run``; gridmux
has no MCP framing of its own. Over stdio the MCP SDK points descriptors 0
and 1 away from the wire while serving, so a child process or a stray print
cannot write into the protocol stream. In front of it, a gate
(:mod:`gridmux._stdio_gate`) answers each line the SDK would drop unanswered
(not JSON, nested too deep, not a JSON-RPC message) with a JSON-RPC error.

Over HTTP the socket is bound here, before the server starts, so that port 0
can pick a free port and the address actually served can be announced on
stderr (stdout stays untouched on every transport). The socket is already
listening when the address is printed: a client that connects at once waits
in the backlog instead of being refused. Requests must name a loopback Host
(and Origin, when a browser sends one), which keeps web pages out, and carry
the bearer token (:mod:`gridmux.http_auth`), which keeps other local
processes and users out.
"""

from __future__ import annotations

import ipaddress
import socket
import sys

from fastmcp import FastMCP

from gridmux._stdio_gate import gated_stdio
from gridmux.http_auth import BearerToken
from gridmux.settings import Settings, is_loopback

#: Where the streamable HTTP endpoint lives.
HTTP_PATH = "/mcp"


def serve(mcp: FastMCP, settings: Settings) -> None:
    """Serve ``mcp`` on the transport the settings name, until stopped."""
    if settings.transport == "stdio":
        with gated_stdio():  # every malformed line is answered, see _stdio_gate
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
    )


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


__all__ = ["HTTP_PATH", "bind_loopback", "serve"]
