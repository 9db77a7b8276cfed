"""``capture-pane -p`` text (``cmd-capture-pane.c`` + ``grid.c:grid_string_cells``).

tmux-grid.md §6: one line per row top..bottom; with ``-J`` a WRAPPED row is
joined to the next and keeps its trailing blanks; otherwise trailing spaces
are trimmed unless ``-N``. How far a row is read depends on the version:
3.2a reads to ``cellsize``; 3.3a to ``cellused``; 3.4+ to ``cellsize`` unless
``-J`` (or ``-T``, not offered here) is given. Padding cells print nothing;
a stored TAB (3.6+) prints ``\\t``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._line import Line
from ._versions import TmuxVersion

# 3.4 went back to reading rows to cellsize for -N (§0). There is no flag for
# this in _versions.py, so it is derived here.
_CELLSIZE_FOR_NO_TRIM = TmuxVersion(3, 4)


def _row_limit(line: Line, join: bool, keep_trailing: bool, version: TmuxVersion) -> int:
    if not (join or keep_trailing):
        # Trimmed output cannot see past the last used cell.
        return len(line.cells)
    if version.join_pads_to_cellsize:
        return line.size
    if join:
        return len(line.cells)
    if version >= _CELLSIZE_FOR_NO_TRIM:
        return line.size
    return len(line.cells)


def row_text(line: Line, sx: int, limit: int, trim: bool) -> str:
    cells = line.cells
    end = min(limit, sx)
    used = min(end, len(cells))
    head = cells[:used]
    text = "".join(head)
    if "\t" in text:
        text = "".join("\t" if c.startswith("\t") else c for c in head)
    if end > used:
        text += " " * (end - used)
    if trim:
        text = text.rstrip(" ")
    return text


def capture_rows(
    lines: Sequence[Line],
    top: int,
    bottom: int,
    sx: int,
    *,
    join: bool,
    keep_trailing: bool,
    version: TmuxVersion,
) -> list[str]:
    trim = not join and not keep_trailing
    parts: list[str] = []
    for i in range(top, bottom + 1):
        line = lines[i]
        parts.append(row_text(line, sx, _row_limit(line, join, keep_trailing, version), trim))
        if not join or not line.wrapped:
            parts.append("\n")
    # capture-pane -p drops the final newline (and prints exactly one).
    buffer = "".join(parts)
    if buffer.endswith("\n"):
        buffer = buffer[:-1]
    return buffer.split("\n")
