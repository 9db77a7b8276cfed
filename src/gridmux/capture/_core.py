"""The capture_since algorithm: sans-IO, standard library only.

Rules, strongest first (docs/capture-since.md#the-contract):

1. Never silently lose or repeat a row. A delta is reported as exact only
   when the last row read is re-located at exactly ONE position among the
   rows tmux still holds; otherwise ``lines_missed`` is set, the visible
   screen is returned and a fresh cursor starts there.
2. No needless loss: trimming at ``history-limit``, output streaming during
   the read, height resizes, cursor-row rewrites and width changes that
   provably leave the cursor's window rows alone (``_reflow.reflow_cells``) keep
   deltas exact.
3. A cursor for another server or pane, a dead pane, or a pane that runs a
   new process is refused, never read.

Theory of operation. tmux exposes no counter of rows added or trimmed; every
absolute row index drops by ``d`` when ``d`` rows are trimmed from the top
(collection in batches of ``history-limit // 10``, clear-history, a lowered
limit on 3.7+), and is otherwise stable: scrolling, clears that push the
screen into history and height resizes (``history_size + cursor_y`` is
invariant) never move a row. So the old anchor row is now at ``p = A - d``
for an unknown ``d >= 0``. The cursor holds hashes of the rows above the
anchor (the window) and of *sentinel* rows 1, 2, 4 .. 1024 rows above the
window. A position ``p`` is a *candidate* when the rows above it carry the
window's hashes (all of them, or, when trimming has cut into the window,
the surviving ones, if at least ``MIN_EVIDENCE`` survive). The true
position is always a candidate while the window rows are unchanged and the
window survives, so a single candidate is the position -- provided the
truth cannot be a position trimming pushed out of reach: top rows that
could be the window's surviving tail void the match, every sentinel row
still there above the match must match, and, when the history is long
enough for tmux to have trimmed it, at least one must still be there
(otherwise the match may be a later replay of the window, the originals
trimmed away). Several candidates are ambiguity; periodic output (``yes``,
repeated log lines) matches at many shifts and honestly reports
``lines_missed``.

A cursor whose window reaches the top of the grid (a *shallow* one) has no
sentinel row, so its rows vouch for its position only while the history is
too short to have been trimmed (at the limit, the ledger of ``_bounded``
can). A *young* cursor -- fewer than ``MIN_EVIDENCE`` rows above it --
vouches for nothing: its follow-up is a miss, even when the grid is as it
was (``clear`` at a bare prompt redraws exactly the prompt, after rows the
cursor never saw). Either, on a miss, had seen the whole grid and
resynchronises from its top rather than from the visible screen, saying in
``may_repeat`` how many leading lines may be rows it was given before.

The read is one atomic snapshot (state + rows in one tmux command list),
so output streaming during the call cannot tear it: ``plan`` says which
rows to read, ``first``/``advance`` turn the snapshot into a result.

What a delta contains: rows after the anchor up to the cursor row. The
cursor row itself is delivered only once it has text (or once the cursor
has left it), so a streaming log does not produce a trailing empty line;
when the row delivered last is rewritten in place (a prompt that got a
command typed on it, a progress line redrawn with ``\\r``), its new version
comes first and ``first_line_rewritten`` says it replaces the old one. Text
a program draws below its cursor is delivered once the cursor passes it.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ._cursor import (
    ANCHOR_DIGEST,
    SENTINEL_DIGEST,
    SENTINEL_OFFSETS,
    WINDOW,
    Cursor,
    CursorFormatError,
    fits,
    row_hash,
    window_digests,
)
from ._reflow import MIN_EVIDENCE, reflow_cells
from ._rows import RowMemory, Rows

#: Rows above the screen a bounded follow-up reads: the window, every
#: sentinel and some rows of new output (``gridmux.capture._bounded``).
REACH = WINDOW + SENTINEL_OFFSETS[-1] + 64


class StateView(Protocol):
    """What the core reads from a pane state (``gridmux.backend.PaneState``)."""

    @property
    def pane_id(self) -> str: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def dead(self) -> bool: ...
    @property
    def history_size(self) -> int: ...
    @property
    def history_limit(self) -> int: ...
    @property
    def cursor_y(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def alternate_on(self) -> bool: ...
    @property
    def server_pid(self) -> int: ...


class SnapshotView(Protocol):
    """State plus rows ``top .. top+len(rows)-1`` read at one instant."""

    @property
    def state(self) -> StateView: ...
    @property
    def top(self) -> int: ...
    @property
    def rows(self) -> Sequence[str]: ...
    @property
    def untrimmed_top(self) -> int: ...
    @property
    def untrimmed(self) -> Sequence[str]: ...
    @property
    def samples(self) -> Sequence[tuple[int, str]]: ...


class Refusal(enum.Enum):
    MALFORMED = "malformed"
    OTHER_PANE = "other-pane"
    OTHER_SERVER = "other-server"
    RESPAWNED = "respawned"
    DEAD = "dead"


class CursorRejected(Exception):
    def __init__(self, reason: Refusal, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """Rows to snapshot, as ``capture-pane -S`` / ``-E`` bounds, where the
    untrimmed rows (``capture-pane -N``, to the bottom of the screen) start,
    and single rows to sample in the same instant (``-S`` values)."""

    start: int | Literal["-"]
    end: int | Literal["-"] | None
    untrimmed_start: int | None = None
    samples: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Reading:
    lines: tuple[str, ...]
    cursor: Cursor
    lines_missed: bool
    first_line_rewritten: bool
    alternate_on: bool
    #: the new cursor's ledger (``gridmux.capture._bounded``), when the read
    #: saw every history row
    ledger: bytes | None = None
    #: how many leading ``lines`` may be rows the cursor's reader was given
    #: before: a shallow cursor that could not be placed resynchronises from
    #: the top of the grid (``_resync``)
    may_repeat: int = 0


#: The new cursor's window may start WINDOW rows above the screen, and the
#: two rows above the window are checked too (``reflow_cells``).
_UNTRIMMED_START = -(WINDOW + 2)
#: The first read needs the visible screen, up to WINDOW history rows above
#: it and the sentinel rows above those.
FIRST_PLAN = ReadPlan(
    start=-(WINDOW + SENTINEL_OFFSETS[-1]), end=None, untrimmed_start=_UNTRIMMED_START
)
#: A follow-up read scans every retained row, so a unique match is a proof.
FOLLOW_PLAN = ReadPlan(start="-", end=None, untrimmed_start=_UNTRIMMED_START)


def parse_cursor(text: str, *, pane_id: str | None) -> Cursor:
    """Decode a cursor and check it names ``pane_id`` when one was given."""
    try:
        cursor = Cursor.decode(text)
    except CursorFormatError as exc:
        raise CursorRejected(Refusal.MALFORMED, f"malformed cursor: {exc}") from exc
    if pane_id is not None and pane_id != cursor.pane_id:
        raise CursorRejected(
            Refusal.OTHER_PANE,
            f"the cursor belongs to pane {cursor.pane_id}, not {pane_id}",
        )
    return cursor


def first(
    snapshot: SnapshotView, *, memory: RowMemory | None = None, keep_ledger: bool = False
) -> Reading:
    """Start observing: the visible screen up to the cursor row, and a cursor.

    ``memory`` (the caller's, kept across calls) speeds up later follow-ups;
    without one they hash every retained row and answer the same."""
    state = snapshot.state
    _refuse_dead(state)
    rows = Rows(snapshot, memory)
    if state.alternate_on:
        return _full_screen(rows, state, lines_missed=False)
    reading = _visible(rows, state, lines_missed=False)
    return with_ledger(reading, rows, state) if keep_ledger else reading


def advance(
    cursor: Cursor,
    snapshot: SnapshotView,
    *,
    memory: RowMemory | None = None,
    keep_ledger: bool = False,
) -> Reading:
    """Everything written or rewritten since ``cursor``, or an honest miss.

    With ``keep_ledger`` the reading carries the new cursor's ledger (for a
    bounded follow-up, ``gridmux.capture._bounded``): it hashes every row."""
    state = snapshot.state
    _check_identity(cursor, state)
    if snapshot.top != 0:
        raise ValueError("advance() needs a snapshot of every retained row (FOLLOW_PLAN)")
    rows = Rows(snapshot, memory)
    reading = _advance(cursor, rows, state)
    return with_ledger(reading, rows, state) if keep_ledger else reading


def with_ledger(reading: Reading, rows: Rows, state: StateView) -> Reading:
    """``reading`` with the ledger of its cursor -- every row above its anchor --
    when ``rows`` hold them all: it makes a follow-up bounded in a long
    history, and places one at the limit that trimming left too few rows
    above to place by its own rows (``_bounded``)."""
    if rows.top != 0 or state.alternate_on:
        return reading
    return dataclasses.replace(reading, ledger=rows.ledger_range(0, reading.cursor.anchor))


def _advance(cursor: Cursor, rows: Rows, state: StateView) -> Reading:
    if state.alternate_on:
        # A full-screen program owns the screen; there is no transcript to diff.
        return _full_screen(rows, state, lines_missed=True)
    if cursor.alternate_on:
        return _visible(rows, state, lines_missed=True)
    reflowed = cursor.width != state.width
    if reflowed and (
        cursor.reflow_cells is None or cursor.reflow_cells > state.width or _young(cursor)
    ):
        # Reflow may have rewrapped the window rows, so they can no longer
        # vouch for a position (see reflow_cells).
        return _resync(cursor, rows, state, reflowed=True)
    position = _locate(cursor, rows, reflowed=reflowed, untrimmed=_untrimmed(state))
    new_anchor = state.history_size + state.cursor_y
    if position is None or new_anchor < position:
        return _resync(cursor, rows, state)
    return deliver(cursor, rows, state, position)


def _resync(cursor: Cursor, rows: Rows, state: StateView, *, reflowed: bool = False) -> Reading:
    """A miss. A shallow cursor (no sentinel row: its window reached the top
    of the grid) had seen the whole grid: it resynchronises from the grid's
    top, so nothing retained is withheld, and its first rows -- at most those
    up to its anchor, or every one after a reflow, which moves rows -- may be
    rows its reader was given. Any other from the visible screen."""
    if cursor.sentinels:
        return _visible(rows, state, lines_missed=True)
    reading = _visible(rows, state, lines_missed=True, top=0)
    seen = len(reading.lines) if reflowed else cursor.anchor + cursor.shown
    return dataclasses.replace(reading, may_repeat=min(seen, len(reading.lines)))


def deliver(cursor: Cursor, rows: Rows, state: StateView, position: int) -> Reading:
    """The delta from the anchor's proven ``position`` (at most the new anchor)."""
    new_anchor = state.history_size + state.cursor_y
    anchor_text = rows.text(position)
    changed = not row_hash(anchor_text).startswith(cursor.anchor_hash)
    rewrite = cursor.shown and changed
    # A row not delivered yet is delivered now (an empty cursor row is left out below).
    include_anchor = rewrite or not cursor.shown
    start = position if include_anchor else position + 1
    if start > new_anchor:
        # The cursor has not left the anchor row and that row has nothing new.
        return Reading((), _cursor_at(rows, state, cursor.shown), False, False, False)
    lines = rows.slice(start, new_anchor)
    # An empty cursor row is not delivered -- unless it is the delivered row erased.
    keep_empty_cursor_row = rewrite and position == new_anchor
    if lines[-1] == "" and not keep_empty_cursor_row:
        lines = lines[:-1]
        shown = False
    else:
        shown = True
    return Reading(lines, _cursor_at(rows, state, shown), False, rewrite and bool(lines), False)


