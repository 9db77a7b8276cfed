"""Which width changes provably leave a cursor's window rows alone (``_core``)."""

from __future__ import annotations

from ._rows import Rows

#: fewest surviving window rows that may vouch for a position after trimming
MIN_EVIDENCE = 6


def reflow_cells(rows: Rows, anchor: int, k: int, width: int) -> int | None:
    """The widest of the window rows ``anchor-k .. anchor-1`` and the first
    sentinel row above them, in cells, when reflow provably leaves them alone
    at any width at least that wide.

    tmux's reflow (docs/tmux-model.md §10) keeps a row as it is unless the row is
    wider than the new width (split) or WRAPPED (joined with the next); a
    row that follows a WRAPPED row is consumed by that join. So the window
    and the sentinel row survive a width change intact when none of them is
    wider than the new width and neither they nor the row above them is
    WRAPPED. The proof uses the ``capture-pane -N`` rows, whose length bounds
    the cells a row uses (exactly on 3.3a, the allocation elsewhere), for
    rows of printable ASCII only, where a cell is a character: an
    auto-wrapped row has written its last column, so a row shorter than the
    width is not WRAPPED -- unless a wide character that did not fit at the
    edge wrapped it early, which shows as a first character of the next row
    outside ASCII.
    """
    if k < MIN_EVIDENCE:
        return None
    widest = 0
    for row in range(max(anchor - k - 2, 0), anchor):
        text = rows.untrimmed_text(row)
        below = rows.untrimmed_text(row + 1)
        if (
            text is None
            or below is None
            or len(text) >= width
            or not plain(text)
            or not plain(below[:1])
        ):
            return None
        if row >= anchor - k - 1:
            widest = max(widest, len(text))
    return widest


def plain(text: str) -> bool:
    """Printable ASCII only: one character per cell."""
    return text.isascii() and text.isprintable()
