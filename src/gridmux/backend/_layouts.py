"""Window layouts an agent passes to ``select-layout``, parsed and checked
before tmux sees them.

tmux trusts a layout's checksum, which anyone can compute, and then its
geometry: a size of 4294967295 makes tmux 3.3a's server exit, and other
checksum-valid layouts crash it or send it into an endless loop. So a layout
other than a preset is parsed here whole and accepted only when it is what
tmux itself would print for the window it is applied to:

* the grammar: ``CSUM,CELL`` where ``CELL`` is ``WxH,X,Y`` followed by
  ``,ID`` (a pane), ``{CELL,CELL...}`` (panes side by side) or
  ``[CELL,CELL...]`` (panes stacked), or tmux 3.8's JSON form
  (``{"V":2,"L":CELL}``, a cell ``{"t":"h"|"v"|"p","w","h","x","y",...}``
  with ``"c"`` for a container's children);
* numbers of at most five digits (tmux's windows are at most 10000 cells
  on a side), at most 64 levels of nesting and 8 KiB of text;
* a tiling: a container has two or more children; side by side, each child
  is as tall as its container, on its row, and the children start at the
  container's left edge, each one column (the border) after the previous,
  ending at its right edge; stacked, the same with rows and columns swapped;
* against the window (``check_fits``): the layout starts at ``0,0``, is the
  window's size, and has one leaf per pane.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from gridmux.errors import InvalidArgument

from ._ids import LAYOUT_PRESETS, is_json_layout

#: tmux's largest window, in cells on a side (WINDOW_MAXIMUM).
MAXIMUM_CELLS = 10000
_MAX_DEPTH = 64
_MAX_TEXT = 8192
_HINT = (
    f"Use one of {', '.join(LAYOUT_PRESETS)}, or a window_layout that list_windows "
    "reported for this window."
)

_LAYOUT_TEXT = re.compile(r"[0-9a-f]{4},[0-9x,\[\]{}]+")
_GEOMETRY = re.compile(r"(\d{1,5})x(\d{1,5}),(\d{1,5}),(\d{1,5})")
_PANE_NUMBER = re.compile(r"\d{1,9}")


@dataclass(slots=True)
class LayoutCell:
    """One cell of a layout: a pane (``kind == "pane"``) or a container of
    cells side by side (``"lr"``) or stacked (``"tb"``)."""

    kind: str
    width: int
    height: int
    x: int
    y: int
    children: list[LayoutCell] = field(default_factory=list)

    def panes(self) -> int:
        return 1 if self.kind == "pane" else sum(child.panes() for child in self.children)


def layout_checksum(body: str) -> int:
    """tmux's 16-bit layout checksum of what follows ``xxxx,``."""
    csum = 0
    for char in body:
        csum = ((csum >> 1) + ((csum & 1) << 15) + ord(char)) & 0xFFFF
    return csum


def _refuse(layout: str, why: str) -> InvalidArgument:
    shown = layout if len(layout) <= 80 else layout[:77] + "..."
    return InvalidArgument(f"layout {shown!r} {why}", hint=_HINT)


class _Reader:
    """A recursive-descent reader of the checksummed form's cells."""

    def __init__(self, layout: str, body: str) -> None:
        self.layout = layout
        self.body = body
        self.at = 0

    def cell(self, depth: int) -> LayoutCell:
        if depth > _MAX_DEPTH:
            raise _refuse(self.layout, f"nests deeper than {_MAX_DEPTH} levels")
        found = _GEOMETRY.match(self.body, self.at)
        if found is None:
            raise _refuse(self.layout, f"has no 'WxH,X,Y' cell at offset {self.at}")
        self.at = found.end()
        width, height, x, y = (int(number) for number in found.groups())
        nxt = self.body[self.at : self.at + 1]
        if nxt in ("{", "["):
            kind, close = ("lr", "}") if nxt == "{" else ("tb", "]")
            self.at += 1
            children = [self.cell(depth + 1)]
            while self.body[self.at : self.at + 1] == ",":
                self.at += 1
                children.append(self.cell(depth + 1))
            if self.body[self.at : self.at + 1] != close:
                raise _refuse(self.layout, f"has no {close!r} at offset {self.at}")
            self.at += 1
            return LayoutCell(kind, width, height, x, y, children)
        if nxt != ",":
            raise _refuse(self.layout, f"has no pane number at offset {self.at}")
        number = _PANE_NUMBER.match(self.body, self.at + 1)
        if number is None:
            raise _refuse(self.layout, f"has no pane number at offset {self.at + 1}")
        self.at = number.end()
        return LayoutCell("pane", width, height, x, y)


