"""Read-only MCP resources over the tmux hierarchy of the configured server.

``tmux://sessions`` lists sessions; templates walk down from there::

    tmux://sessions/{session_id}/windows   a session's windows
    tmux://windows/{window_id}/panes       a window's panes
    tmux://panes/{pane_id}                 one pane's metadata
    tmux://panes/{pane_id}/content         one pane's visible screen (text)

Structured resources are JSON with the same fields as the matching tools
(``list_sessions``, ``list_windows``, ``list_panes``, ``get_pane_info``).
Resources are snapshots for clients with resource pickers; agents mostly use
the tools, which also reach other servers and take filters.

Ids in URIs. tmux ids carry a sigil: ``$1``, ``@2``, ``%3``. ``$`` and ``@``
may stand as written; ``%`` starts a percent-escape in a URI, so a pane id is
written ``%253`` (``%3`` percent-encoded, as any URI template expansion
does). A bare number is accepted too: ``tmux://panes/3`` is pane ``%3``.

A missing or malformed id is an invalid-params error (-32602, the code MCP
uses for unknown resources) whose message says what to do; a tmux failure is
an internal error carrying tmux's complaint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TypeVar
from urllib.parse import quote

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError
from mcp import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel

from gridmux.backend import WindowInfo as BackendWindow
from gridmux.errors import GridmuxError, InvalidArgument, NotFound
from gridmux.tools import (
    TOOL_CONTEXT,
    PaneInfo,
    ToolContext,
    pane_result,
    resolve_session,
    session_result,
    strip_blank_tail,
    window_result,
)

T = TypeVar("T")

JSON = "application/json"
TEXT = "text/plain"

_SIGILS = {"session": "$", "window": "@", "pane": "%"}
_EXAMPLES = {
    "session": "$1 (or 1)",
    "window": "@1 (or 1)",
    "pane": "%253 (that is %3, encoded) or 3",
}


def parse_id(kind: str, raw: str) -> str:
    """The tmux id a URI segment names: ``%3``, ``$1``, ``@2``, or a bare number."""
    sigil = _SIGILS[kind]
    if raw.isascii() and raw.isdigit():
        return f"{sigil}{int(raw)}"
    if re.fullmatch(re.escape(sigil) + r"\d+", raw):
        return raw
    raise InvalidArgument(
        f"{raw!r} is not a tmux {kind} id",
        hint=f"Write the {kind} id in the URI as {_EXAMPLES[kind]}.",
    )


def _json(models: Sequence[BaseModel] | BaseModel) -> str:
    if isinstance(models, BaseModel):
        return models.model_dump_json()
    return json.dumps([m.model_dump(mode="json") for m in models])


async def _read(uri: str, fn: Callable[[], T]) -> T:
    """Run a backend read in a worker thread; turn gridmux errors into MCP errors."""
    try:
        return await anyio.to_thread.run_sync(fn)
    except GridmuxError as exc:
        text = exc.message if not exc.hint else f"{exc.message}\nHint: {exc.hint}"
        if isinstance(exc, NotFound | InvalidArgument):
            raise MCPError(code=INVALID_PARAMS, message=text, data={"uri": uri}) from exc
        raise ResourceError(text) from exc


async def sessions(*, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """Every session on the configured tmux server (list_sessions' fields)."""
    server = ctx.server()
    found = await _read("tmux://sessions", lambda: ctx.backend.list_sessions(server))
    return _json([session_result(s) for s in found])


async def session_windows(session_id: str, *, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """The windows of one session, by session id ($1, or just 1)."""
    uri = f"tmux://sessions/{quote(session_id, safe='')}/windows"
    server = ctx.server()

    def read() -> list[BackendWindow]:
        wanted = parse_id("session", session_id)
        session = resolve_session(ctx.backend, server, session_name=None, session_id=wanted)
        return ctx.backend.list_windows(server, session.session_id)

    return _json([window_result(w) for w in await _read(uri, read)])


async def window_panes(window_id: str, *, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """The panes of one window, by window id (@2, or just 2)."""
    uri = f"tmux://windows/{quote(window_id, safe='')}/panes"
    server = ctx.server()

    def read() -> list[PaneInfo]:
        wanted = parse_id("window", window_id)
        panes = [p for p in ctx.backend.list_panes(server) if p.window_id == wanted]
        if not panes:
            raise NotFound(f"no window {wanted} on this tmux server")
        return [pane_result(ctx, server, p) for p in panes]

    return _json(await _read(uri, read))


async def pane(pane_id: str, *, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """One pane's metadata (get_pane_info's fields), by pane id (%253 for %3, or 3)."""
    server = ctx.server()

    def read() -> PaneInfo:
        found = ctx.resolve(server, pane_id=parse_id("pane", pane_id))
        return pane_result(ctx, server, found)

    return _json(await _read(f"tmux://panes/{quote(pane_id, safe='')}", read))


async def pane_content(pane_id: str, *, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """The text a pane shows now (its visible screen), by pane id (%253 for %3, or 3)."""
    server = ctx.server()

    def read() -> list[str]:
        found = ctx.resolve(server, pane_id=parse_id("pane", pane_id))
        return strip_blank_tail(ctx.backend.snapshot(server, found.pane_id).rows)

    uri = f"tmux://panes/{quote(pane_id, safe='')}/content"
    return "\n".join(await _read(uri, read))


#: Each resource: its function, URI (template), name, title and MIME type.
_RESOURCES = (
    (sessions, "tmux://sessions", "tmux Sessions", JSON),
    (session_windows, "tmux://sessions/{session_id}/windows", "tmux Session Windows", JSON),
    (window_panes, "tmux://windows/{window_id}/panes", "tmux Window Panes", JSON),
    (pane, "tmux://panes/{pane_id}", "tmux Pane", JSON),
    (pane_content, "tmux://panes/{pane_id}/content", "tmux Pane Content", TEXT),
)


def register(mcp: FastMCP) -> None:
    """Add the hierarchy resources; they read the server the tool context names."""
    for fn, uri, title, mime_type in _RESOURCES:
        mcp.resource(uri, name=fn.__name__, title=title, mime_type=mime_type)(fn)


__all__ = ["parse_id", "register"]
