"""search_panes: find text across panes, paginated.

Every pane in scope is read once, with wrapped rows joined, over the rows
``content_start``/``content_end`` name (default: the visible screen), so the
scan is bounded by what the caller asks for, never by a pane's whole
scrollback. Matching happens here, in Python: tmux's own pane filter
(``#{C:...}``) matches glob syntax and visual rows, so it is not used.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gridmux.backend import PaneInfo, PaneSnapshot, ServerRef
from gridmux.errors import InvalidArgument
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._observe_models import PaneContentMatch, SearchPanesResult
from ._params import SessionIdText, SocketName, SocketPath
from ._targets import session_in_listing
from ._text import compile_pattern


def _pane_number(pane: PaneInfo) -> int:
    return int(pane.pane_id[1:])


def _panes_in_scope(
    ctx: ToolContext,
    server: ServerRef,
    session_name: str | None,
    session_id: str | None,
    scanned: list[tuple[PaneInfo, PaneSnapshot]],
) -> list[tuple[PaneInfo, PaneSnapshot]]:
    if session_name is not None or session_id is not None:
        wanted = session_in_listing(
            ctx.backend,
            server,
            [pane for pane, _ in scanned],
            session_name=session_name,
            session_id=session_id,
        )
        scanned = [(p, snap) for p, snap in scanned if p.session_id == wanted]
    # A window linked into several sessions lists its panes once per session.
    unique = {pane.pane_id: (pane, snap) for pane, snap in scanned}
    return sorted(unique.values(), key=lambda found: _pane_number(found[0]))


def _match(pane: PaneInfo, lines: list[str], cap: int, is_caller: bool | None) -> PaneContentMatch:
    return PaneContentMatch(
        pane_id=pane.pane_id,
        pane_current_command=pane.current_command,
        pane_current_path=pane.current_path,
        window_id=pane.window_id,
        window_name=pane.window_name,
        session_name=pane.session_name,
        matched_lines=lines[-cap:],
        matched_line_count=len(lines),
        is_caller=is_caller,
    )


@tool("Search tmux Panes")
async def search_panes(
    pattern: Annotated[
        str, Field(description="Text to find (literal unless regex is true).", min_length=1)
    ],
    regex: Annotated[
        bool,
        Field(
            description=(
                "Treat pattern as a regular expression (RE2: Python syntax without "
                "backreferences or lookaround)."
            )
        ),
    ] = False,
    session_name: Annotated[
        str | None, Field(description="Search only the panes of this session.")
    ] = None,
    session_id: Annotated[
        SessionIdText | None,
        Field(description="Search only the panes of this session, e.g. '$1'."),
    ] = None,
    match_case: Annotated[
        bool, Field(description="Match case exactly (default: ignore case).")
    ] = False,
    content_start: Annotated[
        int | None,
        Field(
            description=(
                "First row to search: 0 is the top visible row, negative reaches that many "
                "rows into scrollback (default: the top visible row)."
            )
        ),
    ] = None,
    content_end: Annotated[
        int | None,
        Field(description="Last row to search, numbered like content_start (default: bottom)."),
    ] = None,
    max_matched_lines_per_pane: Annotated[
        int, Field(ge=1, description="Keep at most this many of the newest matching lines.")
    ] = 50,
    limit: Annotated[
        int | None,
        Field(ge=1, description="Matching panes per page; null for all of them."),
    ] = 500,
    offset: Annotated[int, Field(ge=0, description="Matching panes to skip (paging).")] = 0,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> SearchPanesResult:
    """Find which panes show some text, and the matching lines (a negative content_start reaches
    into scrollback; while truncated, page with offset). Use when you do not know which pane to
    read.

    Use to locate a pane by what it displays -- a failing test, an error,
    a prompt -- when you do not know which pane to read. Searches the
    visible screen of every pane (or of one session's panes); pass a
    negative content_start to reach that many rows into scrollback.
    Lines wrapped by the terminal are joined before matching. Results
    are paged by pane: when truncated is true, call again with
    offset=offset+limit. To read one known pane use capture_pane; to
    wait for text to appear use wait_for_text.
    """
    server = ctx.server(socket_name, socket_path)
    try:
        compiled = compile_pattern(pattern, regex=regex, match_case=match_case, what="pattern")
    except InvalidArgument as exc:
        raise tool_error(exc) from exc

    def scan() -> list[tuple[PaneInfo, list[str]]]:
        found: list[tuple[PaneInfo, list[str]]] = []
        # One command list lists and reads every pane; the scope is chosen here.
        scanned = ctx.backend.scan_panes(
            server, start=content_start, end=content_end, join_wrapped=True
        )
        for pane, snap in _panes_in_scope(ctx, server, session_name, session_id, scanned):
            lines = [line for line in snap.rows if compiled.search(line)]
            if lines:
                found.append((pane, lines))
        return found

    found = await ctx.call(scan)
    end = len(found) if limit is None else offset + limit
    page = found[offset:end]
    return SearchPanesResult(
        matches=[
            _match(pane, lines, max_matched_lines_per_pane, ctx.is_caller(server, pane.pane_id))
            for pane, lines in page
        ],
        truncated=end < len(found),
        truncated_panes=[pane.pane_id for pane, _ in found[end:]],
        total_panes_matched=len(found),
        offset=offset,
        limit=limit,
    )


#: This module's tools, in the order clients list them.
TOOLS = (search_panes,)


__all__ = ["TOOLS", "search_panes"]