def _check_identity(cursor: Cursor, state: StateView) -> None:
    if cursor.pane_id != state.pane_id:
        raise CursorRejected(
            Refusal.OTHER_PANE, f"the cursor belongs to pane {cursor.pane_id}, not {state.pane_id}"
        )
    if cursor.server_pid != state.server_pid:
        raise CursorRejected(
            Refusal.OTHER_SERVER,
            f"the cursor was made on another tmux server (pid {cursor.server_pid}, "
            f"this one is {state.server_pid})",
        )
    _refuse_dead(state)
    if cursor.pane_pid is not None and cursor.pane_pid != state.pid:
        raise CursorRejected(
            Refusal.RESPAWNED,
            f"pane {state.pane_id} was respawned: it ran pid {cursor.pane_pid}, now {state.pid}",
        )


def _refuse_dead(state: StateView) -> None:
    if state.dead:
        raise CursorRejected(Refusal.DEAD, f"the program in pane {state.pane_id} has exited")


def _locate(cursor: Cursor, rows: Rows, *, reflowed: bool, untrimmed: bool) -> int | None:
    """The unique position of the cursor's anchor row now, or None.

    Every position where the window lines up counts as a candidate (also
    where trimming left only ``MIN_EVIDENCE`` or more of its rows, and
    positions after the old anchor, where the anchor cannot be since rows
    only ever move up -- unless a narrower width split rows above it): a
    window that occurs twice shows repetitive output, where a match proves
    nothing. A single candidate is accepted only with sentinel evidence
    behind it (see the module docstring), which a window cut by trimming no
    longer has.
    """
    window = cursor.window
    k = len(window)
    if k < MIN_EVIDENCE:
        return None
    found: list[int] = []
    for p in rows.rows_after(window[-1], MIN_EVIDENCE - 1):
        m = min(k, p)
        if fits(rows.hash_range(p - m, p), window[k - m :]):
            found.append(p)
            if len(found) > 1:
                return None
    if not found or (found[0] > cursor.anchor and not reflowed):
        return None
    position = found[0]
    # Trimming may have left fewer than MIN_EVIDENCE window rows above the
    # true position, which then is no candidate: a single match proves
    # nothing if the top rows could be the window's surviving tail ...
    for p in range(1, min(MIN_EVIDENCE, position)):
        if fits(rows.hash_range(0, p), window[k - p :]):
            return None
    # ... or if the match is a replay of the window rows after trimming took
    # the originals: then the rows above it differ from those that were above
    # the window. Every sentinel row still there must match, and while tmux
    # may have trimmed, at least one must still be there.
    # Reflow leaves the first sentinel row alone (``reflow_cells``), not the others.
    sentinels = cursor.sentinels[:1] if reflowed else cursor.sentinels
    # Equivalent mutant: ``None`` for ``False`` -- only the truth of ``retained`` is read.
    retained = False  # pragma: no mutate
    for index, sentinel in enumerate(sentinels):
        row = position - k - SENTINEL_OFFSETS[index]
        if row < 0:
            break
        if not rows.hash_at(row).startswith(sentinel):
            return None
        retained = True
    return position if retained or untrimmed else None


