"""Server tools: list_servers, get_server_info, kill_server.

Discovery walks ``tmux-<uid>/`` in ``$TMUX_TMPDIR`` or ``/tmp`` -- where tmux
puts the sockets of ``tmux -L NAME`` servers (``backend.socket_directory``,
tmux's own rule) -- and knocks on each socket with a
plain ``connect()`` before spending a tmux process on it: that directory
collects stale sockets of servers long gone, and a refused connect costs
microseconds. Every server reported carries the ``socket_path`` (and, in
that directory, the ``socket_name``) other tools take to address it.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
from typing import Annotated

from pydantic import Field

from gridmux.backend import ServerInfo as BackendServer
from gridmux.backend import ServerRef, default_socket_path, socket_directory
from gridmux.errors import GridmuxError, NotFound
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._models import ServerInfo
from ._params import ExtraSocketPath, SocketName, SocketPath

_log = logging.getLogger(__name__)
_CONNECT_TIMEOUT = 0.1
_MAX_EXTRA_PATHS = 64


def accepts_connections(path: str) -> bool:
    """Whether something listens on the UNIX socket at ``path`` (no tmux spawned)."""
    try:
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            return False
    except OSError:
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(_CONNECT_TIMEOUT)
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


def server_result(info: BackendServer, *, socket_name: str | None = None) -> ServerInfo:
    return ServerInfo(
        is_alive=info.is_alive,
        socket_name=socket_name if socket_name is not None else info.socket_name,
        socket_path=info.socket_path,
        session_count=info.session_count,
        version=info.version,
    )


def probe(ctx: ToolContext, path: str, socket_name: str | None) -> ServerInfo | None:
    if not accepts_connections(path):
        return None
    try:
        info = ctx.backend.server_info(ServerRef(socket_path=path))
    except GridmuxError as exc:
        _log.debug("list_servers: %s answers but not as tmux: %s", path, exc)
        return None
    return server_result(info, socket_name=socket_name) if info.is_alive else None


@tool("List tmux Servers")
async def list_servers(
    extra_socket_paths: Annotated[
        list[ExtraSocketPath] | None,
        Field(
            max_length=_MAX_EXTRA_PATHS,
            description=(
                "Absolute socket paths to probe as well (servers started with tmux -S "
                "elsewhere); paths where no server answers are left out."
            ),
        ),
    ] = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> list[ServerInfo]:
    """Find the tmux servers running for this user; pass a server's socket_path (or socket_name) to
    the other tools to work on it.

    Use when you do not know which server (socket) holds the sessions you
    need. Scans tmux's socket directory, then the extra paths given.
    Address a server found here by passing its socket_path (or its
    socket_name) to the other tools. A gridmux confined to one server
    lists only that one and refuses extra paths naming another.
    """
    extras = list(extra_socket_paths or [])

    def discover() -> list[ServerInfo]:
        if ctx.confined:  # the one server this gridmux may use
            for path in extras:  # another server is refused, as in every other tool;
                # the configured one's path is only probed, like any extra path
                ctx.server(socket_path=path, check_file=False)
            name = ctx.settings.socket_name
            path = default_socket_path(ServerRef(name, ctx.settings.socket_path))
            info = probe(ctx, path, None if ctx.settings.socket_path else name)
            return [info] if info is not None else []
        directory = socket_directory()
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            names = []
        found: list[ServerInfo] = []
        seen: set[str] = set()
        for name in names:
            path = os.path.join(directory, name)
            seen.add(os.path.realpath(path))
            info = probe(ctx, path, name)
            if info is not None:
                found.append(info)
        for path in extras:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            in_directory = os.path.dirname(real) == os.path.realpath(directory)
            info = probe(ctx, path, os.path.basename(real) if in_directory else None)
            if info is not None:
                found.append(info)
        return found

    return await ctx.call(discover)


@tool("Get tmux Server Info")
async def get_server_info(
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> ServerInfo:
    """Describe a tmux server: alive or not (is_alive=false, not an error), its socket, session
    count, version.

    Use to check a server is running before working on it. A server that
    is not running is reported with is_alive false, not as an error.
    """
    server = ctx.server(socket_name, socket_path)
    return server_result(await ctx.call(lambda: ctx.backend.server_info(server)))


@tool("Kill tmux Server")
async def kill_server(
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Kill a tmux server you own and everything on it (one already gone is success); kill_session
    removes one session.

    Use only to tear down a whole server you own; kill_session removes a
    single session. Refused when this MCP server itself runs in a pane of
    that server. A server already gone is success, said so.
    """
    server = ctx.server(socket_name, socket_path)

    def kill() -> str:
        info = ctx.backend.server_info(server)
        gone = f"No tmux server runs on {info.socket_path}: it is already gone, nothing to kill."
        if not info.is_alive:
            return gone
        try:
            panes = ctx.backend.list_panes(server)
            ctx.protect_caller(server, [p.pane_id for p in panes], "kill the tmux server")
            ctx.backend.kill_server(server)
        except NotFound:  # it exited between the look and the kill: the same outcome
            if ctx.backend.server_info(server).is_alive:
                raise
            return gone
        return f"Server killed: {info.socket_path}"

    return await ctx.call(kill)


#: This module's tools, in the order clients list them.
TOOLS = (
    list_servers,
    get_server_info,
    kill_server,
)


__all__ = [
    "TOOLS",
    "accepts_connections",
    "get_server_info",
    "kill_server",
    "list_servers",
    "server_result",
]
