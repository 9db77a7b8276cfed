"""From simulator objects to the protocol's plain values (``backend/_types.py``)."""

from __future__ import annotations

from gridmux.backend import PaneInfo, PaneState, SessionInfo, WindowInfo

from ._layout_json import window_layout
from ._model import SimPane, SimSession, SimWindow


def session_info(session: SimSession) -> SessionInfo:
    active = session.active_pane
    return SessionInfo(
        session_id=session.session_id,
        session_name=session.name,
        window_count=len(session.windows),
        attached=0,
        created=session.created,
        active_pane_id=active.pane_id if active is not None else None,
        group=None,
    )


def window_info(window: SimWindow, *, control: bool = False) -> WindowInfo:
    """``control``: as a control-mode client without ``new-layouts`` sees it
    (the layout's form on 3.8, see ``_layout_json``)."""
    session = window.session
    return WindowInfo(
        window_id=window.window_id,
        window_name=window.name,
        window_index=window.index,
        session_id=session.session_id,
        session_name=session.name,
        pane_count=len(window.panes),
        layout=window_layout(window, control=control),
        active=session.current is window,
        width=window.sx,
        height=window.sy,
        active_pane_id=window.active.pane_id if window.active is not None else None,
        zoomed=window.zoomed is not None,
        last=session.current is not window
        and bool(session.last_windows)
        and session.last_windows[0] is window,
    )


def _pid(pane: SimPane) -> int | None:
    # docs/tmux-model.md §13: a dead pane keeps its old pid until 3.8, where it is
    # empty as soon as the pty is closed.
    if pane.tty_closed and pane.server.version.dead_pane_pid_empty:
        return None
    return pane.pid


def pane_info(pane: SimPane) -> PaneInfo:
    window = pane.window
    term = pane.terminal
    xoff, yoff, sx, sy = pane.geometry()
    return PaneInfo(
        pane_id=pane.pane_id,
        pane_index=pane.index,
        session_id=window.session.session_id,
        session_name=window.session.name,
        window_id=window.window_id,
        window_index=window.index,
        window_name=window.name,
        width=sx,
        height=sy,
        left=xoff,
        top=yoff,
        right=xoff + sx - 1,
        bottom=yoff + sy - 1,
        at_left=xoff == 0,
        at_right=xoff + sx == window.sx,
        at_top=yoff == 0,
        at_bottom=yoff + sy == window.sy,
        active=pane.active,
        tty=pane.tty,
        pid=_pid(pane),
        current_command=pane.current_command,
        current_path=pane.current_path,
        title=pane.title,
        dead=pane.dead,
        dead_status=pane.dead_status,
        in_mode=pane.in_mode,
        mode=pane.mode,
        history_size=term.history_size,
        history_limit=term.history_limit,
        cursor_x=term.cursor_x,
        cursor_y=term.cursor_y,
        alternate_on=term.alternate_on,
    )


def pane_state(pane: SimPane) -> PaneState:
    term = pane.terminal
    return PaneState(
        pane_id=pane.pane_id,
        pid=_pid(pane),
        dead=pane.dead,
        dead_status=pane.dead_status,
        history_size=term.history_size,
        history_limit=term.history_limit,
        cursor_x=term.cursor_x,
        cursor_y=term.cursor_y,
        width=term.width,
        height=term.height,
        alternate_on=term.alternate_on,
        in_mode=pane.in_mode,
        server_pid=pane.server.pid,
    )
