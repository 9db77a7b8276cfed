"""Screen state around the grid: cursor, scroll region, modes, tabs, the
alternate screen and resizing (``screen.c``).

docs/tmux-model.md §9, §10 (resize), §12 (``screen_reinit``), §11 (alternate screen).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._grid import Grid
from ._line import Line
from ._reflow import reflow, unwrap_position, wrap_position
from ._style import DEFAULT_STYLE, Style


@dataclass(slots=True)
class SavedScreen:
    # screen_alternate_on's side grid: the normal screen's visible rows and
    # their size, plus the grid flags to restore.
    lines: list[Line]
    sx: int
    sy: int
    history: bool


class Screen:
    def __init__(
        self,
        sx: int,
        sy: int,
        hlimit: int,
        *,
        padding_width: int = 0,
        rgb_padding_width: int | None = None,
    ) -> None:
        self.grid = Grid(sx, sy, hlimit)
        # The width reflow gives a wide character's padding cell (see reflow).
        self.padding_width = padding_width
        self.rgb_padding_width = padding_width if rgb_padding_width is None else rgb_padding_width
        self.cx = 0
        self.cy = 0
        self.rupper = 0
        self.rlower = sy - 1
        self.mode_wrap = True
        self.mode_insert = False
        self.mode_origin = False
        self.mode_crlf = False
        self.tabs: set[int] = set()
        self.reset_tabs()
        self.saved: SavedScreen | None = None
        # Cursor saved by ?1049h (screen->saved_cx/cy); None is UINT_MAX.
        self.saved_cx: int | None = None
        self.saved_cy: int | None = None
        # The parser's cell style saved with it (screen->saved_cell).
        self.saved_style: Style = DEFAULT_STYLE

    @property
    def sx(self) -> int:
        return self.grid.sx

    @property
    def sy(self) -> int:
        return self.grid.sy

    def reset_tabs(self) -> None:
        # screen_reset_tabs: a stop every eight columns.
        self.tabs = set(range(8, self.grid.sx, 8))

    def reset_modes(self) -> None:
        self.mode_wrap = True
        self.mode_insert = False
        self.mode_origin = False
        self.mode_crlf = False

    # -- resize (screen_resize_cursor) ---------------------------------------

    def resize(self, sx: int, sy: int, reflow_rows: bool) -> None:
        grid = self.grid
        cx = self.cx
        cy = grid.hsize + self.cy
        sx = max(sx, 1)
        sy = max(sy, 1)
        if sx != grid.sx:
            grid.sx = sx
            self.reset_tabs()
        else:
            reflow_rows = False
        if sy != grid.sy:
            cy = self._resize_y(sy, cy)
        if reflow_rows:
            wx, wy = wrap_position(grid, cx, cy)
            reflow(
                grid,
                sx,
                padding_width=self.padding_width,
                rgb_padding_width=self.rgb_padding_width,
            )
            cx, cy = unwrap_position(grid, wx, wy)
        if cy >= grid.hsize:
            self.cx = cx
            self.cy = cy - grid.hsize
        else:
            self.cx = 0
            self.cy = 0

    def _resize_y(self, sy: int, cy: int) -> int:
        # screen_resize_y; cy is the cursor's absolute row, returned updated.
        grid = self.grid
        oldy = grid.sy
        if sy < oldy:
            needed = oldy - sy
            # Rows below the cursor go first, even if they hold text.
            available = min(oldy - 1 - self.cy, needed)
            if available > 0:
                grid.view_delete_lines(oldy - available, available)
            needed -= available
            if grid.history:
                # The top rows simply become history: no collection, so
                # hsize may exceed hlimit (§5).
                grid.hscrolled += needed
                grid.hsize += needed
            elif needed > 0 and self.cy > 0:
                available = min(self.cy, needed)
                grid.view_delete_lines(0, available)
                cy -= available
            del grid.lines[grid.hsize + sy :]
        else:
            needed = sy - oldy
            available = 0
            if grid.history and grid.hscrolled > 0:
                # Pull back rows that scrolled off (not ones cleared away).
                available = min(grid.hscrolled, needed)
                grid.hscrolled -= available
                grid.hsize -= available
            grid.lines.extend(Line() for _ in range(needed - available))
        grid.sy = sy
        self.rupper = 0
        self.rlower = sy - 1
        return cy

    # -- alternate screen (screen_alternate_on/off) --------------------------

    def alternate_on(self, save_cursor: bool) -> None:
        if self.saved is not None:
            return
        grid = self.grid
        visible = grid.lines[grid.hsize :]
        self.saved = SavedScreen(visible, grid.sx, grid.sy, grid.history)
        if save_cursor:
            self.saved_cx = self.cx
            self.saved_cy = self.cy
        # The normal screen's rows move to the side grid intact; the alternate
        # screen starts with fresh blank rows. Blanking the whole screen clears
        # the WRAPPED flag of the newest history row (grid_view_clear).
        grid.lines[grid.hsize :] = [Line() for _ in range(grid.sy)]
        if grid.hsize != 0:
            grid.lines[grid.hsize - 1].wrapped = False
        grid.history = False

    def alternate_off(self, restore_cursor: bool) -> None:
        sx = self.grid.sx
        sy = self.grid.sy
        saved = self.saved
        if saved is not None:
            # Back to the size the normal screen was saved at first.
            self.resize(saved.sx, saved.sy, True)
        if restore_cursor and self.saved_cx is not None and self.saved_cy is not None:
            self.cx = self.saved_cx
            self.cy = self.saved_cy
        if saved is not None:
            grid = self.grid
            count = min(saved.sy, grid.sy)
            grid.lines[grid.hsize : grid.hsize + count] = saved.lines[:count]
            if saved.history:
                grid.history = True
            # ... then to the current size, with history on and reflow.
            self.resize(sx, sy, True)
            self.saved = None
        self.cx = min(self.cx, self.grid.sx - 1)
        self.cy = min(self.cy, self.grid.sy - 1)

    # -- respawn (screen_reinit) ---------------------------------------------

    def reinit(self) -> None:
        grid = self.grid
        self.cx = 0
        self.cy = 0
        self.rupper = 0
        self.rlower = grid.sy - 1
        self.reset_modes()
        if self.saved is not None:
            self.alternate_off(False)
        self.saved_cx = None
        self.saved_cy = None
        self.reset_tabs()
        grid.clear_lines(grid.hsize, grid.sy)
