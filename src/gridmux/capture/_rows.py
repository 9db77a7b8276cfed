"""Snapshot rows by absolute index, and the row texts a caller keeps between reads.

Rules:

* ``RowMemory`` is owned by whoever drives the core (the MCP server keeps one
  for its lifetime); the core holds no state between calls. It is bounded: it
  forgets everything when full, and forgetting only costs speed -- a row the
  memory does not know is found by hashing the retained rows instead.
* ``Rows`` hashes each snapshot row at most once.
* A *ledger* (``_bounded``) is a history's rows as ``ledger_of`` keys them:
  Python's own string hash, 8 bytes a row -- fast (a tenth of the row hash's
  cost) and never outside the process that made it, whose hash seed it uses.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Protocol

from ._cursor import ANCHOR_DIGEST, row_hash

#: How many row texts a memory keeps before it starts over.
DEFAULT_CAPACITY = 4096
#: Bytes a ledger keeps per row.
LEDGER_ITEM = 8


def ledger_of(texts: Iterable[str]) -> bytes:
    """The ledger entries of ``texts``, in order (see the module doc)."""
    return array("q", map(hash, texts)).tobytes()


class RowMemory:
    """Texts of the rows that ended a cursor's window, by their hash.

    With one at hand, a follow-up finds where that row is now by comparing
    text (``list.index`` speed) and hashes only the rows around the matches,
    instead of hashing every retained row. Safe to share across worker
    threads: every operation is a single dict operation.
    """

    __slots__ = ("_texts", "capacity")

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("a row memory keeps at least one row")
        self.capacity = capacity
        self._texts: dict[bytes, str] = {}

    def __len__(self) -> int:
        return len(self._texts)

    def recall(self, digest: bytes) -> str | None:
        """The text of a remembered row whose hash starts with ``digest``
        (a cursor's key digest), if kept."""
        return self._texts.get(digest[:ANCHOR_DIGEST])

    def keep(self, text: str) -> None:
        """Remember ``text`` under its row hash; start over when full."""
        if len(self._texts) >= self.capacity:
            self._texts.clear()
        self._texts[row_hash(text)[:ANCHOR_DIGEST]] = text


class SnapshotRows(Protocol):
    """The parts of a snapshot ``Rows`` reads (``gridmux.backend.PaneSnapshot``)."""

    @property
    def top(self) -> int: ...
    @property
    def rows(self) -> Sequence[str]: ...
    @property
    def untrimmed_top(self) -> int: ...
    @property
    def untrimmed(self) -> Sequence[str]: ...


class Rows:
    """Snapshot rows addressed by absolute index, each hashed at most once."""

    __slots__ = ("_hashes", "end", "memory", "rows", "top", "untrimmed", "untrimmed_top")

    def __init__(self, snapshot: SnapshotRows, memory: RowMemory | None) -> None:
        self.rows = snapshot.rows
        self.top = snapshot.top
        self.end = snapshot.top + len(snapshot.rows)
        self.untrimmed = snapshot.untrimmed
        self.untrimmed_top = snapshot.untrimmed_top
        self.memory = memory
        self._hashes: list[bytes | None] = [None] * len(snapshot.rows)

    def untrimmed_text(self, absolute: int) -> str | None:
        """Row ``absolute`` as ``capture-pane -N`` printed it, when the snapshot has it."""
        index = absolute - self.untrimmed_top
        return self.untrimmed[index] if 0 <= index < len(self.untrimmed) else None

    def text(self, absolute: int) -> str:
        if not self.top <= absolute < self.end:
            raise ValueError(f"row {absolute} is outside the snapshot ({self.top}..{self.end - 1})")
        return self.rows[absolute - self.top]

    def slice(self, first: int, last: int) -> tuple[str, ...]:
        """Rows ``first..last`` inclusive (empty when ``last < first``)."""
        return tuple(self.rows[max(first - self.top, 0) : max(last + 1 - self.top, 0)])

    def tail(self, first: int) -> tuple[str, ...]:
        """Rows ``first`` .. the last row of the snapshot (the bottom of the screen)."""
        return tuple(self.rows[first - self.top :])

    def hash_at(self, absolute: int) -> bytes:
        index = absolute - self.top
        if index < 0:
            raise ValueError(f"row {absolute} is above the snapshot (top {self.top})")
        # Equivalent mutant: ``found = None`` only hashes again (the list saves time).
        found = self._hashes[index]  # pragma: no mutate
        if found is None:
            found = self._hashes[index] = row_hash(self.rows[index])
        return found

    def hash_range(self, first: int, stop: int) -> tuple[bytes, ...]:
        """Hashes of rows ``first .. stop - 1``."""
        return tuple(self.hash_at(row) for row in range(first, stop))

    def ledger_range(self, first: int, stop: int) -> bytes:
        """The ledger entries of rows ``first .. stop - 1`` (all in the snapshot)."""
        if first < self.top or stop > self.end:
            raise ValueError(f"rows {first}..{stop - 1} are not all in the snapshot")
        return ledger_of(self.rows[first - self.top : stop - self.top])

    def rows_after(self, digest: bytes, first: int) -> list[int]:
        """Every ``p`` with row ``p - 1`` (at least ``first``) whose hash starts
        with ``digest``."""
        start = max(first, self.top) - self.top
        text = None if self.memory is None else self.memory.recall(digest)
        if text is None:
            top = self.top
            return [
                i + 1 + top
                for i in range(start, len(self.rows))
                if self.hash_at(i + top).startswith(digest)
            ]
        ends: list[int] = []
        rows = self.rows
        try:
            while True:
                index = rows.index(text, start)
                ends.append(index + 1 + self.top)
                start = index + 1
        except ValueError:
            return ends

    def remember(self, absolute: int) -> None:
        """Keep the text of row ``absolute`` for ``rows_after`` of later snapshots."""
        if self.memory is not None:
            self.memory.keep(self.text(absolute))
