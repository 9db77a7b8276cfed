"""Backend values as the tools' result models, one builder per kind.

Shared by every tool that returns a pane, session or window, and by the
hierarchy resources (through the public names of ``gridmux.tools``).
"""

from __future__ import annotations

from typing import Any

from gridmux.backend import PaneInfo as BackendPane
from gridmux.backend import ServerRef
from gridmux.backend import SessionInfo as BackendSession
from gridmux.backend import WindowInfo as BackendWindow

from ._context import ToolContext
from ._models import PaneInfo, SessionInfo, WindowInfo


def geometry(pane: BackendPane) -> dict[str, Any]:
    """The pane's position fields, as both PaneInfo and PaneSnapshot name them."""
    return {
        "pane_left": pane.left,
        "pane_top": pane.top,
        "pane_right": pane.right,
        "pane_bottom": pane.bottom,
        "pane_at_left": pane.at_left,
        "pane_at_right": pane.at_right,
        "pane_at_top": pane.at_top,
        "pane_at_bottom": pane.at_bottom,
    }


def pane_fields(ctx: ToolContext, server: ServerRef, pane: BackendPane) -> dict[str, Any]:
    """A pane's fields as get_pane_info names them (list_panes' rows pick from them
    without building a model per pane first)."""
    return {
        "pane_id": pane.pane_id,
        "pane_index": pane.pane_index,
        "pane_width": pane.width,
        "pane_height": pane.height,
        **geometry(pane),
        "pane_tty": pane.tty,
        "pane_current_command": pane.current_command,
        "pane_current_path": pane.current_path,
        "pane_pid": pane.pid,
        "pane_title": pane.title,
        "pane_active": pane.active,
        "pane_dead": pane.dead,
        "window_id": pane.window_id,
        "window_index": pane.window_index,
        "window_name": pane.window_name,
        "session_id": pane.session_id,
        "session_name": pane.session_name,
        "is_caller": ctx.is_caller(server, pane.pane_id),
    }


def pane_result(ctx: ToolContext, server: ServerRef, pane: BackendPane) -> PaneInfo:
    return PaneInfo(**pane_fields(ctx, server, pane))


def session_result(session: BackendSession) -> SessionInfo:
    return SessionInfo(
        session_id=session.session_id,
        session_name=session.session_name,
        window_count=session.window_count,
        session_attached=str(session.attached),
        session_created=str(session.created),
        active_pane_id=session.active_pane_id,
    )


def window_result(window: BackendWindow) -> WindowInfo:
    return WindowInfo(
        window_id=window.window_id,
        window_name=window.window_name,
        window_index=window.window_index,
        session_id=window.session_id,
        session_name=window.session_name,
        pane_count=window.pane_count,
        window_layout=window.layout,
        window_active=window.active,
        window_width=window.width,
        window_height=window.height,
        active_pane_id=window.active_pane_id,
    )


__all__ = ["geometry", "pane_result", "session_result", "window_result"]
