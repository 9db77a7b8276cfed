"""Bounded follow-ups: the cost of a read independent of the history's size.

Rules:

* A follow-up reads the rows near the screen (``REACH`` rows above it) and
  the oldest row, never the whole history -- when the caller holds the
  *ledger* of the cursor: every row above its anchor at the instant the
  cursor was made, keyed by ``_rows.ledger_of``.
  Without a ledger (a cursor from before a gridmux restart, from another
  process, or whose ledger was dropped), or whenever the bounded read cannot
  prove the position, the caller falls back to the full read and the content
  proof of ``_core.advance``. Never a guess.
* The ledger stays in the process (``Ledgers``): the cursor never carries it,
  so a cursor is as short, and as exact, after a restart as before it.

Why it is exact. tmux never changes a history row, and rows leave history
only from the top (trimming at ``history-limit``, ``clear-history``) or,
when a pane grows taller, from the bottom back onto the screen. So every row
the ledger holds that is still retained sits ``shift`` rows higher, one
``shift`` for all of them: the number of rows trimmed since. (Its rows that
were on the screen are checked as they are read; a program that rewrote one
leaves the full read to decide.)

* While tmux cannot have trimmed the history (``_untrimmed``: the history is
  a trim batch and the screen's height below its limit) the shift is 0.
* Where it may have, the oldest retained row (row 0, read with the rows
  near the screen) measures it: while the anchor is retained, row 0 is the
  ledger's row ``shift``, so every place of row 0's key in the ledger is a
  candidate. At the true one, the rows read that were history rows when the
  ledger was made, and still are, are the ledger's: rows nothing changes.
  A candidate must agree so, and only one may: a second (a history that
  repeats at that distance, such as ``yes``) leaves the full read to decide.

At that shift, every ledger row the snapshot holds (about ``REACH``, rows
that were on the screen too) must be there, unchanged, and the window and
the sentinels the snapshot holds must be at the anchor. A read where a check
fails, or where the window lies above the rows read (about ``REACH`` new
rows since the cursor), falls back.

Shallow anchors at the limit. A burst that trims the history to within a
few rows above the anchor leaves the window cut and no sentinel row, so the
content proof must miss; the ledger still places it, on a read of every row
(``follow``): row 0 is the ledger's row ``shift``, every row above the
anchor is checked against the ledger, and the shift must be whole trim
batches (a tenth of the limit: tmux trims nothing else at a steady limit).
What it cannot tell from the truth: after a clear, output that replays
those few rows at the oldest row of a history refilled to the limit. A
*young* cursor (fewer than ``MIN_EVIDENCE`` rows above it) is never placed
by a shift it assumes to be 0: ``clear`` at a bare prompt replays its rows.

What a bounded read could still get wrong is what the content proof could
too: output that, after the anchor was trimmed or cleared away, replays the
rows above it at row 0, at the ledger rows the snapshot holds, in the window
and in the sentinels. While the anchor is retained the shift is
measured, not guessed: a command that prints the same lines again is told
from the first run by the older rows around it.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Sequence

from ._core import (
    _UNTRIMMED_START,
    FOLLOW_PLAN,
    REACH,
    Reading,
    ReadPlan,
    SnapshotView,
    StateView,
    _check_identity,
    _untrimmed,
    advance,
    deliver,
)
from ._cursor import SENTINEL_OFFSETS, WINDOW, Cursor, fits
from ._reflow import MIN_EVIDENCE
from ._rows import LEDGER_ITEM, RowMemory, Rows, ledger_of

#: Ledgers a process keeps, newest first; about 8 bytes per history row each.
DEFAULT_LEDGERS = 64
#: ... and at most this many bytes of them all (a 100,000-row ledger is 800 KB).
DEFAULT_LEDGER_BYTES = 32 * 1024 * 1024
#: An ``-S`` value below every history: tmux reads it as the oldest row.
_OLDEST = -(2**31)
#: More places of row 0's key in a ledger than this: too repetitive to measure.
_MAX_CANDIDATES = 1024


def bounded_plan(cursor: Cursor) -> ReadPlan:
    """The rows a bounded follow-up reads: ``REACH`` rows above the screen and,
    for a cursor with a longer history, the oldest row."""
    samples = (_OLDEST,) if cursor.history_size > REACH else ()
    return ReadPlan(start=-REACH, end=None, untrimmed_start=_UNTRIMMED_START, samples=samples)


def advance_bounded(
    cursor: Cursor, ledger: bytes, snapshot: SnapshotView, *, memory: RowMemory | None = None
) -> Reading | None:
    """The exact delta since ``cursor`` from a ``bounded_plan`` snapshot (or
    one of every row), or None when it cannot be proven from it."""
    state = snapshot.state
    _check_identity(cursor, state)
    if (
        state.alternate_on
        or cursor.alternate_on
        or state.width != cursor.width
        or len(ledger) != cursor.anchor * LEDGER_ITEM
    ):
        return None
    rows = Rows(snapshot, memory)
    near = rows.ledger_range(rows.top, rows.end)
    if _untrimmed(state):
        if len(cursor.window) < MIN_EVIDENCE:
            return None  # young: a clear could have replayed every row it has
        shift = 0
    else:
        candidates = _candidates(ledger, _oldest(snapshot))
        if candidates is None:
            return None
        kept = [d for d in candidates if _history_agrees(cursor, ledger, rows, near, state, d)]
        if len(kept) != 1:
            return None  # no shift, or two: the full read decides
        (shift,) = kept
        if cursor.anchor - shift <= WINDOW and shift % max(1, state.history_limit // 10):
            return None  # a shallow placement, by a shift no run of trims makes
    if not _placed(cursor, ledger, rows, near, state, shift):
        return None
    reading = deliver(cursor, rows, state, cursor.anchor - shift)
    top = rows.top
    above = ledger[shift * LEDGER_ITEM : (top + shift) * LEDGER_ITEM]
    return dataclasses.replace(
        reading, ledger=above + near[: (reading.cursor.anchor - top) * LEDGER_ITEM]
    )


def _oldest(snapshot: SnapshotView) -> Sequence[tuple[int, str]]:
    """The oldest row the snapshot holds, as a sample: row 0 of a read of
    every row, else the oldest sampled."""
    if snapshot.top == 0 and snapshot.rows:
        return ((0, snapshot.rows[0]),)
    return snapshot.samples


def _candidates(ledger: bytes, samples: Sequence[tuple[int, str]]) -> list[int] | None:
    """Every shift that puts the oldest sampled row (the oldest retained one)
    where the ledger has it; None when there are too many to try."""
    if not samples:
        return None
    oldest, text = min(samples)
    key = ledger_of((text,))
    found: list[int] = []
    at = ledger.find(key)
    while at >= 0:
        if at % LEDGER_ITEM == 0 and at // LEDGER_ITEM >= oldest:
            found.append(at // LEDGER_ITEM - oldest)
            if len(found) > _MAX_CANDIDATES:
                return None
        at = ledger.find(key, at + 1)
    return found


def _history_agrees(
    cursor: Cursor, ledger: bytes, rows: Rows, near: bytes, state: StateView, shift: int
) -> bool:
    """At ``shift``, the rows read that were history rows when the ledger was
    made and still are -- rows nothing can have changed -- are the ledger's.
    The true shift always agrees; so does any, when no such row was read (more
    new rows than the read holds): only a row that differs rules a shift out."""
    top = rows.top
    stop = min(cursor.history_size - shift, state.history_size)
    if stop <= top:
        return True  # none of them read: nothing rules this shift out
    held = ledger[(top + shift) * LEDGER_ITEM : (stop + shift) * LEDGER_ITEM]
    return held == near[: (stop - top) * LEDGER_ITEM]


def _placed(
    cursor: Cursor, ledger: bytes, rows: Rows, near: bytes, state: StateView, shift: int
) -> bool:
    """At ``shift``, the rows read agree with the cursor: every ledger row they
    hold is unchanged, the window and the sentinels they hold are at the anchor."""
    position = cursor.anchor - shift  # the ledger's rows: now rows 0 .. position - 1
    k = len(cursor.window)
    m = min(k, position)  # the window rows trimming left
    top = rows.top
    # The window and every row the ledger lacks must be in the snapshot (a
    # window cut by trimming: the snapshot of every row holds the rest).
    if position - m < top or position > state.history_size + state.cursor_y:
        return False
    # The ledger's rows that the snapshot holds as well are still there, unchanged.
    if ledger[(top + shift) * LEDGER_ITEM :] != near[: (position - top) * LEDGER_ITEM]:
        return False
    if not fits(rows.hash_range(position - m, position), cursor.window[k - m :]):
        return False
    # Sentinel rows above the snapshot are history rows the cursor saw, at a
    # known distance: unchanged, as every history row.
    return all(
        rows.hash_at(row).startswith(digest)
        for row, digest in zip(
            (position - k - offset for offset in SENTINEL_OFFSETS), cursor.sentinels, strict=False
        )
        if row >= top
    )


def follow(
    cursor: Cursor,
    ledger: bytes | None,
    read: Callable[[ReadPlan], SnapshotView],
    *,
    memory: RowMemory | None = None,
) -> Reading:
    """A follow-up as ``capture_since`` makes it: the bounded read when
    ``ledger`` (the cursor's, if the caller kept it) can prove the position,
    else the full read and the content proof, and where that misses, the
    ledger on the full read (a shallow anchor at the limit). ``read`` takes
    one atomic snapshot of the rows a plan names. The reading carries its
    cursor's ledger."""
    if ledger is None:
        return advance(cursor, read(FOLLOW_PLAN), memory=memory, keep_ledger=True)
    snap = read(bounded_plan(cursor))
    if snap.top != 0:
        found = advance_bounded(cursor, ledger, snap, memory=memory)
        if found is not None:
            return found
        snap = read(FOLLOW_PLAN)
    # The pane's whole grid: the content proof first, the ledger where it misses.
    reading = advance(cursor, snap, memory=memory, keep_ledger=True)
    if reading.lines_missed:
        return advance_bounded(cursor, ledger, snap, memory=memory) or reading
    return reading


class Ledgers:
    """Ledgers by the cursor text they belong to, the newest ``capacity`` kept,
    within ``max_bytes`` together (the newest one always).

    Shared by the worker threads of one server: every operation is a few
    ``OrderedDict`` operations under the GIL; a race can only drop one ledger
    more than needed, which costs a full read, never exactness."""

    __slots__ = ("_kept", "capacity", "max_bytes")

    def __init__(
        self, capacity: int = DEFAULT_LEDGERS, max_bytes: int = DEFAULT_LEDGER_BYTES
    ) -> None:
        if capacity < 1:
            raise ValueError("a ledger store keeps at least one ledger")
        self.capacity = capacity
        self.max_bytes = max_bytes
        self._kept: OrderedDict[str, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def size(self) -> int:
        """Bytes of all ledgers kept."""
        return sum(map(len, list(self._kept.values())))

    def get(self, cursor: str) -> bytes | None:
        return self._kept.get(cursor)

    def put(self, cursor: str, ledger: bytes | None) -> None:
        if ledger is None:
            return
        self._kept.pop(cursor, None)
        self._kept[cursor] = ledger
        while len(self._kept) > 1 and (
            len(self._kept) > self.capacity or self.size > self.max_bytes
        ):
            try:
                self._kept.popitem(last=False)
            except KeyError:  # emptied by another thread meanwhile
                break
