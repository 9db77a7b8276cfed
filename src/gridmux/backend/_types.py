"""Plain values exchanged through the backend protocol.

Everything here is a frozen, slotted dataclass of ``str``/``int``/``bool``
fields, so the simulator and the real backend can build them without sharing
anything else, and the MCP layer can turn them into results without knowing
which backend produced them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: A ``capture-pane -S``/``-E`` bound: ``None`` (default), ``"-"`` (the far end)
#: or a row number relative to the top of the visible screen (negative = history).
RowBound = int | Literal["-"] | None

OptionScope = Literal["server", "session", "window", "pane"]
SplitDirection = Literal["above", "below", "left", "right"]
#: Where ``new_window`` puts a window relative to the session's current one.
WindowDirection = Literal["before", "after"]
#: Which pane ``select_pane`` moves to from a pane: a neighbour, or the window's last pane.
PaneDirection = Literal["up", "down", "left", "right", "last"]


@dataclass(frozen=True, slots=True)
class ServerRef:
    """Which tmux server a call is for: a socket name (``-L``) or path (``-S``).

    Both ``None`` means the default server. A path wins over a name, as in tmux.
    """

    socket_name: str | None = None
    socket_path: str | None = None


@dataclass(frozen=True, slots=True)
class ServerInfo:
    socket_name: str | None
    socket_path: str | None
    is_alive: bool
    pid: int | None
    version: str | None
    session_count: int


@dataclass(frozen=True, slots=True)
class SessionInfo:
    session_id: str
    session_name: str
    window_count: int
    attached: int
    created: int
    active_pane_id: str | None
    group: str | None = None


@dataclass(frozen=True, slots=True)
class WindowInfo:
    window_id: str
    window_name: str
    window_index: int
    session_id: str
    session_name: str
    pane_count: int
    layout: str
    active: bool
    width: int
    height: int
    active_pane_id: str | None
    zoomed: bool = False
    #: The session's last (previously current) window, what ``last-window`` selects.
    last: bool = False


@dataclass(frozen=True, slots=True)
class PaneInfo:
    pane_id: str
    pane_index: int
    session_id: str
    session_name: str
    window_id: str
    window_index: int
    window_name: str
    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    at_left: bool
    at_right: bool
    at_top: bool
    at_bottom: bool
    active: bool
    tty: str
    pid: int | None
    current_command: str
    current_path: str
    title: str
    dead: bool
    dead_status: int | None
    in_mode: bool
    mode: str | None
    history_size: int
    history_limit: int
    cursor_x: int
    cursor_y: int
    alternate_on: bool


@dataclass(frozen=True, slots=True)
class PaneState:
    """The grid-level state of one pane at one instant.

    ``cursor_x`` may equal ``width`` (pending wrap). ``history_size`` is the
    base grid's history row count, frozen while the alternate screen is on.
    ``dead_status`` is the exit status of a dead pane; tmux marks the pane dead
    when its terminal closes and learns the status when it reaps the child, so
    for a moment a dead pane may report ``None``. ``server_pid`` identifies
    the tmux server process, so a cursor replayed against a different server
    is recognised as foreign.
    """

    pane_id: str
    pid: int | None
    dead: bool
    dead_status: int | None
    history_size: int
    history_limit: int
    cursor_x: int
    cursor_y: int
    width: int
    height: int
    alternate_on: bool
    in_mode: bool
    server_pid: int

    @property
    def anchor(self) -> int:
        """Absolute index of the cursor row (0 = oldest history row)."""
        return self.history_size + self.cursor_y

    def moved_from(self, held: PaneState) -> bool:
        """Whether the cursor left where it was in ``held`` (its cell, or the
        history under it): output came, a prompt was drawn."""
        return (self.cursor_x, self.cursor_y, self.history_size) != (
            held.cursor_x,
            held.cursor_y,
            held.history_size,
        )


@dataclass(frozen=True, slots=True)
class PaneSnapshot:
    """A pane's state and a run of its rows, consistent at one instant.

    ``top`` is the absolute index of ``rows[0]`` (0 = oldest history row).
    Rows are the text ``capture-pane -p`` prints: trailing blanks trimmed,
    blank rows as empty strings, one entry per grid row (or per joined line
    when the snapshot was taken with ``join_wrapped``).

    ``untrimmed`` (asked for with ``untrimmed_start``) holds rows
    ``untrimmed_top ..`` the bottom of the screen as ``capture-pane -N``
    prints them: trailing blanks kept up to the row's used (3.3a) or
    allocated (3.2a, 3.4+) cells. Their lengths bound what reflow may do to
    a row (``gridmux.capture``).

    ``samples`` (asked for with ``samples``: ``-S`` values) holds single rows
    read in the same instant, as ``(absolute index, text)``.
    """

    state: PaneState
    top: int
    rows: tuple[str, ...]
    untrimmed_top: int = 0
    untrimmed: tuple[str, ...] = ()
    samples: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class BufferInfo:
    name: str
    size: int
    created: int


@dataclass(frozen=True, slots=True)
class HookEntry:
    hook_name: str
    index: int | None
    command: str


def resolve_row_range(
    history_size: int, height: int, start: RowBound, end: RowBound
) -> tuple[int, int]:
    """Absolute ``(top, bottom)`` rows, inclusive, that ``capture-pane -S/-E`` reads.

    Mirrors ``cmd-capture-pane.c``: a missing start is the first visible row,
    ``"-"`` the oldest history row, a negative value past the history clamps to
    row 0 (for the end too); both clamp to the last row; reversed bounds swap.
    """
    last = history_size + height - 1
    if start is None:
        top = history_size
    elif start == "-" or (start < 0 and -start > history_size):
        top = 0
    else:
        top = history_size + start
    if end is None or end == "-":
        bottom = last
    elif end < 0 and -end > history_size:
        bottom = 0
    else:
        bottom = history_size + end
    top = min(top, last)
    bottom = min(bottom, last)
    if bottom < top:
        top, bottom = bottom, top
    return top, bottom
