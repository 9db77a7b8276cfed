"""capture_since: a pane's cursor reads (``_reader.PaneReader``) as a tool.

One atomic snapshot per call (state and rows from one tmux command list),
two when a bounded follow-up cannot prove its position: the core plans
which rows to read and turns the snapshot into a result.
"""

from __future__ import annotations

import time
from typing import Annotated

from pydantic import Field

from gridmux.capture import (
    CursorRejected,
    Reading,
    Refusal,
    limit_tail,
    parse_cursor,
)
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._models import CaptureSinceResult
from ._params import PaneIdText, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._reader import PaneReader
from ._refusals import guarded


@tool("Capture Since")
async def capture_since(
    cursor: Annotated[
        str | None,
        Field(
            description=(
                "Cursor from a previous capture_since call. Omit it to read the visible "
                "screen and start a cursor."
            )
        ),
    ] = None,
    pane_id: Annotated[
        PaneIdText | None,
        Field(description="Pane id, e.g. '%1'. Optional with a cursor (it names its pane)."),
    ] = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    max_lines: Annotated[
        int | None,
        Field(ge=1, description="Return at most this many of the newest lines (null: all)."),
    ] = 500,
    max_bytes: Annotated[
        int | None,
        Field(ge=1, description="Return at most this many UTF-8 bytes (null: no limit)."),
    ] = 128000,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> CaptureSinceResult:
    """Read only what a pane printed since your last look: without a cursor, the screen and a
    cursor; pass the cursor back for the rows written since (lines_missed=true: rows were lost
    and lines is the screen). Use to follow builds and logs across turns; for a command you run,
    prefer run_command.

    Use to follow a pane across turns -- a build, a test run, a server log --
    without re-reading scrollback. The first call (no cursor) returns the
    visible screen and a cursor; pass that cursor back to get only rows
    written or rewritten after it, plus a new cursor. Rows that scrolled
    into tmux's history are still returned exactly.

    lines_missed=true means rows could not be recovered exactly (trimmed
    by history-limit, cleared, rewrapped by a width change, or ambiguous):
    lines is then the visible screen and the new cursor starts there. In a
    fresh pane (a cursor with few rows above it) it is every row the pane
    holds instead, and its first may_repeat lines may repeat rows you got.
    first_line_rewritten=true means lines[0] replaces the last line you
    got before (e.g. a command typed at the prompt). Truncation drops the
    oldest lines and is reported in truncated_lines/truncated_bytes.

    A cursor is tied to one pane and one process: after the pane dies or
    is respawned, or for another pane, the call fails -- start over
    without a cursor. To wait for a command you started, prefer run_command
    or wait_for_text.
    """
    started = time.perf_counter()
    server = ctx.server(socket_name, socket_path)
    targeted = session_name is not None or session_id is not None or window_id is not None
    reader = PaneReader(ctx, server)

    def read() -> tuple[str, Reading]:
        if cursor is None:
            target = ctx.pane_target(server, pane_id, session_name, session_id, window_id)
            return target, reader.first(target)
        parsed = parse_cursor(cursor, pane_id=pane_id)
        if targeted:
            pane = ctx.resolve(server, None, session_name, session_id, window_id)
            if pane.pane_id != parsed.pane_id:
                raise CursorRejected(
                    Refusal.OTHER_PANE,
                    f"the cursor belongs to pane {parsed.pane_id}, but the target "
                    f"resolves to {pane.pane_id}",
                )
        return parsed.pane_id, reader.follow(parsed, ctx.ledgers.get(cursor))

    target, reading = await ctx.call(guarded(read))
    limited = limit_tail(reading.lines, max_lines, max_bytes)
    new_cursor = reading.cursor.encode()
    ctx.ledgers.put(new_cursor, reading.ledger)
    return CaptureSinceResult(
        pane_id=target,
        cursor=new_cursor,
        lines=list(limited.lines),
        elapsed_seconds=round(time.perf_counter() - started, 6),
        lines_missed=reading.lines_missed,
        may_repeat=max(0, reading.may_repeat - limited.truncated_lines),
        truncated=limited.truncated,
        truncated_lines=limited.truncated_lines,
        truncated_bytes=limited.truncated_bytes,
        first_line_rewritten=reading.first_line_rewritten and limited.truncated_lines == 0,
        alternate_on=reading.alternate_on,
    )


#: This module's tools, in the order clients list them.
TOOLS = (capture_since,)


__all__ = ["TOOLS", "capture_since"]
