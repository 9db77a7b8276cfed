"""Resolving a tool's target arguments to exactly one pane, session or window.

Rules: an explicit id wins and must exist; a window or session resolves to
its active pane; with no target at all, a server holding exactly one pane
resolves to it, and anything else is an error that lists the candidates --
a tool never acts on an arbitrary pane.
"""

from __future__ import annotations

import re

from gridmux.backend import PaneInfo, ServerRef, SessionInfo, TmuxBackend
from gridmux.errors import InvalidArgument, NotFound

_PANE_ID = re.compile(r"^%\d+$")
_WINDOW_ID = re.compile(r"^@\d+$")
_SESSION_ID = re.compile(r"^\$\d+$")
_MAX_LISTED = 12


def check_id(kind: str, value: str | None) -> None:
    pattern = {"pane": _PANE_ID, "window": _WINDOW_ID, "session": _SESSION_ID}[kind]
    if value is not None and not pattern.match(value):
        example = {"pane": "%1", "window": "@1", "session": "$1"}[kind]
        raise InvalidArgument(
            f"{kind}_id {value!r} is not a tmux {kind} id",
            hint=f"A {kind} id looks like {example!r}; list them with list_{kind}s.",
        )


def resolve_session(
    backend: TmuxBackend,
    server: ServerRef,
    *,
    session_name: str | None,
    session_id: str | None,
) -> SessionInfo:
    check_id("session", session_id)
    sessions = backend.list_sessions(server)
    if session_id is not None:
        matches = [s for s in sessions if s.session_id == session_id]
    else:
        matches = [s for s in sessions if s.session_name == session_name]
    if not matches:
        wanted = session_id if session_id is not None else repr(session_name)
        raise NotFound(f"no session {wanted} on this tmux server")
    found = matches[0]
    if session_name is not None and session_id is not None and found.session_name != session_name:
        raise InvalidArgument(
            f"session {session_id} is named {found.session_name!r}, not {session_name!r}",
            hint="Pass either session_id or session_name, or a matching pair.",
        )
    return found


def resolve_pane(
    backend: TmuxBackend,
    server: ServerRef,
    *,
    pane_id: str | None = None,
    session_name: str | None = None,
    session_id: str | None = None,
    window_id: str | None = None,
) -> PaneInfo:
    check_id("pane", pane_id)
    check_id("window", window_id)
    panes = backend.list_panes(server)
    if pane_id is not None:
        for pane in panes:
            if pane.pane_id == pane_id:
                return pane
        raise NotFound(f"no pane {pane_id} on this tmux server")
    if window_id is not None:
        in_window = [p for p in panes if p.window_id == window_id]
        if not in_window:
            raise NotFound(f"no window {window_id} on this tmux server")
        return next((p for p in in_window if p.active), in_window[0])
    if session_name is not None or session_id is not None:
        session = resolve_session(backend, server, session_name=session_name, session_id=session_id)
        for pane in panes:
            if pane.pane_id == session.active_pane_id:
                return pane
        raise NotFound(f"session {session.session_id} has no active pane")
    unique = {p.pane_id: p for p in panes}
    if len(unique) == 1:
        return next(iter(unique.values()))
    if not unique:
        raise NotFound("this tmux server has no panes", hint="Create one with create_session.")
    listed = ", ".join(
        f"{p.pane_id} ({p.session_name}:{p.window_index}.{p.pane_index} {p.current_command})"
        for p in list(unique.values())[:_MAX_LISTED]
    )
    more = "" if len(unique) <= _MAX_LISTED else f" and {len(unique) - _MAX_LISTED} more"
    raise InvalidArgument(
        f"no target given and the server has {len(unique)} panes: {listed}{more}",
        hint="Pass pane_id (or session_name/session_id/window_id) to say which pane.",
    )
