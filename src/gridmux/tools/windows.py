"""Window tools: list, inspect, create, split, rename, select, lay out, resize, move, kill.

A window is named by ``window_id``, or by ``window_index`` in a session, or
as a session's current window; with nothing named, only a server holding a
single window proceeds (``_targets.resolve_window``). Every argument is
checked before tmux is asked to change anything.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gridmux.backend import PaneInfo as BackendPane
from gridmux.backend import WindowInfo as BackendWindow
from gridmux.errors import InvalidArgument, NotFound
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._filters import apply_filters
from ._layouts import split_size
from ._models import PaneInfo, WindowInfo
from ._params import (
    Filters,
    PaneId,
    SessionIdArg,
    SessionNameArg,
    SocketName,
    SocketPath,
    WindowIdArg,
    WindowIdText,
    WindowIndex,
)
from ._results import pane_result, window_result
from ._spawn import check_start_directory, parse_environment
from ._targets import (
    check_name,
    reread_window,
    resolve_session,
    resolve_target_session,
    window_of,
)

Cells = Annotated[int | None, Field(ge=1, le=10000)]
Environment = Annotated[
    dict[str, str] | str | None,
    Field(description="Environment for the new process only (object or JSON string)."),
]
SuppressHistory = Annotated[
    bool, Field(description="Keep the new shell from writing a history file.")
]


@tool("List tmux Windows", always_load=True)
async def list_windows(
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    filters: Filters = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> list[WindowInfo]:
    """List the windows of one session, or of every session: ids, names, layouts, sizes.

    Use to find a window id or see each window's name, layout and size.
    A session target narrows the list to its windows. Reads metadata
    only; search_panes searches the text on screen. A window linked
    into several sessions is listed once per session.
    """
    server = ctx.server(socket_name, socket_path)

    def select() -> list[BackendWindow]:
        if session_name is None and session_id is None:
            try:
                return ctx.backend.list_windows(server)
            except NotFound:
                if ctx.backend.server_info(server).is_alive:
                    raise
                return []  # like list_sessions: a server that is not running has none
        session = resolve_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
        return ctx.backend.list_windows(server, session.session_id)

    results = [window_result(w) for w in await ctx.call(select)]
    try:
        keep = apply_filters([r.model_dump() for r in results], filters)
    except InvalidArgument as exc:
        raise tool_error(exc) from exc
    return [results[i] for i in keep]


@tool("Get tmux Window Info")
async def get_window_info(
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Describe one window: id, name, index, layout, size, pane count, active pane.

    Use instead of list_windows when you need one window. Names it by
    window_id, by window_index in a session, or as a session's current
    window.
    """
    server = ctx.server(socket_name, socket_path)
    window = await ctx.call(
        lambda: window_of(ctx.backend, server, window_id, window_index, session_name, session_id)
    )
    return window_result(window)


