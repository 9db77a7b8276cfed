"""Window geometry arguments: layouts (a preset, a checksummed layout string,
or tmux 3.8's JSON) and the size of a new pane, checked before tmux sees them."""

from __future__ import annotations

import re

from gridmux.backend import LAYOUT_PRESETS, is_json_layout
from gridmux.backend import PaneInfo as BackendPane
from gridmux.errors import InvalidArgument

_MIRRORED = ("main-horizontal-mirrored", "main-vertical-mirrored")


_LAYOUT_STRING = re.compile(r"([0-9a-f]{4}),(\d+x\d+,\d+,\d+[0-9x,\[\]{}]*)")


_SPLIT_SIZE = re.compile(r"(\d{1,5})(%?)")


def layout_checksum(body: str) -> int:
    """tmux's 16-bit layout checksum (layout-custom.c) of what follows ``xxxx,``."""
    csum = 0
    for char in body:
        csum = ((csum >> 1) + ((csum & 1) << 15) + ord(char)) & 0xFFFF
    return csum


def check_layout(layout: str) -> str:
    """A preset, or a layout tmux printed: checksummed, or JSON (tmux 3.8, which checks it)."""
    if layout in LAYOUT_PRESETS or is_json_layout(layout):
        return layout
    hint = f"Use one of {', '.join(LAYOUT_PRESETS)}, or a window_layout from list_windows."
    if layout in _MIRRORED:
        raise InvalidArgument(f"layout {layout!r} is not supported here", hint=hint)
    match = _LAYOUT_STRING.fullmatch(layout)
    if match is None:
        raise InvalidArgument(
            f"layout {layout!r} is neither a layout name nor a tmux layout string", hint=hint
        )
    if int(match.group(1), 16) != layout_checksum(match.group(2)):
        raise InvalidArgument(
            f"layout string {layout!r} has a wrong checksum (was it edited?)", hint=hint
        )
    return layout


def split_size(size: str | int | None, direction: str, pane: BackendPane) -> str | None:
    """``size`` as ``split-window -l`` takes it, checked against the pane it splits."""
    if size is None:
        return None
    hint = "Pass a percentage such as '30%' or a number of cells such as 10."
    if isinstance(size, bool):
        raise InvalidArgument(f"size {size!r} is not a size", hint=hint)
    if isinstance(size, int):
        cells = size
    else:
        match = _SPLIT_SIZE.fullmatch(size.strip())
        if match is None:
            raise InvalidArgument(f"size {size!r} is not 'N%' or a number of cells", hint=hint)
        if match.group(2):
            percent = int(match.group(1))
            if not 1 <= percent <= 99:
                raise InvalidArgument(f"size {size!r} must be between 1% and 99%", hint=hint)
            return f"{percent}%"
        cells = int(match.group(1))
    vertical = direction in ("above", "below")
    available = pane.height if vertical else pane.width
    # The new pane, a one-cell border and at least one cell left for the old pane.
    most = available - 2
    if not 1 <= cells <= most:
        extent = f"{available} rows tall" if vertical else f"{available} columns wide"
        fits = f"1..{most} cells" if most >= 1 else "no room to split it"
        raise InvalidArgument(
            f"size {cells} does not fit: pane {pane.pane_id} is {extent} ({fits})", hint=hint
        )
    return str(cells)


__all__ = ["check_layout", "layout_checksum", "split_size"]
