"""Resolving a tool's target arguments to exactly one pane, session or window.

Rules: an explicit id wins and must exist; a window or session resolves to
its active pane (a session to its current window, for window tools); with no
target at all, a server holding exactly one candidate (pane, window or
session) resolves to it, and anything else is an error that lists the
candidates -- a tool never acts on an arbitrary object.
"""

from __future__ import annotations

from gridmux.backend import (
    CONTROL_CHARACTER,
    IDS,
    SESSION_NAME,
    WINDOW_INDEX,
    PaneInfo,
    ServerRef,
    SessionInfo,
    TmuxBackend,
    WindowInfo,
)
from gridmux.errors import InvalidArgument, NotFound, PaneDead

_MAX_LISTED = 12


def check_id(kind: str, value: str | None) -> None:
    """A ``pane``, ``window`` or ``session`` id in its form (``backend.IDS``); None passes."""
    form = IDS[kind]
    if value is not None and not form.matches(value):
        raise InvalidArgument(
            f"{kind}_id {value!r} is not a tmux {kind} id",
            hint=f"A {kind} id looks like {form.example!r}; list them with list_{kind}s.",
        )


def check_session_name(name: str) -> str:
    """A name tmux takes for a session (``backend.SESSION_NAME``)."""
    if not SESSION_NAME.matches(name):
        raise InvalidArgument(
            f"invalid session name {name!r}",
            hint="tmux session names cannot be empty or contain ':', '.' or control characters.",
        )
    return name


def check_name(what: str, name: str) -> str:
    """A window name or title: printable, so no ESC, CR, LF or NUL reaches a terminal."""
    bad = CONTROL_CHARACTER.search(name)
    if bad is not None:
        raise InvalidArgument(
            f"{what} {name!r} contains the control character {bad.group()!r}",
            hint=f"Pass {what} as printable text (no escape, newline, tab or NUL).",
        )
    return name


def check_no_nul(what: str, text: str) -> str:
    """Text tmux would cut at a NUL: refused rather than silently truncated."""
    if "\0" in text:
        raise InvalidArgument(
            f"{what} contains a NUL character (at offset {text.index(chr(0))}); tmux "
            "would cut the text there",
            hint="Remove the NUL; to type Ctrl-@ send the key 'C-@' with literal=false.",
        )
    return text


#: Most text one call types, pastes or loads into a buffer (UTF-8 bytes): 4 MiB,
#: far more than any paste needs; a send_keys_batch's operations together too.
MAX_TEXT_BYTES = 4 * 1024 * 1024


def check_text(what: str, text: str, *, parts: str = "parts") -> int:
    """Text a tool types or pastes: no NUL (:func:`check_no_nul`), valid Unicode, at
    most :data:`MAX_TEXT_BYTES` of UTF-8. Returns its size in bytes; ``parts`` is
    what the hint tells the agent to split it into."""
    check_no_nul(what, text)
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"{what} is not valid Unicode text: {exc.reason}") from exc
    check_text_size(what, size, parts=parts)
    return size


