"""Session tools: list, inspect, create, rename and kill sessions.

Also the argument checks every tool that starts a process shares: the
``environment`` argument and its history suppression, and the start
directory.
"""

from __future__ import annotations

import json
import os
import re
from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

from gridmux.backend import ServerRef
from gridmux.backend import SessionInfo as BackendSession
from gridmux.errors import InvalidArgument, NotFound

from ._context import ToolContext, tool_error
from ._filters import apply_filters
from ._models import SessionInfo
from ._params import Filters, SocketName, SocketPath
from ._targets import check_id, resolve_session, resolve_target_session
from ._tiers import CREATES, DESTROYS, READONLY, SETS, Tier, tool

#: Naming a session for a session or window tool (the pane tools' wording differs).
SessionNameArg = Annotated[str | None, Field(description="Session name (exact match).")]
SessionIdArg = Annotated[str | None, Field(description="Session id, e.g. '$1'.")]

_HISTORY_OFF = {"HISTFILE": "", "fish_history": "", "fish_private_mode": "1"}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def session_result(session: BackendSession) -> SessionInfo:
    return SessionInfo(
        session_id=session.session_id,
        session_name=session.session_name,
        window_count=session.window_count,
        session_attached=str(session.attached),
        session_created=str(session.created),
        active_pane_id=session.active_pane_id,
    )


def parse_environment(
    environment: dict[str, str] | str | None, *, suppress_history: bool
) -> dict[str, str]:
    """Validate an ``environment`` argument (object or JSON string)."""
    if isinstance(environment, str):
        try:
            loaded: Any = json.loads(environment) if environment.strip() else {}
        except ValueError as exc:
            raise InvalidArgument(f"environment is not valid JSON: {exc}") from exc
    else:
        loaded = environment or {}
    if not isinstance(loaded, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in loaded.items()
    ):
        raise InvalidArgument(
            "environment must map names to string values",
            hint='Pass e.g. {"RUST_LOG": "debug"}.',
        )
    for name in loaded:
        if not _ENV_NAME.match(name):
            raise InvalidArgument(f"{name!r} is not a valid environment variable name")
    env = dict(loaded)
    if suppress_history:
        for name, value in _HISTORY_OFF.items():
            if name in env and env[name] != value:
                raise InvalidArgument(
                    f"environment sets {name} but suppress_persistent_history needs it {value!r}"
                )
            env[name] = value
        control = env.get("HISTCONTROL", "")
        if "ignorespace" not in control.split(":"):
            env["HISTCONTROL"] = f"{control}:ignorespace" if control else "ignorespace"
    return env


def check_session_name(name: str) -> str:
    if not name or any(c in name for c in ":."):
        raise InvalidArgument(
            f"invalid session name {name!r}",
            hint="tmux session names cannot be empty or contain ':' or '.'.",
        )
    return name


def check_start_directory(start_directory: str | None) -> str | None:
    """An existing directory, ``~`` expanded; None stays None.

    tmux starts a process whose directory does not exist in ``$HOME`` without
    a word, so a typo would silently run commands in the wrong place.
    """
    if start_directory is None:
        return None
    path = os.path.expanduser(start_directory)
    if not os.path.isabs(path) or not os.path.isdir(path):
        raise InvalidArgument(
            f"start_directory {start_directory!r} is not an existing directory",
            hint="Pass an absolute path to a directory that exists (or omit it).",
        )
    return path


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    @tool(mcp, tier=Tier.READONLY, title="List tmux Sessions", annotations=READONLY)
    async def list_sessions(
        socket_name: SocketName = None,
        filters: Filters = None,
        socket_path: SocketPath = None,
    ) -> list[SessionInfo]:
        """List the sessions on a tmux server.

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

    @tool(mcp, tier=Tier.MUTATING, title="Create tmux Session", annotations=CREATES)
    async def create_session(
        session_name: Annotated[
            str | None, Field(description="Name for the session; tmux picks one if omitted.")
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
    ) -> SessionInfo:
        """Create a detached tmux session (starting the server if needed).

        Use to get a fresh terminal to work in. Returns the session with its
        active pane id, ready for send_keys and capture_since.
        """
        server = ctx.server(socket_name, socket_path)
        try:
            if session_name is not None:
                check_session_name(session_name)
            directory = check_start_directory(start_directory)
            env = parse_environment(environment, suppress_history=suppress_persistent_history)
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

    @tool(mcp, tier=Tier.READONLY, title="Get tmux Session Info", annotations=READONLY)
    async def get_session_info(
        session_id: SessionIdArg = None,
        session_name: SessionNameArg = None,
        socket_name: SocketName = None,
        socket_path: SocketPath = None,
    ) -> SessionInfo:
        """Describe one session: id, name, window count, attached clients, active pane.

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

    @tool(mcp, tier=Tier.MUTATING, title="Rename tmux Session", annotations=SETS)
    async def rename_session(
        new_name: Annotated[str, Field(description="The session's new name (no ':' or '.').")],
        session_name: SessionNameArg = None,
        session_id: SessionIdArg = None,
        socket_name: SocketName = None,
        socket_path: SocketPath = None,
    ) -> SessionInfo:
        """Give a session a new name; its id, windows and panes stay as they are.

        Use when a session's purpose changed. Ids held elsewhere stay valid.
        """
        server = ctx.server(socket_name, socket_path)

        def rename() -> BackendSession:
            check_session_name(new_name)
            session = resolve_target_session(
                ctx.backend, server, session_name=session_name, session_id=session_id
            )
            sessions = ctx.backend.list_sessions(server)
            if any(
                s.session_name == new_name and s.session_id != session.session_id for s in sessions
            ):
                raise InvalidArgument(
                    f"a session named {new_name!r} already exists",
                    hint="Pick another name; tmux session names are unique.",
                )
            ctx.backend.rename_session(server, session.session_id, new_name)
            return _session_by_id(ctx, server, session.session_id)

        return session_result(await ctx.call(rename))

    @tool(mcp, tier=Tier.DESTRUCTIVE, title="Kill tmux Session", annotations=DESTROYS)
    async def kill_session(
        session_name: SessionNameArg = None,
        session_id: SessionIdArg = None,
        socket_name: SocketName = None,
        socket_path: SocketPath = None,
    ) -> str:
        """Kill a session with all its windows, panes and the programs in them.

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


def _session_by_id(ctx: ToolContext, server: ServerRef, session_id: str) -> BackendSession:
    check_id("session", session_id)
    for session in ctx.backend.list_sessions(server):
        if session.session_id == session_id:
            return session
    raise NotFound(f"session {session_id} is gone")


__all__ = [
    "check_session_name",
    "check_start_directory",
    "parse_environment",
    "register",
    "session_result",
]