@tool("Create tmux Window")
async def create_window(
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    window_name: Annotated[
        str | None, Field(description="Name for the window; tmux names it otherwise.")
    ] = None,
    start_directory: Annotated[
        str | None, Field(description="Working directory of the window's pane.")
    ] = None,
    attach: Annotated[
        bool, Field(description="Make the new window the session's current one.")
    ] = False,
    direction: Annotated[
        Literal["before", "after"] | None,
        Field(
            description=(
                "Insert just before/after the session's current window (later windows "
                "move up); default: the next free index."
            )
        ),
    ] = None,
    socket_name: SocketName = None,
    environment: Environment = None,
    suppress_persistent_history: SuppressHistory = False,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Create a window (a new tab with one pane) in a session; split_window adds a pane to an
    existing window instead.

    Use for a separate full-size terminal; split_window adds a pane to an
    existing window instead. The session must be named unless the server
    has only one.
    """
    server = ctx.server(socket_name, socket_path)

    def create() -> BackendWindow:
        if window_name is not None and not window_name:
            raise InvalidArgument("window_name must not be empty", hint="Omit it or name it.")
        if window_name is not None:
            check_name("window_name", window_name)
        directory = check_start_directory(start_directory)
        env = parse_environment(environment, suppress_history=suppress_persistent_history)
        session = resolve_target_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
        return ctx.backend.new_window(
            server,
            session.session_id,
            name=window_name,
            start_directory=directory,
            environment=env or None,
            select=attach,
            direction=direction,
        )

    return window_result(await ctx.call(create))


@tool("Select tmux Window")
async def select_window(
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    direction: Annotated[
        Literal["next", "previous", "last"] | None,
        Field(description="Move within the session: next/previous index, or the last one."),
    ] = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Make a window its session's current window, by id, index or direction (next, previous, last).

    Use to switch what a client attached to the session shows. next and
    previous wrap around; last goes back to the previously current window.
    """
    server = ctx.server(socket_name, socket_path)

    def select() -> BackendWindow:
        if direction is None:
            if window_id is None and window_index is None:
                raise InvalidArgument(
                    "select_window needs window_id, window_index or direction",
                    hint="Say which window; list_windows shows them.",
                )
            window = window_of(
                ctx.backend, server, window_id, window_index, session_name, session_id
            )
        else:
            if window_id is not None or window_index is not None:
                raise InvalidArgument(
                    "pass either direction or window_id/window_index, not both",
                    hint="direction moves relative to the session's current window.",
                )
            window = step(direction)
        ctx.backend.select_window(server, window.window_id)
        return reread_window(ctx.backend, server, window.window_id, window.session_id)

    def step(where: str) -> BackendWindow:
        session = resolve_target_session(
            ctx.backend, server, session_name=session_name, session_id=session_id
        )
        windows = ctx.backend.list_windows(server, session.session_id)
        if where == "last":
            last = next((w for w in windows if w.last), None)
            if last is None:
                raise NotFound(
                    f"session {session.session_name!r} has no last window",
                    hint="No other window has been current yet; select one by id.",
                )
            return last
        position = next((i for i, w in enumerate(windows) if w.active), 0)
        target = windows[(position + (1 if where == "next" else -1)) % len(windows)]
        if target.active:
            raise NotFound(
                f"session {session.session_name!r} has no {where} window (it has one window)",
                hint="Create another with create_window.",
            )
        return target

    return window_result(await ctx.call(select))


@tool("Split tmux Window")
async def split_window(
    pane_id: PaneId = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    direction: Annotated[
        Literal["above", "below", "left", "right"] | None,
        Field(description="Where the new pane goes (default: below)."),
    ] = None,
    size: Annotated[
        str | int | None,
        Field(
            description="Size of the new pane: a percentage ('30%') or cells (10); default: half."
        ),
    ] = None,
    start_directory: Annotated[
        str | None, Field(description="Working directory of the new pane.")
    ] = None,
    shell: Annotated[
        str | None, Field(description="Command the new pane runs instead of the shell.")
    ] = None,
    socket_name: SocketName = None,
    environment: Environment = None,
    suppress_persistent_history: SuppressHistory = False,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Split a pane in two and return the new pane (use its pane_id next).

    Use for a second terminal beside one you watch. Splits pane_id, else
    the active pane of the window named. Focus stays on the old pane.
    """
    server = ctx.server(socket_name, socket_path)
    side = direction or "below"

    def split() -> BackendPane:
        if shell is not None and not shell.strip():
            raise InvalidArgument("shell must not be empty", hint="Omit it for the shell.")
        directory = check_start_directory(start_directory)
        env = parse_environment(environment, suppress_history=suppress_persistent_history)
        if pane_id is not None:
            pane = next(iter(ctx.backend.list_panes(server, pane_id=pane_id)), None)
            if pane is None:
                raise NotFound(f"no pane {pane_id} on this tmux server")
        else:
            window = window_of(
                ctx.backend, server, window_id, window_index, session_name, session_id
            )
            panes = ctx.backend.list_panes(server, window_id=window.window_id)
            pane = next((p for p in panes if p.active), panes[0])
        cells = split_size(size, side, pane)
        return ctx.backend.split_window(
            server,
            pane.pane_id,
            direction=side,
            size=cells,
            start_directory=directory,
            command=shell,
            environment=env or None,
        )

    new = await ctx.call(split)
    return pane_result(ctx, server, new)


@tool("Rename tmux Window")
async def rename_window(
    new_name: Annotated[str, Field(description="The window's new name.")],
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Give a window a new name (tmux stops renaming it automatically); its id stays valid.

    Use when a window's purpose changed. Its id stays valid.
    """
    server = ctx.server(socket_name, socket_path)

    def rename() -> BackendWindow:
        if not new_name:
            raise InvalidArgument("new_name must not be empty")
        check_name("new_name", new_name)
        window = window_of(ctx.backend, server, window_id, window_index, session_name, session_id)
        ctx.backend.rename_window(server, window.window_id, new_name)
        return reread_window(ctx.backend, server, window.window_id, window.session_id)

    return window_result(await ctx.call(rename))


@tool("Kill tmux Window")
async def kill_window(
    window_id: Annotated[WindowIdText, Field(description="Exact window id, e.g. '@3'.")],
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Kill a window with all its panes and programs; needs the exact window_id. kill_pane removes
    one pane.

    Use to close a window you own; kill_pane removes one pane. Needs the
    exact window_id. Killing a session's last window ends the session.
    Refused when this MCP server itself runs in one of its panes.
    """
    server = ctx.server(socket_name, socket_path)

    def kill() -> str:
        panes = [p for p in ctx.backend.list_panes(server) if p.window_id == window_id]
        if not panes:
            raise NotFound(f"no window {window_id} on this tmux server")
        ctx.protect_caller(server, [p.pane_id for p in panes], f"kill window {window_id}")
        ctx.backend.kill_window(server, window_id)
        return f"Window killed: {window_id}"

    return await ctx.call(kill)


#: This module's tools, in the order clients list them.
TOOLS = (
    list_windows,
    get_window_info,
    create_window,
    select_window,
    split_window,
    rename_window,
    kill_window,
)


__all__ = [
    "TOOLS",
    "create_window",
    "get_window_info",
    "kill_window",
    "list_windows",
    "rename_window",
    "select_window",
    "split_window",
]
