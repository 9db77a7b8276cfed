"""The sans-IO core of ``capture_since`` (standard library only; a test enforces it)."""

from ._bounded import Ledgers, advance_bounded, bounded_plan, follow
from ._core import (
    FIRST_PLAN,
    FOLLOW_PLAN,
    REACH,
    CursorRejected,
    Reading,
    ReadPlan,
    Refusal,
    SnapshotView,
    StateView,
    advance,
    first,
    parse_cursor,
    untrimmed,
)
from ._cursor import (
    MAX_LENGTH,
    PREFIX,
    SENTINEL_OFFSETS,
    WINDOW,
    Cursor,
    CursorFormatError,
    row_hash,
)
from ._limits import Limited, limit_tail, line_cost
from ._reflow import MIN_EVIDENCE
from ._rows import RowMemory

__all__ = [
    "FIRST_PLAN",
    "FOLLOW_PLAN",
    "MAX_LENGTH",
    "MIN_EVIDENCE",
    "PREFIX",
    "REACH",
    "SENTINEL_OFFSETS",
    "WINDOW",
    "Cursor",
    "CursorFormatError",
    "CursorRejected",
    "Ledgers",
    "Limited",
    "ReadPlan",
    "Reading",
    "Refusal",
    "RowMemory",
    "SnapshotView",
    "StateView",
    "advance",
    "advance_bounded",
    "bounded_plan",
    "first",
    "follow",
    "limit_tail",
    "line_cost",
    "parse_cursor",
    "row_hash",
    "untrimmed",
]
