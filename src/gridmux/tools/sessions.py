"""Session tools: list_sessions, create_session."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

from gridmux.backend import SessionInfo as BackendSession
from gridmux.errors import InvalidArgument

from ._context import ToolContext, tool_error
from ._filters import apply_filters
from ._models import SessionInfo
from ._params import Filters, SocketName, SocketPath
from ._tiers import CREATES, READONLY, Tier, tool

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
            if session_name is not None and (
                not session_name or any(c in session_name for c in ":.")
            ):
                raise InvalidArgument(
                    f"invalid session name {session_name!r}",
                    hint="tmux session names cannot be empty or contain ':' or '.'.",
                )
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
                start_directory=start_directory,
                width=x,
                height=y,
                environment=env or None,
            )
        )
        return session_result(session)


__all__ = ["parse_environment", "register", "session_result"]
