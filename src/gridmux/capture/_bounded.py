"""Bounded follow-ups: the cost of a read independent of the history's size.

Rules:

* A follow-up reads the rows near the screen (``REACH`` rows above it) and
  the oldest ``HEAD`` history rows, never the whole history -- when the
  caller holds the *ledger* of the cursor: the hashes of every history row
  at the instant the cursor was made. Without a ledger (a cursor from before
  a gridmux restart, from another process, or whose ledger was dropped), or
  whenever the bounded read cannot prove the position, the caller falls back
  to the full read and the content proof of ``_core.advance``. Never a guess.
* The ledger stays in the process (``Ledgers``): the cursor never carries it,
  so a cursor is as short and as exact after a restart as before it.

Why it is exact. tmux never changes a history row: rows leave history only
from the top (trimming, ``clear-history``) or, when a pane grows taller, from
the bottom back onto the screen. So the oldest rows now are rows the ledger
holds, at the offset ``d`` of the rows trimmed since the cursor: when the
``HEAD`` oldest rows fit the ledger at exactly one offset, that offset is
``d``, and the anchor row is at ``anchor - d`` -- no search among the rows,
hence no ambiguity from repetitive output, and no replay can stand in for
it. The window rows and every sentinel are still checked at that position
(the rows around it are read fresh), and so is every ledger row the
snapshot holds (about ``REACH`` of them), and a read where the oldest rows fit
nowhere or at several offsets, where ``d > 0`` although tmux cannot have
trimmed (a ``clear-history``), or where the window lies above the rows read
(about ``REACH`` new history rows), falls back.

What a bounded read could still get wrong is what the content proof could
too: a ``clear-history`` followed by output that replays the ``HEAD``
oldest rows, every ledger row the snapshot holds, the window and the
sentinels, each at its distance.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Protocol

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
from ._cursor import HASH_SIZE, SENTINEL_OFFSETS, Cursor, fits, row_hash
from ._rows import RowMemory, Rows

#: The oldest history rows a bounded follow-up compares with the ledger.
HEAD = 32
#: Rows a pane may pull back out of history (by growing taller) and still
#: leave ``HEAD`` rows in the head a bounded plan reads.
HEAD_SLACK = 128
#: Ledgers a process keeps, newest first; about 8 bytes per history row each.
DEFAULT_LEDGERS = 64


class BoundedSnapshot(SnapshotView, Protocol):
    @property
    def head(self) -> tuple[str, ...]: ...


def bounded_plan(cursor: Cursor) -> ReadPlan:
    """The rows a bounded follow-up of ``cursor`` reads: ``REACH`` rows above
    the screen, and the oldest rows up to ``HEAD + HEAD_SLACK`` past the
    cursor's history size (so, when history only grew, every row added since
    as well: ``-E`` counts from the screen, and the history size now is not
    known before the read)."""
    return ReadPlan(
        start=-REACH,
        end=None,
        untrimmed_start=_UNTRIMMED_START,
        head_end=HEAD + HEAD_SLACK - 1 - cursor.history_size,
    )


def advance_bounded(
    cursor: Cursor, ledger: bytes, snapshot: BoundedSnapshot, *, memory: RowMemory | None = None
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
        or len(snapshot.head) < HEAD
    ):
        return None
    rows = Rows(snapshot, memory)
    d = _trimmed(ledger, b"".join(row_hash(text) for text in snapshot.head[:HEAD]))
    if d is None or (d > 0 and _untrimmed(state)):
        return None
    position = cursor.anchor - d
    k = len(cursor.window)
    top = snapshot.top
    # The window and every history row the ledger lacks must be in the snapshot.
    if min(position - k, old - d) < top:
        return None
    # The ledger's rows that the snapshot holds as well are still there, unchanged.
    if ledger[(top + d) * HASH_SIZE :] != b"".join(rows.hash_range(top, old - d)):
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
    kept = ledger[d * HASH_SIZE : (top + d) * HASH_SIZE]
    fresh = b"".join(rows.hash_range(top, state.history_size))
    return dataclasses.replace(reading, ledger=kept + fresh)


def _trimmed(ledger: bytes, head: bytes) -> int | None:
    """The one row offset at which ``head`` (packed row hashes) lies wholly
    inside ``ledger``, or None when there is none or more than one."""
    found: int | None = None
    start = 0
    while True:
        at = ledger.find(head, start)
        if at < 0:
            return found
        start = at + 1
        if at % HASH_SIZE:
            continue
        if found is not None:
            return None
        found = at // HASH_SIZE


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
