"""Window tools: list, inspect, create, split, rename, select, lay out, resize, move, kill.

A window is named by ``window_id``, or by ``window_index`` in a session, or
as a session's current window; with nothing named, only a server holding a
single window proceeds (``_targets.resolve_window``). Every argument is
checked before tmux is asked to change anything.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from gridmux.backend import LAYOUT_PRESETS, ServerRef, is_json_layout
from gridmux.backend import PaneInfo as BackendPane
from gridmux.backend import WindowInfo as BackendWindow
from gridmux.errors import InvalidArgument, NotFound, TmuxFailure
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._filters import apply_filters
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
    check_id,
    resolve_session,
    resolve_target_session,
    resolve_window,
    window_index_number,
)

Cells = Annotated[int | None, Field(ge=1, le=10000)]
Environment = Annotated[
    dict[str, str] | str | None,
    Field(description="Environment for the new process only (object or JSON string)."),
]
SuppressHistory = Annotated[
    bool, Field(description="Keep the new shell from writing a history file.")
]

_MIRRORED = ("main-horizontal-mirrored", "main-vertical-mirrored")
_LAYOUT_STRING = re.compile(r"([0-9a-f]{4}),(\d+x\d+,\d+,\d+[0-9x,\[\]{}]*)")
_SPLIT_SIZE = re.compile(r"(\d{1,5})(%?)")


def layout_checksum(body: str) -> int:
    """tmux's 16-bit layout checksum (layout-custom.c) of what follows ``xxxx,``."""
    csum = 0
    for char in body:
        csum = ((csum >> 1) + ((csum & 1) << 15) + ord(char)) & 0xFFFF
    return csum


def check_layout(layout: str) -> str:
    """A preset, or a layout tmux printed: checksummed, or JSON (tmux 3.8, which checks it)."""
    if layout in LAYOUT_PRESETS or is_json_layout(layout):
        return layout
    hint = f"Use one of {', '.join(LAYOUT_PRESETS)}, or a window_layout from list_windows."
    if layout in _MIRRORED:
        raise InvalidArgument(f"layout {layout!r} is not supported here", hint=hint)
    match = _LAYOUT_STRING.fullmatch(layout)
    if match is None:
        raise InvalidArgument(
            f"layout {layout!r} is neither a layout name nor a tmux layout string", hint=hint
        )
    if int(match.group(1), 16) != layout_checksum(match.group(2)):
        raise InvalidArgument(
            f"layout string {layout!r} has a wrong checksum (was it edited?)", hint=hint
        )
    return layout


def split_size(size: str | int | None, direction: str, pane: BackendPane) -> str | None:
    """``size`` as ``split-window -l`` takes it, checked against the pane it splits."""
    if size is None:
        return None
    hint = "Pass a percentage such as '30%' or a number of cells such as 10."
    if isinstance(size, bool):
        raise InvalidArgument(f"size {size!r} is not a size", hint=hint)
    if isinstance(size, int):
        cells = size
    else:
        match = _SPLIT_SIZE.fullmatch(size.strip())
        if match is None:
            raise InvalidArgument(f"size {size!r} is not 'N%' or a number of cells", hint=hint)
        if match.group(2):
            percent = int(match.group(1))
            if not 1 <= percent <= 99:
                raise InvalidArgument(f"size {size!r} must be between 1% and 99%", hint=hint)
            return f"{percent}%"
        cells = int(match.group(1))
    vertical = direction in ("above", "below")
    available = pane.height if vertical else pane.width
    # The new pane, a one-cell border and at least one cell left for the old pane.
    most = available - 2
    if not 1 <= cells <= most:
        extent = f"{available} rows tall" if vertical else f"{available} columns wide"
        fits = f"1..{most} cells" if most >= 1 else "no room to split it"
        raise InvalidArgument(
            f"size {cells} does not fit: pane {pane.pane_id} is {extent} ({fits})", hint=hint
        )
    return str(cells)


def _reread(ctx: ToolContext, server: ServerRef, window_id: str, session_id: str) -> BackendWindow:
    """The window's current description, as seen from ``session_id`` if it is there."""
    rows = [w for w in ctx.backend.list_windows(server) if w.window_id == window_id]
    if not rows:
        raise NotFound(f"window {window_id} is gone")
    return next((w for w in rows if w.session_id == session_id), rows[0])