def _young(cursor: Cursor) -> bool:
    """The cursor was taken within MIN_EVIDENCE rows of the top of the grid."""
    return len(cursor.window) < MIN_EVIDENCE


def _untrimmed(state: StateView) -> bool:
    """tmux cannot have trimmed this history since it was last cleared: a
    trim leaves ``limit + 1 - batch`` rows, and after it rows only grow --
    but for the few a taller pane pulls back out of history (at most its
    height)."""
    limit = state.history_limit
    return state.history_size + state.height <= limit - max(1, limit // 10)


def _visible(
    rows: Rows, state: StateView, *, lines_missed: bool, top: int | None = None
) -> Reading:
    """Rows from ``top`` (default: the visible screen) down to the cursor row,
    an empty cursor row left out."""
    first_row = state.history_size if top is None else top
    lines = rows.slice(first_row, state.history_size + state.cursor_y)
    shown = bool(lines) and lines[-1] != ""
    if not shown:
        lines = lines[:-1]  # the empty cursor row (or nothing: ``()[:-1]`` is ``()``)
    return Reading(lines, _cursor_at(rows, state, shown), lines_missed, False, False)


def _full_screen(rows: Rows, state: StateView, *, lines_missed: bool) -> Reading:
    screen = list(rows.tail(state.history_size))
    while screen and screen[-1] == "":
        screen.pop()
    return Reading(tuple(screen), _cursor_at(rows, state, False), lines_missed, False, True)


def _cursor_at(rows: Rows, state: StateView, shown: bool) -> Cursor:
    anchor = state.history_size + state.cursor_y
    k = min(WINDOW, anchor - rows.top)
    window = window_digests(rows.hash_range(anchor - k, anchor))
    if window:
        rows.remember(anchor - 1)
    return Cursor(
        server_pid=state.server_pid,
        pane_id=state.pane_id,
        pane_pid=state.pid,
        width=state.width,
        history_size=state.history_size,
        anchor=anchor,
        alternate_on=state.alternate_on,
        shown=shown,
        anchor_hash=row_hash(rows.text(anchor))[:ANCHOR_DIGEST],
        window=window,
        reflow_cells=reflow_cells(rows, anchor, len(window), state.width),
        sentinels=_sentinels(rows, anchor - len(window)),
    )


def _sentinels(rows: Rows, window_top: int) -> tuple[bytes, ...]:
    """Hashes of the rows SENTINEL_OFFSETS above the window, while the snapshot has them."""
    kept: list[bytes] = []
    for offset in SENTINEL_OFFSETS:
        row = window_top - offset
        if row < rows.top:
            break
        kept.append(rows.hash_at(row)[:SENTINEL_DIGEST])
    return tuple(kept)


#: ``_untrimmed`` for callers outside the core (run_command: whether row
#: indices still hold).
untrimmed = _untrimmed
