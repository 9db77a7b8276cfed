"""Read-only MCP resources over the tmux hierarchy of a tmux server.

``tmux://sessions`` lists sessions; templates walk down from there::

    tmux://sessions/{session}                    a session and its windows
    tmux://sessions/{session}/windows            a session's windows
    tmux://sessions/{session}/windows/{window}   a window and its panes
    tmux://windows/{window_id}/panes             a window's panes
    tmux://panes/{pane_id}                       one pane's metadata
    tmux://panes/{pane_id}/content               one pane's visible screen (text)
    tmux://runs/{run_id}/output                  a run_command's whole output (text)

``tmux://runs/{run_id}/output`` is the ``full_output`` a run_command result
names: every line the command printed, also what scrolled past
history-limit, while this server process keeps it (its last runs; it takes
no socket query, the run id is enough).

Every URI takes ``?socket_name=NAME`` to read another tmux server than the
configured one (``tmux://sessions`` with a query is a template of its own).
There is no ``socket_path`` query: FastMCP's template matching refuses a
``/`` in a query value, even percent-encoded; the tools take socket_path.
Structured resources are JSON with the same fields as the matching tools
(``list_sessions``, ``list_windows``, ``list_panes``, ``get_pane_info``); a
detail adds its children's list.

Names. ``{session}`` is a session id (``$1``), the exact name of a session,
or a bare number: a session of that name if there is one, else the id
(``1`` is ``$1``). ``{window}`` is a window id (``@2``) in that session, a
bare number (the window index), or the exact name of one window of it.
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
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar
from urllib.parse import quote

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from mcp import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import BaseModel

from gridmux.backend import ServerRef, SessionInfo, TmuxBackend
from gridmux.backend import WindowInfo as BackendWindow
from gridmux.errors import GridmuxError, InvalidArgument, NotFound
from gridmux.tools import (
    KEEP_RUNS,
    TOOL_CONTEXT,
    PaneInfo,
    ToolContext,
    pane_result,
    resolve_session,
    run_output,
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


def _server(ctx: ToolContext, socket_name: str | None) -> ServerRef:
    """The server a URI's query names (the configured one without a query)."""
    try:
        return ctx.server(socket_name)
    except ToolError as exc:
        raise MCPError(code=INVALID_PARAMS, message=str(exc)) from exc


def find_session(backend: TmuxBackend, server: ServerRef, raw: str) -> SessionInfo:
    """The session a ``{session}`` segment names: id, exact name, or bare id number."""
    found = backend.list_sessions(server)
    if not raw.startswith("$"):
        named = [s for s in found if s.session_name == raw]
        if named:
            return named[0]
        if not (raw.isascii() and raw.isdigit()):
            names = ", ".join(repr(s.session_name) for s in found) or "none"
            raise NotFound(
                f"no session named {raw!r} on this tmux server (sessions: {names})",
                hint="Write the session's exact name, or its id such as $1.",
            )
    wanted = parse_id("session", raw)
    return resolve_session(backend, server, session_name=None, session_id=wanted)


def find_window(
    backend: TmuxBackend, server: ServerRef, session: SessionInfo, raw: str
) -> BackendWindow:
    """The window of ``session`` a ``{window}`` segment names: id, index, or exact name."""
    windows = backend.list_windows(server, session.session_id)
    if raw.startswith("@"):
        wanted = parse_id("window", raw)
        matches = [w for w in windows if w.window_id == wanted]
    elif raw.isascii() and raw.isdigit():
        matches = [w for w in windows if w.window_index == int(raw)]
    else:
        matches = [w for w in windows if w.window_name == raw]
        if len(matches) > 1:
            raise InvalidArgument(
                f"session {session.session_name!r} has {len(matches)} windows named {raw!r}",
                hint="Write the window's index or id (@2) instead of its name.",
            )
    if not matches:
        listed = ", ".join(f"{w.window_index} {w.window_name!r}" for w in windows)
        raise NotFound(
            f"session {session.session_name!r} has no window {raw!r} (it has {listed})",
            hint="Write a window id (@2), index (0) or exact name of this session.",
        )
    return matches[0]


