"""Pane control: format strings, corners, titles, clearing, sizing, selection,
swaps and pasting text.

Lifecycle tools (respawn, kill, copy mode, pipes) live in ``pane_lifecycle``.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Annotated, Literal

from pydantic import Field

from gridmux.backend import CONTROL_CHARACTER, PaneDirection, ServerRef
from gridmux.backend import PaneInfo as BackendPane
from gridmux.errors import GridmuxError, InvalidArgument, NotFound
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._format_grammar import check_format
from ._models import PaneInfo
from ._params import (
    PaneId,
    PaneIdText,
    SessionId,
    SessionName,
    SocketName,
    SocketPath,
    WindowId,
    WindowIndex,
)
from ._results import pane_result
from ._targets import check_text, require_live, resolve_window, window_index_number

Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]
Direction = Literal["up", "down", "left", "right", "last", "next", "previous"]
Size = Annotated[int | None, Field(ge=1, le=10000)]
_STEPS = {"next": 1, "previous": -1}
_TMUX_MOVES: dict[str, PaneDirection] = {d: d for d in ("up", "down", "left", "right", "last")}


def _corner_pane(panes: list[BackendPane], corner: Corner, zoomed: bool) -> BackendPane:
    """The pane covering ``corner``: in a zoomed window the zoomed (active) pane."""
    active = next((p for p in panes if p.active), None)
    if zoomed and active is not None:
        return active
    vertical, horizontal = corner.split("-")
    found = [
        p
        for p in panes
        if (p.at_top if vertical == "top" else p.at_bottom)
        and (p.at_left if horizontal == "left" else p.at_right)
    ]
    if not found:
        raise NotFound(f"no pane has both the {vertical} and the {horizontal} edge")
    # A tiled window has exactly one; otherwise take the one nearest the corner.
    return min(
        found,
        key=lambda p: (
            (p.top if vertical == "top" else -p.bottom)
            + (p.left if horizontal == "left" else -p.right)
        ),
    )


@tool("Evaluate tmux Format String")
async def display_message(
    format_string: Annotated[
        str,
        Field(description="tmux format, e.g. '#{pane_pid} #{window_zoomed_flag}'."),
    ],
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Expand a read-only tmux format ('#{name}', '#{?name,a,b}') against a pane. Use for a value no
    other tool reports.

    Use for a value no other tool reports (#{pane_dead_status},
    #{cursor_flag}, #{client_activity}, an @user option). Read-only: it
    takes literal text, '##', '#{name}' and '#{?name,then,else}' only.
    """
    server = ctx.server(socket_name, socket_path)

    def expand() -> str:
        check_format(format_string)
        target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
        return ctx.backend.display_message(server, target, format_string)

    return await ctx.call(expand)


