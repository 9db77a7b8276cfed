"""Result models returned by the tools (structured output with schemas).

Field names follow the predecessor's results, so prompts written for it keep
working; numbers are numbers here, and a few fields are added where agents
need them (marked "gridmux:" in the descriptions).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class ServerInfo(_Result):
    is_alive: bool = Field(description="A tmux server answers on this socket.")
    socket_name: str | None = Field(
        description="Name to pass as socket_name (tmux -L); null for a server found by path."
    )
    socket_path: str | None = Field(description="Path to pass as socket_path (tmux -S).")
    session_count: int
    version: str | None = Field(description="tmux version, e.g. '3.3a'; null if unknown.")


class SessionInfo(_Result):
    session_id: str = Field(description="Session id, e.g. '$0'.")
    session_name: str
    window_count: int
    session_attached: str | None = Field(
        description="Number of attached clients, as tmux prints it."
    )
    session_created: str | None = Field(
        description="Creation time (Unix seconds), as tmux prints it."
    )
    active_pane_id: str | None = Field(description="The pane a client attaching would see.")


class WindowInfo(_Result):
    window_id: str = Field(description="Window id, e.g. '@1'.")
    window_name: str
    window_index: int = Field(description="Index within session_name (the session listed).")
    session_id: str
    session_name: str
    pane_count: int
    window_layout: str = Field(description="Layout string, usable with select_layout.")
    window_active: bool = Field(description="The session's current window.")
    window_width: int
    window_height: int
    active_pane_id: str | None


class _PaneGeometry(_Result):
    """Where a pane sits in its window (cells from the window's top-left)."""

    pane_left: int
    pane_top: int
    pane_right: int
    pane_bottom: int
    pane_at_left: bool
    pane_at_right: bool
    pane_at_top: bool
    pane_at_bottom: bool


class PaneInfo(_PaneGeometry):
    pane_id: str = Field(description="Pane id, e.g. '%3'.")
    pane_index: int
    pane_width: int
    pane_height: int
    pane_tty: str
    pane_current_command: str
    pane_current_path: str
    pane_pid: int | None = Field(description="Process id; null when tmux reports none.")
    pane_title: str
    pane_active: bool
    pane_dead: bool = Field(description="gridmux: the pane's program has exited.")
    window_id: str
    window_index: int
    window_name: str
    session_id: str
    session_name: str
    is_caller: bool | None = Field(
        description="True when this is the pane the MCP server itself runs in; null if unknown."
    )


#: list_panes' default columns: what an agent uses to pick a pane (PaneRow).
PANE_ROW_FIELDS: tuple[str, ...] = (
    "pane_id",
    "session_name",
    "window_id",
    "window_index",
    "window_name",
    "pane_index",
    "pane_active",
    "pane_dead",
    "pane_current_command",
    "pane_current_path",
    "pane_width",
    "pane_height",
    "is_caller",
)


class PaneRow(_Result):
    """A pane as list_panes lists it: the default columns always, others on request.

    Only the fields that were set are serialized, so a row carries exactly the
    columns asked for (``fields``); the schema lists every optional one.
    """

    pane_id: str = Field(description="Pane id, e.g. '%3'.")
    session_name: str
    window_id: str
    window_index: int
    window_name: str
    pane_index: int
    pane_active: bool
    pane_dead: bool
    pane_current_command: str
    pane_current_path: str
    pane_width: int
    pane_height: int
    is_caller: bool | None = Field(description="The MCP server's own pane; null if unknown.")
    session_id: str | None = None
    pane_tty: str | None = None
    pane_pid: int | None = None
    pane_title: str | None = None
    pane_left: int | None = None
    pane_top: int | None = None
    pane_right: int | None = None
    pane_bottom: int | None = None
    pane_at_left: bool | None = None
    pane_at_right: bool | None = None
    pane_at_top: bool | None = None
    pane_at_bottom: bool | None = None

    @model_serializer(mode="plain")
    def _only_set(self) -> Any:
        # Every field is a JSON scalar: the set ones, in field order, are the
        # answer as they are (faster than serializing every field, then dropping).
        chosen = self.model_fields_set
        return {name: value for name, value in self.__dict__.items() if name in chosen}


class PaneSnapshot(_PaneGeometry):
    pane_id: str
    content: str = Field(description="Visible screen text, trailing blank rows removed.")
    cursor_x: int
    cursor_y: int
    pane_width: int
    pane_height: int
    pane_tty: str
    pane_pid: int | None
    pane_dead: bool
    alternate_on: bool
    pane_in_mode: bool
    pane_mode: str | None
    scroll_position: int | None = Field(description="Rows scrolled back in copy mode; else null.")
    history_size: int
    history_limit: int = Field(description="gridmux: the pane's scrollback limit.")
    title: str
    pane_current_command: str
    pane_current_path: str
    is_caller: bool | None
    content_truncated: bool
    content_truncated_lines: int


class CaptureSinceResult(_Result):
    pane_id: str
    cursor: str = Field(
        description="Opaque cursor; pass it back unchanged to read what comes next."
    )
    lines: list[str] = Field(
        description="Rows written or rewritten since the cursor, oldest first."
    )
    elapsed_seconds: float
    lines_missed: bool = Field(
        description=(
            "True when rows between the cursor and now may be gone (trimmed, cleared, reflowed "
            "or ambiguous); lines is then the visible screen, or every row if may_repeat > 0."
        )
    )
    may_repeat: int = Field(
        default=0,
        description=(
            "gridmux: the first may_repeat lines may be rows you already got (a cursor with too "
            "few rows above it could not be placed, so lines starts at the pane's first row)."
        ),
    )
    truncated: bool
    truncated_lines: int = Field(
        description="Whole lines dropped from the head by max_lines/max_bytes."
    )
    truncated_bytes: int = Field(
        description="UTF-8 bytes dropped from the head (newlines included)."
    )
    first_line_rewritten: bool = Field(
        description=(
            "gridmux: lines[0] is a new version of the last line the previous call returned "
            "(the cursor row was rewritten: a command typed at a prompt, a redrawn progress line)."
        )
    )
    alternate_on: bool = Field(
        description="gridmux: a full-screen program is running; lines is its screen, not a delta."
    )
