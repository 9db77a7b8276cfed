"""Pane geometry: tmux's layout tree (``layout.c``, ``layout-set.c``).

A window's panes tile it as a tree of cells: leaves are panes, inner cells
split their area left-right (``{...}`` in a layout string) or top-bottom
(``[...]``), with a one-cell border between siblings. Splitting, killing,
resizing and the named layouts follow tmux's arithmetic closely enough that
sizes match for ordinary cases; the simulator only needs stable, plausible
geometry, not every corner of ``layout_resize_pane``.

Leaves carry the pane's number (``%3`` -> 3) so a layout string can be dumped
with tmux's checksum.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from gridmux.backend import InvalidArgument, TmuxFailure, layout_checksum

PANE_MINIMUM = 1  # tmux.h: smallest pane width or height

Kind = Literal["pane", "lr", "tb"]
Axis = Literal["x", "y"]


@dataclass(eq=False)
class Cell:
    kind: Kind
    sx: int
    sy: int
    xoff: int = 0
    yoff: int = 0
    pane: int = -1
    children: list[Cell] = field(default_factory=list)
    parent: Cell | None = None

    def size(self, axis: Axis) -> int:
        return self.sx if axis == "x" else self.sy

    def set_size(self, axis: Axis, value: int) -> None:
        if axis == "x":
            self.sx = value
        else:
            self.sy = value


def _axis_of(kind: Kind) -> Axis:
    return "x" if kind == "lr" else "y"


def _minimum(cell: Cell, axis: Axis) -> int:
    if cell.kind == "pane":
        return PANE_MINIMUM
    sizes = [_minimum(child, axis) for child in cell.children]
    if _axis_of(cell.kind) == axis:
        return sum(sizes) + len(sizes) - 1
    return max(sizes)


def _adjust(cell: Cell, axis: Axis, change: int) -> None:
    """Grow or shrink ``cell`` on ``axis`` (layout_resize_adjust).

    Across the cell's own direction the change is handed to the children one
    unit at a time, round robin, skipping those already at their minimum.
    """
    change = max(change, _minimum(cell, axis) - cell.size(axis))
    cell.set_size(axis, cell.size(axis) + change)
    if cell.kind == "pane":
        return
    if _axis_of(cell.kind) != axis:
        for child in cell.children:
            _adjust(child, axis, change)
        return
    while change != 0:
        progressed = False
        for child in cell.children:
            if change == 0:
                break
            if change > 0:
                _adjust(child, axis, 1)
                change -= 1
                progressed = True
            elif child.size(axis) > _minimum(child, axis):
                _adjust(child, axis, -1)
                change += 1
                progressed = True
        if not progressed:
            break


def _fix_offsets(cell: Cell) -> None:
    offset = cell.xoff if cell.kind == "lr" else cell.yoff
    for child in cell.children:
        if cell.kind == "lr":
            child.xoff, child.yoff = offset, cell.yoff
            offset += child.sx + 1
        else:
            child.xoff, child.yoff = cell.xoff, offset
            offset += child.sy + 1
        _fix_offsets(child)


def _leaf(pane: int, sx: int, sy: int) -> Cell:
    return Cell("pane", sx, sy, pane=pane)


def _container(kind: Kind, sx: int, sy: int, children: list[Cell]) -> Cell:
    cell = Cell(kind, sx, sy, children=children)
    for child in children:
        child.parent = cell
    return cell


def _spread(total: int, count: int) -> list[int]:
    """Sizes of ``count`` cells sharing ``total`` with borders (layout_spread_cell)."""
    each = max(PANE_MINIMUM, (total - (count - 1)) // count)
    last = max(PANE_MINIMUM, total - (each + 1) * (count - 1))
    return [each] * (count - 1) + [last]


def _spread_leaves(kind: Kind, panes: list[int], sx: int, sy: int) -> list[Cell]:
    """A leaf per pane, side by side (``lr``) or stacked (``tb``) in ``sx`` x ``sy``."""
    if kind == "lr":
        return [_leaf(p, w, sy) for p, w in zip(panes, _spread(sx, len(panes)), strict=True)]
    return [_leaf(p, sx, h) for p, h in zip(panes, _spread(sy, len(panes)), strict=True)]


class Layout:
    def __init__(self, root: Cell) -> None:
        self.root = root
        _fix_offsets(root)

    @classmethod
    def single(cls, pane: int, sx: int, sy: int) -> Layout:
        return cls(_leaf(pane, sx, sy))

    # -- queries ---------------------------------------------------------------
    def leaves(self) -> list[Cell]:
        out: list[Cell] = []

        def walk(cell: Cell) -> None:
            if cell.kind == "pane":
                out.append(cell)
            for child in cell.children:
                walk(child)

        walk(self.root)
        return out

    def find(self, pane: int) -> Cell:
        for leaf in self.leaves():
            if leaf.pane == pane:
                return leaf
        raise KeyError(pane)

    def geometry(self) -> dict[int, tuple[int, int, int, int]]:
        """pane -> (xoff, yoff, sx, sy)."""
        return {leaf.pane: (leaf.xoff, leaf.yoff, leaf.sx, leaf.sy) for leaf in self.leaves()}

    def dump(self) -> str:
        """tmux's layout string, ``csum,WxH,X,Y{...}``."""

        def append(cell: Cell) -> str:
            text = f"{cell.sx}x{cell.sy},{cell.xoff},{cell.yoff}"
            if cell.kind == "pane":
                return f"{text},{cell.pane}"
            inner = ",".join(append(child) for child in cell.children)
            return f"{text}{{{inner}}}" if cell.kind == "lr" else f"{text}[{inner}]"

        body = append(self.root)
        return f"{layout_checksum(body):04x},{body}"

    # -- changes ---------------------------------------------------------------
    def split(
        self, pane: int, new_pane: int, *, vertical: bool, before: bool, size: int | None
    ) -> None:
        """layout_split_pane: the new cell takes ``size`` rows/columns (default half)."""
        lc = self.find(pane)
        kind: Kind = "tb" if vertical else "lr"
        axis = _axis_of(kind)
        saved = lc.size(axis)
        if saved < PANE_MINIMUM * 2 + 1:
            raise TmuxFailure("create pane failed: pane too small")
        # The second (bottom/right) cell's size, as layout_split_pane computes it.
        if size is None:
            second = (saved + 1) // 2 - 1
        elif before:
            second = saved - size - 1
        else:
            second = size
        second = min(max(second, PANE_MINIMUM), saved - 2)
        first = saved - 1 - second
        new_size, old_size = (first, second) if before else (second, first)
        new = _leaf(new_pane, lc.sx, lc.sy)
        new.set_size(axis, new_size)
        parent = lc.parent
        if parent is not None and parent.kind == kind:
            lc.set_size(axis, old_size)
            position = parent.children.index(lc) + (0 if before else 1)
            parent.children.insert(position, new)
            new.parent = parent
        else:
            # Turn the leaf into a container holding the old pane and the new one.
            old = _leaf(lc.pane, lc.sx, lc.sy)
            old.set_size(axis, old_size)
            lc.kind, lc.pane = kind, -1
            lc.children = [new, old] if before else [old, new]
            for child in lc.children:
                child.parent = lc
        _fix_offsets(self.root)

    def remove(self, pane: int) -> None:
        """layout_destroy_cell: a neighbour takes the space. Not for the last pane."""
        lc = self.find(pane)
        parent = lc.parent
        if parent is None:
            raise ValueError("cannot remove the last cell")
        index = parent.children.index(lc)
        other = parent.children[index + 1] if index == 0 else parent.children[index - 1]
        axis = _axis_of(parent.kind)
        _adjust(other, axis, lc.size(axis) + 1)
        parent.children.remove(lc)
        if len(parent.children) == 1:
            only = parent.children[0]
            grand = parent.parent
            only.parent = grand
            only.sx, only.sy = parent.sx, parent.sy
            only.xoff, only.yoff = parent.xoff, parent.yoff
            if grand is None:
                self.root = only
            else:
                grand.children[grand.children.index(parent)] = only
        _fix_offsets(self.root)

    def resize(self, sx: int, sy: int) -> None:
        """Fit the whole tree to a new window size (layout_resize)."""
        _adjust(self.root, "x", sx - self.root.sx)
        _adjust(self.root, "y", sy - self.root.sy)
        _fix_offsets(self.root)

    def resize_pane(self, pane: int, axis: Axis, new_size: int) -> None:
        """layout_resize_pane_to: move the border between the pane's cell and a sibling."""
        lc = self.find(pane)
        kind: Kind = "lr" if axis == "x" else "tb"
        parent = lc.parent
        while parent is not None and parent.kind != kind:
            lc, parent = parent, parent.parent
        if parent is None:
            return  # nothing to trade space with, as in tmux
        siblings = parent.children
        index = siblings.index(lc)
        change = new_size - lc.size(axis)
        if index == len(siblings) - 1:
            # The last cell moves its left/top border: act on the one before.
            index, change = index - 1, -change
        if change > 0:
            for donor in siblings[index + 1 :]:
                give = min(change, donor.size(axis) - _minimum(donor, axis))
                _adjust(donor, axis, -give)
                _adjust(siblings[index], axis, give)
                change -= give
        elif change < 0:
            for donor in reversed(siblings[: index + 1]):
                give = min(-change, donor.size(axis) - _minimum(donor, axis))
                _adjust(donor, axis, -give)
                _adjust(siblings[index + 1], axis, give)
                change += give
        _fix_offsets(self.root)

    def swap(self, pane_a: int, pane_b: int) -> None:
        cell_a, cell_b = self.find(pane_a), self.find(pane_b)
        cell_a.pane, cell_b.pane = pane_b, pane_a


