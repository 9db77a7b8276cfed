"""Window arrangement tools: select_layout, resize_window, move_window.

Each names its window as the window tools do (``_targets.resolve_window``)
and answers with the window as it is afterwards.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gridmux.backend import LAYOUT_PRESETS, check_fits, parse_layout
from gridmux.backend import WindowInfo as BackendWindow
from gridmux.errors import InvalidArgument, TmuxFailure
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._models import WindowInfo
from ._params import SessionIdArg, SessionNameArg, SocketName, SocketPath, WindowIdArg, WindowIndex
from ._results import window_result
from ._targets import reread_window, resolve_session, window_index_number, window_of

#: Presets of tmux 3.6 and later only.
_MIRRORED = ("main-horizontal-mirrored", "main-vertical-mirrored")

Cells = Annotated[int | None, Field(ge=1, le=10000)]


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
    """Rearrange a window's panes with a preset layout (tiled, even-horizontal, ...) or a layout
    string saved from window_layout.

    Use to tidy panes after splitting, or to restore an arrangement saved
    from window_layout (a layout string needs the same number of panes).
    """
    server = ctx.server(socket_name, socket_path)

    def arrange() -> BackendWindow:
        if layout in _MIRRORED:
            raise InvalidArgument(
                f"layout {layout!r} is not supported here",
                hint=f"Use one of {', '.join(LAYOUT_PRESETS)}, or a layout from list_windows.",
            )
        root = parse_layout(layout)
        window = window_of(ctx.backend, server, window_id, window_index, session_name, session_id)
        if root is not None:
            check_fits(layout, root, window.width, window.height, window.pane_count)
        try:
            ctx.backend.select_layout(server, window.window_id, layout)
        except TmuxFailure as exc:  # a layout string tmux cannot apply to this window
            raise InvalidArgument(
                str(exc),
                hint=f"Window {window.window_id} has {window.pane_count} panes; a layout "
                "string must be one saved from a window with as many, or use a preset.",
            ) from exc
        return reread_window(ctx.backend, server, window.window_id, window.session_id)

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
    """Set a window's size in cells (its panes resize to fit), to give programs a known terminal
    size.

    Use to give programs a known terminal size. tmux then keeps the
    window at that size (window-size manual) instead of following clients.
    """
    server = ctx.server(socket_name, socket_path)

    def resize() -> BackendWindow:
        if height is None and width is None:
            raise InvalidArgument("resize_window needs height or width")
        window = window_of(ctx.backend, server, window_id, window_index, session_name, session_id)
        ctx.backend.resize_window(server, window.window_id, width=width, height=height)
        return reread_window(ctx.backend, server, window.window_id, window.session_id)

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
    """Move a window to another (free) index, or into another session.

    Use to reorder windows or regroup them. The target index must be
    free. Moving a session's only window away ends that session.
    """
    server = ctx.server(socket_name, socket_path)

    def move() -> BackendWindow:
        index = window_index_number(destination_index) if destination_index else None
        window = window_of(ctx.backend, server, window_id, window_index, session_name, session_id)
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
        return reread_window(ctx.backend, server, window.window_id, target_id)

    return window_result(await ctx.call(move))


#: This module's tools, in the order clients list them.
TOOLS = (select_layout, resize_window, move_window)


__all__ = ["TOOLS", "move_window", "resize_window", "select_layout"]
