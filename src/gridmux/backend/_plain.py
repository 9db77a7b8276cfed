"""Pane output that only appends: the byte-level proof behind the output watch.

A young cursor (a fresh pane) has too few rows above it for their content to
place it: ``clear`` at a bare prompt redraws exactly what the cursor saw,
after rows it never saw. What tmux gives instead is the pane's output itself
(``_watch``). Between two instants this module decides from those bytes, and
the pane's state at both, whether the grid only grew: no row removed, none
above the cursor row changed.

``replay`` reads the bytes as tmux's parser would, allowing only what cannot
move a row: printable text that never writes past the last column (so it
never wraps), CR, LF, BS while the column is known to be above 0, tab, and escape
sequences that change no cell outside the cursor row (SGR, erase in line,
harmless private modes, titles). Anything else, such as cursor movement,
erase in display, scroll regions, reset or the alternate screen, is not plain,
and ``only_appended`` says no.

What no byte shows, ``only_appended`` checks by the state: ``clear-history``,
``send-keys -R``, a resize, a lowered ``history-limit``. Plain output moves
the cursor down one row per line feed, or, on the scroll region's last row,
pushes the region's top row into history, so from the state before and the
line feeds counted the state after is known exactly: ``history_size`` and
``cursor_y`` must be just that, and no line feed may have reached the
history limit (a trim there could hide a clear). ``clear-history`` lowers
``history_size`` by the rows it drops, which plain bytes can never make up.

``settle`` follows where a stream stands between chunks, cheaply, so that
every cut the watch records says whether tmux's parser was at rest there.
"""

from __future__ import annotations

from ._types import PaneState

_ESC = 0x1B
_CAN_SUB = frozenset({0x18, 0x1A})
#: Private modes (``ESC [ ? n h/l``) that change no cell: cursor keys, blink,
#: cursor shown, mouse and focus reporting, bracketed paste, synchronized output.
_HARMLESS_MODES = frozenset(
    {b"1", b"12", b"25", b"1000", b"1002", b"1003", b"1004", b"1005", b"1006", b"1015"}
    | {b"2004", b"2026"}
)
#: ``ESC x`` that change no cell: keypad modes and a stray string terminator.
_HARMLESS_ESCAPES = frozenset(b"=>\\")
#: ``ESC x y``: character set designations (G0 .. G3).
_CHARSETS = frozenset(b"()*+")
#: C0 controls tmux ignores or that change no cell: NUL, BEL, SO, SI, DEL.
_IGNORED = frozenset({0x00, 0x07, 0x0E, 0x0F, 0x7F})


#: Where a stream stands between escape sequences (``settle``): at rest, or
#: inside one of these, each kept as the few bytes that name it.
_AT_ESC = b"\x1b"
_ESC_MORE = b"\x1b "  # ESC and intermediate bytes
_CSI = b"\x1b["
_OSC = b"\x1b]"  # ends at BEL or at the ESC of a string terminator
_STRING = b"\x1b_"  # SOS, PM, APC and tmux's ESC k window name: end at an ESC
_DCS = b"\x1bP"  # ends only at ESC \ (its payload may hold other escapes)
_DCS_ESC = b"\x1bP\x1b"
_OPENERS = {ord("["): _CSI, ord("]"): _OSC, ord("P"): _DCS} | {
    ord(kind): _STRING for kind in "X^_k"
}


def settle(pending: bytes | None, data: bytes) -> bytes | None:
    """Where a stream stands after ``data``: ``b""`` at rest, else the state
    of the escape sequence or string still open (a few bytes naming it). It
    follows tmux's parser only as far as where sequences end, and where it
    is unsure it stays open, which vouches for nothing. None stays None."""
    if pending is None:
        return None
    state = pending
    at, end = 0, len(data)
    while at < end:
        if not state:
            found = data.find(b"\x1b", at)
            if found < 0:
                return b""
            state, at = _AT_ESC, found + 1
            continue
        byte = data[at]
        at += 1
        if state == _DCS:
            state = _DCS_ESC if byte == 0x1B else _DCS
        elif state == _DCS_ESC:
            state = b"" if byte == 0x5C else (_DCS_ESC if byte == 0x1B else _DCS)
        elif byte == 0x1B:
            state = _AT_ESC  # an escape starts again from any other state
        elif byte in _CAN_SUB:
            state = b""
        elif state == _AT_ESC:
            if byte in _OPENERS:
                state = _OPENERS[byte]
            elif 0x20 <= byte <= 0x2F:
                state = _ESC_MORE
            elif 0x30 <= byte <= 0x7E:
                state = b""
        elif state == _ESC_MORE:
            if 0x30 <= byte <= 0x7E:
                state = b""
        elif state == _CSI:
            if 0x40 <= byte <= 0x7E:
                state = b""
        elif state == _OSC and byte == 0x07:
            state = b""
    return state


