"""Pane tools: list_panes, get_pane_info, capture_pane, snapshot_pane, send_keys."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Annotated

from pydantic import Field

from gridmux.backend import PaneInfo as BackendPane
from gridmux.backend import PaneSnapshot as BackendSnapshot
from gridmux.capture import limit_tail
from gridmux.errors import InvalidArgument
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._filters import apply_filters
from ._models import PANE_ROW_FIELDS, PaneInfo, PaneRow, PaneSnapshot
from ._params import (
    Filters,
    MaxLines,
    PaneId,
    SessionId,
    SessionName,
    SocketName,
    SocketPath,
    WindowId,
    WindowIndex,
)
from ._results import geometry, pane_fields, pane_result
from ._targets import check_text, session_in_listing
from ._text import strip_blank_tail

#: capture-pane reads row numbers in INT_MIN..32767 (docs/tmux-model.md §14)
_ROW_MIN, _ROW_MAX = -(10**9), 32767
Row = Annotated[int | None, Field(ge=_ROW_MIN, le=_ROW_MAX)]

#: Columns list_panes adds on request (``fields``); "all" adds every one.
EXTRA_PANE_FIELDS: tuple[str, ...] = tuple(
    name for name in PaneRow.model_fields if name not in PANE_ROW_FIELDS
)
PaneFields = Annotated[
    list[str] | None,
    Field(
        description=(
            'Extra columns beyond the default ones, or ["all"]: '
            + " ".join(EXTRA_PANE_FIELDS)
            + ". get_pane_info describes one pane in full."
        ),
    ),
]


def pane_columns(fields: list[str] | None) -> tuple[str, ...]:
    """The columns a list_panes call returns: the defaults plus ``fields``."""
    if not fields:
        return PANE_ROW_FIELDS
    if "all" in fields:
        return PANE_ROW_FIELDS + EXTRA_PANE_FIELDS
    for name in fields:
        if name not in PaneRow.model_fields:
            close = get_close_matches(name, EXTRA_PANE_FIELDS, n=1)
            raise InvalidArgument(
                f"unknown field {name!r} in fields",
                hint=(f"Did you mean {close[0]!r}? " if close else "")
                + "Fields: all, "
                + ", ".join(EXTRA_PANE_FIELDS)
                + ".",
                parameter="fields",
            )
    return PANE_ROW_FIELDS + tuple(n for n in EXTRA_PANE_FIELDS if n in fields)


@tool("List tmux Panes", always_load=True)
async def list_panes(
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    window_index: WindowIndex = None,
    socket_name: SocketName = None,
    filters: Filters = None,
    socket_path: SocketPath = None,
    fields: PaneFields = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> list[PaneRow]:
    """List the panes of a window, a session or the whole server, filtered on their metadata. Use to
    find the pane id to read or type into; search_panes finds panes by screen text.

    Use to find the pane id to read or type into. Here a session or
    window target narrows the list to its panes (no active pane is
    picked); filters narrow it further (e.g. by pane_current_command) and
    may name any get_pane_info field; ``fields`` adds columns to the
    default ones.
    """
    server = ctx.server(socket_name, socket_path)
    try:
        columns = pane_columns(fields)
    except InvalidArgument as exc:
        raise tool_error(exc) from exc

    def select() -> list[BackendPane]:
        listing = panes = ctx.backend.list_panes(server)
        if window_id is not None:
            panes = [p for p in panes if p.window_id == window_id]
            if not panes:
                raise InvalidArgument(f"no window {window_id} on this tmux server")
        if session_name is not None or session_id is not None:
            wanted = session_in_listing(
                ctx.backend, server, listing, session_name=session_name, session_id=session_id
            )
            panes = [p for p in panes if p.session_id == wanted]
        if window_index is not None:
            if session_name is None and session_id is None:
                raise InvalidArgument(
                    "window_index needs session_name or session_id",
                    hint="Pass the session too, or use window_id.",
                )
            panes = [p for p in panes if str(p.window_index) == window_index]
        return panes

    panes = await ctx.call(select)
    rows = [pane_fields(ctx, server, p) for p in panes]
    try:
        keep = apply_filters(rows, filters)
    except InvalidArgument as exc:
        raise tool_error(exc) from exc
    return [PaneRow(**{c: rows[i][c] for c in columns}) for i in keep]


@tool("Get tmux Pane Info")
async def get_pane_info(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Describe one pane: size, position, process, working directory, title. Use for metadata;
    capture_pane or snapshot_pane for its text.

    Use for metadata without reading the screen; use capture_pane for text.
    """
    server = ctx.server(socket_name, socket_path)
    pane = await ctx.call(lambda: ctx.resolve(server, pane_id, session_name, session_id, window_id))
    return pane_result(ctx, server, pane)