async def sessions(
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Every session on the tmux server (list_sessions' fields)."""
    server = _server(ctx, socket_name)
    found = await _read("tmux://sessions", lambda: ctx.backend.list_sessions(server))
    return _json([session_result(s) for s in found])


async def configured_sessions(*, ctx: ToolContext = TOOL_CONTEXT) -> str:
    """Every session on the configured tmux server (list_sessions' fields)."""
    return await sessions(ctx=ctx)


async def session(
    session: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """One session (get_session_info's fields) and its windows, by id, name or number."""
    server = _server(ctx, socket_name)

    def read() -> str:
        found = find_session(ctx.backend, server, session)
        windows = ctx.backend.list_windows(server, found.session_id)
        detail = session_result(found).model_dump(mode="json")
        detail["windows"] = [window_result(w).model_dump(mode="json") for w in windows]
        return json.dumps(detail)

    return await _read(f"tmux://sessions/{quote(session, safe='')}", read)


async def session_windows(
    session: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """The windows of one session, by session id ($1), name, or number."""
    uri = f"tmux://sessions/{quote(session, safe='')}/windows"
    server = _server(ctx, socket_name)

    def read() -> list[BackendWindow]:
        found = find_session(ctx.backend, server, session)
        return ctx.backend.list_windows(server, found.session_id)

    return _json([window_result(w) for w in await _read(uri, read)])


async def window(
    session: str,
    window: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """One window of a session (get_window_info's fields) and its panes."""
    uri = f"tmux://sessions/{quote(session, safe='')}/windows/{quote(window, safe='')}"
    server = _server(ctx, socket_name)

    def read() -> str:
        found = find_window(ctx.backend, server, find_session(ctx.backend, server, session), window)
        panes = [p for p in ctx.backend.list_panes(server) if p.window_id == found.window_id]
        detail = window_result(found).model_dump(mode="json")
        detail["panes"] = [pane_result(ctx, server, p).model_dump(mode="json") for p in panes]
        return json.dumps(detail)

    return await _read(uri, read)


async def window_panes(
    window_id: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """The panes of one window, by window id (@2, or just 2)."""
    uri = f"tmux://windows/{quote(window_id, safe='')}/panes"
    server = _server(ctx, socket_name)

    def read() -> list[PaneInfo]:
        wanted = parse_id("window", window_id)
        panes = [p for p in ctx.backend.list_panes(server) if p.window_id == wanted]
        if not panes:
            raise NotFound(f"no window {wanted} on this tmux server")
        return [pane_result(ctx, server, p) for p in panes]

    return _json(await _read(uri, read))


async def pane(
    pane_id: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """One pane's metadata (get_pane_info's fields), by pane id (%253 for %3, or 3)."""
    server = _server(ctx, socket_name)

    def read() -> PaneInfo:
        found = ctx.resolve(server, pane_id=parse_id("pane", pane_id))
        return pane_result(ctx, server, found)

    return _json(await _read(f"tmux://panes/{quote(pane_id, safe='')}", read))


async def pane_content(
    pane_id: str,
    socket_name: str | None = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """The text a pane shows now (its visible screen), by pane id (%253 for %3, or 3)."""
    server = _server(ctx, socket_name)

    def read() -> list[str]:
        found = ctx.resolve(server, pane_id=parse_id("pane", pane_id))
        return strip_blank_tail(ctx.backend.snapshot(server, found.pane_id).rows)

    uri = f"tmux://panes/{quote(pane_id, safe='')}/content"
    return "\n".join(await _read(uri, read))


async def run_output_text(run_id: str) -> str:
    """A recent run_command's whole output, by the run id of its full_output URI."""
    uri = f"tmux://runs/{quote(run_id, safe='')}/output"

    def read() -> list[str]:
        if not re.fullmatch(r"[0-9a-f]{16}", run_id):
            raise InvalidArgument(
                f"{run_id!r} is not a run id",
                hint="Read the full_output URI a run_command result gives, as it is.",
            )
        lines = run_output(run_id)
        if lines is None:
            raise NotFound(
                f"this server keeps no output of run {run_id}",
                hint=f"It keeps the last {KEEP_RUNS} runs' output until it exits; run the "
                "command again (with a larger max_lines if the tail is enough).",
            )
        return lines

    return "\n".join(await _read(uri, read))


#: The query every URI takes: another tmux server than the configured one.
SOCKET_QUERY = "{?socket_name}"

#: Each resource: its function, URI (template, before its socket query), title,
#: MIME type, and the tool that shows the same (the resource is served only
#: where that tool is offered).
_RESOURCES = (
    (sessions, "tmux://sessions", "tmux Sessions", JSON, "list_sessions"),
    (session, "tmux://sessions/{session}", "tmux Session Detail", JSON, "get_session_info"),
    (
        session_windows,
        "tmux://sessions/{session}/windows",
        "tmux Session Windows",
        JSON,
        "list_windows",
    ),
    (
        window,
        "tmux://sessions/{session}/windows/{window}",
        "tmux Window Detail",
        JSON,
        "get_window_info",
    ),
    (window_panes, "tmux://windows/{window_id}/panes", "tmux Window Panes", JSON, "list_panes"),
    (pane, "tmux://panes/{pane_id}", "tmux Pane", JSON, "get_pane_info"),
    (pane_content, "tmux://panes/{pane_id}/content", "tmux Pane Content", TEXT, "capture_pane"),
)


def register(mcp: FastMCP, offered: Collection[str]) -> None:
    """Add the hierarchy resources whose tool is ``offered``: ``tmux://sessions``
    as a plain resource (for resource pickers) and every URI with its socket
    query as a template; run_command's output with run_command."""
    if "list_sessions" in offered:
        mcp.resource("tmux://sessions", name="sessions", title="tmux Sessions", mime_type=JSON)(
            configured_sessions
        )
    for fn, uri, title, mime_type, tool in _RESOURCES:
        if tool not in offered:
            continue
        name = f"{fn.__name__}_on_socket" if fn is sessions else fn.__name__
        mcp.resource(uri + SOCKET_QUERY, name=name, title=title, mime_type=mime_type)(fn)
    if "run_command" in offered:
        mcp.resource(
            "tmux://runs/{run_id}/output",
            name="run_output",
            title="run_command Output",
            mime_type=TEXT,
        )(run_output_text)


__all__ = ["SOCKET_QUERY", "find_session", "find_window", "parse_id", "register"]
