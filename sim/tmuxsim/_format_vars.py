"""The format variables (``format.c``) of a pane and everything around it,
as strings, for ``display-message`` and ``remain-on-exit-format``.

Version differences follow docs/tmux-model.md §16 and §19: ``pane_dead_signal`` and
``pane_dead_time`` exist from 3.3, ``pane_unseen_changes`` from 3.4, and
``pane_pid`` of a dead pane is empty from 3.8.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._layout_json import window_layout
from ._processes import HOST
from ._versions import TmuxVersion

if TYPE_CHECKING:
    from ._model import Host, SimPane, SimSession, SimWindow

_UNSET_SAVED_CURSOR = "4294967295"  # UINT_MAX: alternate_saved_x/_y never saved


def _flag(value: bool) -> str:
    return "1" if value else "0"


def server_variables(server: Host) -> dict[str, str]:
    return {
        "pid": str(server.pid),
        "version": str(server.version),
        "socket_path": server.socket_path,
        "host": HOST,
        "host_short": HOST,
        "start_time": str(server.start_time),
    }


def session_variables(session: SimSession) -> dict[str, str]:
    return {
        "session_id": session.session_id,
        "session_name": session.name,
        "session_windows": str(len(session.windows)),
        "session_attached": "0",
        "session_many_attached": "0",
        "session_created": str(session.created),
        "session_path": session.cwd,
        "session_group": "",
        "session_grouped": "0",
    }


def window_variables(window: SimWindow, control: bool = False) -> dict[str, str]:
    session = window.session
    flags = ""
    if session.current is window:
        flags += "*"
    elif session.last_windows and session.last_windows[0] is window:
        flags += "-"
    if window.zoomed is not None:
        flags += "Z"
    return {
        "window_id": window.window_id,
        "window_index": str(window.index),
        "window_name": window.name,
        "window_active": _flag(session.current is window),
        "window_panes": str(len(window.panes)),
        "window_width": str(window.sx),
        "window_height": str(window.sy),
        "window_layout": window_layout(window, control=control),
        "window_visible_layout": window_layout(window, visible=True, control=control),
        "window_zoomed_flag": _flag(window.zoomed is not None),
        "window_flags": flags,
        "window_last_flag": _flag("-" in flags),
    }


def pane_variables(pane: SimPane) -> dict[str, str]:
    version: TmuxVersion = pane.server.version
    term = pane.terminal
    xoff, yoff, sx, sy = pane.geometry()
    window = pane.window
    upper, lower = term.scroll_region
    dead_pid_empty = pane.tty_closed and version.dead_pane_pid_empty
    values = {
        "pane_id": pane.pane_id,
        "pane_index": str(pane.index),
        "pane_title": pane.title,
        "pane_tty": pane.tty,
        "pane_pid": "" if dead_pid_empty else str(pane.pid),
        "pane_current_command": pane.current_command,
        "pane_current_path": pane.current_path,
        "pane_start_command": pane.start_command or "",
        "pane_active": _flag(pane.active),
        "pane_width": str(sx),
        "pane_height": str(sy),
        "pane_left": str(xoff),
        "pane_top": str(yoff),
        "pane_right": str(xoff + sx - 1),
        "pane_bottom": str(yoff + sy - 1),
        "pane_at_left": _flag(xoff == 0),
        "pane_at_top": _flag(yoff == 0),
        "pane_at_right": _flag(xoff + sx == window.sx),
        "pane_at_bottom": _flag(yoff + sy == window.sy),
        "pane_dead": _flag(pane.dead),
        "pane_dead_status": "" if pane.dead_status is None else str(pane.dead_status),
        "pane_in_mode": _flag(pane.in_mode),
        "pane_mode": pane.mode or "",
        "pane_pipe": _flag(pane.pipe_command is not None),
        "pane_synchronized": _flag(pane.option("synchronize-panes") == "on"),
        "pane_input_off": "0",
        "pane_marked": "0",
        "pane_format": "1",
        "history_size": str(term.history_size),
        "history_limit": str(term.history_limit),
        # A memory estimate in tmux, not a row count (§16); only its growth matters.
        "history_bytes": str(term.history_size * (term.width + 16)),
        "history_all_bytes": str((term.history_size + term.height) * (term.width + 16)),
        "cursor_x": str(term.cursor_x),
        "cursor_y": str(term.cursor_y),
        "alternate_on": _flag(term.alternate_on),
        "alternate_saved_x": _UNSET_SAVED_CURSOR,
        "alternate_saved_y": _UNSET_SAVED_CURSOR,
        "scroll_region_upper": str(upper),
        "scroll_region_lower": str(lower),
    }
    if pane.in_mode:
        values["scroll_position"] = str(pane.scroll_position)
        values["copy_cursor_y"] = "0"
    if version.has_dead_signal_and_time:
        values["pane_dead_signal"] = "" if pane.dead_signal is None else str(pane.dead_signal)
        values["pane_dead_time"] = "" if pane.dead_time is None else str(pane.dead_time)
    if version.has_unseen_changes:
        values["pane_unseen_changes"] = "0"
    return values


def all_variables(pane: SimPane, control: bool = False) -> dict[str, str]:
    """Every variable for ``pane``, as a client sees them (``control``: a
    control-mode client without ``new-layouts``, see ``_layout_json``)."""
    window = pane.window
    return {
        **server_variables(pane.server),
        **session_variables(window.session),
        **window_variables(window, control),
        **pane_variables(pane),
    }