@tool("Capture Pane")
async def capture_pane(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    start: Annotated[
        Row,
        Field(description="First row: 0 is the top visible row, negative reaches into history."),
    ] = None,
    end: Annotated[Row, Field(description="Last row (default: the bottom of the screen).")] = None,
    max_lines: MaxLines = 500,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Read a pane's text: the visible screen, or a row range into history (negative start). To
    follow output across turns, use capture_since instead.

    Use to see what a terminal shows now. To follow output over several
    turns without re-reading it, use capture_since instead. When more
    than max_lines rows come back, the newest are kept and the text
    starts with a line saying how many were left out.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> tuple[str, ...]:
        target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
        return ctx.backend.snapshot(server, target, start=start, end=end).rows

    rows = strip_blank_tail(await ctx.call(read))
    limited = limit_tail(tuple(rows), max_lines, None)
    text = "\n".join(limited.lines)
    if limited.truncated_lines:
        text = f"[... truncated {limited.truncated_lines} lines ...]\n{text}"
    return text


@tool("Snapshot Pane", always_load=True)
async def snapshot_pane(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    max_lines: MaxLines = 500,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneSnapshot:
    """Read a pane's screen with its cursor, size, mode and process, in one atomic read.

    Use for a one-shot look at a terminal with the context to interpret it
    (is a full-screen program running? where is the cursor?). Screen text
    and cursor come from one atomic tmux read.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> tuple[BackendPane, BackendSnapshot, int | None]:
        target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
        pane, snap = ctx.backend.pane_snapshot(server, target)
        scroll = None
        if snap.state.in_mode:  # only copy mode has a scroll position
            text = ctx.backend.display_message(server, pane.pane_id, "#{scroll_position}")
            scroll = int(text) if text.strip().isdigit() else None
        return pane, snap, scroll

    pane, snap, scroll = await ctx.call(read)
    state = snap.state
    limited = limit_tail(tuple(strip_blank_tail(snap.rows)), max_lines, None)
    return PaneSnapshot(
        pane_id=pane.pane_id,
        content="\n".join(limited.lines),
        cursor_x=state.cursor_x,
        cursor_y=state.cursor_y,
        pane_width=state.width,
        pane_height=state.height,
        **geometry(pane),
        pane_tty=pane.tty,
        pane_pid=state.pid,
        pane_dead=state.dead,
        alternate_on=state.alternate_on,
        pane_in_mode=state.in_mode,
        pane_mode=pane.mode,
        scroll_position=scroll,
        history_size=state.history_size,
        history_limit=state.history_limit,
        title=pane.title,
        pane_current_command=pane.current_command,
        pane_current_path=pane.current_path,
        is_caller=ctx.is_caller(server, pane.pane_id),
        content_truncated=limited.truncated,
        content_truncated_lines=limited.truncated_lines,
    )


@tool("Send Keys")
async def send_keys(
    keys: Annotated[
        str,
        Field(description="Text to type, or a tmux key name such as 'C-c' or 'Escape'."),
    ],
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    enter: Annotated[bool, Field(description="Press Enter afterwards.")] = True,
    literal: Annotated[
        bool,
        Field(description="Type keys as literal text; never interpret them as key names."),
    ] = False,
    suppress_history: Annotated[
        bool,
        Field(description="Prefix a space so shells with HISTCONTROL=ignorespace skip it."),
    ] = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Type into a pane: a command line, text, or a key such as C-c (Enter after, by default); then
    read with capture_since. For a shell command's output and exit status, prefer run_command.

    Use to run commands or answer prompts. Keys and Enter go in one tmux
    call. Then read the result with capture_since (or wait for it).
    Without literal, a whole string that names a key (C-c, Enter, Up) is
    sent as that key. Long text (over 8 KiB) is typed byte for byte through
    a private tmux buffer, deleted afterwards.
    """
    server = ctx.server(socket_name, socket_path)
    if not keys and not enter:
        raise tool_error(InvalidArgument("keys is empty and enter is false: nothing to send"))
    try:
        check_text("keys", keys, parts="several send_keys calls")
    except InvalidArgument as exc:
        raise tool_error(exc) from None
    text = f" {keys}" if suppress_history and keys else keys

    def send() -> str:
        target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
        ctx.refuse_input_to_caller(server, target)
        ctx.backend.send_keys(server, target, text, literal=literal, enter=enter)
        return target

    sent_to = await ctx.call(send)
    return f"Keys sent to pane {sent_to}"


#: This module's tools, in the order clients list them.
TOOLS = (
    list_panes,
    get_pane_info,
    capture_pane,
    snapshot_pane,
    send_keys,
)


__all__ = ["TOOLS", "capture_pane", "get_pane_info", "list_panes", "send_keys", "snapshot_pane"]
