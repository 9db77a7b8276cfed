"""Bounded follow-ups: the cost of a read independent of the history's size.

Rules:

* A follow-up reads the rows near the screen (``REACH`` rows above it),
  never the whole history -- when the caller holds the *ledger* of the
  cursor: the hashes of every history row at the instant the cursor was
  made. Without a ledger (a cursor from before a gridmux restart, from
  another process, or whose ledger was dropped), or whenever the bounded
  read cannot prove the position, the caller falls back to the full read and
  the content proof of ``_core.advance``. Never a guess.
* The ledger stays in the process (``Ledgers``): the cursor never carries it,
  so a cursor is as short, and as exact, after a restart as before it.

Why it is exact. It answers only while tmux cannot have trimmed the history
since it was last cleared (``_untrimmed``: the history is a trim batch and
the screen's height below its limit), and then no history row has moved:
rows leave history only from the top (trimming, ``clear-history``) or, when
a pane grows taller, from the bottom back onto the screen. So every ledger
row the snapshot holds (about ``REACH`` of them) must be there, unchanged, at
its own index, and the window at the anchor; the window rows and the
sentinels the snapshot holds are checked there. A read where a row differs,
or where the window lies above the rows read (about ``REACH`` new history
rows since the cursor), falls back.

Where tmux may have trimmed, the full read decides. Content near the screen
cannot tell how far rows moved: a command that prints the same lines again
puts, at the top of the rows read, new rows equal to old ones at a fixed
distance, and a block of them found once in the ledger gave a false
distance, a delta with rows left out and called exact. tmux has no count of
the rows it wrote to say it instead, and a trim moves rows by whole batches
that repetitive output can match too.

What a bounded read could still get wrong is what the content proof could
too: a ``clear-history`` followed by output that replays, at their
indices, every ledger row the snapshot holds, the window and the sentinels.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

from ._core import (
    _UNTRIMMED_START,
    REACH,
    Reading,
    ReadPlan,
    SnapshotView,
    _check_identity,
    _untrimmed,
    deliver,
)
from ._cursor import HASH_SIZE, SENTINEL_OFFSETS, Cursor, fits
from ._rows import RowMemory, Rows

#: Ledgers a process keeps, newest first; about 8 bytes per history row each.
DEFAULT_LEDGERS = 64


def bounded_plan() -> ReadPlan:
    """The rows a bounded follow-up reads: ``REACH`` rows above the screen."""
    return ReadPlan(start=-REACH, end=None, untrimmed_start=_UNTRIMMED_START)


def advance_bounded(
    cursor: Cursor, ledger: bytes, snapshot: SnapshotView, *, memory: RowMemory | None = None
) -> Reading | None:
    """The exact delta since ``cursor`` from a ``bounded_plan`` snapshot, or
    None when it cannot be proven from it (read everything then)."""
    state = snapshot.state
    _check_identity(cursor, state)
    old = cursor.history_size
    if (
        snapshot.top == 0  # the snapshot holds every row: the content proof is as cheap
        or state.alternate_on
        or cursor.alternate_on
        or state.width != cursor.width
        or len(ledger) != old * HASH_SIZE
    ):
        return None
    if not _untrimmed(state):  # rows may have moved: only the full read can tell how far
        return None
    rows = Rows(snapshot, memory)
    position = cursor.anchor  # no row has moved
    k = len(cursor.window)
    top = snapshot.top
    # The window and every history row the ledger lacks must be in the snapshot.
    if min(position - k, old) < top:
        return None
    # The ledger's rows that the snapshot holds as well are still there, unchanged.
    if ledger[top * HASH_SIZE :] != b"".join(rows.hash_range(top, old)):
        return None
    new_anchor = state.history_size + state.cursor_y
    if position > new_anchor or not fits(rows.hash_range(position - k, position), cursor.window):
        return None
    # Sentinel rows above the snapshot are history rows the cursor saw, at a
    # known distance: unchanged, as every history row.
    if any(
        not rows.hash_at(row).startswith(digest)
        for row, digest in zip(
            (position - k - offset for offset in SENTINEL_OFFSETS), cursor.sentinels, strict=False
        )
        if row >= top
    ):
        return None
    reading = deliver(cursor, rows, state, position)
    kept = ledger[: top * HASH_SIZE]
    fresh = b"".join(rows.hash_range(top, state.history_size))
    return dataclasses.replace(reading, ledger=kept + fresh)


class Ledgers:
    """Ledgers by the cursor text they belong to, the newest ``capacity`` kept.

    Shared by the worker threads of one server: every operation is a single
    ``OrderedDict`` operation under the GIL."""

    __slots__ = ("_kept", "capacity")

    def __init__(self, capacity: int = DEFAULT_LEDGERS) -> None:
        if capacity < 1:
            raise ValueError("a ledger store keeps at least one ledger")
        self.capacity = capacity
        self._kept: OrderedDict[str, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, cursor: str) -> bytes | None:
        return self._kept.get(cursor)

    def put(self, cursor: str, ledger: bytes | None) -> None:
        if ledger is None:
            return
        self._kept[cursor] = ledger
        self._kept.move_to_end(cursor)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)
