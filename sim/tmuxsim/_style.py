"""Cell attributes and colours (``struct grid_cell``'s ``attr``/``fg``/``bg``):
what SGR sets (``input.c:input_csi_dispatch_sgr``) and how ``capture-pane
-e`` writes it back (``grid.c:grid_string_cells_code``).

A cell is stored as a string (see ``_line``); a non-default style rides on
it as one trailing character from Unicode's plane-15 private use area, an
index into an interned table of ``Style`` values. Default cells carry no
mark, so every existing comparison with ``BLANK`` still means "a default
blank", which is also what tmux compares with ``grid_default_cell``.

Modelled: the attributes bold, dim, italics, underscore, blink, reverse,
hidden and strikethrough, and foreground/background colours (the eight
colours, their bright forms 90-97/100-107, the 256-colour palette and RGB).
Not modelled: underscore styles and colour, overline, the charset
attribute, hyperlinks, and background colour erase (erases and scrolls
always leave default cells; a non-default background only reaches the grid
through printed characters).

``capture-pane -e`` styles (docs/tmux-model.md §15): see ``TmuxVersion.sgr_style``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: COLOUR_DEFAULT, and the flags tmux or-s into 256-colour and RGB values.
DEFAULT_COLOUR = 8
COLOUR_256 = 0x01000000
COLOUR_RGB = 0x02000000

#: The attributes in grid_string_cells_code's order, by their SGR code.
ATTRIBUTE_CODES = (1, 2, 3, 4, 5, 7, 8, 9)
_ATTRIBUTE_OFF = {22: (1, 2), 23: (3,), 24: (4,), 25: (5,), 27: (7,), 28: (8,), 29: (9,)}

_MARK_BASE = 0xF0000
_MARK_LIMIT = 0xFFFFD


@dataclass(frozen=True, slots=True)
class Style:
    attributes: frozenset[int] = frozenset()
    fg: int = DEFAULT_COLOUR
    bg: int = DEFAULT_COLOUR


DEFAULT_STYLE = Style()
_styles: list[Style] = [DEFAULT_STYLE]
_index: dict[Style, int] = {DEFAULT_STYLE: 0}


def mark(style: Style) -> str:
    """The suffix that stores ``style`` on a cell ("" for the default style)."""
    number = _index.get(style)
    if number is None:
        number = len(_styles)
        if _MARK_BASE + number > _MARK_LIMIT:
            raise RuntimeError("too many distinct cell styles")
        _styles.append(style)
        _index[style] = number
    return "" if number == 0 else chr(_MARK_BASE + number)


def is_mark(ch: str) -> bool:
    return ch >= "\U000f0000"


def split_cell(cell: str) -> tuple[str, Style]:
    """A cell's text (character plus combining marks, or TABs) and its style."""
    if cell and is_mark(cell[-1]):
        return cell[:-1], _styles[ord(cell[-1]) - _MARK_BASE]
    return cell, DEFAULT_STYLE


def cell_text(cell: str) -> str:
    return cell[:-1] if cell and is_mark(cell[-1]) else cell


def strip_marks(text: str) -> str:
    """``text`` (cells joined) without their style marks."""
    if not any(is_mark(ch) for ch in text):
        return text
    return "".join(ch for ch in text if not is_mark(ch))


# -- SGR (input_csi_dispatch_sgr) ---------------------------------------------------


def apply_sgr(style: Style, params: Sequence[int | None]) -> Style:
    """``style`` after ``ESC [ params m``. A missing parameter is 0; a colon
    sub-parameter list (-1) is ignored."""
    attributes = set(style.attributes)
    fg, bg = style.fg, style.bg
    values = list(params) or [0]
    i = 0
    while i < len(values):
        n = values[i]
        n = 0 if n is None else n
        i += 1
        if n == -1:
            continue
        if n in (38, 48):
            colour, i = _extended_colour(values, i)
            if colour is not None:
                if n == 38:
                    fg = colour
                else:
                    bg = colour
            continue
        if n == 0:
            attributes.clear()
            fg = bg = DEFAULT_COLOUR
        elif n in ATTRIBUTE_CODES:
            attributes.add(n)
        elif n == 6:
            attributes.add(5)  # rapid blink is blink
        elif n in _ATTRIBUTE_OFF:
            attributes.difference_update(_ATTRIBUTE_OFF[n])
        elif 30 <= n <= 37:
            fg = n - 30
        elif n == 39:
            fg = DEFAULT_COLOUR
        elif 40 <= n <= 47:
            bg = n - 40
        elif n == 49:
            bg = DEFAULT_COLOUR
        elif 90 <= n <= 97:
            fg = n
        elif 100 <= n <= 107:
            bg = n - 10
    return Style(frozenset(attributes), fg, bg)


def _extended_colour(values: list[int | None], i: int) -> tuple[int | None, int]:
    # 38;5;n and 38;2;r;g;b (input_csi_dispatch_sgr_256 / _rgb): the index
    # returned is past what was consumed.
    kind = values[i] if i < len(values) else None
    if kind == 5:
        c = _param(values, i + 1)
        if c is None or c > 255:
            return DEFAULT_COLOUR, i + 2
        return c | COLOUR_256, i + 2
    if kind == 2:
        r, g, b = (_param(values, i + k) for k in (1, 2, 3))
        if r is None or g is None or b is None or max(r, g, b) > 255:
            return None, i + 1
        return COLOUR_RGB | (r << 16) | (g << 8) | b, i + 4
    return None, i + 1


def _param(values: list[int | None], i: int) -> int | None:
    if i >= len(values):
        return None
    value = values[i]
    return None if value is None or value < 0 else value


# -- capture-pane -e (grid_string_cells_code) -------------------------------------


def _colour_values(colour: int, base: int) -> list[int]:
    # grid_string_cells_fg (base 30) / _bg (base 40).
    if colour & COLOUR_256:
        return [base + 8, 5, colour & 0xFF]
    if colour & COLOUR_RGB:
        return [base + 8, 2, (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF]
    if 0 <= colour <= 7:
        return [base + colour]
    if colour == DEFAULT_COLOUR:
        return [base + 9]
    if 90 <= colour <= 97:
        return [colour + (base - 30)]
    return []


def _sgr(values: Sequence[int]) -> str:
    return "\x1b[" + ";".join(str(v) for v in values) + "m"


def sgr_code(last: Style, new: Style, style: str) -> str:
    """The codes ``capture-pane -e`` writes before a cell styled ``new`` when
    the previous cell written was ``last`` (§15, styles A/B/C)."""
    removed = bool(last.attributes - new.attributes)
    kept = frozenset() if removed else last.attributes
    codes = [0] if removed else []
    codes += [code for code in ATTRIBUTE_CODES if code in new.attributes and code not in kept]
    out = _sgr(codes) if codes else ""
    for old_colour, new_colour, base in ((last.fg, new.fg, 30), (last.bg, new.bg, 40)):
        new_values = _colour_values(new_colour, base)
        if not new_values:
            continue
        changed = new_values != _colour_values(old_colour, base)
        if style == "C":
            # 3.4+: after a reset a default colour needs no code.
            if removed and new_colour == DEFAULT_COLOUR:
                continue
            if not removed and not changed:
                continue
        elif not (removed or changed):
            continue
        out += _sgr(new_values)
    return out
