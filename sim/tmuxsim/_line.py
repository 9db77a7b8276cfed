"""One grid row (``struct grid_line``) and the width rules for its cells.

A row keeps only what capture, reflow and the writer can observe:

* ``cells`` holds one string per column up to ``cellused`` (so
  ``len(cells) == cellused``). A normal cell is its character plus any
  combining marks; the right half of a wide character is ``PAD`` (the empty
  string, ``GRID_FLAG_PADDING``); a stored TAB (3.6+, ``GRID_FLAG_TAB``) is
  ``"\\t" * width`` and is followed by ``width - 1`` padding cells. Erased
  cells are ``" "``. Columns at or beyond ``cellused`` read as blanks. A
  cell with attributes or colours ends in one style mark (``_style``).
* ``size`` is ``cellsize``: the allocation, which only leaks into
  ``capture-pane -N``/``-J`` output (docs/tmux-model.md §1, §15).
* ``wrapped`` is ``GRID_LINE_WRAPPED``.
* ``serial`` is the row's identity for test oracles (see ``Terminal.line_serials``).
"""

from __future__ import annotations

import itertools
import unicodedata
from functools import lru_cache

#: The right half of a wide character (or the tail of a stored TAB).
PAD = ""
#: What an erased or never-written cell reads as.
BLANK = " "

_serials = itertools.count(1)


def next_serial() -> int:
    return next(_serials)


class Line:
    __slots__ = ("cells", "serial", "size", "wrapped")

    def __init__(self) -> None:
        self.cells: list[str] = []
        self.size = 0
        self.wrapped = False
        self.serial = next(_serials)

    def empty(self) -> None:
        # grid_empty_line in place: the slot (and so the row's identity) stays.
        self.cells = []
        self.size = 0
        self.wrapped = False

    def cell(self, x: int) -> str:
        cells = self.cells
        return cells[x] if x < len(cells) else BLANK


def expanded_size(size: int, want: int, sx: int) -> int:
    # grid.c:grid_expand_line grows the allocation in quanta of sx/4, sx/2, sx.
    if want <= size:
        return size
    if want < sx // 4:
        return sx // 4
    if want < sx // 2:
        return sx // 2
    if sx > want:
        return sx
    return want


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    # wcwidth() as tmux sees it: combining and format characters are
    # zero-width (they join the previous cell), East Asian wide and fullwidth
    # characters take two cells, everything else one (tmux assumes 1 where
    # wcwidth() fails, utf8.c:utf8_width).
    if ch == "\u00ad":
        return 1
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def cell_width(cell: str) -> int:
    # grid_cell.data.width: 0 for padding, the span for a TAB, else the
    # width of the base character.
    if not cell:
        return 0
    first = cell[0]
    if first == "\t":
        return cell.count("\t")
    if first < "\u0300":
        return 1
    return char_width(first)