def check_text_size(what: str, size: int, *, parts: str = "parts") -> None:
    """Refuse ``size`` bytes of text over :data:`MAX_TEXT_BYTES`, saying what to do."""
    if size > MAX_TEXT_BYTES:
        raise InvalidArgument(
            f"{what} is {size} bytes of UTF-8, larger than {MAX_TEXT_BYTES} bytes (4 MiB), "
            f"the most one call types or pastes: split it into {parts} of at most 4 MiB",
            hint="Send the parts in turn (load_buffer and paste_buffer have the same "
            "limit), or write the text to a file the program can read.",
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


def session_in_listing(
    backend: TmuxBackend,
    server: ServerRef,
    listing: list[PaneInfo],
    *,
    session_name: str | None,
    session_id: str | None,
) -> str:
    """The id of the session the arguments name, found in a whole-server pane listing.

    Every session has a pane, so the listing itself says which sessions
    exist and no ``list-sessions`` is needed; a name and an id together go
    through ``resolve_session``, which checks that they agree.
    """
    if session_name is not None and session_id is not None:
        return resolve_session(
            backend, server, session_name=session_name, session_id=session_id
        ).session_id
    check_id("session", session_id)
    for pane in listing:
        if session_id in (None, pane.session_id) and session_name in (None, pane.session_name):
            return pane.session_id
    wanted = session_id if session_id is not None else repr(session_name)
    raise NotFound(f"no session {wanted} on this tmux server")


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
    if pane_id is not None:
        rows = backend.list_panes(server, pane_id=pane_id)
        return _agreeing_pane(rows, pane_id, session_name, session_id, window_id)
    panes = backend.list_panes(server)
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


def _agreeing_pane(
    panes: list[PaneInfo],
    pane_id: str,
    session_name: str | None,
    session_id: str | None,
    window_id: str | None,
) -> PaneInfo:
    """The row of ``pane_id``; a session or window given with it must hold it.

    A window linked into several sessions lists the pane once per session,
    so the row in the named session is the one returned.
    """
    check_id("session", session_id)
    rows = [p for p in panes if p.pane_id == pane_id]
    if not rows:
        raise NotFound(f"no pane {pane_id} on this tmux server")
    for given, field, what in (
        (window_id, "window_id", "window"),
        (session_id, "session_id", "session"),
        (session_name, "session_name", "session"),
    ):
        if given is None:
            continue
        kept = [p for p in rows if getattr(p, field) == given]
        if not kept:
            holder = getattr(rows[0], field)
            raise InvalidArgument(
                f"pane {pane_id} is in {what} {holder!r}, not {given!r}: "
                "the targets contradict each other",
                hint=f"Pass pane_id alone, or with the {what} that holds it.",
            )
        rows = kept
    return rows[0]


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    more = "" if len(items) <= _MAX_LISTED else f" and {len(items) - _MAX_LISTED} more"
    return shown + more


def window_index_number(window_index: str | None) -> int | None:
    """A ``window_index`` argument ("0", "12") as a number; None stays None."""
    if window_index is None:
        return None
    if not WINDOW_INDEX.matches(window_index):
        raise InvalidArgument(
            f"window_index {window_index!r} is not a window index",
            hint="A window index is a number such as '0'; list them with list_windows.",
        )
    return int(window_index)


def resolve_target_session(
    backend: TmuxBackend,
    server: ServerRef,
    *,
    session_name: str | None,
    session_id: str | None,
) -> SessionInfo:
    """The session named by id or name, else the server's only session."""
    if session_name is not None or session_id is not None:
        return resolve_session(backend, server, session_name=session_name, session_id=session_id)
    sessions = backend.list_sessions(server)
    if len(sessions) == 1:
        return sessions[0]
    if not sessions:
        raise NotFound("this tmux server has no sessions", hint="Create one with create_session.")
    listed = _listed([f"{s.session_id} ({s.session_name})" for s in sessions])
    raise InvalidArgument(
        f"no session given and the server has {len(sessions)} sessions: {listed}",
        hint="Pass session_name or session_id to say which session.",
    )


def resolve_window(
    backend: TmuxBackend,
    server: ServerRef,
    *,
    window_id: str | None = None,
    window_index: str | None = None,
    session_name: str | None = None,
    session_id: str | None = None,
) -> WindowInfo:
    """The one window the arguments name.

    ``window_id`` wins (a session or index given with it must agree); else
    ``window_index`` in the session (the only session when none is named);
    else the named session's current window; else the server's only window.
    A window linked into several sessions is reported in the named session,
    or in the first session that holds it.
    """
    check_id("window", window_id)
    check_id("session", session_id)
    index = window_index_number(window_index)
    named_session = session_name is not None or session_id is not None
    if window_id is not None:
        rows = [w for w in backend.list_windows(server) if w.window_id == window_id]
        if not rows:
            raise NotFound(f"no window {window_id} on this tmux server")
        if named_session:
            session = resolve_session(
                backend, server, session_name=session_name, session_id=session_id
            )
            rows = [w for w in rows if w.session_id == session.session_id]
            if not rows:
                raise InvalidArgument(
                    f"window {window_id} is not in session {session.session_name!r}",
                    hint="Pass window_id alone, or with the session that holds it.",
                )
        if index is not None and rows[0].window_index != index:
            raise InvalidArgument(
                f"window {window_id} has index {rows[0].window_index}, not {index}",
                hint="Pass window_id alone, or window_index with its session.",
            )
        return rows[0]
    if index is not None or named_session:
        session = resolve_target_session(
            backend, server, session_name=session_name, session_id=session_id
        )
        windows = backend.list_windows(server, session.session_id)
        if index is None:
            return next((w for w in windows if w.active), windows[0])
        for window in windows:
            if window.window_index == index:
                return window
        indexes = ", ".join(str(w.window_index) for w in windows)
        raise NotFound(
            f"session {session.session_name!r} has no window {index} (it has {indexes})",
            hint="List the windows with list_windows.",
        )
    unique: dict[str, WindowInfo] = {}
    for window in backend.list_windows(server):
        unique.setdefault(window.window_id, window)
    if len(unique) == 1:
        return next(iter(unique.values()))
    if not unique:
        raise NotFound("this tmux server has no windows", hint="Create one with create_session.")
    listed = _listed(
        [
            f"{w.window_id} ({w.session_name}:{w.window_index} {w.window_name})"
            for w in unique.values()
        ]
    )
    raise InvalidArgument(
        f"no target given and the server has {len(unique)} windows: {listed}",
        hint="Pass window_id (or session_name/session_id, with window_index) to say which.",
    )


def require_live(pane: PaneInfo, action: str) -> None:
    if pane.dead:
        raise PaneDead(f"cannot {action} pane {pane.pane_id}: its program has exited")


def reread_window(
    backend: TmuxBackend, server: ServerRef, window_id: str, session_id: str
) -> WindowInfo:
    """The window's current description, as seen from ``session_id`` if it is there."""
    rows = [w for w in backend.list_windows(server) if w.window_id == window_id]
    if not rows:
        raise NotFound(f"window {window_id} is gone")
    return next((w for w in rows if w.session_id == session_id), rows[0])


def window_of(
    backend: TmuxBackend,
    server: ServerRef,
    window_id: str | None,
    window_index: str | None,
    session_name: str | None,
    session_id: str | None,
) -> WindowInfo:
    """``resolve_window`` with its arguments in the order tools hold them."""
    return resolve_window(
        backend,
        server,
        window_id=window_id,
        window_index=window_index,
        session_name=session_name,
        session_id=session_id,
    )
