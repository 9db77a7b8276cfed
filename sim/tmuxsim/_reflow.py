"""Width-change reflow of the whole grid (``grid.c:grid_reflow``) and cursor mapping.

docs/tmux-model.md §10: a row wider than the new width is split (every piece but the
last WRAPPED, wide characters never split), a row of exactly the new width is
kept, a narrower WRAPPED row is joined with the rows after it, other rows are
kept; ``hsize`` becomes ``total - sy``. The cursor keeps its logical position
through ``grid_wrap_position``/``grid_unwrap_position``.

Row identity (serials, for test oracles) follows the text's start: a row
keeps its serial when reflow leaves it alone, splits it (the first piece keeps
it) or joins rows after it; rows cut off a split, and the remainder of a row
partly consumed by a join, are new rows.
"""

from __future__ import annotations

from ._grid import Grid
from ._line import Line, cell_width, expanded_size, next_serial
from ._style import COLOUR_RGB, split_cell

#: grid_wrap_position's UINT_MAX: "the cursor is past the end of its line".
END_OF_LINE = -1


class _Reflow:
    def __init__(self, grid: Grid, sx: int, padding_width: int, rgb_padding_width: int) -> None:
        self.grid = grid
        self.sx = sx
        self.padding_width = padding_width
        self.rgb_padding_width = rgb_padding_width
        self.src: list[Line | None] = list(grid.lines)
        self.target: list[Line] = []

    def widths(self, cells: list[str]) -> list[int]:
        """Each cell's width; a padding cell's depends on its character's
        background (see ``reflow``)."""
        out: list[int] = []
        padding = self.padding_width
        for cell in cells:
            if cell:
                out.append(cell_width(cell))
                rgb = cell[-1] >= "\U000f0000" and bool(split_cell(cell)[1].bg & COLOUR_RGB)
                padding = self.rgb_padding_width if rgb else self.padding_width
            else:
                out.append(padding)
        return out

    def run(self) -> None:
        sx = self.sx
        src = self.src
        for yy, gl in enumerate(src):
            if gl is None:
                continue
            widths = self.widths(gl.cells)
            width = 0
            at = 0
            for i, w in enumerate(widths):
                if at == 0 and width + w > sx:
                    at = i
                width += w
            if width == sx:
                self._move(yy)
            elif width > sx:
                self._split(yy, at)
            elif gl.wrapped:
                self._join(yy, width, already=False)
            else:
                self._move(yy)
        grid = self.grid
        while len(self.target) < grid.sy:
            self.target.append(Line())
        grid.lines = self.target
        grid.hsize = len(self.target) - grid.sy
        grid.hscrolled = min(grid.hscrolled, grid.hsize)

    def _move(self, yy: int) -> None:
        line = self.src[yy]
        assert line is not None
        self.target.append(line)
        self.src[yy] = None

    def _append_cell(self, line: Line, cell: str) -> None:
        # grid_set_cell on the target grid, whose width is already the new one.
        line.cells.append(cell)
        used = len(line.cells)
        if used > line.size:
            line.size = expanded_size(line.size, used, self.sx)

    def _join(self, yy: int, width: int, *, already: bool) -> None:
        # grid_reflow_join: pull cells from the following rows onto this one.
        sx = self.sx
        src = self.src
        target = self.target
        grid = self.grid
        if not already:
            to = len(target)
            self._move(yy)
        else:
            to = len(target) - 1
        gl = target[to]
        lines = 0
        wrapped = True
        want = 0
        source: Line | None = None
        total = len(src)
        while yy + 1 + lines != total:
            nxt = src[yy + 1 + lines]
            if nxt is None:
                break
            if not nxt.wrapped:
                wrapped = False
            if not nxt.cells:
                if not wrapped:
                    break
                lines += 1
                continue
            widths = self.widths(nxt.cells)
            w = widths[0]
            if width + w > sx:
                break
            width += w
            self._append_cell(gl, nxt.cells[0])
            source = nxt
            want = 1
            ncells = len(source.cells)
            while want < ncells:
                w = widths[want]
                if width + w > sx:
                    break
                width += w
                self._append_cell(gl, source.cells[want])
                want += 1
            lines += 1
            if not wrapped or want != ncells or width == sx:
                break
        if lines == 0:
            return
        left = len(source.cells) - want if source is not None else 0
        if source is not None and left != 0:
            # The partly consumed row keeps only its tail (grid_move_cells,
            # then cellsize = cellused = left).
            source.cells = source.cells[want:]
            source.size = left
            source.serial = next_serial()
            lines -= 1
        elif not wrapped:
            gl.wrapped = False
        for i in range(yy + 1, yy + 1 + lines):
            src[i] = None
        if grid.hscrolled > to + lines:
            grid.hscrolled -= lines
        elif grid.hscrolled > to:
            grid.hscrolled = to

    def _split(self, yy: int, at: int) -> None:
        # grid_reflow_split: the first piece keeps cells [0, at), the rest is
        # cut into rows of at most sx columns by display width.
        sx = self.sx
        gl = self.src[yy]
        assert gl is not None
        was_wrapped = gl.wrapped
        rest = gl.cells[at:]
        pieces: list[Line] = []
        piece = Line()
        width = 0
        for cell, w in zip(rest, self.widths(gl.cells)[at:], strict=True):
            if width + w > sx:
                piece.wrapped = True
                pieces.append(piece)
                piece = Line()
                width = 0
            width += w
            self._append_cell(piece, cell)
        pieces.append(piece)
        if was_wrapped:
            piece.wrapped = True
        del gl.cells[at:]
        gl.size = at
        gl.wrapped = True
        self._move(yy)
        self.target.extend(pieces)
        grid = self.grid
        if yy <= grid.hscrolled:
            grid.hscrolled += len(pieces)
        if width < sx and was_wrapped:
            self._join(yy, width, already=True)