def replay(data: bytes, x: int, width: int) -> tuple[int, int, int] | None:
    """Line feeds in ``data`` and the bounds of the cursor column after it,
    starting at column ``x`` of a ``width``-column pane, or None when the
    bytes are not plain (see the module docstring) or could wrap."""
    lo = hi = x
    feeds = 0
    at, end = 0, len(data)
    while at < end:
        byte = data[at]
        if 0x20 <= byte <= 0x7E:
            run = at + 1
            while run < end and 0x20 <= data[run] <= 0x7E:
                run += 1
            if hi + run - at > width:  # a character written past the last column wraps
                return None
            lo, hi = lo + run - at, hi + run - at
            at = run
            continue
        if byte >= 0x80:  # a UTF-8 character: 0, 1 or 2 columns
            at += 1
            while at < end and 0x80 <= data[at] <= 0xBF:
                at += 1
            if hi + 2 > width:
                return None
            hi += 2
            continue
        at += 1
        if byte == 0x0D:
            lo = hi = 0
        elif byte in (0x0A, 0x0B, 0x0C):
            feeds += 1
        elif byte == 0x08:
            if lo < 1:  # at column 0 a backspace may go up to a wrapped row
                return None
            lo, hi = lo - 1, hi - 1
        elif byte == 0x09:  # to a tab stop, at most the last column
            if hi < width - 1:
                lo, hi = lo + 1, width - 1
            else:
                lo = min(lo + 1, width - 1) if lo < width - 1 else lo
        elif byte == _ESC:
            at = _escape(data, at)
            if at < 0:
                return None
        elif byte not in _IGNORED:
            return None
    return feeds, lo, hi


def _escape(data: bytes, at: int) -> int:
    """Past the plain escape sequence whose ESC was just before ``at``; -1 if
    it is not plain or not complete."""
    end = len(data)
    if at >= end:
        return -1
    kind = data[at]
    if kind == ord("["):
        return _csi(data, at + 1)
    if kind == ord("]"):  # a string for the terminal (title, colours, clipboard)
        run = at + 1
        while run < end:
            if data[run] == 0x07:
                return run + 1
            if data[run] == _ESC:
                return run + 2 if data[run + 1 : run + 2] == b"\\" else -1
            if data[run] in _CAN_SUB:
                return -1
            run += 1
        return -1
    if kind in _HARMLESS_ESCAPES:
        return at + 1
    if kind in _CHARSETS and at + 1 < end and 0x30 <= data[at + 1] <= 0x7E:
        return at + 2
    return -1


def _csi(data: bytes, at: int) -> int:
    end = len(data)
    run = at
    while run < end and 0x30 <= data[run] <= 0x3F:
        run += 1
    params = data[at:run]
    start = run
    while run < end and 0x20 <= data[run] <= 0x2F:
        run += 1
    between = data[start:run]
    if run >= end or not 0x40 <= data[run] <= 0x7E:
        return -1
    final = chr(data[run])
    marker = params[:1] if params[:1] in (b"?", b">", b"<", b"=") else b""
    numbers = params[len(marker) :]
    if between and not (between == b" " and final == "q" and not marker):
        return -1
    if final == "m" or (final == "q" and (between or marker == b">")):
        plain = True  # colours and styles; cursor shape; version query
    elif final == "K":
        plain = not marker and numbers in (b"", b"0", b"1", b"2")
    elif final in "hl":
        plain = marker == b"?" and set(numbers.split(b";")) <= _HARMLESS_MODES
    elif final in "cn":
        plain = True  # device attributes and status reports: tmux answers, draws nothing
    elif final == "t":
        plain = not marker  # window operations: tmux draws nothing for them
    elif final == "u":
        plain = bool(marker)  # keyboard protocol; bare ``CSI u`` restores the cursor
    else:
        plain = False
    return run + 1 if plain else -1


def only_appended(
    before: PaneState,
    after: PaneState,
    data: bytes,
    region: tuple[int, int],
    region_after: tuple[int, int],
) -> bool:
    """Whether the pane went from ``before`` to ``after`` by appending
    ``data`` only (see the module docstring), its scroll region ``region``
    at both instants: then every row the cursor of ``before`` saw is still
    where it was, and every row since is retained."""
    if (
        before.pane_id != after.pane_id
        or before.pid != after.pid
        or before.server_pid != after.server_pid
        or (before.width, before.height) != (after.width, after.height)
        or before.history_limit != after.history_limit
        or before.alternate_on
        or after.alternate_on
        or after.dead
        or region != region_after
    ):
        return False
    replayed = replay(data, before.cursor_x, before.width)
    if replayed is None:
        return False
    feeds, lo, hi = replayed
    if not lo <= after.cursor_x <= hi:
        return False
    moved = _line_feeds(before, region, feeds)
    return moved is not None and moved == (after.history_size, after.cursor_y)


def _line_feeds(state: PaneState, region: tuple[int, int], feeds: int) -> tuple[int, int] | None:
    """``history_size`` and ``cursor_y`` after ``feeds`` line feeds, or None
    if one of them would make tmux trim the history (which a clear could
    also explain, so it proves nothing). A line feed on the region's last row
    pushes the region's top row into history; elsewhere it moves the cursor
    down, but not past the last row (docs/tmux-model.md §2)."""
    hsize, cy = state.history_size, state.cursor_y
    upper, lower = region
    if not 0 <= upper < lower < state.height or state.history_limit < 1:
        return None
    if cy != lower:
        steps = min(feeds, (lower if cy < lower else state.height - 1) - cy)
        cy, feeds = cy + steps, feeds - steps
        if cy != lower:  # below the region: the rest of the feeds do nothing
            return hsize, cy
    if hsize + feeds > state.history_limit:  # the last push would collect first
        return None
    return hsize + feeds, cy


__all__ = ["only_appended", "replay", "settle"]
