"""``capture-pane -p`` text (``cmd-capture-pane.c`` + ``grid.c:grid_string_cells``).

docs/tmux-model.md §15: one line per row top..bottom; with ``-J`` a WRAPPED row is
joined to the next and keeps its trailing blanks; otherwise trailing spaces
are trimmed unless ``-N``. How far a row is read depends on the version
(§19): 3.2a reads to ``cellsize``; 3.3a to ``cellused``; 3.4+ to
``cellsize`` unless ``-J`` or ``-T`` is given. Padding cells print nothing;
a stored TAB (3.6+) prints ``\\t``. With ``-e`` each cell is preceded by the
SGR codes that take the previous cell's style to its own, one state shared
by every row of the capture (``_style.sgr_code``); with ``-L`` (3.7+) each
line starts with its row number relative to the history size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ._line import BLANK, Line
from ._style import DEFAULT_STYLE, Style, sgr_code, split_cell, strip_marks
from ._versions import TmuxVersion


@dataclass(frozen=True)
class CaptureOptions:
    """The capture-pane switches that shape the text."""

    join: bool = False  # -J
    keep_trailing: bool = False  # -N
    trim_used: bool = False  # -T (3.4+)
    escapes: bool = False  # -e
    line_numbers: bool = False  # -L (3.7+)


@dataclass
class _SgrState:
    last: Style = field(default=DEFAULT_STYLE)


def row_limit(line: Line, options: CaptureOptions, version: TmuxVersion) -> int:
    """How many cells of ``line`` grid_string_cells walks (§15, §19)."""
    if version.join_pads_to_cellsize:  # 3.2a: always the allocation
        return line.size
    if not version.no_trim_reads_cellsize:  # 3.3a: always the used cells
        return len(line.cells)
    if options.join or options.trim_used:  # 3.4+
        return len(line.cells)
    return line.size


def _plain_text(line: Line, end: int) -> str:
    cells = line.cells
    used = min(end, len(cells))
    head = cells[:used]
    text = strip_marks("".join(head))
    if "\t" in text:
        text = strip_marks("".join("\t" if c.startswith("\t") else c for c in head))
    return text + BLANK * (end - used)


def _coded_text(line: Line, end: int, sgr: _SgrState, version: TmuxVersion) -> str:
    style_name = version.sgr_style
    parts: list[str] = []
    cells = line.cells
    for x in range(end):
        cell = cells[x] if x < len(cells) else BLANK
        if not cell:
            continue  # padding
        text, style = split_cell(cell)
        parts.append(sgr_code(sgr.last, style, style_name))
        sgr.last = style
        parts.append("\t" if text.startswith("\t") else text)
    return "".join(parts)


def row_text(
    line: Line,
    sx: int,
    limit: int,
    trim: bool,
    sgr: _SgrState | None = None,
    version: TmuxVersion | None = None,
) -> str:
    end = min(limit, sx)
    if sgr is not None and version is not None:
        text = _coded_text(line, end, sgr, version)
    else:
        text = _plain_text(line, end)
    if trim:
        text = text.rstrip(" ")
    return text


def capture_rows(
    lines: Sequence[Line],
    top: int,
    bottom: int,
    sx: int,
    *,
    join: bool = False,
    keep_trailing: bool = False,
    version: TmuxVersion,
    options: CaptureOptions | None = None,
    hsize: int = 0,
) -> list[str]:
    if options is None:
        options = CaptureOptions(join=join, keep_trailing=keep_trailing)
    join = options.join
    trim = not join and not options.keep_trailing
    sgr = _SgrState() if options.escapes else None
    parts: list[str] = []
    for i in range(top, bottom + 1):
        line = lines[i]
        if options.line_numbers and (i == top or not join or not lines[i - 1].wrapped):
            parts.append(f"{i - hsize} ")
        parts.append(row_text(line, sx, row_limit(line, options, version), trim, sgr, version))
        if not join or not line.wrapped:
            parts.append("\n")
    # capture-pane -p drops the final newline (and prints exactly one).
    buffer = "".join(parts)
    if buffer.endswith("\n"):
        buffer = buffer[:-1]
    return buffer.split("\n")
