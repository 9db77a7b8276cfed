"""Session tools: list, inspect, create, rename and kill sessions.

Also the argument checks every tool that starts a process shares: the
``environment`` argument and its history suppression, and the start
directory.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gridmux.backend import ServerRef
from gridmux.backend import SessionInfo as BackendSession
from gridmux.errors import InvalidArgument, NotFound
from gridmux.safety import acting_tier, tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._filters import apply_filters
from ._models import SessionInfo
from ._params import Filters, NewSessionName, SessionIdArg, SessionNameArg, SocketName, SocketPath
from ._results import session_result
from ._spawn import check_lasting_environment, check_start_directory, parse_environment
from ._targets import check_id, check_name, resolve_session, resolve_target_session


@tool("List tmux Sessions")
async def list_sessions(
    socket_name: SocketName = None,
    filters: Filters = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> list[SessionInfo]:
    """List the sessions on a tmux server (none when it is not running).

    Use to discover what is running before targeting a session or pane.
    A server that is not running has no sessions (an empty list).
    """
    server = ctx.server(socket_name, socket_path)
    sessions = await ctx.call(lambda: ctx.backend.list_sessions(server))
    results = [session_result(s) for s in sessions]
    try:
        keep = apply_filters([r.model_dump() for r in results], filters)
    except InvalidArgument as exc:
        raise tool_error(exc) from exc
    return [results[i] for i in keep]


@tool("Create tmux Session")
async def create_session(
    session_name: Annotated[
        NewSessionName | None,
        Field(description="Name for the session; tmux picks one if omitted."),
    ] = None,
    window_name: Annotated[str | None, Field(description="Name of the first window.")] = None,
    start_directory: Annotated[
        str | None, Field(description="Working directory of the first pane.")
    ] = None,
    x: Annotated[int | None, Field(ge=1, le=10000, description="Width in columns.")] = None,
    y: Annotated[int | None, Field(ge=1, le=10000, description="Height in rows.")] = None,
    environment: Annotated[
        dict[str, str] | str | None,
        Field(description="Environment for the session's processes (object or JSON string)."),
    ] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    suppress_persistent_history: Annotated[
        bool,
        Field(description="Keep shells in this session from writing a history file."),
    ] = False,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> SessionInfo:
    """Create a detached session (starting the server if needed); returns it with its active pane
    id.

    Use to get a fresh terminal to work in. Returns the session with its
    active pane id, ready for send_keys and capture_since.
    """
    server = ctx.server(socket_name, socket_path)
    try:
        directory = check_start_directory(start_directory)
        env = parse_environment(environment, suppress_history=suppress_persistent_history)
        # new-session -e sets the session's environment: later windows inherit it.
        check_lasting_environment(env, acting_tier(ctx.settings.safety))
        if window_name is not None:
            check_name("window_name", window_name)
    except InvalidArgument as exc:
        raise tool_error(exc) from exc
    if session_name is not None:
        existing = await ctx.call(lambda: ctx.backend.list_sessions(server))
        if any(s.session_name == session_name for s in existing):
            raise tool_error(
                InvalidArgument(
                    f"a session named {session_name!r} already exists",
                    hint="Pick another name, or use list_sessions to find the existing one.",
                )
            )
    session = await ctx.call(
        lambda: ctx.backend.new_session(
            server,
            name=session_name,
            window_name=window_name,
            start_directory=directory,
            width=x,
            height=y,
            environment=env or None,
        )
    )
    return session_result(session)


@tool("Get tmux Session Info")
async def get_session_info(
    session_id: SessionIdArg = None,
    session_name: SessionNameArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> SessionInfo:
    """Describe one session: id, name, windows, attached clients, active pane.

    Use instead of list_sessions when you need one session. With no
    session given, a server with a single session describes that one.
    """
    server = ctx.server(socket_name, socket_path)
    session = await ctx.call(
        lambda: resolve_target_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
    )
    return session_result(session)


@tool("Rename tmux Session")
async def rename_session(
    new_name: Annotated[
        NewSessionName, Field(description="The session's new name (no ':' or '.').")
    ],
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> SessionInfo:
    """Give a session a new name; its id, windows and panes stay as they are.

    Use when a session's purpose changed. Ids held elsewhere stay valid.
    """
    server = ctx.server(socket_name, socket_path)

    def rename() -> BackendSession:
        session = resolve_target_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
        sessions = ctx.backend.list_sessions(server)
        if any(s.session_name == new_name and s.session_id != session.session_id for s in sessions):
            raise InvalidArgument(
                f"a session named {new_name!r} already exists",
                hint="Pick another name; tmux session names are unique.",
            )
        ctx.backend.rename_session(server, session.session_id, new_name)
        return _session_by_id(ctx, server, session.session_id)

    return session_result(await ctx.call(rename))


@tool("Kill tmux Session")
async def kill_session(
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Kill a session with all its windows, panes and programs; needs the exact session_id or
    session_name. kill_window removes one window.

    Use to tear down a session you own; kill_window removes one window.
    Needs the exact session_id or session_name. Refused when this MCP
    server itself runs in one of the session's panes.
    """
    server = ctx.server(socket_name, socket_path)

    def kill() -> str:
        if session_name is None and session_id is None:
            raise InvalidArgument(
                "kill_session needs session_id or session_name",
                hint="Name the session exactly; list_sessions shows them.",
            )
        session = resolve_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
        panes = ctx.backend.list_panes(server, session_id=session.session_id)
        ctx.protect_caller(
            server, [p.pane_id for p in panes], f"kill session {session.session_name!r}"
        )
        ctx.backend.kill_session(server, session.session_id)
        return f"Session killed: {session.session_name}"

    return await ctx.call(kill)


#: This module's tools, in the order clients list them.
TOOLS = (
    list_sessions,
    create_session,
    get_session_info,
    rename_session,
    kill_session,
)


def _session_by_id(ctx: ToolContext, server: ServerRef, session_id: str) -> BackendSession:
    check_id("session", session_id)
    for session in ctx.backend.list_sessions(server):
        if session.session_id == session_id:
            return session
    raise NotFound(f"session {session_id} is gone")


__all__ = [
    "TOOLS",
    "create_session",
    "get_session_info",
    "kill_session",
    "list_sessions",
    "rename_session",
]
