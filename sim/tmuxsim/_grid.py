"""The base grid: history rows followed by visible rows (``grid.c``, ``grid-view.c``).

Absolute row ``a`` is ``lines[a]``; visible row ``r`` is ``lines[hsize + r]``.
Methods named ``view_*`` take visible-relative rows like ``grid-view.c``; the
rest take absolute rows like ``grid.c``. Each mirrors the tmux function named
in its comment, including side effects a reader can observe (docs/tmux-model.md §1 to §10).
"""

from __future__ import annotations

from ._line import BLANK, Line, expanded_size


class Grid:
    def __init__(self, sx: int, sy: int, hlimit: int) -> None:
        self.sx = sx
        self.sy = sy
        self.hsize = 0
        self.hlimit = hlimit
        self.hscrolled = 0
        # GRID_HISTORY: set by grid_create only for a non-zero limit, never
        # again afterwards (§1); cleared while the alternate
        # screen is on.
        self.history = hlimit != 0
        self.lines: list[Line] = [Line() for _ in range(sy)]

    # -- history (grid.c) ----------------------------------------------------

    def collect_history(self, all_rows: bool = False) -> None:
        # grid_collect_history: before a row enters history, free the oldest
        # 10 % once at the limit (§5). all_rows is the 3.7+ session_update_history
        # form: trim down to the limit, but always at least one row.
        if self.hsize == 0 or self.hsize < self.hlimit:
            return
        ny = self.hsize - self.hlimit if all_rows else self.hlimit // 10
        ny = min(max(ny, 1), self.hsize)
        del self.lines[:ny]
        self.hsize -= ny
        self.hscrolled = min(self.hscrolled, self.hsize)

    def scroll_history(self) -> None:
        # grid_scroll_history: the top visible row becomes the newest history
        # row simply because a blank row is appended below the screen.
        self.lines.append(Line())
        self.hscrolled += 1
        self.hsize += 1

    def scroll_history_region(self, upper: int, lower: int) -> None:
        # grid_scroll_history_region: the region's top row goes to history even
        # when the region starts below row 0; rows above the region stay (§2).
        top = self.lines.pop(upper)
        self.lines.insert(lower, Line())
        self.lines.insert(self.hsize, top)
        self.hscrolled += 1
        self.hsize += 1

    def clear_history(self) -> None:
        # grid_clear_history (clear-history, ESC[3J): §7.
        del self.lines[: self.hsize]
        self.hsize = 0
        self.hscrolled = 0

    # -- rows (grid.c) -------------------------------------------------------

    def clear_lines(self, py: int, ny: int) -> None:
        # grid_clear_lines: blank whole rows in place; the row above loses its
        # WRAPPED flag, even a history row (§3).
        for yy in range(py, py + ny):
            self.lines[yy].empty()
        if py != 0:
            self.lines[py - 1].wrapped = False

    def clear_rows(self, py: int, ny: int) -> None:
        # grid_clear(gd, 0, py, sx, ny) where tmux computes ny with unsigned
        # arithmetic: a "negative" count blanks nothing, but grid_clear_lines
        # still drops the WRAPPED flag of the row above py.
        if ny > 0:
            self.clear_lines(py, ny)
        elif ny < 0 and py != 0:
            self.lines[py - 1].wrapped = False

    def move_lines(self, dy: int, py: int, ny: int) -> None:
        # grid_move_lines: rows keep their identity when moved; rows left
        # behind become fresh blank rows; both the row above the destination
        # and the row above a vacated source lose WRAPPED.
        if ny == 0 or py == dy:
            return
        lines = self.lines
        if dy != 0:
            lines[dy - 1].wrapped = False
        lines[dy : dy + ny] = lines[py : py + ny]
        for yy in range(py, py + ny):
            if yy < dy or yy >= dy + ny:
                lines[yy] = Line()
        if py != 0 and (py < dy or py >= dy + ny):
            lines[py - 1].wrapped = False

    # -- cells (grid.c) ------------------------------------------------------

    def set_cell(self, px: int, py: int, cell: str) -> None:
        # grid_set_cell: grows cellsize in quanta and cellused to px + 1.
        line = self.lines[py]
        if px + 1 > line.size:
            line.size = expanded_size(line.size, px + 1, self.sx)
        cells = line.cells
        used = len(cells)
        if px < used:
            cells[px] = cell
        else:
            if px > used:
                cells.extend(BLANK * (px - used))
            cells.append(cell)

    def set_cells(self, px: int, py: int, text: str, mark: str = "") -> None:
        # grid_set_cells: a run of single-width ASCII characters, all in one
        # style (``mark``, see _style).
        line = self.lines[py]
        end = px + len(text)
        if end > line.size:
            line.size = expanded_size(line.size, end, self.sx)
        cells = line.cells
        used = len(cells)
        if px > used:
            cells.extend(BLANK * (px - used))
        cells[px:end] = [ch + mark for ch in text] if mark else text

    def clear(self, px: int, py: int, nx: int, ny: int) -> None:
        # grid_clear: whole rows go through grid_clear_lines; otherwise only
        # allocated cells are blanked and cellused never shrinks (§1).
        if nx <= 0 or ny <= 0:
            return
        if px == 0 and nx == self.sx:
            self.clear_lines(py, ny)
            return
        for yy in range(py, py + ny):
            line = self.lines[yy]
            limit = min(self.sx, line.size)
            if px > limit:
                continue
            cells = line.cells
            for xx in range(px, min(px + nx, limit, len(cells))):
                cells[xx] = BLANK

    def move_cells(self, dx: int, px: int, py: int, nx: int) -> None:
        # grid_move_cells (ICH/DCH): cellused grows to cover the destination.
        if nx <= 0 or px == dx:
            return
        line = self.lines[py]
        line.size = expanded_size(line.size, max(px, dx) + nx, self.sx)
        cells = line.cells
        used = max(len(cells), dx + nx)
        if len(cells) < max(px, dx) + nx:
            cells.extend(BLANK * (max(px, dx) + nx - len(cells)))
        cells[dx : dx + nx] = cells[px : px + nx]
        for xx in range(px, px + nx):
            if xx < dx or xx >= dx + nx:
                cells[xx] = BLANK
        del cells[used:]

    # -- visible-relative operations (grid-view.c) ---------------------------

    def view_clear(self, px: int, py: int, nx: int, ny: int) -> None:
        self.clear(px, self.hsize + py, nx, ny)

    def view_clear_into_history(self) -> None:
        # grid_view_clear_history (ED2 / ED0 at home / RIS with history):
        # push rows 0..last used into history one by one, collecting before
        # each, blank the rest, forget what was scrolled (§8). The cursor is
        # not touched here.
        last = 0
        base = self.hsize
        for yy in range(self.sy):
            if self.lines[base + yy].cells:
                last = yy + 1
        if last == 0:
            self.view_clear(0, 0, self.sx, self.sy)
            return
        for _ in range(last):
            self.collect_history()
            self.scroll_history()
        if last < self.sy:
            self.view_clear(0, 0, self.sx, self.sy - last)
        self.hscrolled = 0

    def view_scroll_region_up(self, rupper: int, rlower: int) -> None:
        # grid_view_scroll_region_up: the only way a linefeed adds history.
        if self.history:
            self.collect_history()
            if rupper == 0 and rlower == self.sy - 1:
                self.scroll_history()
            else:
                self.scroll_history_region(self.hsize + rupper, self.hsize + rlower)
        else:
            top = self.hsize + rupper
            self.move_lines(top, top + 1, rlower - rupper)

    def view_scroll_region_down(self, rupper: int, rlower: int) -> None:
        top = self.hsize + rupper
        self.move_lines(top + 1, top, rlower - rupper)

    def view_insert_lines(self, py: int, ny: int) -> None:
        p = self.hsize + py
        end = self.hsize + self.sy
        self.move_lines(p + ny, p, end - p - ny)

    def view_insert_lines_region(self, rlower: int, py: int, ny: int) -> None:
        r = self.hsize + rlower
        p = self.hsize + py
        ny2 = r + 1 - p - ny
        self.move_lines(r + 1 - ny2, p, ny2)
        self.clear_rows(p + ny2, ny - ny2)

    def view_delete_lines(self, py: int, ny: int) -> None:
        p = self.hsize + py
        end = self.hsize + self.sy
        self.move_lines(p, p + ny, end - p - ny)
        self.clear_rows(end - ny, ny)

    def view_delete_lines_region(self, rlower: int, py: int, ny: int) -> None:
        r = self.hsize + rlower
        p = self.hsize + py
        ny2 = r + 1 - p - ny
        self.move_lines(p, p + ny, ny2)
        self.clear_rows(p + ny2, ny - ny2)

    def view_insert_cells(self, px: int, py: int, nx: int) -> None:
        sx = self.sx
        if px >= sx - 1:
            self.clear(px, self.hsize + py, 1, 1)
        else:
            self.move_cells(px + nx, px, self.hsize + py, sx - px - nx)

    def view_delete_cells(self, px: int, py: int, nx: int) -> None:
        sx = self.sx
        self.move_cells(px, px + nx, self.hsize + py, sx - px - nx)
        self.clear(sx - nx, self.hsize + py, nx, 1)
