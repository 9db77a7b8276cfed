"""Screen operations the byte parser drives (``screen-write.c``).

Each method mirrors the ``screen_write_*`` function in its comment, with the
cursor and history rules of docs/tmux-model.md §2, §3, §8 and §11. Printed cells
take the current style (SGR attributes and colours, ``_style``); erases,
scrolls and inserted cells are always default cells (background colour
erase is not modelled). The one blank with a colour: from 3.8 a wide
character broken up by a write clears to blanks with its background.
"""

from __future__ import annotations

from collections.abc import Callable

from ._line import BLANK, PAD, Line, cell_width
from ._screen import Screen
from ._style import DEFAULT_COLOUR, DEFAULT_STYLE, Style, cell_text, is_mark, mark, split_cell
from ._versions import TmuxVersion

# tmux's UTF8_SIZE: a TAB wider than this is only a cursor movement.
_UTF8_SIZE = 21


class Writer:
    def __init__(self, screen: Screen, version: TmuxVersion) -> None:
        self.s = screen
        self.version = version
        # The pane option scroll-on-clear (3.3+; 3.2a always scrolls).
        self.scroll_on_clear = True
        # The input parser's current cell (ictx->cell): what printing uses.
        self.style = DEFAULT_STYLE
        self._mark = ""

    def set_style(self, style: Style) -> None:
        self.style = style
        self._mark = mark(style)

    # -- cursor --------------------------------------------------------------

    def set_cursor(self, cx: int | None, cy: int | None) -> None:
        # screen_write_set_cursor: cx may reach sx (pending wrap), not beyond.
        s = self.s
        if cx is not None:
            s.cx = s.sx - 1 if cx > s.sx else cx
        if cy is not None:
            s.cy = min(cy, s.sy - 1)

    def cursor_move(self, px: int | None, py: int | None, origin: bool) -> None:
        # screen_write_cursormove (CUP, HVP, CHA, VPA, ...).
        s = self.s
        if origin and py is not None and s.mode_origin:
            py = s.rlower if py > s.rlower - s.rupper else py + s.rupper
        if px is not None:
            px = min(px, s.sx - 1)
        if py is not None:
            py = min(py, s.sy - 1)
        self.set_cursor(px, py)

    def cursor_up(self, ny: int) -> None:
        s = self.s
        ny = max(ny, 1)
        limit = s.cy if s.cy < s.rupper else s.cy - s.rupper
        cx = s.cx - 1 if s.cx == s.sx else s.cx
        self.set_cursor(cx, s.cy - min(ny, limit))

    def cursor_down(self, ny: int) -> None:
        s = self.s
        ny = max(ny, 1)
        limit = s.sy - 1 - s.cy if s.cy > s.rlower else s.rlower - s.cy
        ny = min(ny, limit)
        if s.cx == s.sx:
            self.set_cursor(s.cx - 1, s.cy + ny)
        elif ny != 0:
            self.set_cursor(s.cx, s.cy + ny)

    def cursor_right(self, nx: int) -> None:
        s = self.s
        nx = max(nx, 1)
        if s.cx >= s.sx:
            # sx - 1 - cx underflows in tmux, so the move clamps to sx - 1.
            self.set_cursor(s.sx - 1, None)
            return
        nx = min(nx, s.sx - 1 - s.cx)
        if nx:
            self.set_cursor(s.cx + nx, None)

    def cursor_left(self, nx: int) -> None:
        s = self.s
        nx = min(max(nx, 1), s.cx)
        if nx:
            self.set_cursor(s.cx - nx, None)

    def backspace(self) -> None:
        # At column 0 of a row continued from the row above, BS goes back up.
        s = self.s
        if s.cx == 0:
            if s.cy == 0:
                return
            grid = s.grid
            if grid.lines[grid.hsize + s.cy - 1].wrapped:
                self.set_cursor(s.sx - 1, s.cy - 1)
        else:
            self.set_cursor(s.cx - 1, None)

    def carriage_return(self) -> None:
        self.s.cx = 0

    def tab(self) -> None:
        s = self.s
        sx = s.sx
        cx = s.cx
        if cx >= sx - 1:
            return
        if not self.version.capture_prints_tabs:
            # Before 3.6 a TAB only moves the cursor (§15).
            while True:
                cx += 1
                if cx in s.tabs or cx >= sx - 1:
                    break
            s.cx = cx
            return
        # 3.6+: over blank cells a TAB cell is stored so capture prints "\t".
        line = s.grid.lines[s.grid.hsize + s.cy]
        has_content = False
        while True:
            if not has_content and cell_text(line.cell(cx)) != BLANK:
                has_content = True
            cx += 1
            if cx in s.tabs or cx >= sx - 1:
                break
        width = cx - s.cx
        if has_content or width > _UTF8_SIZE:
            self.cursor_move(cx, None, False)
        else:
            # The TAB cell is a default cell, whatever the current style
            # (measured on 3.8: capture -e writes no code before it).
            self.put_cell("\t" * width, width, styled=False)

    def scroll_region(self, rupper: int, rlower: int) -> None:
        # screen_write_scrollregion: a one-row region is refused; otherwise the
        # cursor goes home.
        s = self.s
        rupper = min(rupper, s.sy - 1)
        rlower = min(rlower, s.sy - 1)
        if rupper >= rlower:
            return
        self.set_cursor(0, 0)
        s.rupper = rupper
        s.rlower = rlower

    # -- scrolling -----------------------------------------------------------

    def linefeed(self, wrapped: bool = False) -> None:
        # screen_write_linefeed (LF/VT/FF, IND, NEL, auto-wrap): only at the
        # region bottom does anything scroll; below the region the cursor just
        # stops at the last row (§2).
        s = self.s
        grid = s.grid
        if wrapped:
            grid.lines[grid.hsize + s.cy].wrapped = True
        if s.cy == s.rlower:
            grid.view_scroll_region_up(s.rupper, s.rlower)
        elif s.cy < s.sy - 1:
            s.cy += 1

    def reverse_index(self) -> None:
        s = self.s
        if s.cy == s.rupper:
            s.grid.view_scroll_region_down(s.rupper, s.rlower)
        elif s.cy > 0:
            s.cy -= 1

    def scroll_up(self, lines: int) -> None:
        # SU: scrolls the region like linefeeds do, so rows enter history.
        s = self.s
        lines = min(max(lines, 1), s.rlower - s.rupper + 1)
        for _ in range(lines):
            s.grid.view_scroll_region_up(s.rupper, s.rlower)

    def scroll_down(self, lines: int) -> None:
        s = self.s
        lines = min(max(lines, 1), s.rlower - s.rupper + 1)
        for _ in range(lines):
            s.grid.view_scroll_region_down(s.rupper, s.rlower)

    def insert_lines(self, ny: int) -> None:
        grid = self.s.grid
        self._shift_lines(ny, grid.view_insert_lines, grid.view_insert_lines_region)

    def delete_lines(self, ny: int) -> None:
        grid = self.s.grid
        self._shift_lines(ny, grid.view_delete_lines, grid.view_delete_lines_region)

    def _shift_lines(
        self,
        ny: int,
        below: Callable[[int, int], None],
        in_region: Callable[[int, int, int], None],
    ) -> None:
        """IL/DL: ``below(cy, n)`` outside the scroll region, else ``in_region(rlower, cy, n)``."""
        s = self.s
        ny = max(ny, 1)
        if s.cy < s.rupper or s.cy > s.rlower:
            ny = min(ny, s.sy - s.cy)
            if ny:
                below(s.cy, ny)
            return
        ny = min(ny, s.rlower + 1 - s.cy)
        if ny:
            in_region(s.rlower, s.cy, ny)

    # -- characters ----------------------------------------------------------

    def insert_characters(self, nx: int) -> None:
        s = self.s
        nx = min(max(nx, 1), s.sx - s.cx)
        if nx > 0 and s.cx <= s.sx - 1:
            s.grid.view_insert_cells(s.cx, s.cy, nx)

    def delete_characters(self, nx: int) -> None:
        s = self.s
        nx = min(max(nx, 1), s.sx - s.cx)
        if nx > 0 and s.cx <= s.sx - 1:
            s.grid.view_delete_cells(s.cx, s.cy, nx)

    def clear_characters(self, nx: int) -> None:
        s = self.s
        nx = min(max(nx, 1), s.sx - s.cx)
        if nx > 0 and s.cx <= s.sx - 1:
            s.grid.view_clear(s.cx, s.cy, nx, 1)

    # -- erasing (EL, ED) ----------------------------------------------------

    def clear_line(self) -> None:
        # EL2: a never-written row is left alone (so the row above keeps its
        # WRAPPED flag); otherwise the row is blanked whole.
        s = self.s
        grid = s.grid
        if grid.lines[grid.hsize + s.cy].size == 0:
            return
        grid.view_clear(0, s.cy, s.sx, 1)

    def clear_end_of_line(self) -> None:
        s = self.s
        if s.cx == 0:
            self.clear_line()
            return
        grid = s.grid
        if s.cx > s.sx - 1 or s.cx >= grid.lines[grid.hsize + s.cy].size:
            return
        grid.view_clear(s.cx, s.cy, s.sx - s.cx, 1)

    def clear_start_of_line(self) -> None:
        s = self.s
        if s.cx >= s.sx - 1:
            self.clear_line()
            return
        s.grid.view_clear(0, s.cy, s.cx + 1, 1)

    def _clear_scrolls(self) -> bool:
        # §8: with history enabled, 3.2a always scrolls the screen into
        # history; 3.3+ only while scroll-on-clear is on.
        if not self.s.grid.history:
            return False
        return self.scroll_on_clear or not self.version.has_scroll_on_clear_option

    def clear_end_of_screen(self) -> None:
        # ED0: at (0,0) it is a whole-screen clear and may scroll (§8).
        s = self.s
        grid = s.grid
        if s.cx == 0 and s.cy == 0 and self._clear_scrolls():
            grid.view_clear_into_history()
            return
        if s.cx <= s.sx - 1:
            grid.view_clear(s.cx, s.cy, s.sx - s.cx, 1)
        grid.view_clear(0, s.cy + 1, s.sx, s.sy - (s.cy + 1))

    def clear_start_of_screen(self) -> None:
        s = self.s
        grid = s.grid
        if s.cy > 0:
            grid.view_clear(0, 0, s.sx, s.cy)
        if s.cx > s.sx - 1:
            grid.view_clear(0, s.cy, s.sx, 1)
        else:
            grid.view_clear(0, s.cy, s.cx + 1, 1)

    def clear_screen(self) -> None:
        # ED2: the cursor never moves (§8).
        s = self.s
        if self._clear_scrolls():
            s.grid.view_clear_into_history()
        else:
            s.grid.view_clear(0, 0, s.sx, s.sy)

    def clear_history(self) -> None:
        # ESC[3J: grid_clear_history, also while the alternate screen is on.
        self.s.grid.clear_history()

    def reset(self) -> None:
        # RIS (screen_write_reset): tabs, region and modes reset, the same
        # clear as ED2, cursor home; history is kept and the alternate screen
        # is not left (§8).
        s = self.s
        s.reset_tabs()
        self.scroll_region(0, s.sy - 1)
        s.reset_modes()
        self.clear_screen()
        self.set_cursor(0, 0)

    def alignment_test(self) -> None:
        # DECALN: fill the screen with 'E', home, reset the region.
        s = self.s
        for yy in range(s.sy):
            s.grid.set_cells(0, s.grid.hsize + yy, "E" * s.sx)
        self.set_cursor(0, 0)
        s.rupper = 0
        s.rlower = s.sy - 1

    # -- printing ------------------------------------------------------------

    def put_ascii(self, text: str) -> None:
        # screen_write_collect_add/_end: runs of single-width characters are
        # stored row by row; a character that arrives with the cursor past the
        # last column first wraps (WRAPPED flag + linefeed).
        s = self.s
        if not s.mode_wrap or s.mode_insert:
            for ch in text:
                self.put_cell(ch, 1)
            return
        i = 0
        n = len(text)
        while i < n:
            sx = s.sx
            if s.cx > sx - 1:
                self.linefeed(wrapped=True)
                s.cx = 0
            k = min(n - i, sx - s.cx)
            self._store_run(text[i : i + k])
            i += k

    def _store_run(self, run: str) -> None:
        s = self.s
        grid = s.grid
        py = grid.hsize + s.cy
        line = grid.lines[py]
        cx = s.cx
        if 0 < cx < len(line.cells):
            # Overwriting the right half of a wide character blanks the rest
            # of it; overwriting a wide character leaves no orphan padding.
            # Up to 3.5a tmux's walk back stops before column 0, so a wide
            # character there keeps its place (3.7c examines column 0 too).
            xx = cx
            cell = BLANK
            floor = 0 if self.version.text_overwrite_reaches_column_zero else 1
            while xx >= floor:
                cell = line.cell(xx)
                if cell != PAD:
                    break
                grid.set_cell(xx, py, self._broken(line, xx))
                xx -= 1
            if cell_width(cell) > 1:
                grid.set_cell(xx, py, self._broken(line, xx))
        end = cx + len(run)
        cells = line.cells
        # The padding after the run belongs to a character the run overwrites:
        # what it clears to is decided before the write.
        tail = self._broken(line, end) if end < len(cells) and cells[end] == PAD else BLANK
        grid.set_cells(cx, py, run, self._mark)
        self.set_cursor(end, None)
        xx = end
        while xx < s.sx and xx < len(cells) and cells[xx] == PAD:
            cells[xx] = tail
            xx += 1

    def put_cell(self, cell: str, width: int, *, styled: bool = True) -> None:
        # screen_write_cell: one character of any width (or a stored TAB).
        # Its bounds checks are unsigned: ``sx - width`` wraps around when a
        # wide character meets a one-column pane, and tmux then neither wraps
        # nor refuses -- _u() keeps that arithmetic.
        s = self.s
        grid = s.grid
        sx = s.sx
        if width == 0:
            self._combine(cell)
            return
        if styled:
            cell += self._mark
        if not s.mode_wrap and width > 1 and (width > sx or (s.cx != sx and s.cx > _u(sx - width))):
            return
        if s.mode_insert:
            grid.view_insert_cells(s.cx, s.cy, width)
        if s.mode_wrap and s.cx > _u(sx - width):
            # A wide character that does not fit wraps early (§4).
            self.linefeed(wrapped=True)
            s.cx = 0
        if s.cx > _u(sx - width):
            return
        py = grid.hsize + s.cy
        line = grid.lines[py]
        # "If no change, do not draw": a default blank written past the row's
        # allocated cells is not stored, so it does not extend the row's used
        # cells (seen by -J). Inside the allocation tmux's cleared cells differ
        # from a written blank, so the write is stored.
        unchanged = width == 1 and not s.mode_insert and cell == BLANK and s.cx >= line.size
        self._overwrite(py, width)
        for xx in range(s.cx + 1, s.cx + width):
            grid.set_cell(xx, py, PAD)
        if not unchanged:
            grid.set_cell(s.cx, py, cell)
        not_wrap = 0 if s.mode_wrap else 1
        if s.cx <= _u(sx - not_wrap - width):
            self.set_cursor(s.cx + width, None)
        else:
            self.set_cursor(sx - not_wrap, None)

    def _overwrite(self, py: int, width: int) -> None:
        # screen_write_overwrite: keep wide characters whole when a write lands
        # on one of their halves.
        s = self.s
        grid = s.grid
        line = grid.lines[py]
        current = line.cell(s.cx)
        if current == PAD:
            xx = s.cx
            while xx > 0:
                xx -= 1
                if line.cell(xx) != PAD:
                    break
                grid.set_cell(xx, py, self._broken(line, xx))
            grid.set_cell(xx, py, self._broken(line, xx))
        if width != 1 or cell_width(current) != 1:
            xx = s.cx + width
            while xx < s.sx and line.cell(xx) == PAD:
                grid.set_cell(xx, py, self._broken(line, xx))
                xx += 1

    def _broken(self, line: Line, xx: int) -> str:
        # What a cell of a wide character clears to when a write breaks the
        # character up: a default blank, or from 3.8 a blank that keeps the
        # character's background (screen_write_clear_cell). tmux's padding
        # cell carries its character's background; here the padding borrows
        # it from the character to its left (an orphan padding, left by a
        # reflow, has none).
        if not self.version.broken_wide_keeps_background:
            return BLANK
        while xx >= 0 and line.cell(xx) == PAD:
            xx -= 1
        if xx < 0:
            return BLANK
        bg = split_cell(line.cell(xx))[1].bg
        return BLANK if bg == DEFAULT_COLOUR else BLANK + mark(Style(bg=bg))

    def _combine(self, combining: str) -> None:
        # A zero-width character joins the previous non-padding cell; at
        # column 0 it is dropped (screen_write_combine).
        s = self.s
        if s.cx == 0:
            return
        grid = s.grid
        py = grid.hsize + s.cy
        line = grid.lines[py]
        xx = s.cx - 1
        while xx >= 0 and line.cell(xx) == PAD:
            xx -= 1
        if xx < 0:
            return
        base = line.cell(xx)
        if base.startswith("\t"):
            return
        if is_mark(base[-1]):
            # The mark joins the character, before the cell's style.
            grid.set_cell(xx, py, base[:-1] + combining + base[-1])
        else:
            grid.set_cell(xx, py, base + combining)


def _u(value: int) -> int:
    """``value`` as tmux's ``u_int`` arithmetic sees it (negative wraps around)."""
    return value & 0xFFFFFFFF