@tool("Find tmux Pane by Position")
async def find_pane_by_position(
    corner: Annotated[Corner, Field(description="Which corner of the window.")],
    window_id: WindowId = None,
    window_index: WindowIndex = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Find the pane in a corner of a window (e.g. bottom-right), to target a pane by where it sits
    rather than by id.

    Use to target a pane by where it sits rather than by id. The window
    is window_id, or window_index in the session, or the session's
    current window; with none given the server must have one window.
    In a zoomed window every corner is the zoomed pane.
    """
    server = ctx.server(socket_name, socket_path)

    def find() -> BackendPane:
        window = resolve_window(
            ctx.backend,
            server,
            window_id=window_id,
            window_index=window_index,
            session_name=session_name,
            session_id=session_id,
        )
        panes = ctx.backend.list_panes(server, window_id=window.window_id)
        return _corner_pane(panes, corner, window.zoomed)

    return pane_result(ctx, server, await ctx.call(find))


@tool("Set tmux Pane Title")
async def set_pane_title(
    title: Annotated[str, Field(description="The new title (no control characters).")],
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Set a pane's title, taken literally, to label what it is for (list_panes shows it).

    Use to name what a pane is for. The title is taken literally.
    Programs in the pane may set their own title later.
    """
    server = ctx.server(socket_name, socket_path)

    def set_title() -> BackendPane:
        if CONTROL_CHARACTER.search(title):
            raise InvalidArgument(
                f"title {title!r} contains control characters",
                hint="Pass one line of printable text.",
            )
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        ctx.backend.set_pane_title(server, pane.pane_id, title)
        return ctx.resolve(server, pane.pane_id)

    return pane_result(ctx, server, await ctx.call(set_title))


@tool("Clear tmux Pane")
async def clear_pane(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Blank a pane's screen and scrollback (not recoverable). Use before a run whose output you
    want to read on its own.

    Use before a run whose output you want to read on its own. The
    terminal is reset and left empty (a shell prompt is not redrawn
    until the next input), and any copy mode is left. Scrollback cannot
    be recovered afterwards.
    """
    server = ctx.server(socket_name, socket_path)

    def clear() -> str:
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        ctx.backend.clear_pane(server, pane.pane_id)
        return pane.pane_id

    return f"Pane cleared: {await ctx.call(clear)}"


@tool("Resize tmux Pane")
async def resize_pane(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    height: Annotated[Size, Field(description="New height in rows.")] = None,
    width: Annotated[Size, Field(description="New width in columns.")] = None,
    zoom: Annotated[
        bool | None,
        Field(description="true: zoom the pane to fill its window; false: unzoom."),
    ] = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Resize a pane (height and/or width), or zoom it to fill its window (or unzoom it).

    Use to give a pane more room. Pass height and/or width, or zoom --
    not both. Sizes are limited by the window: a pane with no neighbour
    in a direction cannot grow that way. Resizing unzooms the window.
    """
    server = ctx.server(socket_name, socket_path)

    def resize() -> BackendPane:
        sized = height is not None or width is not None
        if zoom is not None and sized:
            raise InvalidArgument(
                "resize_pane takes either a size or zoom, not both",
                hint="Call it twice: once to resize, once to zoom.",
            )
        if zoom is None and not sized:
            raise InvalidArgument("resize_pane needs height, width or zoom")
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        ctx.backend.resize_pane(server, pane.pane_id, width=width, height=height, zoom=zoom)
        return ctx.resolve(server, pane.pane_id)

    return pane_result(ctx, server, await ctx.call(resize))


@tool("Select tmux Pane")
async def select_pane(
    pane_id: Annotated[
        PaneIdText | None, Field(description="Pane to select, or to move from with direction.")
    ] = None,
    direction: Annotated[
        Direction | None,
        Field(
            description="Move to the pane up/down/left/right (wrapping), the last active "
            "one, or the next/previous by index."
        ),
    ] = None,
    window_id: WindowId = None,
    window_index: WindowIndex = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Make a pane the active one in its window, by id or by direction; returns the pane active
    afterwards.

    Use to focus a pane (what an attached user sees and types into).
    With direction alone the move starts at the active pane of the
    window (window_id, window_index in the session, the session's
    current window, or the server's only window). Returns the pane that
    is active afterwards.
    """
    server = ctx.server(socket_name, socket_path)

    def select() -> BackendPane:
        if pane_id is None and direction is None:
            raise InvalidArgument(
                "select_pane needs pane_id or direction",
                hint="Pass pane_id to select it, or direction to move from the active pane.",
            )
        if pane_id is not None:
            start = pane_in_scope(server, pane_id)
        else:
            window = resolve_window(
                ctx.backend,
                server,
                window_id=window_id,
                window_index=window_index,
                session_name=session_name,
                session_id=session_id,
            )
            if window.active_pane_id is None:
                raise NotFound(f"window {window.window_id} has no active pane")
            start = ctx.resolve(server, window.active_pane_id)
        if direction in _STEPS:
            panes = ctx.backend.list_panes(server, window_id=start.window_id)
            ids = [p.pane_id for p in sorted(panes, key=lambda p: p.pane_index)]
            target = ids[(ids.index(start.pane_id) + _STEPS[direction]) % len(ids)]
            ctx.backend.select_pane(server, target)
        else:
            move = None if direction is None else _TMUX_MOVES[direction]
            ctx.backend.select_pane(server, start.pane_id, direction=move)
        panes = ctx.backend.list_panes(server, window_id=start.window_id)
        return next((p for p in panes if p.active), start)

    def pane_in_scope(server: ServerRef, wanted: str) -> BackendPane:
        """Pane ``wanted``; window or session arguments given with it must hold it."""
        index = window_index_number(window_index)
        rows = ctx.backend.list_panes(server, pane_id=wanted)
        if not rows:
            raise NotFound(f"no pane {wanted} on this tmux server")
        for row in rows:
            if (
                window_id in (None, row.window_id)
                and session_id in (None, row.session_id)
                and session_name in (None, row.session_name)
                and index in (None, row.window_index)
            ):
                return row
        raise InvalidArgument(
            f"pane {wanted} is not in the window or session given with it",
            hint="Pass pane_id alone, or with the window and session that hold it.",
        )

    return pane_result(ctx, server, await ctx.call(select))


@tool("Swap tmux Panes")
async def swap_pane(
    source_pane_id: Annotated[PaneIdText, Field(description="One pane id, e.g. '%1'.")],
    target_pane_id: Annotated[PaneIdText, Field(description="The other pane id, e.g. '%2'.")],
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Swap the places of two panes (also across windows); both keep their ids.

    Use to rearrange a layout without restarting anything. Returns the
    source pane in its new place.
    """
    server = ctx.server(socket_name, socket_path)

    def swap() -> BackendPane:
        if source_pane_id == target_pane_id:
            raise InvalidArgument(
                f"cannot swap pane {source_pane_id} with itself",
                hint="Pass two different pane ids.",
            )
        ctx.resolve(server, source_pane_id)
        ctx.resolve(server, target_pane_id)
        ctx.backend.swap_pane(server, source_pane_id, target_pane_id)
        return ctx.resolve(server, source_pane_id)

    return pane_result(ctx, server, await ctx.call(swap))


@tool("Paste Text into tmux Pane")
async def paste_text(
    text: Annotated[str, Field(description="The text to paste; may span many lines.")],
    pane_id: PaneId = None,
    bracket: Annotated[
        bool,
        Field(
            description="Wrap it in bracketed-paste markers, for programs that ask for them "
            "(the program then takes it as one paste, not as typed keys)."
        ),
    ] = True,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Paste text into a pane as one paste (newlines arrive as Enter). Use for multi-line input that
    send_keys would type line by line.

    Use for multi-line input (a script, a heredoc, a block of code) that
    send_keys would type line by line. Newlines arrive as Enter. The
    buffer is deleted afterwards, also when pasting fails. Refused for a
    pane whose program has exited.
    """
    server = ctx.server(socket_name, socket_path)
    buffer = f"gridmux-paste-{uuid.uuid4().hex}"

    def paste() -> str:
        if not text:
            raise InvalidArgument("text is empty: nothing to paste")
        check_text("text", text)
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        require_live(pane, "paste into")
        ctx.refuse_input_to_caller(server, pane.pane_id)
        ctx.backend.load_buffer(server, buffer, text)
        try:
            ctx.backend.paste_buffer(server, buffer, pane.pane_id, bracket=bracket, delete=True)
        except BaseException:
            # Gone already when the paste got as far as deleting it.
            with contextlib.suppress(GridmuxError):
                ctx.backend.delete_buffer(server, buffer)
            raise
        return pane.pane_id

    return f"Text pasted to pane {await ctx.call(paste)}"


#: This module's tools, in the order clients list them.
TOOLS = (
    display_message,
    find_pane_by_position,
    set_pane_title,
    clear_pane,
    resize_pane,
    select_pane,
    swap_pane,
    paste_text,
)


__all__ = [
    "TOOLS",
    "clear_pane",
    "display_message",
    "find_pane_by_position",
    "paste_text",
    "resize_pane",
    "select_pane",
    "set_pane_title",
    "swap_pane",
]