def reflow(grid: Grid, sx: int, *, padding_width: int = 0, rgb_padding_width: int = 0) -> None:
    """Rebuild every row of ``grid`` (history and screen) for width ``sx``.

    ``padding_width`` is what a wide character's padding cell counts for when
    rows are measured, split and joined: 0 up to tmux 3.5a, 1 from 3.7c
    (measured; 3.6b unknown). It matters only for a wide character wider than
    the new width: with 0 the padding cell ends up at the start of the next
    row and the character after it disappears from capture; with 1 the
    padding fills a row of its own and nothing is lost. ``rgb_padding_width``
    is the same for the padding of a character with an RGB background
    (which the padding cell carries): 0 on tmux 3.8, where such a padding
    cell is an extended cell (measured; 3.7c counts it as 1).
    """
    grid.sx = sx
    _Reflow(grid, sx, padding_width, rgb_padding_width).run()


def wrap_position(grid: Grid, px: int, py: int) -> tuple[int, int]:
    # grid_wrap_position: (offset in the logical line, logical line number).
    lines = grid.lines
    ax = 0
    ay = 0
    for yy in range(py):
        line = lines[yy]
        if line.wrapped:
            ax += len(line.cells)
        else:
            ax = 0
            ay += 1
    if px >= len(lines[py].cells):
        return END_OF_LINE, ay
    return ax + px, ay


def unwrap_position(grid: Grid, wx: int, wy: int) -> tuple[int, int]:
    # grid_unwrap_position: back from logical to absolute (x, row).
    lines = grid.lines
    last = len(lines) - 1
    ay = 0
    yy = 0
    while yy < last:
        if ay == wy:
            break
        if not lines[yy].wrapped:
            ay += 1
        yy += 1
    if wx == END_OF_LINE:
        while lines[yy].wrapped and yy < last:
            yy += 1
        return len(lines[yy].cells), yy
    while lines[yy].wrapped and yy < last:
        used = len(lines[yy].cells)
        if wx < used:
            break
        wx -= used
        yy += 1
    return wx, yy