def _from_string(layout: str) -> LayoutCell:
    if _LAYOUT_TEXT.fullmatch(layout) is None:
        raise _refuse(layout, "is neither a layout name nor a tmux layout string")
    head, _, body = layout.partition(",")
    if int(head, 16) != layout_checksum(body):
        raise _refuse(layout, "has a wrong checksum (was it edited?)")
    reader = _Reader(layout, body)
    root = reader.cell(0)
    if reader.at != len(body):
        raise _refuse(layout, f"has text left over at offset {reader.at}")
    return root


_JSON_KINDS = {"h": "lr", "v": "tb", "p": "pane"}


def _from_json_cell(layout: str, node: object, depth: int) -> LayoutCell:
    if depth > _MAX_DEPTH:
        raise _refuse(layout, f"nests deeper than {_MAX_DEPTH} levels")
    if not isinstance(node, dict) or node.get("t") not in _JSON_KINDS:
        raise _refuse(layout, 'has a cell that is not {"t": "h"|"v"|"p", ...}')
    numbers = [node.get(key) for key in ("w", "h", "x", "y")]
    if not all(type(n) is int and 0 <= n <= 99999 for n in numbers):
        raise _refuse(layout, 'has a cell whose "w", "h", "x" or "y" is not a small number')
    kind = _JSON_KINDS[node["t"]]
    width, height, x, y = (int(n) for n in numbers)  # type: ignore[arg-type]
    if kind == "pane":
        return LayoutCell(kind, width, height, x, y)
    children = node.get("c")
    if not isinstance(children, list) or not children:
        raise _refuse(layout, 'has a container without "c" cells')
    cells = [_from_json_cell(layout, child, depth + 1) for child in children]
    return LayoutCell(kind, width, height, x, y, cells)


def _check_tiling(layout: str, cell: LayoutCell) -> None:
    if not (1 <= cell.width <= MAXIMUM_CELLS and 1 <= cell.height <= MAXIMUM_CELLS):
        raise _refuse(layout, f"has a {cell.width}x{cell.height} cell (1 to {MAXIMUM_CELLS})")
    if cell.x + cell.width > MAXIMUM_CELLS or cell.y + cell.height > MAXIMUM_CELLS:
        raise _refuse(layout, f"has a cell beyond {MAXIMUM_CELLS} cells at {cell.x},{cell.y}")
    if cell.kind == "pane":
        return
    if len(cell.children) < 2:
        raise _refuse(layout, "has a container with fewer than two cells")
    across = cell.kind == "lr"
    edge = cell.x if across else cell.y
    for child in cell.children:
        start, size = (child.x, child.width) if across else (child.y, child.height)
        other = (child.y, child.height) if across else (child.x, child.width)
        if start != edge or other != ((cell.y, cell.height) if across else (cell.x, cell.width)):
            raise _refuse(layout, "has cells that do not tile their container")
        _check_tiling(layout, child)
        edge = start + size + 1
    if edge - 1 != (cell.x + cell.width if across else cell.y + cell.height):
        raise _refuse(layout, "has cells that do not fill their container")


def parse_layout(layout: str) -> LayoutCell | None:
    """The tree of a layout string or JSON layout (``None`` for a preset name),
    refused with ``InvalidArgument`` unless it is well formed and tiles."""
    if not isinstance(layout, str):
        raise InvalidArgument(f"layout {layout!r} must be a string", hint=_HINT)
    if layout in LAYOUT_PRESETS:
        return None
    if len(layout) > _MAX_TEXT:
        raise _refuse(layout, f"is longer than {_MAX_TEXT} characters")
    if is_json_layout(layout):
        document = json.loads(layout)
        root = _from_json_cell(layout, document["L"], 0)
    else:
        root = _from_string(layout)
    _check_tiling(layout, root)
    return root


def check_fits(layout: str, root: LayoutCell, width: int, height: int, panes: int) -> None:
    """Refuse a parsed layout that is not exactly for a ``width`` x ``height``
    window of ``panes`` panes (what tmux printed for it, or could have)."""
    if (root.x, root.y) != (0, 0) or (root.width, root.height) != (width, height):
        raise InvalidArgument(
            f"layout is for a {root.width}x{root.height} window at {root.x},{root.y}; "
            f"this window is {width}x{height}",
            hint="resize_window to the layout's size first, or use one of "
            f"{', '.join(LAYOUT_PRESETS)}.",
        )
    if root.panes() != panes:
        raise InvalidArgument(
            f"layout has {root.panes()} panes, one for each pane it arranges",
            hint=f"This window has {panes} panes; a layout string must be one saved from a "
            f"window with as many, or use one of {', '.join(LAYOUT_PRESETS)}.",
        )


__all__ = ["MAXIMUM_CELLS", "LayoutCell", "check_fits", "layout_checksum", "parse_layout"]