def window_of(
    ctx: ToolContext,
    server: ServerRef,
    window_id: str | None,
    window_index: str | None,
    session_name: str | None,
    session_id: str | None,
) -> BackendWindow:
    return resolve_window(
        ctx.backend,
        server,
        window_id=window_id,
        window_index=window_index,
        session_name=session_name,
        session_id=session_id,
    )


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
    """List the windows (tabs) of one session, or of every session on the server.

    Use to find a window id or see each window's name, layout and size.
    Reads metadata only; search_panes searches the text on screen. A
    window linked into several sessions is listed once per session.
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
        lambda: window_of(ctx, server, window_id, window_index, session_name, session_id)
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
    """Create a window (a new tab with one pane) in a session.

    Use for a separate full-size terminal; split_window adds a pane to an
    existing window instead. The session must be named unless the server
    has only one.
    """
    server = ctx.server(socket_name, socket_path)

    def create() -> BackendWindow:
        if window_name is not None and not window_name:
            raise InvalidArgument("window_name must not be empty", hint="Omit it or name it.")
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
    """Make a window its session's current window, by id, index or direction.

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
            window = window_of(ctx, server, window_id, window_index, session_name, session_id)
        else:
            if window_id is not None or window_index is not None:
                raise InvalidArgument(
                    "pass either direction or window_id/window_index, not both",
                    hint="direction moves relative to the session's current window.",
                )
            window = step(direction)
        ctx.backend.select_window(server, window.window_id)
        return _reread(ctx, server, window.window_id, window.session_id)

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
    """Split a pane in two and return the new pane (its pane_id is what to use next).

    Use for a second terminal beside one you watch. Splits pane_id, else
    the active pane of the window named. Focus stays on the old pane.
    """
    server = ctx.server(socket_name, socket_path)
    side = direction or "below"

    def split() -> BackendPane:
        check_id("pane", pane_id)
        if shell is not None and not shell.strip():
            raise InvalidArgument("shell must not be empty", hint="Omit it for the shell.")
        directory = check_start_directory(start_directory)
        env = parse_environment(environment, suppress_history=suppress_persistent_history)
        if pane_id is not None:
            pane = next((p for p in ctx.backend.list_panes(server) if p.pane_id == pane_id), None)
            if pane is None:
                raise NotFound(f"no pane {pane_id} on this tmux server")
        else:
            window = window_of(ctx, server, window_id, window_index, session_name, session_id)
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
    """Give a window a new name (tmux stops renaming it automatically).

    Use when a window's purpose changed. Its id stays valid.
    """
    server = ctx.server(socket_name, socket_path)

    def rename() -> BackendWindow:
        if not new_name:
            raise InvalidArgument("new_name must not be empty")
        window = window_of(ctx, server, window_id, window_index, session_name, session_id)
        ctx.backend.rename_window(server, window.window_id, new_name)
        return _reread(ctx, server, window.window_id, window.session_id)

    return window_result(await ctx.call(rename))


