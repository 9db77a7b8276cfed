"""Commands that rearrange or drive existing objects of a server:
rename, select, resize and zoom, layouts, moving and swapping, killing,
keys, copy mode, pipe-pane, clear-history and paste buffers.

Creation and process lifecycles live in ``_server.py``; this module only
changes what exists, through the server's state (``ServerState``).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from gridmux.backend import InvalidArgument, PaneDead, TmuxFailure

from ._keys import keys_to_bytes
from ._layout import named_layout
from ._layout_json import apply_layout
from ._model import check_name, check_size

if TYPE_CHECKING:
    from ._model import SimPane, SimWindow
    from ._server_state import ServerState

_NAMED_LAYOUTS = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
# Keys that leave copy mode (emacs mode-keys: cancel).
_COPY_MODE_EXIT = (b"q", b"\x1b", b"\x03")


class Controls:
    def __init__(self, server: ServerState) -> None:
        self._server = server

    # -- names, selection, titles -------------------------------------------------
    def rename_session(self, session_id: str, new_name: str) -> None:
        session = self._server.session(session_id)
        name = check_name("session", new_name)
        if any(s.name == name and s is not session for s in self._server.sessions.values()):
            raise TmuxFailure(f"duplicate session: {name}")
        session.name = name

    def rename_window(self, window_id: str, new_name: str) -> None:
        window = self._server.window(window_id)
        window.fixed_name = check_name("window", new_name)
        # rename-window turns automatic-rename off for the window, as tmux does.
        window.options.set("automatic-rename", "off")

    def select_window(self, window_id: str) -> None:
        window = self._server.window(window_id)
        window.session.set_current(window)

    def select_pane(self, pane_id: str, *, direction: str | None = None) -> None:
        # select-pane makes the pane active in its window; it does not change
        # the session's current window (cmd-select-pane.c).
        pane: SimPane | None = self._server.pane(pane_id)
        if direction == "last":
            pane = _last_pane(self._server.pane(pane_id).window)
        elif direction is not None:
            pane = _neighbour(self._server.pane(pane_id), direction)
        if pane is not None and pane.window.active is not pane:
            _unzoom(pane.window)
            pane.window.set_active(pane)

    def set_pane_title(self, pane_id: str, title: str) -> None:
        self._server.pane(pane_id).title = title

    # -- geometry -------------------------------------------------------------------
    def select_layout(self, window_id: str, layout: str) -> None:
        window = self._server.window(window_id)
        numbers = [pane.number for pane in window.panes]
        if layout in _NAMED_LAYOUTS:
            new = named_layout(
                layout,
                numbers,
                window.sx,
                window.sy,
                main_width=window.option("main-pane-width"),
                main_height=window.option("main-pane-height"),
            )
        else:
            new = apply_layout(window, layout)
            new.resize(window.sx, window.sy)
        window.zoomed = None
        window.layout = new
        window.fit_panes()

    def resize_pane(
        self,
        pane_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
        zoom: bool | None = None,
    ) -> None:
        pane = self._server.pane(pane_id)
        check_size("width", width)
        check_size("height", height)
        sized = width is not None or height is not None
        if zoom is None and not sized:
            raise InvalidArgument("resize_pane needs a width, a height or zoom")
        if zoom is not None and sized:
            raise InvalidArgument("resize_pane takes either zoom or a size, not both")
        window = pane.window
        if zoom is True and len(window.panes) > 1:
            # window_zoom: the pane becomes active and covers the window.
            window.set_active(pane)
            window.zoomed = pane
            window.fit_panes()
        elif zoom is False:
            _unzoom(window)
        if width is None and height is None:
            return
        _unzoom(window)
        if width is not None:
            window.layout.resize_pane(pane.number, "x", width)
        if height is not None:
            window.layout.resize_pane(pane.number, "y", height)
        window.fit_panes()

    def resize_window(
        self, window_id: str, *, width: int | None = None, height: int | None = None
    ) -> None:
        window = self._server.window(window_id)
        check_size("width", width)
        check_size("height", height)
        window.sx = width or window.sx
        window.sy = height or window.sy
        window.layout.resize(window.sx, window.sy)
        window.fit_panes()

    # -- moving and swapping --------------------------------------------------------------
    def move_window(
        self,
        window_id: str,
        *,
        destination_session_id: str | None = None,
        destination_index: int | None = None,
    ) -> None:
        server = self._server
        window = server.window(window_id)
        source = window.session
        target = (
            source if destination_session_id is None else server.session(destination_session_id)
        )
        if destination_index is not None and destination_index < 0:
            raise InvalidArgument(f"invalid window index: {destination_index}")
        if destination_index is None:
            if target is source:
                return  # already in the session, at its own (free) index
            destination_index = target.free_index(int(target.option("base-index")))
        occupant = target.windows.get(destination_index)
        if occupant is window:
            return
        if occupant is not None:
            raise TmuxFailure(f"index in use: {destination_index}")
        if target is source:
            del source.windows[window.index]
            source.windows[destination_index] = window
            return
        remaining = len(source.windows) - 1
        if remaining == 0:
            source.windows.clear()
        else:
            del source.windows[window.index]
            if source.current is window:
                source.current = None
                source.last_windows = [w for w in source.last_windows if w is not window]
                fallback = source.ordered_windows()[0]
                source.set_current(source.last_windows[0] if source.last_windows else fallback)
        window.session = target
        target.windows[destination_index] = window
        target.set_current(window)  # move-window without -d selects the window
        if remaining == 0:
            server.destroy_session(source)

    def swap_pane(self, source_pane_id: str, target_pane_id: str) -> None:
        source = self._server.pane(source_pane_id)
        target = self._server.pane(target_pane_id)
        if source is target:
            return
        source_window, target_window = source.window, target.window
        _unzoom(source_window)
        _unzoom(target_window)
        source_position = source_window.panes.index(source)
        target_position = target_window.panes.index(target)
        source_window.panes[source_position] = target
        target_window.panes[target_position] = source
        source_cell = source_window.layout.find(source.number)
        target_cell = target_window.layout.find(target.number)
        source_cell.pane, target_cell.pane = target.number, source.number
        source.window, target.window = target_window, source_window
        source.options.parent = target_window.options
        target.options.parent = source_window.options
        # cmd-swap-pane.c without -d: the swapped-in panes become active.
        if source_window is target_window:
            source_window.set_active(target)
        else:
            if source_window.active is source:
                source_window.active = None
            if target_window.active is target:
                target_window.active = None
            source_window.set_active(target)
            target_window.set_active(source)
        source_window.fit_panes()
        target_window.fit_panes()

    # -- killing ----------------------------------------------------------------------
    def kill_pane(self, pane_id: str) -> None:
        self._server.destroy_pane(self._server.pane(pane_id))

    def kill_window(self, window_id: str) -> None:
        self._server.destroy_window(self._server.window(window_id))

    def kill_session(self, session_id: str) -> None:
        self._server.destroy_session(self._server.session(session_id))

    # -- input and content ------------------------------------------------------------
    def send_keys(
        self, pane_id: str, keys: str, *, literal: bool = False, enter: bool = False
    ) -> None:
        pane = self._server.pane(pane_id)
        with self._server.atomic():
            self._deliver(pane, keys_to_bytes(keys, literal=literal))
            if enter:
                self._deliver(pane, b"\r")

    def _deliver(self, pane: SimPane, data: bytes) -> None:
        if pane.in_mode:
            # Keys go to the mode, not the program; only cancelling is modelled.
            if data in _COPY_MODE_EXIT:
                pane.mode = None
            return
        pane.input(data)

    def clear_pane(self, pane_id: str) -> None:
        """``send-keys -R`` then ``clear-history``: a blank screen, no history."""
        pane = self._server.pane(pane_id)
        pane.terminal.reset()
        self.clear_history(pane_id)

    def clear_history(self, pane_id: str) -> None:
        pane = self._server.pane(pane_id)
        pane.mode = None  # docs/tmux-model.md §7: clear-history leaves any pane mode first
        pane.terminal.clear_history()

    def copy_mode(self, pane_id: str, *, enter: bool, scroll_up: int | None = None) -> None:
        pane = self._server.pane(pane_id)
        if scroll_up is not None and scroll_up < 0:
            raise InvalidArgument(f"scroll_up must not be negative: {scroll_up}")
        if not enter:
            pane.mode = None
            return
        pane.mode = "copy-mode"
        pane.scroll_position = min(scroll_up or 0, pane.terminal.history_size)

    def pipe_pane(self, pane_id: str, command: str | None) -> None:
        """Record the pipe; ``cat >> PATH`` and ``cat > PATH`` really write PATH."""
        pane = self._server.pane(pane_id)
        pane.pipe_command, pane.pipe_path = command, None
        if command is None or not command.strip():
            pane.pipe_command = None
            return
        match = re.fullmatch(r"\s*(?:exec\s+)?cat\s*(>>?)\s*(.+?)\s*", command)
        if match is None:
            return
        try:
            (path,) = shlex.split(match.group(2))
        except ValueError:
            return
        if match.group(1) == ">":
            with open(path, "wb"):
                pass
        pane.pipe_path = path

    # -- paste buffers -------------------------------------------------------------------
    def set_buffer(self, data: str, name: str | None = None) -> None:
        server = self._server
        server.check_alive()
        if name is not None and not name:
            raise InvalidArgument("invalid buffer name: empty")
        limit = int(server.server_options.get("buffer-limit") or 50)
        server.buffers.set(name, data, created=int(server.clock.now()), limit=limit)

    def paste_buffer(
        self, name: str, pane_id: str, *, bracket: bool = True, delete: bool = False
    ) -> None:
        server = self._server
        pane = server.pane(pane_id)
        buffer = server.buffers.get(name)
        if pane.tty_closed:
            # tmux 3.3a's server crashes here; the protocol asks for PaneDead.
            raise PaneDead(f"cannot paste into pane {pane_id}: its program has exited")
        # paste-buffer's default separator turns each LF into CR, like typing Enter.
        # Bracketed paste markers are sent only to programs that asked for them
        # (mode 2004); the simulated programs never do, so ``bracket`` has no effect.
        data = buffer.data.replace("\r\n", "\r").replace("\n", "\r").encode()
        with server.atomic():
            self._deliver(pane, data)
        if delete:
            server.buffers.delete(name)


def _last_pane(window: SimWindow) -> SimPane:
    """``select-pane -l``: the last active pane; with two panes and none, the other."""
    if window.last_panes:
        return window.last_panes[0]
    if len(window.panes) == 2 and window.active is not None:
        return window.panes[1 - window.panes.index(window.active)]
    raise TmuxFailure("no last pane")


def _neighbour(pane: SimPane, direction: str) -> SimPane | None:
    """``window_pane_find_up/down/left/right``: a pane just beyond that edge
    (wrapping round the window) overlapping ``pane``, the most recently active
    one on ties; None when there is none.

    Geometry is the unzoomed layout's, as tmux finds it (``window_push_zoom``).
    """
    if direction not in ("up", "down", "left", "right"):
        raise InvalidArgument(f"invalid direction: {direction}")
    window = pane.window
    cells = window.layout.geometry()
    vertical = direction in ("up", "down")

    def along(number: int) -> tuple[int, int, int, int]:
        """Offset and size along the direction's axis, then across it."""
        x, y, sx, sy = cells[number]
        return (y, sy, x, sx) if vertical else (x, sx, y, sy)

    pos, size, lo, span = along(pane.number)
    hi = lo + span
    extent = window.sy if vertical else window.sx
    backwards = direction in ("up", "left")
    if backwards:
        edge = pos if pos != 0 else extent + 1
    else:
        edge = pos + size + 1 if pos + size + 1 < extent else 0
    found: list[SimPane] = []
    for other in window.panes:
        if other is pane:
            continue
        start, length, first, width = along(other.number)
        end = first + width - 1
        touching = start + length + 1 == edge if backwards else start == edge
        if touching and ((first < lo and end > hi) or lo <= first <= hi or lo <= end <= hi):
            found.append(other)
    recency = [window.active, *window.last_panes]
    return max(
        found,
        key=lambda p: len(recency) - recency.index(p) if p in recency else 0,
        default=None,
    )


def _unzoom(window: SimWindow) -> None:
    if window.zoomed is not None:
        window.zoomed = None
        window.fit_panes()