# -- named and custom layouts ---------------------------------------------------


def _main_size(option: str, total: int) -> int:
    try:
        value = total * int(option[:-1]) // 100 if option.endswith("%") else int(option)
    except ValueError:
        value = total // 2
    return max(PANE_MINIMUM, min(value, total - PANE_MINIMUM - 1))


def named_layout(
    name: str, panes: list[int], sx: int, sy: int, *, main_width: str, main_height: str
) -> Layout:
    """even-horizontal, even-vertical, main-horizontal, main-vertical, tiled."""
    count = len(panes)
    if count == 1:
        return Layout.single(panes[0], sx, sy)
    if name in ("even-horizontal", "even-vertical"):
        kind: Kind = "lr" if name == "even-horizontal" else "tb"
        return Layout(_container(kind, sx, sy, _spread_leaves(kind, panes, sx, sy)))
    if name == "main-horizontal":
        main = _main_size(main_height, sy)
        rest_h = sy - main - 1
        others = _spread_leaves("lr", panes[1:], sx, rest_h)
        bottom = others[0] if count == 2 else _container("lr", sx, rest_h, others)
        return Layout(_container("tb", sx, sy, [_leaf(panes[0], sx, main), bottom]))
    if name == "main-vertical":
        main = _main_size(main_width, sx)
        rest_w = sx - main - 1
        others = _spread_leaves("tb", panes[1:], rest_w, sy)
        right = others[0] if count == 2 else _container("tb", rest_w, sy, others)
        return Layout(_container("lr", sx, sy, [_leaf(panes[0], main, sy), right]))
    if name == "tiled":
        rows, columns = 1, 1
        while rows * columns < count:
            rows += 1
            if rows * columns < count:
                columns += 1
        row_cells: list[Cell] = []
        for row, height in enumerate(_spread(sy, rows)):
            chunk = panes[row * columns : (row + 1) * columns]
            if not chunk:
                break
            leaves = _spread_leaves("lr", chunk, sx, height)
            row_cells.append(
                leaves[0] if len(leaves) == 1 else _container("lr", sx, height, leaves)
            )
        if len(row_cells) < rows:  # fewer rows used than planned: respread heights
            for cell, height in zip(row_cells, _spread(sy, len(row_cells)), strict=True):
                _adjust(cell, "y", height - cell.sy)
        return Layout(_container("tb", sx, sy, row_cells))
    raise InvalidArgument(f"unknown layout or invalid layout: {name}")