@tool("Kill tmux Window")
async def kill_window(
    window_id: Annotated[WindowIdText, Field(description="Exact window id, e.g. '@3'.")],
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Kill a window with all its panes and the programs in them.

    Use to close a window you own; kill_pane removes one pane. Needs the
    exact window_id. Killing a session's last window ends the session.
    Refused when this MCP server itself runs in one of its panes.
    """
    server = ctx.server(socket_name, socket_path)

    def kill() -> str:
        check_id("window", window_id)
        panes = [p for p in ctx.backend.list_panes(server) if p.window_id == window_id]
        if not panes:
            raise NotFound(f"no window {window_id} on this tmux server")
        ctx.protect_caller(server, [p.pane_id for p in panes], f"kill window {window_id}")
        ctx.backend.kill_window(server, window_id)
        return f"Window killed: {window_id}"

    return await ctx.call(kill)


@tool("Select tmux Layout")
async def select_layout(
    layout: Annotated[
        str,
        Field(
            description=(
                "even-horizontal, even-vertical, main-horizontal, main-vertical, tiled, "
                "or a layout string as window_layout reports it."
            )
        ),
    ],
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Rearrange a window's panes with a preset layout or a saved layout string.

    Use to tidy panes after splitting, or to restore an arrangement saved
    from window_layout (a layout string needs the same number of panes).
    """
    server = ctx.server(socket_name, socket_path)

    def arrange() -> BackendWindow:
        check_layout(layout)
        window = window_of(ctx, server, window_id, window_index, session_name, session_id)
        try:
            ctx.backend.select_layout(server, window.window_id, layout)
        except TmuxFailure as exc:  # a layout string tmux cannot apply to this window
            raise InvalidArgument(
                str(exc),
                hint=f"Window {window.window_id} has {window.pane_count} panes; a layout "
                "string must be one saved from a window with as many, or use a preset.",
            ) from exc
        return _reread(ctx, server, window.window_id, window.session_id)

    return window_result(await ctx.call(arrange))


@tool("Resize tmux Window")
async def resize_window(
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    height: Annotated[Cells, Field(description="New height in rows.")] = None,
    width: Annotated[Cells, Field(description="New width in columns.")] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Set a window's size in cells; its panes are resized to fit.

    Use to give programs a known terminal size. tmux then keeps the
    window at that size (window-size manual) instead of following clients.
    """
    server = ctx.server(socket_name, socket_path)

    def resize() -> BackendWindow:
        if height is None and width is None:
            raise InvalidArgument("resize_window needs height or width")
        window = window_of(ctx, server, window_id, window_index, session_name, session_id)
        ctx.backend.resize_window(server, window.window_id, width=width, height=height)
        return _reread(ctx, server, window.window_id, window.session_id)

    return window_result(await ctx.call(resize))


@tool("Move tmux Window")
async def move_window(
    window_id: WindowIdArg = None,
    window_index: WindowIndex = None,
    session_name: SessionNameArg = None,
    session_id: SessionIdArg = None,
    destination_index: Annotated[
        str, Field(description="Index to move to; '' for the next free index.")
    ] = "",
    destination_session: Annotated[
        str | None,
        Field(description="Session (name or '$id') to move to; default: its own session."),
    ] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WindowInfo:
    """Move a window to another index, or into another session.

    Use to reorder windows or regroup them. The target index must be
    free. Moving a session's only window away ends that session.
    """
    server = ctx.server(socket_name, socket_path)

    def move() -> BackendWindow:
        index = window_index_number(destination_index) if destination_index else None
        window = window_of(ctx, server, window_id, window_index, session_name, session_id)
        if destination_session is None:
            target_id = window.session_id
        elif destination_session.startswith("$"):
            target_id = resolve_session(
                ctx.backend, server, session_name=None, session_id=destination_session
            ).session_id
        else:
            target_id = resolve_session(
                ctx.backend, server, session_name=destination_session, session_id=None
            ).session_id
        same_session = target_id == window.session_id
        if same_session and index is None:
            raise InvalidArgument(
                f"window {window.window_id} is already in session {window.session_name!r}",
                hint="Pass destination_index to reorder, or destination_session to move it.",
            )
        if same_session and index == window.window_index:
            return window
        if index is not None:
            used = {w.window_index: w for w in ctx.backend.list_windows(server, target_id)}
            if index in used:
                raise InvalidArgument(
                    f"index {index} is taken by window {used[index].window_id} "
                    f"({used[index].window_name!r})",
                    hint="Pick a free index (list_windows shows the used ones), or pass ''.",
                )
        ctx.backend.move_window(
            server,
            window.window_id,
            destination_session_id=None if same_session else target_id,
            destination_index=index,
        )
        return _reread(ctx, server, window.window_id, target_id)

    return window_result(await ctx.call(move))


#: This module's tools, in the order clients list them.
TOOLS = (
    list_windows,
    get_window_info,
    create_window,
    select_window,
    split_window,
    rename_window,
    kill_window,
    select_layout,
    resize_window,
    move_window,
)


__all__ = [
    "TOOLS",
    "check_layout",
    "create_window",
    "get_window_info",
    "kill_window",
    "layout_checksum",
    "list_windows",
    "move_window",
    "rename_window",
    "resize_window",
    "select_layout",
    "select_window",
    "split_size",
    "split_window",
]
