"""The size of a new pane, checked against the pane it splits before tmux
sees it (layouts are checked by ``gridmux.backend.parse_layout``)."""

from __future__ import annotations

import re

from gridmux.backend import PaneInfo as BackendPane
from gridmux.errors import InvalidArgument

_SPLIT_SIZE = re.compile(r"(\d{1,5})(%?)")


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


__all__ = ["split_size"]