_CELL_HEAD = re.compile(r"(\d+)x(\d+),(\d+),(\d+)")
_LEAF_ID = re.compile(r",(\d+)(?![\dx])")


def parse_layout(text: str, panes: list[int]) -> Layout:
    """A layout string (as ``dump`` writes) applied to ``panes`` in order."""
    csum, _, body = text.partition(",")
    try:
        valid = int(csum, 16) == layout_checksum(body)
    except ValueError:
        valid = False
    if not valid:
        raise InvalidArgument(f"invalid layout: {text}")
    position = 0

    def cell() -> Cell:
        nonlocal position
        match = _CELL_HEAD.match(body, position)
        if match is None:
            raise InvalidArgument(f"invalid layout: {text}")
        sx, sy, xoff, yoff = (int(g) for g in match.groups())
        position = match.end()
        if body.startswith(("{", "["), position):
            kind: Kind = "lr" if body[position] == "{" else "tb"
            closing = "}" if kind == "lr" else "]"
            position += 1
            children = [cell()]
            while body.startswith(",", position):
                position += 1
                children.append(cell())
            if not body.startswith(closing, position):
                raise InvalidArgument(f"invalid layout: {text}")
            position += 1
            made = _container(kind, sx, sy, children)
        else:
            # A leaf may carry ",ID"; digits followed by "x" start the next cell
            # instead (layout strings from before pane ids were recorded).
            number = _LEAF_ID.match(body, position)
            if number is not None:
                position = number.end()
            made = _leaf(-1, sx, sy)
        made.xoff, made.yoff = xoff, yoff
        return made

    root = cell()
    if position != len(body):
        raise InvalidArgument(f"invalid layout: {text}")
    layout = Layout(root)
    leaves = layout.leaves()
    if len(leaves) != len(panes) or not _consistent(root):
        raise InvalidArgument(f"invalid layout: {text}")
    for leaf, pane in zip(leaves, panes, strict=True):
        leaf.pane = pane
    return layout


def _consistent(cell: Cell) -> bool:
    # layout.c:layout_check
    if cell.kind == "pane":
        return True
    axis = _axis_of(cell.kind)
    other: Axis = "y" if axis == "x" else "x"
    total = sum(child.size(axis) for child in cell.children) + len(cell.children) - 1
    return (
        total == cell.size(axis)
        and all(child.size(other) == cell.size(other) for child in cell.children)
        and all(_consistent(child) for child in cell.children)
    )
